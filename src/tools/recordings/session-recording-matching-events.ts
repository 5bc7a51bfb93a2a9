import { z } from 'zod';
import { explainQueryError } from '../../posthog/hogql.js';
import { MAX_MATCHES } from '../../posthog/hogql-queries.js';
import { quote } from '../../digest/quote.js';
import { defineTool } from '../define.js';
import { RECORDED_DATA_NOTICE, clip } from '../format.js';
import { projectIdField, queryDateFromField, recordingIdField, resolveProjectId } from '../schemas.js';
import { explainInternalEndpoint } from './internal-endpoints.js';

/**
 * An event by name. Per-event property filters are not offered: today's PostHog answers this
 * question only through its query API, where they would need translating to HogQL (not done);
 * session-recordings-list's events filter takes them, to find the recordings.
 */
const eventFilter = z.strictObject({ id: z.string().min(1).max(400).describe('Event name.') });

const actionFilter = z.looseObject({ id: z.number().int().positive().describe('Action id.') });

const INSTEAD =
  'Instead: read the recording with session-recording-snapshots (clicks, page changes, console errors are in its events), or find recordings with session-recordings-list.';

export const sessionRecordingMatchingEvents = defineTool({
  name: 'session-recording-matching-events',
  title: 'Find events matching a filter in a recording',
  toolset: 'recordings',
  description: `Events (name, page URL, time, uuid) in one recording matching event and/or action filters (at least one), e.g. "$rageclick", "$exception": when it happened, to find in session-recording-snapshots. May need key scope query:read.`,
  recordedData: true,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: (options) =>
    z
      .strictObject({
        project_id: projectIdField(options),
        session_id: recordingIdField,
        events: z.array(eventFilter).max(20).optional().describe('[{"id": "$pageview"}]; any may match.'),
        actions: z.array(actionFilter).max(20).optional().describe('[{"id": 12}].'),
        date_from: queryDateFromField,
      })
      .refine((v) => (v.events?.length ?? 0) + (v.actions?.length ?? 0) > 0, {
        message: 'give at least one filter in events (e.g. [{"id":"$pageview"}]) or actions (e.g. [{"id": 12}])',
        path: ['events'],
      }),
  outputSchema: z.looseObject({
    project_id: z.string(),
    session_id: z.string(),
    results: z.array(z.looseObject({ uuid: z.string().nullable(), timestamp: z.string().nullable(), event: z.string().nullish(), url: z.string().nullish() })),
  }),
  async handler(input, { posthog, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const { result: results, via } = await posthog.recordings.matchingEvents(projectId, input, { signal });
    // Event names are chosen by whoever sends events: quoted wherever the text says one (docs/design.md, "Recorded text is data").
    const filters = [...(input.events ?? []).map((e) => quote(e.id)), ...(input.actions ?? []).map((a) => `action ${a.id}`)].join(', ');
    const capped = via === 'query' && results.length >= MAX_MATCHES;
    // One model view for both (docs/design.md, "Both views"): times to the millisecond, the URL
    // clipped alike, and the event name said once when every match has the same one.
    const names = new Set(results.map((r) => r.event ?? ''));
    const event = results.length > 0 && names.size === 1 && results[0]!.event ? results[0]!.event : undefined;
    const rows = results.map((r) => {
      const row: { uuid: string | null; timestamp: string | null; event?: string; url?: string } = { uuid: r.uuid, timestamp: r.timestamp };
      if (r.event && event === undefined) row.event = r.event;
      if (r.url) row.url = clip(r.url, 300);
      return row;
    });
    const note = capped ? `Only the first ${MAX_MATCHES} matches were read.` : undefined;
    const heading =
      results.length === 0
        ? `No events matching ${clip(filters, 200)} in recording ${input.session_id}.`
        : `${results.length} event${results.length === 1 ? '' : 's'}${event ? ` ${quote(event)}` : ''} matching ${clip(filters, 200)} in recording ${input.session_id} (UTC time, ${event ? '' : 'event, '}page URL, event uuid):`;
    const lines = rows.map((r) => [r.timestamp ? r.timestamp.replace('T', ' ') : '?', r.event ? quote(r.event) : '', r.url ? quote(r.url) : '', r.uuid ?? ''].filter(Boolean).join(' '));
    const text = [RECORDED_DATA_NOTICE, heading, ...lines, note ?? ''].filter(Boolean).join('\n');
    return { data: { project_id: projectId, session_id: input.session_id, ...(event ? { event } : {}), results: rows, ...(note ? { note } : {}) }, text };
  },
  explainError: (error, input) => {
    // PostHog's text for an unknown action id says "cohort" (matchesAction's message); 2024's endpoint names the action.
    if (error.status === 400 && /could not find (cohort with id|an action)|action \d+ does not exist/i.test(error.detail ?? '')) {
      return `An action id in actions (${(input.actions ?? []).map((a) => a.id).join(', ')}) does not exist in this project; PostHog lists actions under Data management → Actions.`;
    }
    return explainQueryError(error) ?? explainInternalEndpoint(error, 'session_recordings/matching_events', INSTEAD);
  },
});
