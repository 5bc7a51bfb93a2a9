import { UpstreamError } from '../../errors.js';
import { maskUrlSecrets } from '../../url-secrets.js';
import { asText } from '../../words.js';
import { matchSchema, resultsListSchema, sessionPropertiesSchema, type Match, type SessionProperties } from '../answers.js';
import type { PostHogClient } from '../client.js';
import { resolveDate, withQueryFallback } from '../hogql.js';
import { matchingEventsQuery, SESSION_PROPERTY_KEYS, sessionPropertiesQuery } from '../hogql-queries.js';
import type { Page } from '../pagination.js';
import { apiPath, encodeJsonQuery, type QueryValue } from '../query.js';
import { recordingSchema, type Recording } from '../resources.js';
import type { QueryOperations } from './query.js';
import { parseAnswer, parseItems, parsePage, unusable } from './parse.js';
import type { CallOptions } from './options.js';

export type { Match, SessionProperties };

/**
 * The recordings list's parameters, sent as given and in the order given (PostHog's names:
 * date_from, order, session_ids, its filters…); limit and offset also page the answer.
 */
export type RecordingListQuery = { limit: number; offset?: number | undefined } & Record<string, QueryValue>;

/** What the matching-events question names, in PostHog's words. */
export interface MatchingEventsRequest {
  session_id: string;
  /** Event names, any of which may match. */
  events?: ReadonlyArray<{ id: string }> | undefined;
  /** Actions, by id, any of which may match. */
  actions?: ReadonlyArray<{ id: number } & Record<string, unknown>> | undefined;
  /** Where the query API searches from when the recording's own span is not known. */
  date_from: string;
}

/** An answer of an internal endpoint or of the query API standing in for it. */
export type Answered<T> = { result: T; via: 'endpoint' | 'query' };

export interface RecordingOperations {
  /** One page of a project's recordings; a row PostHog sent without an id is left out. */
  list(projectId: string, query: RecordingListQuery, options?: CallOptions & { patient?: boolean }): Promise<Page<Recording>>;
  /** One recording's metadata. */
  get(projectId: string, id: string, options?: CallOptions): Promise<Recording>;
  delete(projectId: string, id: string, options?: CallOptions): Promise<void>;
  /** Each session's first-pageview properties, in the order asked; from the internal endpoint, else the query API since `dateFrom`. */
  properties(projectId: string, sessionIds: readonly string[], dateFrom: string, options?: CallOptions): Promise<Answered<SessionProperties[]>>;
  /** One recording's events matching any of the filters; from the internal endpoint, else the query API. */
  matchingEvents(projectId: string, request: MatchingEventsRequest, options?: CallOptions): Promise<Answered<Match[]>>;
}

/** Events of a session may be stamped a little before its first snapshot or after its last. */
const WINDOW_MARGIN_MS = 60 * 60_000;

