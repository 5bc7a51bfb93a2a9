/**
 * How one recorded event becomes part of a page: of the snapshots tool (masked, its request
 * bodies fitted, summarized when too large) or of the player's feed (masked, cut where it nests
 * too deep, as JSON). The tools do this in their own thread for every ordinary line; a line longer
 * than LARGE_LINE_BYTES is parsed and prepared the same way by LineEventsFeed in a worker
 * (jobs.ts), so that parsing and masking megabytes never holds the main thread.
 */

import type { Feed } from '../../digest/runner.js';
import { FULL_SNAPSHOT } from '../../posthog/rrweb.js';
import { eventsFromLine, type RrwebEvent } from '../../posthog/snapshots.js';
import { dropConnectionHints } from './connection-hints.js';
import { MAX_EVENT_DEPTH, maskTypedValues, nestedDeeperThan, networkRequests } from './event-privacy.js';

/**
 * A line longer than this (or inflating past it) is parsed in a worker. Parsing 1 MB of a page's
 * elements and preparing it for a snapshots page took 15–20 ms once warm (62 MB: 1.1 s,
 * measured), so no line the main thread parses costs much more than that.
 */
export const LARGE_LINE_BYTES = 1024 * 1024;

/** One event larger than this (a full DOM snapshot, a big mutation) is summarized on a snapshots page, not included. */
export const EVENT_BYTE_LIMIT = 6_000;
/** A recorded request or response body longer than this is cut when its event would not fit otherwise. */
const BODY_CHARS = 2_000;

/**
 * Elements nested deeper than this in a full snapshot are cut off in the player's feed (their
 * subtree is not sent). Each element level is two levels of JSON, and JSON.stringify recurses:
 * near 2,500 levels it overflows the stack, which failed the whole page. No real page nests this
 * deep; the player rebuilds this depth without trouble.
 */
export const MAX_FEED_NODE_DEPTH = 500;

/** For the snapshots page: masks (unless `reveal`) and fits the event, in place; whether it nests too deep to show (then left as it is). */
export function fitForPage(event: RrwebEvent, reveal: boolean): boolean {
  // Nested too deep to serialize (a hostile 10,000-level DOM): said, not returned.
  const tooDeep = nestedDeeperThan(event, MAX_EVENT_DEPTH);
  if (!tooDeep && !reveal) maskTypedValues(event);
  if (!tooDeep) fitRequestBodies(event);
  return tooDeep;
}

/**
 * A request's bodies are what an agent reads a network event for (the error a server answered),
 * so a large one is cut to fit rather than the whole event left out: first to BODY_CHARS each,
 * then shorter, and only then is the event summarized.
 */
function fitRequestBodies(event: RrwebEvent): void {
  const requests = networkRequests(event);
  if (requests.length === 0) return;
  for (const cap of [BODY_CHARS, 500, 0]) {
    if (Buffer.byteLength(JSON.stringify(event)) <= EVENT_BYTE_LIMIT) return;
    for (const r of requests) {
      for (const key of ['requestBody', 'responseBody']) {
        const body = r[key];
        if (body === undefined || body === null) continue;
        const text = typeof body === 'string' ? body : (JSON.stringify(body) ?? '');
        if (text.length <= cap) continue;
        r[key] = cap === 0 ? `[${text.length} characters, too large for this page]` : `${text.slice(0, cap)}… [${text.length - cap} more characters not shown]`;
      }
    }
  }
}

/**
 * The most one event may weigh in the player's feed (its largest page, max_bytes). Whatever a
 * result holds, the main thread scans it for the key and writes it out in one piece each: at
 * about 3.6 ms a MB for the slowest of those (measured), a 62 MB event held the event loop for
 * over a second; an event past this is passed over, as the digest passes over a line past 8 MB.
 */
export const FEED_EVENT_MAX_BYTES = 16_000_000;

/**
 * A feed entry: `[window_id, event]` as JSON, or none for an event nested too deep to write or
 * past FEED_EVENT_MAX_BYTES (`tooLarge`); `cut` when its snapshot was cut (MAX_FEED_NODE_DEPTH).
 */
export interface FeedEntry {
  json?: string;
  cut: boolean;
  tooLarge?: true;
}

/**
 * The event as the player's feed sends it: what users typed (fields, Input events, request
 * bodies) and secrets in URLs masked; no connection hint left for the viewer's browser to follow.
 */
