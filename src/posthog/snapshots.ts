
/**
 * Reading PostHog's snapshot data (docs/posthog-api.md, "Snapshots"): what to fetch of the sources listing
 * (operations/snapshots.ts reads it), the line forms of every source PostHog has served, and
 * posthog-js's compressed event fields.
 */

import type { SnapshotSource } from './answers.js';
import { BudgetExceeded } from './budget.js';
import { FULL_SNAPSHOT, INCREMENTAL_SNAPSHOT, MUTATION, STYLE_SHEET_RULE } from './rrweb.js';

export type { SnapshotSource };

export interface RrwebEvent {
  type: number;
  timestamp: number;
  data?: unknown;
  [key: string]: unknown;
}

export interface WindowedEvent {
  windowId: string | null;
  event: RrwebEvent;
}

/** A unit of fetching: a range of blob_v2 blocks, or one keyed source. */
export type FetchUnit =
  | { kind: 'blob_v2'; start: number; end: number }
  | { kind: 'blob_v2_lts' | 'blob'; key: string }
  /** Realtime holds the newest, unflushed events; `after` skips what the blocks already hold. */
  | { kind: 'realtime'; after?: number };

/** PostHog lets a personal API key fetch at most this many blocks per request (end − start ≤ 20, docs/posthog-api.md, "Snapshots"). */
export const MAX_BLOCKS_PER_REQUEST = 21;

/**
 * Upstream requests one reading of one recording may make (its metadata, the listing, every
 * block range or source, retries included): a free PostHog key's hourly replay budget (60/h), so
 * no listing, however long or oddly keyed, spends more than an hour of a free key on one call.
 * Contiguous blob_v2 blocks go 21 to a request, so this reads up to 1,239 blocks.
 */
export const MAX_REQUESTS_PER_RECORDING = 60;

/** The fan-out bound was reached: what was read is kept, the rest is named as not read. */
export class RecordingBoundReached extends BudgetExceeded {
  constructor(limit: number, where: string) {
    super('requests', `Reading one recording makes at most ${limit} upstream requests (a free PostHog key's hourly replay budget); ${where} was not sent.`);
  }
}

/** Counts the requests of one reading of one recording (RequestOptions.meter): past the bound, RecordingBoundReached. */
export class RecordingMeter {
  requests = 0;
  constructor(readonly limit = MAX_REQUESTS_PER_RECORDING) {}

  spend(where: string): void {
    if (this.requests >= this.limit) throw new RecordingBoundReached(this.limit, where);
    this.requests++;
  }
}

/** A unit as a reader names it ("Blocks 0-20", "Source blob k7"). */
export function unitName(unit: FetchUnit): string {
  if (unit.kind === 'blob_v2') return unit.start === unit.end ? `Block ${unit.start}` : `Blocks ${unit.start}-${unit.end}`;
  if (unit.kind === 'realtime') return 'The realtime (not yet stored) data';
  return `Source ${unit.kind} ${unit.key.slice(0, 60)}`;
}

/** Units named in a message, at most `shown` of them, then how many more. */
export function unitNames(units: readonly FetchUnit[], shown = 10): string {
  const names = units.slice(0, shown).map(unitName);
  if (units.length > shown) names.push(`and ${units.length - shown} more`);
  return names.join(', ');
}

/**
 * What to fetch, in order. blob_v2 blocks (integer keys) are grouped into contiguous ranges; an
 * LTS copy stands alone. Legacy blobs are read only when no v2 data exists, because mixing them
 * with v2 duplicates events. A realtime source comes last, from after the last stored block's
 * end: it holds the newest events, not yet flushed to storage. Duplicate keys are read once.
 */
