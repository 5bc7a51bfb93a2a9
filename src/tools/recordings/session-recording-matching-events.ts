import { z } from 'zod';
import { apiPath, encodeJsonQuery } from '../../posthog/query.js';
import { defineTool } from '../define.js';
import { asText, clip, shortTime } from '../format.js';
import { projectIdField, recordingIdField, resolveProjectId } from '../schemas.js';
import { explainInternalEndpoint } from './internal-endpoints.js';

const eventFilter = z
  .looseObject({
    id: z.string().min(1).max(400).describe('Event name.'),
    properties: z.array(z.record(z.string(), z.unknown())).max(50).optional().describe('PostHog property filters.'),
  });

const actionFilter = z.looseObject({ id: z.number().int().positive() });

const INSTEAD =
  'Instead: read the recording with session-recording-snapshots (clicks, page changes, console errors are in its events), or find recordings with session-recordings-list.';

export const sessionRecordingMatchingEvents = defineTool({
  name: 'session-recording-matching-events',
  title: 'Find events matching a filter in a recording',
  toolset: 'recordings',
  description: `Events (uuid, timestamp) in one recording that match event or action filters, e.g. when the user hit "$rageclick" or "$exception"; the timestamps locate the moment in session-recording-snapshots.
PostHog's endpoint is internal and refuses scoped API keys (403); the error says what to use instead.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: (options) =>
    z
      .strictObject({
        project_id: projectIdField(options),
        session_id: recordingIdField.describe('Recording (session) id.'),
        events: z.array(eventFilter).max(20).optional().describe('Event filters, [{"id": "$pageview"}]; any may match.'),
        actions: z.array(actionFilter).max(20).optional().describe('Action filters, [{"id": 12}].'),
        date_from: z.string().max(40).default('-90d').describe('Search from, e.g. "-30d" or "2025-06-01".'),
      })
      .refine((v) => (v.events?.length ?? 0) + (v.actions?.length ?? 0) > 0, {
        message: 'give at least one filter in events (e.g. [{"id":"$pageview"}]) or actions (e.g. [{"id": 12}])',
        path: ['events'],
      }),
  outputSchema: z.looseObject({
    project_id: z.string(),
    session_id: z.string(),
    results: z.array(z.looseObject({ uuid: z.string().nullable(), timestamp: z.string().nullable() })),
  }),
  async handler(input, { client, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const query = encodeJsonQuery({
      session_ids: [input.session_id],
      events: input.events?.map((e, order) => ({ type: 'events', name: e.id, order, ...e })),
      actions: input.actions?.map((a, order) => ({ type: 'actions', order, ...a })),
      date_from: input.date_from,
    });
    const body = await client.json<{ results?: unknown }>({
      method: 'GET',
      path: apiPath('projects', projectId, 'session_recordings', 'matching_events') + query,
      signal,
    });
    const results = Array.isArray(body?.results) ? (body.results as Array<Record<string, unknown>>).map(normalizeMatch) : [];
    const filters = [...(input.events ?? []).map((e) => e.id), ...(input.actions ?? []).map((a) => `action ${a.id}`)].join(', ');
    const text =
      results.length === 0
        ? `No events matching ${clip(filters, 200)} in recording ${input.session_id}.`
        : [`${results.length} event${results.length === 1 ? '' : 's'} matching ${clip(filters, 200)} in recording ${input.session_id}:`, ...results.map((r) => `${shortTime(r.timestamp)} ${r.uuid ?? ''}`)].join('\n');
    return { data: { project_id: projectId, session_id: input.session_id, results }, text };
  },
  explainError: (error) => explainInternalEndpoint(error, 'session_recordings/matching_events', INSTEAD),
});

/** Newer PostHog answers {uuid, timestamp}; older builds sent raw rows [uuid, timestamp, …]. */
function normalizeMatch(row: unknown): { uuid: string | null; timestamp: string | null } {
  if (Array.isArray(row)) return { uuid: row[0] != null ? asText(row[0]) : null, timestamp: row[1] != null ? asText(row[1]) : null };
  const record = (row ?? {}) as Record<string, unknown>;
  return {
    uuid: record.uuid != null ? asText(record.uuid) : null,
    timestamp: record.timestamp != null ? asText(record.timestamp) : null,
  };
}
