import type { PostHogOperations, StreamedResponse } from '../../posthog/operations/index.js';
import { FULL_SNAPSHOT } from '../../posthog/rrweb.js';
import { RecordingMeter, planUnits, type FetchUnit, type LargeLine } from '../../posthog/snapshots.js';
import { plural } from '../../words.js';
import { cursorAt, decodeCursor, encodeCursor, resumeFrom } from './snapshot-cursor.js';
import { FEED_EVENT_MAX_BYTES, MAX_FEED_NODE_DEPTH, feedEntry, type FeedEntry } from './event-output.js';
import { walkUnits, type Position } from './unit-walk.js';

/** One page of the player's feed: what session-recording-replay-events returns, and the watch page fetches. */
export interface FeedPage {
  /** A JSON array of [window_id, rrweb event] pairs, as one string */
  events: string;
  count: number;
  bytes: number;
  skippedLines: number;
  next_cursor: string | null;
  notes: string[];
}

/**
 * A page of the recording's rrweb events for the player (the replay's MCP App through
 * session-recording-replay-events, or its watch page), from `cursor` on, about `maxBytes` long.
 */
export async function readFeedPage(posthog: PostHogOperations, input: { project_id: string; id: string; cursor: string | undefined; maxBytes: number }, signal: AbortSignal): Promise<FeedPage> {
  const { project_id: projectId, id } = input;
  const state = input.cursor ? decodeCursor(input.cursor, id, projectId) : undefined;
  let plan: FetchUnit[] | undefined;
  // One page makes at most MAX_REQUESTS_PER_RECORDING requests; the cursor goes on from there.
  const meter = new RecordingMeter();
  if (!state || !state.u) {
    plan = planUnits(await posthog.snapshots.sources(projectId, id, { signal, meter }));
  }
  const start = state ? resumeFrom(state, plan) : { units: plan ?? [], index: 0, skip: 0 };
  const page = await readEvents((unit) => posthog.snapshots.blocks(projectId, id, unit, { signal, meter }), start, input.maxBytes, !state, signal, posthog.keyIdentity);
  const next_cursor = page.next ? encodeCursor(cursorAt(id, projectId, page.next)) : null;
  let events = `[${page.events.join(',')}]`;
  // The key is scrubbed from every result as a whole (server.ts), but this field is JSON text:
  // scrubbed as one string, a hit behind an escape would be shown decoded, and the JSON broken.
  // So where the key is, each event is scrubbed as a value, and the page made again.
  if (posthog.redact(events) !== events) events = `[${page.events.map((json) => JSON.stringify(posthog.redactValue(JSON.parse(json) as unknown))).join(',')}]`;
  return { events, count: page.events.length, bytes: page.bytes, skippedLines: page.skippedLines, next_cursor, notes: page.notes };
}

interface EventsPage {
  /** each one `[window_id, event]` as JSON */
  events: string[];
  bytes: number;
  skippedLines: number;
  next: Position | null;
  /** Block ranges PostHog cannot serve, passed over. */
  notes: string[];
}

/**
 * Reads events until the page holds `budget` bytes (and, on a first page, a full snapshot),
 * stopping after the event that crossed it: every page makes progress, whatever one event weighs.
 * Blocks PostHog cannot serve are passed over and named (the player plays what there is), unless
 * nothing at all could be served; a budget or throttle stop ends the page early with a cursor,
 * or fails the call when nothing was read.
 */
async function readEvents(blocks: (unit: FetchUnit) => Promise<StreamedResponse>, start: Position, budget: number, firstPage: boolean, signal: AbortSignal, user: string): Promise<EventsPage> {
  const events: EventsPage['events'] = [];
  let bytes = 0;
  let cut = 0;
  let passedOver = 0;
  let tooLarge = 0;
  let sawFull = !firstPage;
  // A recording with no full snapshot at all must still end its first page somewhere.
  const hardLimit = budget * 4;
  // A line too long to parse here is parsed, masked and written in a worker (event-output.ts).
  const large = async (line: LargeLine) => (await import('./jobs.js')).lineEvents<FeedEntry>(line, { for: 'feed' }, signal, user);
  const walk = await walkUnits<FeedEntry>(blocks, start, signal, (windowId, event, prepared) => {
    // What users typed (fields, Input events, request bodies) and secrets in URLs, masked.
    const entry = prepared ?? feedEntry(windowId, event);
    if (entry.cut) cut++;
    const json = entry.json;
    if (json === undefined) {
      if (entry.tooLarge) tooLarge++;
      else passedOver++;
      return 'more';
    }
    events.push(json);
    bytes += json.length;
    if (event.type === FULL_SNAPSHOT) sawFull = true;
    return bytes >= hardLimit || (bytes >= budget && sawFull) ? 'last' : 'more';
  }, large);
  if (walk.stopped && events.length === 0) throw walk.stopped;
  // Nothing of the recording could be served at all: that is PostHog's answer, not an empty recording.
  if (events.length === 0 && firstPage && walk.next === null && walk.unavailable) throw walk.unavailable;
  // Stopped short (fan-out bound, budget, a timeout): the page says so; the cursor goes on from there.
  const notes = walk.stopped ? [...walk.notes, `Stopped early: ${walk.stopped.message} Not read yet: ${walk.notRead}.`] : [...walk.notes];
  if (cut > 0) notes.push(`${plural(cut, 'page snapshot')} nested more than ${MAX_FEED_NODE_DEPTH} elements deep: what lies deeper is not shown.`);
  if (passedOver > 0) notes.push(`${plural(passedOver, 'event')} nested too deep to send ${passedOver === 1 ? 'was' : 'were'} passed over.`);
  if (tooLarge > 0) notes.push(`${plural(tooLarge, 'event')} larger than ${FEED_EVENT_MAX_BYTES / 1_000_000} MB ${tooLarge === 1 ? 'was' : 'were'} passed over: too large to send.`);
  return { events, bytes, skippedLines: walk.skippedLines, next: walk.next, notes };
}