export function planUnits(sources: SnapshotSource[]): FetchUnit[] {
  const v2Blocks = new Set<number>();
  const units: FetchUnit[] = [];
  let lastBlockEnd: number | undefined;
  for (const s of sources) {
    if (s.source === 'blob_v2' && s.blob_key !== null && /^\d+$/.test(s.blob_key)) v2Blocks.add(Number(s.blob_key));
    else if ((s.source === 'blob_v2_lts' || s.source === 'blob_v2') && s.blob_key && !units.some((u) => 'key' in u && u.key === s.blob_key)) {
      units.push({ kind: 'blob_v2_lts', key: s.blob_key });
    }
    if (s.source !== 'realtime' && s.end_timestamp) {
      const end = Date.parse(s.end_timestamp);
      if (!Number.isNaN(end)) lastBlockEnd = Math.max(lastBlockEnd ?? end, end);
    }
  }
  const ranges: FetchUnit[] = [];
  for (const block of [...v2Blocks].sort((a, b) => a - b)) {
    const last = ranges[ranges.length - 1];
    if (last && last.kind === 'blob_v2' && block === last.end + 1 && block - last.start < MAX_BLOCKS_PER_REQUEST) last.end = block;
    else ranges.push({ kind: 'blob_v2', start: block, end: block });
  }
  const stored: FetchUnit[] = [...ranges, ...units];
  if (stored.length === 0) {
    const seen = new Set<string>();
    for (const s of sources) {
      if (s.source === 'blob' && s.blob_key && !seen.has(s.blob_key)) {
        seen.add(s.blob_key);
        stored.push({ kind: 'blob', key: s.blob_key });
      }
    }
  }
  if (sources.some((s) => s.source === 'realtime')) stored.push(lastBlockEnd === undefined ? { kind: 'realtime' } : { kind: 'realtime', after: lastBlockEnd });
  return stored;
}

/** The query string that fetches one unit. */
export function unitQuery(unit: FetchUnit): Record<string, string> {
  switch (unit.kind) {
    case 'blob_v2':
      return { source: 'blob_v2', start_blob_key: String(unit.start), end_blob_key: String(unit.end) };
    case 'blob_v2_lts':
    case 'blob':
      return { source: unit.kind, blob_key: unit.key };
    case 'realtime':
      return { source: 'realtime', version: '2024-04-30' };
  }
}

/**
 * Thrown by eventsFromLine given `inflateHere`: the line's compressed fields hold more than that
 * (a small line may inflate to megabytes). The reader parses such a line elsewhere (a worker).
 */
export class InflatesTooMuch extends Error {
  constructor() {
    super('the line inflates past what is parsed in this thread');
  }
}

/**
 * Turns one line of snapshot data into events. Forms: `[windowId, event]` (blob_v2, LTS),
 * `{window_id|windowId, data: [events]}` (legacy blob), a bare event with `windowId` (realtime),
 * and `{snapshots: [...]}` (realtime's JSON body). Returns null for a line that is none of these.
 * With `inflateHere`, a line whose compressed fields inflate past that many bytes in all throws
 * InflatesTooMuch.
 */
export function eventsFromLine(line: string, inflateHere?: number): WindowedEvent[] | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  return eventsFromValue(value, true, inflateHere === undefined ? undefined : { left: inflateHere });
}

/** `{snapshots: [...]}` wraps events one level deep, never another wrapper. */
function eventsFromValue(value: unknown, outer: boolean, here: { left: number } | undefined): WindowedEvent[] | null {
  if (Array.isArray(value)) {
    if (value.length === 2 && (typeof value[0] === 'string' || value[0] === null) && isEvent(value[1])) {
      return [{ windowId: value[0], event: decompressEvent(value[1], here) }];
    }
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.snapshots)) {
    return outer ? record.snapshots.flatMap((item) => eventsFromValue(item, false, here) ?? []) : null;
  }
  if (Array.isArray(record.data) && !('type' in record)) {
    const windowId = windowOf(record);
    return record.data.filter(isEvent).map((event) => ({ windowId, event: decompressEvent(event, here) }));
  }
  if (isEvent(record)) return [{ windowId: windowOf(record), event: decompressEvent(record, here) }];
  return null;
}

