// Builds the demo recordings. Scripts (events with times relative to the recording start)
// are generated once per process; each sandbox then pins them to its own clock, and lays
// them out the way PostHog stores them (blob_v2 blocks, one LTS file, v1 blobs, realtime;
// snapshots.ts picks which of these the imitated API serves).

import { RECORDING_SEEDS, ltsBlobKey, type RecordingSeed, type ScriptedName } from './catalog.js';
import { recordedScript, scriptFromLines, type RecordedScript } from './recorded.js';
import { compressEvent } from './compress.js';
import { ACTIVE_SOURCES, EventType, IncrementalSource, MouseInteractions, shiftedEvent, type RrwebEvent } from './rrweb.js';
import { STORIES } from './stories.js';
import { RecordingBuilder, type AnalyticsEvent, type ConsoleEntry, type ScriptEvent } from './timeline.js';
import { uuidV7 } from '../util.js';

/** PostHog counts a gap of more than 5 s between interactions as inactivity. */
const ACTIVITY_GAP_MS = 5_000;
/** How much of a live recording has not been flushed to blocks yet. */
const REALTIME_TAIL_MS = 90_000;

export interface RecordingStats {
  durationMs: number;
  startUrl: string | null;
  clickCount: number;
  keypressCount: number;
  mouseActivityCount: number;
  consoleLogCount: number;
  consoleWarnCount: number;
  consoleErrorCount: number;
  activeMs: number;
}

export interface Script {
  seed: RecordingSeed;
  /** Stored form (compressed where the seed says so), times relative to the start. */
  events: ScriptEvent[];
  analytics: AnalyticsEvent[];
  console: ConsoleEntry[];
  stats: RecordingStats;
}

let scripts: ReadonlyMap<string, Script> | undefined;

/** All demo scripts by recording id, generated on first use (a few tens of ms). */
export function demoScripts(): ReadonlyMap<string, Script> {
  if (!scripts) {
    const built = new Map<string, Script>();
    for (const seed of RECORDING_SEEDS) built.set(seed.id, buildScript(seed));
    scripts = built;
  }
  return scripts;
}

/** A copy of a repeated recording starts this long after the previous one ends. */
const REPEAT_GAP_MS = 1_000;

export function buildScript(seed: RecordingSeed): Script {
  const { events: unsorted, analytics, console: consoleEntries } = seed.lines ? scriptFromLines(seed.lines, seed.captured) : seed.fixture ? recordedScript(seed.fixture) : storyScript(seed);
  const events = unsorted
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.event.timestamp - b.e.event.timestamp || a.i - b.i)
    .map(({ e }) => e);
  const stats = repeated(computeStats(events, consoleEntries), seed.repeat ?? 1);
  return {
    seed,
    events: seed.compressed ? events.map((e) => ({ windowId: e.windowId, event: compressEvent(e.event) })) : events,
    analytics,
    console: consoleEntries,
    stats,
  };
}

/** Metadata of a recording served `copies` times over. */
function repeated(stats: RecordingStats, copies: number): RecordingStats {
  if (copies === 1) return stats;
  const n = (value: number) => value * copies;
  return {
    ...stats,
    durationMs: stats.durationMs * copies + REPEAT_GAP_MS * (copies - 1),
    clickCount: n(stats.clickCount),
    keypressCount: n(stats.keypressCount),
    mouseActivityCount: n(stats.mouseActivityCount),
    consoleLogCount: n(stats.consoleLogCount),
    consoleWarnCount: n(stats.consoleWarnCount),
    consoleErrorCount: n(stats.consoleErrorCount),
    activeMs: n(stats.activeMs),
  };
}

function storyScript(seed: RecordingSeed): RecordedScript {
  const builder = new RecordingBuilder(seed.id, seed.device);
  STORIES[seed.name as ScriptedName](builder, seed);
  return { events: builder.events, analytics: builder.analytics, console: builder.consoleEntries };
}