export function feedEntry(windowId: string | null, event: RrwebEvent): FeedEntry {
  maskTypedValues(event);
  dropConnectionHints(event);
  const cut = event.type === FULL_SNAPSHOT && cutDeepNodes((event.data as { node?: unknown } | undefined)?.node, MAX_FEED_NODE_DEPTH);
  let json: string;
  try {
    json = `[${JSON.stringify(windowId)},${JSON.stringify(event)}]`;
  } catch (err) {
    // Nested too deep to write as JSON (not a DOM tree, or not one the cut reaches): passed over.
    if (!(err instanceof RangeError)) throw err;
    return { cut };
  }
  return json.length > FEED_EVENT_MAX_BYTES ? { cut, tooLarge: true } : { json, cut };
}

/**
 * Cuts a snapshot's DOM tree below `maxDepth` elements (their children are dropped), in place and
 * without recursion (the tree may be thousands deep). Whether anything was cut.
 */
function cutDeepNodes(root: unknown, maxDepth: number): boolean {
  let cut = false;
  const stack: Array<{ node: unknown; depth: number }> = [{ node: root, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    const children = (node as { childNodes?: unknown }).childNodes;
    if (!Array.isArray(children) || children.length === 0) continue;
    if (depth >= maxDepth) {
      (node as { childNodes: unknown[] }).childNodes = [];
      cut = true;
      continue;
    }
    for (const child of children) stack.push({ node: child, depth: depth + 1 });
  }
  return cut;
}

/**
 * A snapshots page's event prepared in a worker: masked and fitted (fitForPage), as JSON when it
 * is small enough to show, else only its size; nothing more of one nested too deep to show.
 */
export interface PagePrepared {
  tooDeep: boolean;
  /** UTF-8 bytes of its JSON (without the page's window label). */
  bytes: number;
  json?: string;
}

/** What a long line's events are prepared for. */
export type LineOptions = { for: 'snapshots'; reveal: boolean } | { for: 'feed' };

/**
 * A long line's events, each as its type and time (what a reader needs to place it) and what was
 * made of it: PagePrepared for the snapshots tool, a FeedEntry for the feed. Null: the line is no
 * snapshot data.
 */
export type LineEvents<P extends PagePrepared | FeedEntry = PagePrepared | FeedEntry> = Array<{ windowId: string | null; event: RrwebEvent; prepared: P }> | null;

/** The job of a worker for one long line: its bytes in, its events prepared as the reader would (LineOptions). */
export class LineEventsFeed implements Feed<LineEvents> {
  private chunks: Buffer[] = [];

  constructor(private readonly options: LineOptions) {}

  startUnit(): void {}

  data(chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  endUnit(): void {}

  note(): void {}

  finish(): LineEvents {
    const line = Buffer.concat(this.chunks).toString('utf8');
    this.chunks = [];
    if (!line.trim()) return [];
    const parsed = eventsFromLine(line);
    if (parsed === null) return null;
    return parsed.map(({ windowId, event }) => ({
      windowId,
      // Its type and time are all a reader places an event by; the source names a summarized one.
      event: { type: event.type, timestamp: event.timestamp, ...sourceOf(event) },
      prepared: this.options.for === 'feed' ? feedEntry(windowId, event) : pagePrepared(event, this.options.reveal),
    }));
  }
}

/** What names a long line's event kind (snapshot-window.ts kindOf): its source, or its plugin (a network payload with large bodies). */
function sourceOf(event: RrwebEvent): { data?: { source?: number; plugin?: string } } {
  const data = event.data as { source?: unknown; plugin?: unknown } | null | undefined;
  if (typeof data?.source === 'number') return { data: { source: data.source } };
  if (typeof data?.plugin === 'string') return { data: { plugin: data.plugin.slice(0, 40) } };
  return {};
}

function pagePrepared(event: RrwebEvent, reveal: boolean): PagePrepared {
  const tooDeep = fitForPage(event, reveal);
  if (tooDeep) return { tooDeep, bytes: 0 };
  const json = JSON.stringify(event);
  const bytes = Buffer.byteLength(json);
  return bytes <= EVENT_BYTE_LIMIT ? { tooDeep, bytes, json } : { tooDeep, bytes };
}