function windowOf(record: Record<string, unknown>): string | null {
  const id = record.window_id ?? record.windowId;
  return typeof id === 'string' ? id : null;
}

export function isEvent(value: unknown): value is RrwebEvent {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as RrwebEvent).type === 'number' &&
    typeof (value as RrwebEvent).timestamp === 'number'
  );
}


/**
 * posthog-js (cv "2024-10") gzips the heavy parts of some events and sends the bytes as a latin1
 * string: a full snapshot's `data`; a mutation's adds/removes/texts/attributes; a style sheet
 * rule's adds/removes. A field that fails to decompress (corrupt, or past the inflate bound) is
 * never passed on as its bytes: no reader can use them, and no scan for the API key sees into
 * them. A full snapshot's data becomes UNREADABLE_DATA; a mutation's or rule's field, empty.
 * `here`: what the reader inflates in its own thread (eventsFromLine), shared by a line's events;
 * past it, InflatesTooMuch.
 */
export function decompressEvent(event: RrwebEvent, here?: { left: number }): RrwebEvent {
  if (!('cv' in event)) return event;
  const { cv: _version, ...rest } = event;
  // One budget for all of an event's fields: four fields must not inflate to four times the cap.
  const budget = { left: MAX_INFLATED_BYTES, here };
  if (event.type === FULL_SNAPSHOT && typeof event.data === 'string') {
    return { ...rest, data: unzipField(event.data, budget) ?? UNREADABLE_DATA };
  }
  if (event.type === INCREMENTAL_SNAPSHOT && typeof event.data === 'object' && event.data !== null) {
    const data = { ...(event.data as Record<string, unknown>) };
    const fields =
      data.source === MUTATION ? ['adds', 'removes', 'texts', 'attributes'] : data.source === STYLE_SHEET_RULE ? ['adds', 'removes'] : [];
    for (const field of fields) {
      if (typeof data[field] === 'string') data[field] = unzipField(data[field] as string, budget) ?? [];
    }
    return { ...rest, data };
  }
  return event;
}

/** A full snapshot's data that was compressed and could not be read (corrupt, or too large). */
export const UNREADABLE_DATA = '<compressed data that could not be read>';

/** The most one event's compressed fields may inflate to, together. */
const MAX_INFLATED_BYTES = 8 * 1024 * 1024;