function computeStats(events: ScriptEvent[], consoleEntries: ConsoleEntry[]): RecordingStats {
  let clickCount = 0;
  let keypressCount = 0;
  let mouseActivityCount = 0;
  let startUrl: string | null = null;
  const active: number[] = [];
  for (const { event } of events) {
    if (event.type === EventType.Meta && startUrl === null) startUrl = (event.data as { href: string }).href;
    if (event.type !== EventType.IncrementalSnapshot) continue;
    const data = event.data as { source: number; type?: number };
    if (ACTIVE_SOURCES.has(data.source)) active.push(event.timestamp);
    if (data.source === IncrementalSource.MouseInteraction) {
      mouseActivityCount++;
      if (data.type === MouseInteractions.Click || data.type === MouseInteractions.DblClick) clickCount++;
    } else if (data.source === IncrementalSource.MouseMove || data.source === IncrementalSource.TouchMove) {
      mouseActivityCount++;
    } else if (data.source === IncrementalSource.Input) {
      keypressCount++;
    }
  }
  let activeMs = 0;
  for (let i = 1; i < active.length; i++) {
    const gap = active[i]! - active[i - 1]!;
    if (gap <= ACTIVITY_GAP_MS) activeMs += gap;
  }
  const first = events[0]?.event.timestamp ?? 0;
  const last = events[events.length - 1]?.event.timestamp ?? 0;
  const count = (levels: string[]) => consoleEntries.filter((c) => levels.includes(c.level)).length;
  return {
    durationMs: last - first,
    startUrl,
    clickCount,
    keypressCount,
    mouseActivityCount,
    consoleLogCount: count(['log', 'info']),
    consoleWarnCount: count(['warn']),
    consoleErrorCount: count(['error']),
    activeMs,
  };
}

// ---------------------------------------------------------------------------------------
// A recording pinned to a sandbox clock.

export interface SnapshotBlock {
  startMs: number;
  endMs: number;
  body(): string;
}

export interface LegacyBlob {
  key: string;
  startMs: number;
  endMs: number;
  body(): string;
}

export interface CapturedEvent {
  uuid: string;
  event: string;
  timestampMs: number;
  distinctId: string;
  properties: Record<string, unknown>;
}

export class LiveRecording {
  readonly id: string;
  readonly startMs: number;
  readonly endMs: number;
  private blocksCache: SnapshotBlock[] | undefined;
  private legacyCache: LegacyBlob[] | undefined;
  private capturedCache: CapturedEvent[] | undefined;

  constructor(
    readonly script: Script,
    /** The sandbox clock this recording was pinned to. */
    readonly pinnedNowMs: number,
  ) {
    const nowMs = pinnedNowMs;
    const { seed, stats } = script;
    this.id = seed.id;
    this.startMs = seed.endsAgoMs !== undefined ? nowMs - seed.endsAgoMs - stats.durationMs : nowMs - (seed.startsAgoMs ?? 0);
    this.endMs = this.startMs + stats.durationMs;
  }

  get seed(): RecordingSeed {
    return this.script.seed;
  }

  /** Event as served: absolute timestamps, including the network plugin's own timestamps. */
  private absolute(event: RrwebEvent): RrwebEvent {
    return shiftedEvent(event, this.startMs);
  }

  private line(e: ScriptEvent, shiftMs = 0): string {
    return JSON.stringify([e.windowId, shiftedEvent(e.event, this.startMs + shiftMs)]);
  }

  /** Relative time after which events exist only in the realtime source. */
  private get realtimeCutoff(): number {
    return this.seed.storage === 'blob_v2+realtime' ? Math.max(0, this.script.stats.durationMs - REALTIME_TAIL_MS) : Infinity;
  }

  /** blob_v2 blocks: events cut into consecutive time slices, as the ingester flushes them. */
  blocks(): SnapshotBlock[] {
    if (this.blocksCache) return this.blocksCache;
    const blocks: SnapshotBlock[] = [];
    if (this.seed.storage === 'blob_v2' || this.seed.storage === 'blob_v2+realtime') {
      const cutoff = this.realtimeCutoff;
      let current: ScriptEvent[] = [];
      let blockStart = 0;
      const flush = () => {
        if (current.length === 0) return;
        const events = current;
        let body: string | undefined;
        blocks.push({
          startMs: this.startMs + events[0]!.event.timestamp,
          endMs: this.startMs + events[events.length - 1]!.event.timestamp,
          body: () => (body ??= events.map((e) => this.line(e)).join('\n') + '\n'),
        });
        current = [];
      };
      for (const e of this.script.events) {
        if (e.event.timestamp > cutoff) break;
        if (current.length > 0 && e.event.timestamp - blockStart >= this.seed.blockMs) flush();
        if (current.length === 0) blockStart = e.event.timestamp;
        current.push(e);
      }
      flush();
    }
    this.blocksCache = this.seed.repeat ? this.repeatBlocks(blocks) : blocks;
    return this.blocksCache;
  }

