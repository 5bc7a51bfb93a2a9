import { z } from 'zod';
import { UpstreamError } from '../../errors.js';
import type { PostHogClient } from '../../posthog/client.js';
import { explainQueryError, resolveDate, runHogQL, withQueryFallback } from '../../posthog/hogql.js';
import { MAX_MATCHES, matchingEventsQuery } from '../../posthog/hogql-queries.js';
import { apiPath, encodeJsonQuery } from '../../posthog/query.js';
import { quote } from '../../digest/quote.js';
import { maskUrlSecrets } from '../../url-secrets.js';
import { defineTool } from '../define.js';
import { RECORDED_DATA_NOTICE, asText, clip } from '../format.js';
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

/** Events of a session may be stamped a little before its first snapshot or after its last. */
const WINDOW_MARGIN_MS = 60 * 60_000;

type Input = {
  session_id: string;
  events?: Array<z.infer<typeof eventFilter>> | undefined;
  actions?: Array<z.infer<typeof actionFilter>> | undefined;
  date_from: string;
};
/** A match: its event's name and the page it happened on, where known (the internal endpoint answers uuid and time only). */
type Match = { uuid: string | null; timestamp: string | null; event?: string | null; url?: string | null };

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
  async handler(input, { client, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const { result: results, via } = await withQueryFallback(
      client,
      'session_recordings/matching_events',
      () => viaEndpoint(client, projectId, input, signal),
      () => viaQuery(client, projectId, input, signal),
    );
    const filters = [...(input.events ?? []).map((e) => e.id), ...(input.actions ?? []).map((a) => `action ${a.id}`)].join(', ');
    const capped = via === 'query' && results.length >= MAX_MATCHES;
    // One model view for both (SPEC §1 "What the model reads"): times to the millisecond, the URL
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
        : `${results.length} event${results.length === 1 ? '' : 's'}${event ? ` ${event}` : ''} matching ${clip(filters, 200)} in recording ${input.session_id} (UTC time, ${event ? '' : 'event, '}page URL, event uuid):`;
    const lines = rows.map((r) => [r.timestamp ? r.timestamp.replace('T', ' ') : '?', r.event ?? '', r.url ? quote(r.url) : '', r.uuid ?? ''].filter(Boolean).join(' '));
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

/** The documented (internal) endpoint, as older self-hosted PostHog still serves it. */
async function viaEndpoint(client: PostHogClient, projectId: string, input: Input, signal: AbortSignal): Promise<Match[]> {
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
  // With one event filter and no action, every match is that event.
  const only = input.events?.length === 1 && !input.actions?.length ? input.events[0]!.id : undefined;
  return Array.isArray(body?.results) ? (body.results as unknown[]).map(normalizeMatch).map((m) => (only !== undefined ? { ...m, event: only } : m)) : [];
}

/**
 * The same question through the query API (matchingEventsQuery): actions are expanded by
 * PostHog's matchesAction() server-side, so no action needs fetching here.
 */
async function viaQuery(client: PostHogClient, projectId: string, input: Input, signal: AbortSignal): Promise<Match[]> {
  const [from, to] = await searchWindow(client, projectId, input, signal);
  const built = matchingEventsQuery({
    sessionId: input.session_id,
    eventNames: (input.events ?? []).map((e) => e.id),
    actionIds: (input.actions ?? []).map((a) => a.id),
    from,
    to,
  });
  const { rows } = await runHogQL(client, projectId, built, signal);
  return rows.map((row) => ({
    uuid: row.uuid != null ? asText(row.uuid) : null,
    timestamp: utcTime(row.timestamp),
    event: row.event != null ? asText(row.event) : null,
    url: row.url != null && row.url !== '' ? maskUrlSecrets(asText(row.url)) : null,
  }));
}

/**
 * The recording's own span (from its metadata, one cheap request) with a margin, so the events
 * scan stays small; for a recording PostHog no longer lists, date_from until now.
 */
async function searchWindow(client: PostHogClient, projectId: string, input: Input, signal: AbortSignal): Promise<[Date, Date]> {
  const now = Date.now();
  try {
    const meta = await client.json<Record<string, unknown>>({ method: 'GET', path: apiPath('projects', projectId, 'session_recordings', input.session_id), signal });
    const start = Date.parse(asText(meta?.start_time ?? ''));
    const end = Date.parse(asText(meta?.end_time ?? ''));
    if (Number.isFinite(start)) {
      return [new Date(start - WINDOW_MARGIN_MS), new Date(Math.min(now, (Number.isFinite(end) ? end : start + 86_400_000) + WINDOW_MARGIN_MS))];
    }
  } catch (error) {
    if (!(error instanceof UpstreamError && error.status === 404)) throw error;
  }
  return [resolveDate(input.date_from, now), new Date(now)];
}

/** Query results carry times in the project's timezone; tools show UTC like the endpoint does. */
function utcTime(value: unknown): string | null {
  if (value == null) return null;
  const ms = Date.parse(asText(value));
  return Number.isNaN(ms) ? asText(value) : new Date(ms).toISOString();
}

/** Newer PostHog answers {uuid, timestamp}; older builds sent raw rows [uuid, timestamp, …]. */
function normalizeMatch(row: unknown): Match {
  if (Array.isArray(row)) return { uuid: row[0] != null ? asText(row[0]) : null, timestamp: row[1] != null ? asText(row[1]) : null };
  const record = (row ?? {}) as Record<string, unknown>;
  return {
    uuid: record.uuid != null ? asText(record.uuid) : null,
    timestamp: record.timestamp != null ? asText(record.timestamp) : null,
  };
}
