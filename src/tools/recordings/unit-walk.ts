import { UpstreamError, UpstreamUnavailableError } from '../../errors.js';
import { BudgetExceeded } from '../../posthog/budget.js';
import type { StreamedResponse } from '../../posthog/operations/index.js';
import { InflatesTooMuch, MAX_BLOCKS_PER_REQUEST, eventsFromLine, linesOrLarge, lines as readLines, unitNames, type FetchUnit, type LargeLine, type RrwebEvent } from '../../posthog/snapshots.js';
import { UpstreamStalled } from '../../posthog/stall.js';
import type { JobRunner } from '../../digest/runner.js';
import { LARGE_LINE_BYTES } from './event-output.js';

/**
 * Paging through a recording's stored data, one unit (block range, LTS file, realtime tail) at a
 * time, from a position a cursor can carry: what the snapshots tool and the player's feed share.
 */

export interface Position {
  units: FetchUnit[];
  /** index of units[0] in the full plan */
  index: number;
  /** events of units[0] already on earlier pages */
  skip: number;
}

/**
 * What a page says of each event it is offered: `more` (taken, go on), `last` (taken, and the page
 * is now full), `none` (the page is full without it: it opens the next page).
 */
export type Take = 'more' | 'last' | 'none';

export interface Walk {
  /** Where the next page starts; null at the end of the recording. */
  next: Position | null;
  /** Lines that were not snapshot data (counted once, on the page that reached them). */
  skippedLines: number;
  /** Block ranges PostHog cannot serve, skipped (their events are missing). */
  notes: string[];
  /** The first of those answers, for a reader that got nothing else. */
  unavailable?: UpstreamError;
  /** Why the walk stopped before the page was full (request or time budget, throttle, fan-out bound, a request that timed out). */
  stopped?: BudgetExceeded;
  /** With `stopped`: the parts not read (from where the next page starts). */
  notRead?: string;
}

/** The longest stretch of a walk's work (parsing lines, a page's take) before other calls get a turn. */
const SLICE_MS = 10;

/**
 * A reader's events of a line longer than LARGE_LINE_BYTES, made elsewhere (a worker, jobs.ts),
 * each with what the reader made of it (`prepared`, handed to take); null for a line that is not
 * snapshot data.
 */
export type LargeLines<P> = (line: LargeLine) => Promise<Array<{ windowId: string | null; event: RrwebEvent; prepared: P }> | null>;

/**
 * Offers `take` every event from `start` on, until it says the page is full or the recording
 * ends. The events are as PostHog sent them: the caller's result must be scrubbed of the key
 * (every tool result is, in server.ts). A range PostHog says it can never serve (502 recording_blocks_unavailable, docs/posthog-api.md, "Snapshots")
 * becomes a note and the walk goes on; a spent budget ends the walk where it got to, with the
 * events taken so far kept by the caller. Anything else is thrown. With `large`, a line longer
 * than LARGE_LINE_BYTES, or one that inflates past that, is not parsed here: its events come from
 * `large`, each offered with what was made of it. Past SLICE_MS of work the event loop turns, so other calls are answered.
 */