function unzipField(text: string, budget: { left: number; here?: { left: number } | undefined }): unknown {
  const here = budget.here;
  // Within what the reader inflates in its own thread, else within the event's bound.
  const bound = here && here.left < budget.left ? here.left : budget.left;
  try {
    // The bytes are carried one per character; base64 is accepted too, as some exports use it.
    const bytes = text.charCodeAt(0) === 0x1f && text.charCodeAt(1) === 0x8b ? Buffer.from(text, 'latin1') : Buffer.from(text, 'base64');
    // A bounded inflate: a compressed field is small on the wire but could expand without limit.
    // zlib is loaded by the first compressed field, not at start-up (it costs ~2 ms to load).
    const inflated = process.getBuiltinModule('node:zlib').gunzipSync(bytes, { maxOutputLength: Math.max(1, bound) });
    budget.left -= inflated.length;
    if (here) here.left -= inflated.length;
    return JSON.parse(inflated.toString('utf8'));
  } catch (err) {
    if (bound !== budget.left && (err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw new InflatesTooMuch();
    return undefined;
  }
}

/** A line longer than this is dropped unread: a full snapshot of a huge page is a few MB. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** What `lines` yields in place of a dropped line: not JSON, so readers count it as unreadable. */
export const OVERLONG_LINE = '<line too long>';

/**
 * A line longer than a reader parses in its own thread (LineSplitter's `largeFrom`): its bytes,
 * undecoded, for a worker to parse.
 */
export interface LargeLine {
  chunks: Buffer[];
  bytes: number;
}

/**
 * Splits bytes into lines as they arrive, holding no more than one line (plus a chunk), and
 * decodes each line whole so multi-byte characters split across chunks stay intact. A line
 * longer than the limit is dropped unread and reported as OVERLONG_LINE; with `largeFrom`, a
 * line longer than that is handed over as its bytes (LargeLine), not decoded here.
 */
export class LineSplitter {
  private carry: Buffer[] = [];
  private carried = 0;
  private overlong = false;

  constructor(
    private readonly maxLineBytes = MAX_LINE_BYTES,
    private readonly largeFrom = Infinity,
  ) {}

  push(chunk: Buffer): string[];
  push(chunk: Buffer, large: true): Array<string | LargeLine>;
  push(chunk: Buffer): Array<string | LargeLine> {
    const out: Array<string | LargeLine> = [];
    let start = 0;
    let newline = chunk.indexOf(0x0a, start);
    while (newline !== -1) {
      if (this.overlong || this.carried + (newline - start) > this.maxLineBytes) {
        this.overlong = false;
        out.push(OVERLONG_LINE);
      } else if (this.carried + (newline - start) > this.largeFrom) {
        out.push({ chunks: [...this.carry, chunk.subarray(start, newline)], bytes: this.carried + (newline - start) });
      } else {
        // Most lines lie inside one chunk: decode them in place, without a copy.
        const line = this.carry.length === 0 ? chunk.toString('utf8', start, newline) : Buffer.concat([...this.carry, chunk.subarray(start, newline)]).toString('utf8');
        if (line.trim()) out.push(line);
      }
      this.carry = [];
      this.carried = 0;
      start = newline + 1;
      newline = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length && !this.overlong) {
      this.carry.push(chunk.subarray(start));
      this.carried += chunk.length - start;
      if (this.carried > this.maxLineBytes) {
        this.overlong = true;
        this.carry = [];
        this.carried = 0;
      }
    }
    return out;
  }

  /** The last line (a body need not end with a newline). */
  end(): string[];
  end(large: true): Array<string | LargeLine>;
  end(): Array<string | LargeLine> {
    if (this.overlong) return [OVERLONG_LINE];
    const carry = this.carry;
    const carried = this.carried;
    this.carry = [];
    this.carried = 0;
    if (carried > this.largeFrom) return [{ chunks: carry, bytes: carried }];
    const last = Buffer.concat(carry).toString('utf8');
    return last.trim() ? [last] : [];
  }
}

/** The lines of a byte stream (see LineSplitter). */
export async function* lines(chunks: AsyncIterable<Buffer>, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<string> {
  const splitter = new LineSplitter(maxLineBytes);
  for await (const chunk of chunks) yield* splitter.push(chunk);
  yield* splitter.end();
}

/** The same, with each line longer than `largeFrom` as its bytes (LargeLine). */
export async function* linesOrLarge(chunks: AsyncIterable<Buffer>, largeFrom: number, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<string | LargeLine> {
  const splitter = new LineSplitter(maxLineBytes, largeFrom);
  for await (const chunk of chunks) yield* splitter.push(chunk, true);
  yield* splitter.end(true);
}

/** rrweb's console plugin stringifies each argument (strings arrive JSON-quoted); join them back. */
export function consoleText(payload: unknown): string {
  if (!Array.isArray(payload)) return typeof payload === 'string' ? payload : '';
  return payload
    .slice(0, 10)
    .map((part) => {
      if (typeof part !== 'string') return JSON.stringify(part) ?? '';
      if (part.length >= 2 && part.startsWith('"') && part.endsWith('"')) {
        try {
          const parsed: unknown = JSON.parse(part);
          if (typeof parsed === 'string') return parsed;
        } catch {
          // not JSON after all: shown as recorded
        }
      }
      return part;
    })
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