  /**
   * The blocks of every copy of a repeated recording. Bodies are made on each request and not
   * kept: a benchmark's recording is hundreds of MB and must not sit in the sandbox's memory.
   */
  private repeatBlocks(base: SnapshotBlock[]): SnapshotBlock[] {
    const copies = this.seed.repeat ?? 1;
    const events = this.script.events;
    const period = (events[events.length - 1]?.event.timestamp ?? 0) + REPEAT_GAP_MS;
    const ranges = base.map((block) => {
      const from = events.findIndex((e) => this.startMs + e.event.timestamp >= block.startMs);
      let to = from;
      while (to < events.length && this.startMs + events[to]!.event.timestamp <= block.endMs) to++;
      return { block, from, to };
    });
    const out: SnapshotBlock[] = [];
    for (let copy = 0; copy < copies; copy++) {
      const shiftMs = Math.round(copy * period);
      for (const { block, from, to } of ranges) {
        out.push({
          startMs: block.startMs + shiftMs,
          endMs: block.endMs + shiftMs,
          body: () => events.slice(from, to).map((e) => this.line(e, shiftMs)).join('\n') + '\n',
        });
      }
    }
    const perBlock = Math.max(1, Math.floor(this.seed.copiesPerBlock ?? 1));
    if (perBlock === 1) return out;
    // Every `perBlock` copies' blocks served as one block, their bodies one after another.
    const grouped: SnapshotBlock[] = [];
    const span = ranges.length * perBlock;
    for (let at = 0; at < out.length; at += span) {
      const group = out.slice(at, at + span);
      grouped.push({ startMs: group[0]!.startMs, endMs: group[group.length - 1]!.endMs, body: () => group.map((b) => b.body()).join('') });
    }
    return grouped;
  }

  get ltsKey(): string {
    return ltsBlobKey(this.seed.projectId, this.id);
  }

  /** The single long-term-storage file: every event, JSONL `[windowId, event]`. */
  ltsBody(): string {
    return this.script.events.map((e) => this.line(e)).join('\n');
  }

  /** v1 "blob" sources: a few files keyed `<first ms>-<last ms>`, lines `{window_id, data: [...]}`. */
  legacyBlobs(): LegacyBlob[] {
    if (this.legacyCache) return this.legacyCache;
    const out: LegacyBlob[] = [];
    if (this.seed.storage === 'blob') {
      const events = this.script.events;
      const parts = 3;
      const size = Math.ceil(events.length / parts);
      for (let p = 0; p < parts; p++) {
        const slice = events.slice(p * size, (p + 1) * size);
        if (slice.length === 0) continue;
        const startMs = this.startMs + slice[0]!.event.timestamp;
        const endMs = this.startMs + slice[slice.length - 1]!.event.timestamp;
        let body: string | undefined;
        out.push({
          key: `${startMs}-${endMs}`,
          startMs,
          endMs,
          body: () => (body ??= this.groupByWindow(slice).join('\n')),
        });
      }
    }
    this.legacyCache = out;
    return out;
  }

  /** Consecutive events of one window, up to 20 per line, as the v1 ingester wrote them. */
  private groupByWindow(events: ScriptEvent[]): string[] {
    const lines: string[] = [];
    let run: ScriptEvent[] = [];
    const flush = () => {
      if (run.length === 0) return;
      lines.push(JSON.stringify({ window_id: run[0]!.windowId, data: run.map((e) => this.absolute(e.event)) }));
      run = [];
    };
    for (const e of events) {
      if (run.length > 0 && (run[0]!.windowId !== e.windowId || run.length >= 20)) flush();
      run.push(e);
    }
    flush();
    return lines;
  }

  /** Events not yet flushed to blocks (only for the live recording). */
  realtimeEvents(): Array<{ windowId: string; event: RrwebEvent }> {
    if (this.seed.storage !== 'blob_v2+realtime') return [];
    const cutoff = this.realtimeCutoff;
    return this.script.events.filter((e) => e.event.timestamp > cutoff).map((e) => ({ windowId: e.windowId, event: this.absolute(e.event) }));
  }

  realtimeStartMs(): number {
    const first = this.script.events.find((e) => e.event.timestamp > this.realtimeCutoff);
    return this.startMs + (first?.event.timestamp ?? this.script.stats.durationMs);
  }

  realtimeLegacyLines(): string[] {
    const cutoff = this.realtimeCutoff;
    return this.groupByWindow(this.script.events.filter((e) => e.event.timestamp > cutoff));
  }

  /** The analytics events captured during the recording, with uuids and absolute times. */
  captured(): CapturedEvent[] {
    if (this.capturedCache) return this.capturedCache;
    this.capturedCache = this.script.analytics.map((a, i) => {
      const timestampMs = this.startMs + a.t;
      return {
        uuid: uuidV7(timestampMs, `${this.id}:${i}`),
        event: a.event,
        timestampMs,
        distinctId: this.seed.distinctId,
        properties: a.properties,
      };
    });
    return this.capturedCache;
  }
}

/** Every demo recording pinned to the clock `nowMs`. */
export function liveRecordings(nowMs: number): Map<string, LiveRecording> {
  const out = new Map<string, LiveRecording>();
  for (const [id, script] of demoScripts()) out.set(id, new LiveRecording(script, nowMs));
  return out;
}
