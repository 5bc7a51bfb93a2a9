// Every HogQL query the server sends (through operations/query.ts, docs/posthog-api.md, "The query API"). A
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
const MAX_SESSION_MARKS = 20;

export interface SessionRecorderStateOptions {
  sessionId: string;
  from: Date;
  to: Date;
}

/**
 * What posthog-js wrote about the recorder on all of one session's events within [from, to]
 * (docs/posthog-api.md, "Why a session has no recording"), as one row: how many events, the first and last, and the distinct
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

/** Most events read after a recording's last stored block: an ongoing session's last minutes. */
export const MAX_EVENTS_AFTER = 50;

export interface SessionEventsAfterOptions {
  sessionId: string;
  /** The end of the recording's stored blocks: only events after it. */
  after: Date;
  to: Date;
}

/**
 * One session's page views, screens, exceptions and custom events (names without `$`) after the
 * recording's stored blocks end, up to `to`, oldest first: what PostHog's events already hold of
 * an ongoing session that its replay data does not yet. Columns: event, timestamp, url, window_id,
 * type and message (an exception's, '' for other events).
 */
export function sessionEventsAfterQuery(options: SessionEventsAfterOptions): BuiltQuery {
  const query = [
    `SELECT event, timestamp, properties.$current_url AS url, properties.$window_id AS window_id, ${EXCEPTION_TYPE} AS type, ${EXCEPTION_MESSAGE} AS message FROM events`,
    'WHERE $session_id = {session_id} AND timestamp > toDateTime({after}) AND timestamp <= toDateTime({date_to})',
    "AND (event IN {events} OR NOT startsWith(event, '$'))",
    `ORDER BY timestamp ASC LIMIT ${MAX_EVENTS_AFTER}`,
  ].join(' ');
  return seal(query, { session_id: options.sessionId, after: isoUtc(options.after), date_to: isoUtc(options.to), events: ['$pageview', '$screen', '$exception'] });
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
 * The sessions whose events went through the steps in order within [from, to] (docs/posthog-api.md, "Tables the query API reads";
 * a sequence with -If aggregates), one row per session that has the first step: `first_at` (the
 * first step's earliest time), `middle_1`… (every time of each middle step), `last_at` (the last
 * step's latest time, 1970 when it never came); `recorded` (the session is in
 * session_replay_events within the same dates, TTL and retention; `expired` when it is stored but
 * past them); and what posthog-js put on its events about recording it (`sampled`, `sample_rate`,
 * `statuses`). The HAVING keeps only sessions that can
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
    `$session_id IN (SELECT session_id FROM session_replay_events WHERE ${replayBounds(values, options.from, options.to)}) AS recorded`,
    expiredColumn(values, options.from, options.to),
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

/** Most sessions without a recording one person query reads. */
export const MAX_UNRECORDED_SESSIONS = 1000;

export interface PersonUnrecordedOptions {
  /** The people (persons.id) whose sessions are read. */
  personUuids: readonly string[];
  from: Date;
  to: Date;
}

/**
 * The people's sessions with events within [from, to] that are not recordings of the same period
 * (session_replay_events, bounded as PostHog's list), one row each, with what posthog-js put on
 * their events about recording them, as sequenceSessionsQuery gives it: session_id, sampled,
 * sample_rate, statuses, expired. Latest first.
 */
export function personUnrecordedQuery(options: PersonUnrecordedOptions): BuiltQuery {
  if (options.personUuids.length === 0) throw new RangeError('personUnrecordedQuery needs at least one person');
  const values: Record<string, unknown> = { person_ids: [...new Set(options.personUuids)] };
  const recorded = replayBounds(values, options.from, options.to);
  const query = [
    `SELECT $session_id AS session_id, argMax(properties.$session_is_sampled, timestamp) AS sampled, max(properties.$replay_sample_rate) AS sample_rate, groupUniqArray(properties.$recording_status) AS statuses, ${expiredColumn(values, options.from, options.to)} FROM events`,
    "WHERE person_id IN {person_ids} AND timestamp >= toDateTime({date_from}) AND timestamp <= toDateTime({date_to}) AND $session_id != ''",
    `AND $session_id NOT IN (SELECT session_id FROM session_replay_events WHERE ${recorded})`,
    `GROUP BY session_id ORDER BY max(timestamp) DESC LIMIT ${MAX_UNRECORDED_SESSIONS}`,
  ].join(' ');
  return seal(query, values);
}

// --- A period's recordings as a whole (triage, docs/posthog-api.md, "Tables the query API reads") ---------------------

/** Rows one population query returns at most (PostHog's cap for a query with a LIMIT). */
export const POPULATION_ROWS = 50_000;
/** Problem groups one counting query returns, most sessions first. */
const PROBLEM_GROUPS = 40;
/** Session ids a group names (for people and the chains); a group hit by more says so by its count. */
const GROUP_SESSION_IDS = 1000;

/** The recordings of a period: started within [from, to], optionally one person's. */
export interface PeriodOptions {
  from: Date;
  to: Date;
  /** The list's person_uuid filter, when given. */
  personUuid?: string | undefined;
  /** Only these sessions (a sequence's matching recordings), when given. */
  within?: readonly string[] | undefined;
}

/** Events and console lines of those recordings are read up to a day past the period: a session started at its end runs on. */
const RUN_ON_MS = 86_400_000;

/**
 * The TTL PostHog's recordings list applies on top of each recording's retention: on Cloud 30 days
 * (free) or 90 (paid), self-hosted RECORDINGS_TTL_WEEKS (3 weeks by default). A key cannot read which
 * applies, so the longest: no recording PostHog's list shows is left out (docs/tools.md).
 */
export const RECORDING_TTL_DAYS = 90;

/**
 * Which rows of session_replay_events a query reads, as PostHog's own list bounds them (docs/posthog-api.md, "Tables the query API reads"): started within [date_from, date_to], within the TTL, and still within the recording's
 * retention (counted from the day after the day it started, 365 days when the row names none).
 * Every read of the replay table carries it; it sets the values it names.
 */
function replayBounds(values: Record<string, unknown>, from: Date, to: Date): string {
  return `${replayDates(values, from, to)} AND ${KEPT}`;
}

/** The TTL and the recording's retention of replayBounds: a recording PostHog's list still shows. */
const KEPT = 'start_time >= now() - toIntervalDay({ttl_days}) AND addDays(toStartOfDay(start_time), 1) >= now() - toIntervalDay(coalesce(retention_period_days, 365))';
/** KEPT's opposite: past the TTL or the recording's retention. */
const GONE = '(start_time < now() - toIntervalDay({ttl_days}) OR addDays(toStartOfDay(start_time), 1) < now() - toIntervalDay(coalesce(retention_period_days, 365)))';

function replayDates(values: Record<string, unknown>, from: Date, to: Date): string {
  values.date_from = isoUtc(from);
  values.date_to = isoUtc(to);
  values.ttl_days = RECORDING_TTL_DAYS;
  return 'start_time >= toDateTime({date_from}) AND start_time <= toDateTime({date_to})';
}

/**
 * "This session's recording of the period has expired" as a column: stored within the dates, but
 * past the TTL or its retention (why a session with events has no recording PostHog shows).
 */
function expiredColumn(values: Record<string, unknown>, from: Date, to: Date): string {
  return `$session_id IN (SELECT session_id FROM session_replay_events WHERE ${replayDates(values, from, to)} AND ${GONE}) AS expired`;
}

/** The dates events and console lines of the period's recordings are read between. */
function readWindow(options: PeriodOptions, values: Record<string, unknown>): void {
  values.date_from = isoUtc(options.from);
  values.read_to = isoUtc(new Date(Math.min(options.to.getTime() + RUN_ON_MS, 8.64e15)));
}

/** The period's values and the condition "a recording of the period" on `column` (a session id). */
function recordedIn(column: string, options: PeriodOptions, values: Record<string, unknown>): string {
  readWindow(options, values);
  const bounds = replayBounds(values, options.from, options.to);
  const person = options.personUuid !== undefined ? ' AND person_id = {person_uuid}' : '';
  if (options.personUuid !== undefined) values.person_uuid = options.personUuid;
  return `${column} IN (SELECT session_id FROM session_replay_events WHERE ${bounds}${person}${withinCondition(options, values)})`;
}

/** " AND session_id IN {only_sessions}" when the period is narrowed to given sessions (their ids one list value). */
function withinCondition(options: PeriodOptions, values: Record<string, unknown>): string {
  if (options.within === undefined) return '';
  values.only_sessions = [...new Set(options.within)];
  return ' AND session_id IN {only_sessions}';
}

/**
 * The period's recordings and their people, one row a session (the lazy view grouped by
 * session_id), by session id; `after` pages by keyset (PostHog refuses OFFSET to a personal key).
 */
export function recordedSessionsQuery(options: PeriodOptions & { after?: string | undefined }): BuiltQuery {
  const values: Record<string, unknown> = {};
  const conditions = [replayBounds(values, options.from, options.to)];
  if (options.personUuid !== undefined) {
    values.person_uuid = options.personUuid;
    conditions.push('person_id = {person_uuid}');
  }
  if (options.after !== undefined) {
    values.after = options.after;
    conditions.push('session_id > {after}');
  }
  const within = withinCondition(options, values);
  const query = `SELECT session_id, person_id FROM session_replay_events WHERE ${conditions.join(' AND ')}${within} ORDER BY session_id ASC LIMIT ${POPULATION_ROWS}`;
  return seal(query, values);
}

/** An exception's type and message as posthog-js's `$exception_list` gives them, older events' `$exception_type` and `$exception_message` else. */
const EXCEPTION_TYPE = "if(empty(JSONExtractString(properties.$exception_list, 1, 'type')), ifNull(properties.$exception_type, ''), JSONExtractString(properties.$exception_list, 1, 'type'))";
const EXCEPTION_MESSAGE = "if(empty(JSONExtractString(properties.$exception_list, 1, 'value')), ifNull(properties.$exception_message, ''), JSONExtractString(properties.$exception_list, 1, 'value'))";
/** Every run of digits as N: one message whatever numbers it carries (the values shown are the first and last). */
const folded = (text: string) => `replaceRegexpAll(${text}, '[0-9]+', 'N')`;

/**
 * The period's exceptions grouped by type, folded message and whether the events say handled
 * (`true`, `false`, or '' when they do not), with the sessions and people hit, first and last
 * seen, the first and last message, PostHog's fingerprints, and a few sessions.
 */
export function periodExceptionsQuery(options: PeriodOptions): BuiltQuery {
  const values: Record<string, unknown> = { event: '$exception' };
  const columns = [
    `${EXCEPTION_TYPE} AS type, ${folded(EXCEPTION_MESSAGE)} AS folded, JSONExtractRaw(properties.$exception_list, 1, 'mechanism', 'handled') AS handled`,
    `argMin(${EXCEPTION_MESSAGE}, timestamp) AS first_message, argMax(${EXCEPTION_MESSAGE}, timestamp) AS last_message`,
    'groupUniqArray(3)(properties.$exception_fingerprint) AS fingerprints, groupUniqArray(5)($session_id) AS examples',
  ];
  return seal(eventGroups(columns, 'event = {event}', 'type, folded, handled', options, values), values);
}

/** The period's rage and dead clicks grouped by event, element text and page, as periodExceptionsQuery. */
export function periodClicksQuery(options: PeriodOptions): BuiltQuery {
  const values: Record<string, unknown> = { events: ['$rageclick', '$dead_click'] };
  const columns = ["event, ifNull(properties.$el_text, '') AS text, ifNull(properties.$pathname, '') AS page", `groupUniqArray(${GROUP_SESSION_IDS})($session_id) AS ids`];
  return seal(eventGroups(columns, 'event IN {events}', 'event, text, page', options, values), values);
}

/** Events of the period's recordings grouped, each group with the sessions and people it hit, first and last seen; most sessions first. */
function eventGroups(columns: string[], condition: string, groupBy: string, options: PeriodOptions, values: Record<string, unknown>): string {
  const recorded = recordedIn('$session_id', options, values);
  return [
    `SELECT ${columns[0]}, count() AS occurrences, uniq($session_id) AS sessions, uniq(person_id) AS people, min(timestamp) AS first_seen, max(timestamp) AS last_seen,`,
    `${columns.slice(1).join(', ')} FROM events`,
    `WHERE ${condition} AND timestamp >= toDateTime({date_from}) AND timestamp <= toDateTime({read_to})`,
    `AND ${recorded}`,
    `GROUP BY ${groupBy} ORDER BY sessions DESC LIMIT ${PROBLEM_GROUPS}`,
  ].join(' ');
}

/**
 * The period's console errors grouped by message with numbers folded, with the first and last
 * message, and the sessions (people come from recordedSessionsQuery's persons: the console-log
 * table has none).
 */
export function periodConsoleErrorsQuery(options: PeriodOptions): BuiltQuery {
  const values: Record<string, unknown> = { level: 'error' };
  const recorded = recordedIn('log_source_id', options, values);
  const query = [
    `SELECT ${folded('message')} AS folded, count() AS occurrences, uniq(log_source_id) AS sessions, min(timestamp) AS first_seen, max(timestamp) AS last_seen,`,
    `argMin(message, timestamp) AS first_message, argMax(message, timestamp) AS last_message, groupUniqArray(${GROUP_SESSION_IDS})(log_source_id) AS ids`,
    'FROM console_logs_log_entries WHERE level = {level} AND timestamp >= toDateTime({date_from}) AND timestamp <= toDateTime({read_to})',
    `AND ${recorded}`,
    `GROUP BY folded ORDER BY sessions DESC LIMIT ${PROBLEM_GROUPS}`,
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

/**
 * In the given sessions, their exceptions and rage clicks in time order (the chains of one
 * failure: an exception and the rage click that followed), paged by keyset on (session, time).
 */
export function chainEventsQuery(options: PeriodOptions & { sessionIds: readonly string[] }): BuiltQuery {
  if (options.sessionIds.length === 0) throw new RangeError('chainEventsQuery needs at least one session id');
  const values: Record<string, unknown> = { session_ids: [...new Set(options.sessionIds)], events: ['$exception', '$rageclick'] };
  readWindow(options, values);
  const query = [
    `SELECT $session_id AS session_id, person_id, event, timestamp, ${EXCEPTION_TYPE} AS type, ${folded(EXCEPTION_MESSAGE)} AS folded,`,
    "JSONExtractRaw(properties.$exception_list, 1, 'mechanism', 'handled') AS handled, ifNull(properties.$el_text, '') AS text, ifNull(properties.$pathname, '') AS page FROM events",
    'WHERE $session_id IN {session_ids} AND event IN {events} AND timestamp >= toDateTime({date_from}) AND timestamp <= toDateTime({read_to})',
    `ORDER BY session_id ASC, timestamp ASC LIMIT ${POPULATION_ROWS}`,
  ].join(' ');
  return seal(query, values);
}

/** In the given sessions, their console errors (folded) in time order, for the chains. */
export function chainConsoleQuery(options: PeriodOptions & { sessionIds: readonly string[] }): BuiltQuery {
  if (options.sessionIds.length === 0) throw new RangeError('chainConsoleQuery needs at least one session id');
  const values: Record<string, unknown> = { session_ids: [...new Set(options.sessionIds)], level: 'error' };
  readWindow(options, values);
  const query = [
    `SELECT log_source_id AS session_id, timestamp, ${folded('message')} AS folded FROM console_logs_log_entries`,
    'WHERE log_source_id IN {session_ids} AND level = {level} AND timestamp >= toDateTime({date_from}) AND timestamp <= toDateTime({read_to})',
    `ORDER BY session_id ASC, timestamp ASC LIMIT ${POPULATION_ROWS}`,
  ].join(' ');
  return seal(query, values);
}

/** One requested event (by name) or action (by id), with the event property conditions it carries. */
export type RequestedEntity = ({ event: string } | { actionId: number }) & { properties: readonly EventPropertyCondition[] };

export interface MatchedEventsOptions {
  /** The sessions of one list page. */
  sessionIds: readonly string[];
  entities: readonly RequestedEntity[];
  from: Date;
  to: Date;
}

/**
 * Per session of a list page, how many of its events within [from, to] match each requested
 * entity (its name or action, and its property conditions): columns session_id, matched_0,
 * matched_1, … in the order of `entities`. One query for the page, never one per row.
 */
export function matchedEventsQuery(options: MatchedEventsOptions): BuiltQuery {
  if (options.sessionIds.length === 0 || options.entities.length === 0) throw new RangeError('matchedEventsQuery needs at least one session id and one entity');
  const ids = [...new Set(options.sessionIds)];
  const values: Record<string, unknown> = { session_ids: ids, date_from: isoUtc(options.from), date_to: isoUtc(options.to) };
  const columns = options.entities.map((entity, i) => {
    let head: string;
    if ('actionId' in entity) {
      values[`action_${i}`] = entity.actionId;
      head = `matchesAction({action_${i}})`;
    } else {
      values[`event_${i}`] = entity.event;
      head = `event = {event_${i}}`;
    }
    const condition = [head, ...entity.properties.map((p, j) => propertyCondition(p, `entity_${i}_${j}`, values))].join(' AND ');
    return `countIf(${condition}) AS matched_${i}`;
  });
  // Without actions only the named events can match: the rest of the sessions' events are not read.
  const names = options.entities.flatMap((e) => ('event' in e ? [e.event] : []));
  let narrow = '';
  if (names.length === options.entities.length) {
    values.event_names = [...new Set(names)];
    narrow = ' AND event IN {event_names}';
  }
  const query = [
    `SELECT $session_id AS session_id, ${columns.join(', ')} FROM events`,
    `WHERE $session_id IN {session_ids} AND timestamp >= toDateTime({date_from}) AND timestamp <= toDateTime({date_to})${narrow}`,
    `GROUP BY session_id LIMIT ${ids.length}`,
  ].join(' ');
  return seal(query, values);
}

/** Every builder of a query the tools send, by name (see the top of this file). */
export const HOGQL_BUILDERS = {
  matchingEventsQuery,
  sessionPropertiesQuery,
  sessionExceptionsQuery,
  sessionRecorderStateQuery,
  sessionEventsAfterQuery,
  sequenceSessionsQuery,
  personUnrecordedQuery,
  personLookupQuery,
  recordedSessionsQuery,
  periodExceptionsQuery,
  periodClicksQuery,
  periodConsoleErrorsQuery,
  chainEventsQuery,
  chainConsoleQuery,
  matchedEventsQuery,
} as const;
