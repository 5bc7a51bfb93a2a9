import { z } from 'zod';
import type { StreamedResponse } from '../../posthog/operations/index.js';
import { FULL_SNAPSHOT } from '../../posthog/rrweb.js';
import { RecordingMeter, planUnits, type FetchUnit, type LargeLine } from '../../posthog/snapshots.js';
import { defineTool } from '../define.js';
import { plural } from '../../words.js';
import { projectIdField, recordingIdField, resolveProjectId } from '../schemas.js';
import { PLAYER_URI } from './player.js';
import { explainRecordingError } from './not-found.js';
import { cursorAt, decodeCursor, encodeCursor, resumeFrom } from './snapshot-cursor.js';
import { FEED_EVENT_MAX_BYTES, MAX_FEED_NODE_DEPTH, feedEntry, type FeedEntry } from './event-output.js';
import { walkUnits, type Position } from './unit-walk.js';

const DEFAULT_PAGE_BYTES = 4_000_000;

/**
 * The player's own feed (MCP Apps: visible to the app only, never to the model): the recording's
 * rrweb events, decoded (every source form, posthog-js compression undone), in pages of
 * megabytes, full snapshots whole. The first page always reaches past the first full snapshot,
 * so the player can start as soon as it arrives. What users typed is masked as in the digest and
 * the snapshots tool (event-privacy.ts): a client that lists this tool although it is app-only
 * (stateless HTTP answers every client alike) learns nothing the other tools do not show.
 */
export const sessionRecordingReplayEvents = defineTool({
  name: 'session-recording-replay-events',
  title: 'Recording events for the player',
  toolset: 'recordings',
  description: `The replay player's feed (app-only): decoded rrweb events in large pages. Agents use session-recording-summary or -snapshots.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: (options) =>
    z.strictObject({
      project_id: projectIdField(options),
      id: recordingIdField,
      cursor: z.string().max(4_000).optional().describe('Previous next_cursor.'),
      max_bytes: z.number().int().min(10_000).max(16_000_000).optional().describe('Page size in JSON bytes (default 4 MB); one full snapshot may pass it.'),
    }),
  outputSchema: z.looseObject({
    // A JSON array of [window_id, rrweb event] pairs, in the recording's order, as one string:
    // hosts copy, relay and validate one string far faster than a hundred thousand small objects.
    events: z.string(),
    count: z.number().int(),
    next_cursor: z.string().nullable(),
  }),
  _meta: { ui: { resourceUri: PLAYER_URI, visibility: ['app'] } },
  async handler(input, { posthog, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const state = input.cursor ? decodeCursor(input.cursor, input.id, projectId) : undefined;
    let plan: FetchUnit[] | undefined;
    // One page makes at most MAX_REQUESTS_PER_RECORDING requests; the cursor goes on from there.
    const meter = new RecordingMeter();
    if (!state || !state.u) {
      plan = planUnits(await posthog.snapshots.sources(projectId, input.id, { signal, meter }));
    }
    const start = state ? resumeFrom(state, plan) : { units: plan ?? [], index: 0, skip: 0 };
    const page = await readEvents((unit) => posthog.snapshots.blocks(projectId, input.id, unit, { signal, meter }), start, input.max_bytes ?? DEFAULT_PAGE_BYTES, !state, signal, posthog.keyIdentity);
    const next_cursor = page.next ? encodeCursor(cursorAt(input.id, projectId, page.next)) : null;
    let events = `[${page.events.join(',')}]`;
    // The key is scrubbed from every result as a whole (server.ts), but this field is JSON text:
    // scrubbed as one string, a hit behind an escape would be shown decoded, and the JSON broken.
    // So where the key is, each event is scrubbed as a value, and the page made again.
    if (posthog.redact(events) !== events) events = `[${page.events.map((json) => JSON.stringify(posthog.redactValue(JSON.parse(json) as unknown))).join(',')}]`;
    const missing = page.notes.length > 0 ? ` ${page.notes.join(' ')}` : '';
    return {
      data: { project_id: projectId, id: input.id, events, count: page.events.length, skipped_lines: page.skippedLines, bytes: page.bytes, next_cursor, ...(page.notes.length > 0 ? { notes: page.notes } : {}) },
      text: `${plural(page.events.length, 'event')} (${Math.round(page.bytes / 1024)} KB) of recording ${input.id} for the player.${missing} ${next_cursor ? 'More: call again with next_cursor.' : 'End of recording.'}`,
    };
  },
  explainError: (error, input, { defaultProjectId }) => explainRecordingError(error, input.id, input.project_id ?? defaultProjectId),
});

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