export function recordingOperations(client: PostHogClient, query: QueryOperations): RecordingOperations {
  const recordingPath = (projectId: string, id: string) => apiPath('projects', projectId, 'session_recordings', id);
  const readRecording = (body: unknown) => parseAnswer(recordingSchema, body, () => unusable('a recording', 'that has no id (not a recording this server can use)'));

  const operations: RecordingOperations = {
    async list(projectId, listQuery, options = {}) {
      const body = await client.json({ method: 'GET', path: apiPath('projects', projectId, 'session_recordings') + encodeJsonQuery(listQuery), signal: options.signal, patient: options.patient, meter: options.meter });
      return parsePage(recordingSchema, body, listQuery.offset ?? 0, 'recordings list', listQuery.limit);
    },

    async get(projectId, id, options = {}) {
      return readRecording(await client.json({ method: 'GET', path: recordingPath(projectId, id), signal: options.signal, meter: options.meter }));
    },

    async delete(projectId, id, options = {}) {
      await client.json({ method: 'DELETE', path: recordingPath(projectId, id), signal: options.signal, meter: options.meter });
    },

    properties(projectId, sessionIds, dateFrom, options = {}) {
      const { signal } = options;
      return withQueryFallback(
        client,
        'session_recordings/properties',
        // The documented endpoint, as 2024's PostHog served it.
        async () => {
          const body = await client.json({ method: 'GET', path: apiPath('projects', projectId, 'session_recordings', 'properties') + encodeJsonQuery({ session_ids: [...sessionIds] }), signal });
          return parseItems(sessionPropertiesSchema, parseAnswer(resultsListSchema, body, () => unusable('a properties answer', 'that is not an object')).results);
        },
        // The same answer from the events table: per session, each key's value on its first
        // $pageview or $autocapture event (argMin by timestamp), within [date_from, now].
        async () => {
          const now = Date.now();
          const { rows } = await query.hogql(projectId, sessionPropertiesQuery({ sessionIds, from: resolveDate(dateFrom, now), to: new Date(now) }), { signal });
          return rows
            .map((row) => ({
              id: asText(row.session_id ?? ''),
              properties: Object.fromEntries(SESSION_PROPERTY_KEYS.map((key, i) => [key, row[`prop_${i}`] ?? null])),
            }))
            .filter((r) => sessionIds.includes(r.id))
            .sort((a, b) => sessionIds.indexOf(a.id) - sessionIds.indexOf(b.id));
        },
      );
    },

    matchingEvents(projectId, request, options = {}) {
      const { signal } = options;
      return withQueryFallback(
        client,
        'session_recordings/matching_events',
        // The documented (internal) endpoint, as older self-hosted PostHog still serves it.
        async () => {
          const params = encodeJsonQuery({
            session_ids: [request.session_id],
            events: request.events?.map((e, order) => ({ type: 'events', name: e.id, order, ...e })),
            actions: request.actions?.map((a, order) => ({ type: 'actions', order, ...a })),
            date_from: request.date_from,
          });
          const body = await client.json({ method: 'GET', path: apiPath('projects', projectId, 'session_recordings', 'matching_events') + params, signal });
          // With one event filter and no action, every match is that event.
          const only = request.events?.length === 1 && !request.actions?.length ? request.events[0]!.id : undefined;
          const matches = parseItems(matchSchema, parseAnswer(resultsListSchema, body, () => unusable('a matching-events answer', 'that is not an object')).results);
          return only !== undefined ? matches.map((m) => ({ ...m, event: only })) : matches;
        },
        // The same question through the query API (matchingEventsQuery): actions are expanded by
        // PostHog's matchesAction() server-side, so no action needs fetching here.
        async () => {
          const [from, to] = await searchWindow(projectId, request, signal);
          const built = matchingEventsQuery({
            sessionId: request.session_id,
            eventNames: (request.events ?? []).map((e) => e.id),
            actionIds: (request.actions ?? []).map((a) => a.id),
            from,
            to,
          });
          const { rows } = await query.hogql(projectId, built, { signal });
          return rows.map((row) => ({
            uuid: row.uuid != null ? asText(row.uuid) : null,
            timestamp: utcTime(row.timestamp),
            event: row.event != null ? asText(row.event) : null,
            url: row.url != null && row.url !== '' ? maskUrlSecrets(asText(row.url)) : null,
          }));
        },
      );
    },
  };

  /**
   * The recording's own span (from its metadata, one cheap request) with a margin, so the events
   * scan stays small; for a recording PostHog no longer lists, date_from until now.
   */
  async function searchWindow(projectId: string, request: MatchingEventsRequest, signal: AbortSignal | undefined): Promise<[Date, Date]> {
    const now = Date.now();
    try {
      const meta = await operations.get(projectId, request.session_id, { signal });
      const start = Date.parse(meta.start_time ?? '');
      const end = Date.parse(meta.end_time ?? '');
      if (Number.isFinite(start)) {
        return [new Date(start - WINDOW_MARGIN_MS), new Date(Math.min(now, (Number.isFinite(end) ? end : start + 86_400_000) + WINDOW_MARGIN_MS))];
      }
    } catch (error) {
      if (!(error instanceof UpstreamError && error.status === 404)) throw error;
    }
    return [resolveDate(request.date_from, now), new Date(now)];
  }

  return operations;
}

/** Query results carry times in the project's timezone; tools show UTC like the endpoint does. */
function utcTime(value: unknown): string | null {
  if (value == null) return null;
  const ms = Date.parse(asText(value));
  return Number.isNaN(ms) ? asText(value) : new Date(ms).toISOString();
}
