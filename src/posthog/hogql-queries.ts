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
 * One condition on an event property, its operator told by which field it has (the query's text
 * then depends on the field's name, never on a value): `exact`/`is_not` take JSON texts of the
 * values the property may hold (compared with the property's raw JSON), `icontains`/
 * `not_icontains` lower-case text, `regex`/`not_regex` a pattern, `gt`/`lt` a number,
 * `is_set`/`is_not_set` true.
 */
export type EventPropertyCondition = { key: string } & (
  | { exact: readonly string[] }
  | { is_not: readonly string[] }
  | { icontains: string }
  | { not_icontains: string }
  | { regex: string }
  | { not_regex: string }
  | { gt: number }
  | { lt: number }
  | { is_set: true }
  | { is_not_set: true }
);

export interface SequenceStep {
  event: string;
  properties: readonly EventPropertyCondition[];
}

export interface SequenceSessionsOptions {
  /** 2 to 5 steps, in order. */
  steps: readonly SequenceStep[];
  /** The last step must not follow the others (it is then absent). */
  lastAbsent: boolean;
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

/** Most sessions one sequence query reads: PostHog's cap on a query's rows. */
export const MAX_SEQUENCE_SESSIONS = 50_000;

/** The HogQL condition of one property filter; its values go in `values` under `name`. */
function propertyCondition(condition: EventPropertyCondition, name: string, values: Record<string, unknown>): string {
  values[`${name}_key`] = condition.key;
  const raw = `JSONExtractRaw(properties, {${name}_key})`;
  const text = `JSONExtractString(properties, {${name}_key})`;
  const put = (value: unknown) => {
    values[name] = value;
    return `{${name}}`;
  };
  if ('exact' in condition) return `${raw} IN ${put([...condition.exact])}`;
  if ('is_not' in condition) return `${raw} NOT IN ${put([...condition.is_not])}`;
  if ('icontains' in condition) return `position(lower(${text}), ${put(condition.icontains)}) > 0`;
  if ('not_icontains' in condition) return `position(lower(${text}), ${put(condition.not_icontains)}) = 0`;
  if ('regex' in condition) return `match(${text}, ${put(condition.regex)})`;
  if ('not_regex' in condition) return `NOT match(${text}, ${put(condition.not_regex)})`;
  if ('gt' in condition) return `(${raw} NOT IN ('', 'null') AND JSONExtractFloat(properties, {${name}_key}) > ${put(condition.gt)})`;
  if ('lt' in condition) return `(${raw} NOT IN ('', 'null') AND JSONExtractFloat(properties, {${name}_key}) < ${put(condition.lt)})`;
  if ('is_set' in condition) return `${raw} NOT IN ('', 'null')`;
  return `${raw} IN ('', 'null')`;
}

/**
 * The sessions whose events went through the steps in order within [from, to] (posthog-api-facts.md
 * §14's sequence with -If aggregates), one row per session that has the first step: `first_at` (the
 * first step's earliest time), `middle_1`… (every time of each middle step), `last_at` (the last
 * step's latest time, 1970 when it never came); `recorded` (the session is in
 * session_replay_events within the same dates); and what posthog-js put on its events about
 * recording it (`sampled`, `sample_rate`, `statuses`). The HAVING keeps only sessions that can
 * match (exactly for two steps); the caller finishes the order through the middle steps.
 */
export function sequenceSessionsQuery(options: SequenceSessionsOptions): BuiltQuery {
  const { steps } = options;
  if (steps.length < 2) throw new RangeError('sequenceSessionsQuery needs at least two steps');
  const values: Record<string, unknown> = { date_from: isoUtc(options.from), date_to: isoUtc(options.to), event_names: [...new Set(steps.map((s) => s.event))] };
  const conditions = steps.map((step, i) => {
    values[`step_${i}`] = step.event;
    return [`event = {step_${i}}`, ...step.properties.map((p, j) => propertyCondition(p, `step_${i}_${j}`, values))].join(' AND ');
  });
  const last = conditions.length - 1;
  const columns = [
    '$session_id AS session_id',
    `minIf(timestamp, ${conditions[0]}) AS first_at`,
    ...conditions.slice(1, last).map((c, i) => `groupArrayIf(timestamp, ${c}) AS middle_${i + 1}`),
    `maxIf(timestamp, ${conditions[last]}) AS last_at`,
    '$session_id IN (SELECT session_id FROM session_replay_events WHERE start_time >= toDateTime({date_from}) AND start_time <= toDateTime({date_to})) AS recorded',
    'argMax(properties.$session_is_sampled, timestamp) AS sampled',
    'max(properties.$replay_sample_rate) AS sample_rate',
    'groupUniqArray(properties.$recording_status) AS statuses',
  ];
  // Two steps are decided here; with more, the middle steps' order is the caller's to check.
  const having = [`countIf(${conditions[0]}) > 0`];
  if (!options.lastAbsent) having.push('last_at > first_at');
  else if (steps.length === 2) having.push('last_at <= first_at');
  const query = [
    `SELECT ${columns.join(', ')} FROM events`,
    'WHERE event IN {event_names} AND timestamp >= toDateTime({date_from}) AND timestamp <= toDateTime({date_to}) AND $session_id != \'\'',
    `GROUP BY session_id HAVING ${having.join(' AND ')}`,
    `ORDER BY first_at DESC LIMIT ${MAX_SEQUENCE_SESSIONS}`,
  ].join(' ');
  return seal(query, values);
}

export interface PersonLookupOptions {
  /** An email or a name (matched without case), or a distinct id (matched exactly). */
  search: string;
}

/** Most people one lookup names: an email or name rarely belongs to more. */
export const MAX_PERSONS_FOUND = 10;

/**
 * The people whose email or name is `search` (any case) or who had `search` as a distinct id,
 * each with every distinct id they had: person_id, distinct_ids, email, name, country.
 */
export function personLookupQuery(options: PersonLookupOptions): BuiltQuery {
  const query = [
    'SELECT person_id, groupArray(distinct_id) AS distinct_ids, any(person.properties.email) AS email, any(person.properties.name) AS name,',
    'any(person.properties.$geoip_country_code) AS country FROM person_distinct_ids',
    'WHERE person_id IN (SELECT id FROM persons WHERE lower(toString(properties.email)) = {folded} OR lower(toString(properties.name)) = {folded})',
    'OR person_id IN (SELECT person_id FROM person_distinct_ids WHERE distinct_id = {search})',
    `GROUP BY person_id LIMIT ${MAX_PERSONS_FOUND}`,
  ].join(' ');
  return seal(query, { folded: options.search.trim().toLowerCase(), search: options.search });
}

/** Every builder of a query the tools send, by name (see the top of this file). */
export const HOGQL_BUILDERS = {
  matchingEventsQuery,
  sessionPropertiesQuery,
  sessionExceptionsQuery,
  sessionRecorderStateQuery,
  sequenceSessionsQuery,
  personLookupQuery,
} as const;
