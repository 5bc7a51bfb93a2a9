import { UpstreamError, UpstreamUnavailableError } from '../../errors.js';
import { BudgetExceeded } from '../../posthog/budget.js';
import type { StreamedResponse } from '../../posthog/operations/index.js';
import { MAX_BLOCKS_PER_REQUEST, eventsFromLine, lines as readLines, unitNames, type FetchUnit, type RrwebEvent } from '../../posthog/snapshots.js';
import { UpstreamStalled } from '../../posthog/stall.js';

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

/**
 * Offers `take` every event from `start` on, until it says the page is full or the recording
 * ends. The events are as PostHog sent them: the caller's result must be scrubbed of the key
 * (every tool result is, in server.ts). A range PostHog says it can never serve (502 recording_blocks_unavailable, facts §10)
 * becomes a note and the walk goes on; a spent budget ends the walk where it got to, with the
 * events taken so far kept by the caller. Anything else is thrown.
 */
export async function walkUnits(
  /** One request's blocks (SnapshotOperations.blocks for the recording, its meter counting the fan-out bound, MAX_REQUESTS_PER_RECORDING). */
  blocks: (request: FetchUnit) => Promise<StreamedResponse>,
  start: Position,
  signal: AbortSignal,
  /** May answer later (a reader that yields to other calls between slices of work). */
  take: (windowId: string | null, event: RrwebEvent) => Take | Promise<Take>,
): Promise<Walk> {
  const units = start.units;
  let index = start.index;
  let skip = start.skip;
  let skippedLines = 0;
  const notes: string[] = [];
  let unavailable: UpstreamError | undefined;
  const walk = (next: Position | null, stopped?: BudgetExceeded): Walk => ({
    next,
    skippedLines,
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
    let seen = 0;
    let full = false;
    try {
      for await (const line of readLines(response.body)) {
        const parsed = eventsFromLine(line);
        if (parsed === null) {
          if (seen >= skip) skippedLines++;
          continue;
        }
        for (const { windowId, event } of parsed) {
          // Already on an earlier page, or also in the stored blocks (the realtime tail repeats them).
          if (seen < skip || (unit.kind === 'realtime' && unit.after !== undefined && event.timestamp <= unit.after)) {
            seen++;
            continue;
          }
          let verdict = take(windowId, event);
          if (typeof verdict !== 'string') verdict = await verdict;
          if (verdict !== 'none') seen++;
          if (verdict !== 'more') {
            full = true;
            break;
          }
        }
        if (full) break;
      }
    } catch (err) {
      // The call's wall clock ran out mid-body (or the body stalled): the events so far are kept, the rest is next.
      const stopped = stop(err);
      if (stopped && !signal.aborted) {
        response.cancel();
        return walk({ units, index, skip: Math.max(seen, skip) }, stopped);
      }
      throw err;
    } finally {
      if (full) response.cancel();
    }
    if (full) return walk({ units, index, skip: seen });
    advance(unit, request);
  }
  return walk(null);
}
