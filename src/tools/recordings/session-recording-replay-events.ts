import { z } from 'zod';
import { defineTool } from '../define.js';
import { plural } from '../../words.js';
import { projectIdField, recordingIdField, resolveProjectId } from '../schemas.js';
import { PLAYER_URI } from './player.js';
import { explainRecordingError } from './not-found.js';
import { readFeedPage } from './replay-feed.js';

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
    const page = await readFeedPage(posthog, { project_id: projectId, id: input.id, cursor: input.cursor, maxBytes: input.max_bytes ?? DEFAULT_PAGE_BYTES }, signal);
    const missing = page.notes.length > 0 ? ` ${page.notes.join(' ')}` : '';
    return {
      data: { project_id: projectId, id: input.id, events: page.events, count: page.count, skipped_lines: page.skippedLines, bytes: page.bytes, next_cursor: page.next_cursor, ...(page.notes.length > 0 ? { notes: page.notes } : {}) },
      text: `${plural(page.count, 'event')} (${Math.round(page.bytes / 1024)} KB) of recording ${input.id} for the player.${missing} ${page.next_cursor ? 'More: call again with next_cursor.' : 'End of recording.'}`,
    };
  },
  explainError: (error, input, { defaultProjectId }) => explainRecordingError(error, input.id, input.project_id ?? defaultProjectId),
});
