// Every HogQL query the server sends (through operations/query.ts, posthog-api-facts.md §9). A
// builder's query text depends only on the shape of its options (how many ids, which lists are
// given), never on their contents: every input value travels in `values` and reaches the query as
// a `{name}` placeholder, which PostHog fills as a constant in the parsed tree. A new query is a builder
// here, listed in HOGQL_BUILDERS: test/unit/hogql-queries.test.ts then parses it with PostHog's
// own parser under hostile values, and fails for a builder it has no samples for, or for a query
// built anywhere else.

declare const built: unique symbol;

/** A HogQL query and the values of its placeholders, as only the builders below make them. */
export interface BuiltQuery {
  readonly query: string;
  readonly values: Readonly<Record<string, unknown>>;
  readonly [built]: true;
}

const seal = (query: string, values: Record<string, unknown>): BuiltQuery => ({ query, values }) as BuiltQuery;

/** A time as the query's values carry it: ISO-8601 in UTC, which HogQL's toDateTime() reads with its zone. */
export const isoUtc = (date: Date): string => date.toISOString();

/** Most matches one recording can sensibly return; PostHog's own matching_events has no page either. */
export const MAX_MATCHES = 1000;

export interface MatchingEventsOptions {
  sessionId: string;
  /** Event names, any of which may match. */
  eventNames: readonly string[];
  /** Action ids, each matched by PostHog's matchesAction() from the action's definition. */
  actionIds: readonly number[];
  from: Date;
  to: Date;
}

/**
 * One recording's events (uuid, timestamp) matching any of the event names or actions, within
 * [from, to], oldest first. Event names go in as one list value; each action id as a value of its
 * own for matchesAction(), which PostHog expands server-side (steps, URLs, selectors).
 */
export function matchingEventsQuery(options: MatchingEventsOptions): BuiltQuery {
  if (options.eventNames.length === 0 && options.actionIds.length === 0) throw new RangeError('matchingEventsQuery needs at least one event name or action id');
  const values: Record<string, unknown> = { session_id: options.sessionId, date_from: isoUtc(options.from), date_to: isoUtc(options.to) };
  const conditions: string[] = [];
  if (options.eventNames.length > 0) {
    values.event_names = [...new Set(options.eventNames)];
    conditions.push('event IN {event_names}');
  }
  options.actionIds.forEach((id, i) => {
    values[`action_${i}`] = id;
    conditions.push(`matchesAction({action_${i}})`);
  });
  const query = [
    // The event and its page name each match (a page view is told by its URL).
    'SELECT uuid, event, timestamp, properties.$current_url AS url FROM events',
    'WHERE $session_id = {session_id} AND timestamp >= toDateTime({date_from}) AND timestamp <= toDateTime({date_to})',
    `AND (${conditions.join(' OR ')})`,
    `ORDER BY timestamp ASC LIMIT ${MAX_MATCHES}`,
  ].join(' ');
  return seal(query, values);
}

/** What PostHog's (2024) properties endpoint returned: these keys of each session's first pageview or autocapture. */
export const SESSION_PROPERTY_KEYS = ['$os', '$browser', '$device_type', '$current_url', '$host', '$pathname', '$geoip_country_code', '$geoip_country_name'] as const;

export interface SessionPropertiesOptions {
  sessionIds: readonly string[];
  from: Date;
  to: Date;
}

/**
 * Per session, each of SESSION_PROPERTY_KEYS on its first $pageview or $autocapture event
 * (argMin by timestamp), within [from, to]; the columns are session_id and prop_0, prop_1, …
 * in the order of SESSION_PROPERTY_KEYS.
 */