export async function walkUnits<P = never>(
  /** One request's blocks (SnapshotOperations.blocks for the recording, its meter counting the fan-out bound, MAX_REQUESTS_PER_RECORDING). */
  blocks: (request: FetchUnit) => Promise<StreamedResponse>,
  start: Position,
  signal: AbortSignal,
  /** May answer later (a reader that yields to other calls between slices of work). */
  take: (windowId: string | null, event: RrwebEvent, prepared?: P) => Take | Promise<Take>,
  large?: LargeLines<P>,
): Promise<Walk> {
  let slice = performance.now();
  return walkRequests(blocks, start, signal, async (unit, response, skip, reading) => {
    for await (const line of large ? linesOrLarge(response.body, LARGE_LINE_BYTES) : readLines(response.body)) {
      const parsed: Array<{ windowId: string | null; event: RrwebEvent; prepared?: P }> | null = typeof line !== 'string' ? await large!(line) : large ? await hereOrThere(line, large) : eventsFromLine(line);
      if (parsed === null) {
        if (reading.seen >= skip) reading.skippedLines++;
        continue;
      }
      for (const { windowId, event, prepared } of parsed) {
        // Already on an earlier page, or also in the stored blocks (the realtime tail repeats them).
        if (reading.seen < skip || (unit.kind === 'realtime' && unit.after !== undefined && event.timestamp <= unit.after)) {
          reading.seen++;
          continue;
        }
        let verdict = take(windowId, event, prepared);
        if (typeof verdict !== 'string') verdict = await verdict;
        if (verdict !== 'none') reading.seen++;
        if (verdict !== 'more') {
          reading.full = true;
          return;
        }
      }
      if (performance.now() - slice < SLICE_MS) continue;
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  });
}

/**
 * A line short enough to parse here, unless its compressed fields inflate past LARGE_LINE_BYTES
 * (a few KB of gzip can hold megabytes): then it goes where a long line goes.
 */
async function hereOrThere<P>(line: string, large: LargeLines<P>): Promise<Array<{ windowId: string | null; event: RrwebEvent; prepared?: P }> | null> {
  try {
    return eventsFromLine(line, LARGE_LINE_BYTES);
  } catch (err) {
    if (!(err instanceof InflatesTooMuch)) throw err;
    const bytes = Buffer.from(line);
    return large({ chunks: [bytes], bytes: bytes.length });
  }
}

/**
 * Streams every unit's body, from the first on, into a job (a reproduction, jobs.ts), with the
 * walk's rules for what PostHog cannot serve and for a spent budget. With a worker the job
 * fetches the bodies itself (`job.via`, given to `blocks`): none of their bytes come here.
 */
export async function streamUnits(blocks: (request: FetchUnit) => Promise<StreamedResponse>, units: FetchUnit[], signal: AbortSignal, job: JobRunner<unknown>): Promise<Walk> {
  return walkRequests(
    blocks,
    { units, index: 0, skip: 0 },
    signal,
    async (_unit, response) => {
      for await (const chunk of response.body) await job.data(chunk);
      await job.endUnit();
    },
    (unit) => job.startUnit(unit.kind === 'realtime' ? unit.after : undefined),
    () => job.failure,
  );
}

/** What the reader of a walk's bodies says as it goes: of the current request, how many events it has seen (where a page ends) and whether the page is full; of the walk, the lines that were not snapshot data. */
interface Reading {
  seen: number;
  full: boolean;
  skippedLines: number;
}

/**
 * The requests of a walk, one after another from `start`, each body handed to `read`, which
 * keeps `reading` current. `begin` is told of each request before it is sent; `failure`, the
 * reader's own failure, is thrown in place of the error it caused.
 */
async function walkRequests(
  blocks: (request: FetchUnit) => Promise<StreamedResponse>,
  start: Position,
  signal: AbortSignal,
  read: (unit: FetchUnit, response: StreamedResponse, skip: number, reading: Reading) => Promise<void>,
  begin?: (request: FetchUnit) => void,
  failure?: () => Error | undefined,
): Promise<Walk> {
  const units = start.units;
  let index = start.index;
  let skip = start.skip;
  const reading: Reading = { seen: 0, full: false, skippedLines: 0 };
  const notes: string[] = [];
  let unavailable: UpstreamError | undefined;
  const walk = (next: Position | null, stopped?: BudgetExceeded): Walk => ({
    next,
    skippedLines: reading.skippedLines,
    notes,
    ...(stopped ? { stopped, notRead: `${next?.units.length ?? 0} part(s) from here on (${unitNames(next?.units ?? [])})` } : {}),
    ...(unavailable ? { unavailable } : {}),
  });
  // A request that timed out ends the page where it got to (the breaker, stall.ts, keeps a
  // stalled upstream from costing more than that): the cursor asks for the same part again.
  const stop = (err: unknown): BudgetExceeded | undefined =>
    err instanceof BudgetExceeded ? err : err instanceof UpstreamUnavailableError && err.kind === 'timeout' ? new UpstreamStalled(err.message) : undefined;
  // This request's blocks are done (read or unavailable): move past them.
  const advance = (unit: FetchUnit, request: FetchUnit) => {
    if (unit.kind === 'blob_v2' && request.kind === 'blob_v2' && request.end < unit.end) unit.start = request.end + 1;
    else {
      units.shift();
      index++;
    }
    skip = 0;
  };

  while (units.length > 0) {
    const unit = units[0]!;
    const request: FetchUnit = unit.kind === 'blob_v2' ? { ...unit, end: Math.min(unit.end, unit.start + MAX_BLOCKS_PER_REQUEST - 1) } : unit;
    let response;
    begin?.(request);
    try {
      // As PostHog sent it: what a page shows is decoded (gzipped fields undone) and then scrubbed
      // of the key as a whole result (server.ts), which a scan of the raw bytes could not replace.
      response = await blocks(request);
    } catch (err) {
      const stopped = stop(err);
      if (stopped && !signal.aborted) return walk({ units, index, skip }, stopped);
      if (err instanceof UpstreamError && err.status === 502 && err.code === 'recording_blocks_unavailable') {
        notes.push(`${request.kind === 'blob_v2' ? `Blocks ${request.start}-${request.end}` : `Source ${request.kind}`} unavailable: PostHog cannot serve them (recording_blocks_unavailable); their events are missing.`);
        unavailable ??= err;
        advance(unit, request);
        continue;
      }
      throw err;
    }
    reading.seen = 0;
    reading.full = false;
    try {
      await read(unit, response, skip, reading);
    } catch (err) {
      const failed = failure?.();
      if (failed) throw failed;
      // The call's wall clock ran out mid-body (or the body stalled): the events so far are kept, the rest is next.
      const stopped = stop(err);
      if (stopped && !signal.aborted) {
        response.cancel();
        return walk({ units, index, skip: Math.max(reading.seen, skip) }, stopped);
      }
      throw err;
    } finally {
      if (reading.full) response.cancel();
    }
    if (reading.full) return walk({ units, index, skip: reading.seen });
    advance(unit, request);
  }
  return walk(null);
}