export function sessionPropertiesQuery(options: SessionPropertiesOptions): BuiltQuery {
  if (options.sessionIds.length === 0) throw new RangeError('sessionPropertiesQuery needs at least one session id');
  const columns = SESSION_PROPERTY_KEYS.map((key, i) => `argMin(properties.${key}, timestamp) AS prop_${i}`);
  const query = [
    `SELECT $session_id AS session_id, ${columns.join(', ')} FROM events`,
    'WHERE $session_id IN {session_ids} AND event IN {events}',
    'AND timestamp >= toDateTime({date_from}) AND timestamp <= toDateTime({date_to})',
    `GROUP BY $session_id LIMIT ${options.sessionIds.length}`,
  ].join(' ');
  return seal(query, {
    session_ids: [...options.sessionIds],
    events: ['$pageview', '$autocapture'],
    date_from: isoUtc(options.from),
    date_to: isoUtc(options.to),
  });
}

/** Most `$exception` events read per session: enough for any session worth a test or a triage. */
export const MAX_SESSION_EXCEPTIONS = 100;

export interface SessionExceptionsOptions {
  sessionIds: readonly string[];
  from: Date;
  to: Date;
}

/**
 * The sessions' uncaught exceptions (`$exception` events, which posthog-js sends beside the
 * recording, not inside it) within [from, to], oldest first, at most MAX_SESSION_EXCEPTIONS a
 * session on average. Columns: session_id, timestamp, type, message, list (the newer
 * `$exception_list`), window_id.
 */
export function sessionExceptionsQuery(options: SessionExceptionsOptions): BuiltQuery {
  if (options.sessionIds.length === 0) throw new RangeError('sessionExceptionsQuery needs at least one session id');
  const ids = [...new Set(options.sessionIds)];
  const query = [
    'SELECT $session_id AS session_id, timestamp, properties.$exception_type AS type, properties.$exception_message AS message, properties.$exception_list AS list, properties.$window_id AS window_id FROM events',
    'WHERE $session_id IN {session_ids} AND event = {event} AND timestamp >= toDateTime({date_from}) AND timestamp <= toDateTime({date_to})',
    `ORDER BY timestamp ASC LIMIT ${MAX_SESSION_EXCEPTIONS * ids.length}`,
  ].join(' ');
  return seal(query, { session_ids: ids, event: '$exception', date_from: isoUtc(options.from), date_to: isoUtc(options.to) });
}

/** Most distinct values of each recorder property read per session: posthog-js writes a handful. */
export const MAX_SESSION_MARKS = 20;

export interface SessionRecorderStateOptions {
  sessionId: string;
  from: Date;
  to: Date;
}

/**
 * What posthog-js wrote about the recorder on all of one session's events within [from, to]
 * (posthog-api-facts.md §14), as one row: how many events, the first and last, and the distinct
 * `$recording_status`, `$session_is_sampled`, `$replay_sample_rate` and
 * `$session_recording_start_reason` values. Columns: events, first_seen, last_seen, statuses,
 * sampling, rates, reasons.
 */
export function sessionRecorderStateQuery(options: SessionRecorderStateOptions): BuiltQuery {
  const marks = (key: string, name: string) => `groupUniqArray(${MAX_SESSION_MARKS})(properties.${key}) AS ${name}`;
  const query = [
    'SELECT count() AS events, min(timestamp) AS first_seen, max(timestamp) AS last_seen,',
    [marks('$recording_status', 'statuses'), marks('$session_is_sampled', 'sampling'), marks('$replay_sample_rate', 'rates'), marks('$session_recording_start_reason', 'reasons')].join(', '),
    'FROM events WHERE $session_id = {session_id} AND timestamp >= toDateTime({date_from}) AND timestamp <= toDateTime({date_to})',
  ].join(' ');
  return seal(query, { session_id: options.sessionId, date_from: isoUtc(options.from), date_to: isoUtc(options.to) });
}

/** Every builder of a query the tools send, by name (see the top of this file). */
export const HOGQL_BUILDERS = {
  matchingEventsQuery,
  sessionPropertiesQuery,
  sessionExceptionsQuery,
  sessionRecorderStateQuery,
} as const;
