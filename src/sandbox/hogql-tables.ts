// The tables the sandbox's HogQL reads (docs/posthog-api.md, "Tables the query API reads"), over one project's data
// (project-data.ts): events, the lazy `session_replay_events` view, the stored
// `raw_session_replay_events` rows, console logs, persons and their distinct ids. A table names
// its columns' accessors; `session_replay_events` is built for the fields the query reads, as
// PostHog's lazy table is: aggregated where the field has an aggregate, grouped by the others.

import type { EventRow, PersonRecord, ProjectData, ReplayRow } from './project-data.js';
import { AggState, Time, propertyValue, queryError, type Kind, type Value } from './hogql-values.js';
import { teamNamespace, uuidV5 } from './util.js';

export interface Column {
  get: (row: never) => Value;
  kind: Kind;
}

export interface Table {
  name: string;
  rows: readonly unknown[];
  /** The accessor of a field chain (already without the table's name), or undefined when there is no such field. */
  column(chain: readonly string[]): Column | undefined;
}

/** Tables of PostHog's HogQL database the sandbox does not hold. */
const UNSERVED = new Set(['sessions', 'groups', 'cohort_people', 'query_log', 'batch_export_log_entries', 'static_cohort_people', 'person_overrides', 'raw_sessions', 'heatmaps', 'exchange_rate', 'logs']);

export const SERVED = ['events', 'session_replay_events', 'raw_session_replay_events', 'console_logs_log_entries', 'log_entries', 'persons', 'person_distinct_ids'] as const;

const col = <R>(kind: Kind, get: (row: R) => Value): Column => ({ kind, get: get as (row: never) => Value });

/** A property path into a JSON object: `properties.a` or nested `properties.a.b`. */
function nested(props: Record<string, unknown> | undefined, path: readonly string[]): Value {
  let value: unknown = props;
  for (const part of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    value = (value as Record<string, unknown>)[part];
  }
  return propertyValue(value);
}

/** `properties…`, `person.properties…` and `person_id` of a row with a distinct id. */
function personColumns<R>(chain: readonly string[], person: (row: R) => PersonRecord | undefined, personId: (row: R) => string): Column | undefined {
  if (chain[0] === 'person_id' && chain.length === 1) return col<R>('string', personId);
  if (chain[0] !== 'person') return undefined;
  if (chain.length === 2 && chain[1] === 'id') return col<R>('string', personId);
  if (chain[1] === 'properties' && chain.length >= 3) {
    const path = chain.slice(2);
    return col<R>('nullable', (row) => nested(person(row)?.properties, path));
  }
  return undefined;
}

function eventsTable(data: ProjectData): Table {
  return {
    name: 'events',
    rows: data.events,
    column(chain) {
      const [head, ...rest] = chain;
      if (head === 'properties') {
        if (rest.length === 0) return col<EventRow>('string', (r) => JSON.stringify(r.e.properties));
        if (rest.length === 1 && rest[0] === '$session_id') return col<EventRow>('nullable', (r) => r.sessionId);
        if (rest.length === 1) {
          const key = rest[0]!;
          return col<EventRow>('nullable', (r) => propertyValue(r.e.properties[key]));
        }
        return col<EventRow>('nullable', (r) => nested(r.e.properties, rest));
      }
      const personal = personColumns<EventRow>(chain, (r) => r.person, (r) => r.personId);
      if (personal || rest.length > 0) return personal;
      switch (head) {
        case 'uuid':
          return col<EventRow>('string', (r) => r.e.uuid);
        case 'event':
          return col<EventRow>('string', (r) => r.e.event);
        case 'timestamp':
          return col<EventRow>('datetime', (r) => new Time(r.e.timestampMs));
        case 'distinct_id':
          return col<EventRow>('string', (r) => r.e.distinctId);
        case '$session_id':
          return col<EventRow>('nullable', (r) => r.sessionId);
        case '$window_id':
          return col<EventRow>('nullable', (r) => r.windowId);
        case 'elements_chain':
          return col<EventRow>('string', (r) => (typeof r.e.properties.$elements_chain === 'string' ? r.e.properties.$elements_chain : ''));
        case 'team_id':
          return col<EventRow>('number', () => data.teamId);
        default:
          return undefined;
      }
    },
  };
}

function placeholderPerson(data: ProjectData): (distinctId: string) => string {
  return (distinctId) => data.personByDistinctId.get(distinctId)?.uuid ?? uuidV5(teamNamespace(data.teamId), distinctId);
}

/** Columns of a stored replay row as raw_session_replay_events has them (state columns as states). */
function rawReplayColumn(name: string, data: ProjectData): Column | undefined {
  switch (name) {
    case 'session_id':
    case 'distinct_id':
      return col<ReplayRow>('string', (r) => r[name]);
    case 'team_id':
      return col<ReplayRow>('number', () => data.teamId);
    case 'min_first_timestamp':
    case 'max_last_timestamp':
    case '_timestamp':
      return col<ReplayRow>('datetime', (r) => new Time(r[name]));
    case 'first_url':
      return col<ReplayRow>('state', (r) => new AggState(r.first_url, r.min_first_timestamp, 'first_url'));
    case 'snapshot_source':
    case 'snapshot_library':
      return col<ReplayRow>('state', (r) => new AggState('web', r.min_first_timestamp, name));
    case 'all_urls':
      return col<ReplayRow>('array', (r) => [...r.all_urls]);
    case 'is_deleted':
      return col<ReplayRow>('number', () => 0);
    case 'retention_period_days':
      return col<ReplayRow>('nullable', (r) => r.retention_period_days);
    default:
      return COUNT_COLUMNS.has(name) ? col<ReplayRow>('number', (r) => r[name as CountColumn]) : undefined;
  }
}

type CountColumn = 'click_count' | 'keypress_count' | 'mouse_activity_count' | 'active_milliseconds' | 'console_log_count' | 'console_warn_count' | 'console_error_count' | 'size' | 'event_count' | 'message_count';
const COUNT_COLUMNS: ReadonlySet<string> = new Set<CountColumn>(['click_count', 'keypress_count', 'mouse_activity_count', 'active_milliseconds', 'console_log_count', 'console_warn_count', 'console_error_count', 'size', 'event_count', 'message_count']);

function rawReplayTable(data: ProjectData): Table {
  const personId = placeholderPerson(data);
  return {
    name: 'raw_session_replay_events',
    rows: data.replay,
    column(chain) {
      const personal = personColumns<ReplayRow>(chain, (r) => data.personByDistinctId.get(r.distinct_id), (r) => personId(r.distinct_id));
      if (personal) return personal;
      return chain.length === 1 ? rawReplayColumn(chain[0]!, data) : undefined;
    },
  };
}

/** The lazy view's grouped fields (read them and rows split by them) and its aggregated ones. */
const VIEW_KEYS = ['session_id', 'team_id', 'retention_period_days', 'snapshot_source', 'snapshot_library'] as const;

interface ViewRow {
  rows: ReplayRow[];
  cache: Map<string, Value>;
}

function viewAggregate(name: string): { kind: Kind; of: (rows: ReplayRow[]) => Value } | undefined {
  switch (name) {
    case 'start_time':
      return { kind: 'datetime', of: (rows) => new Time(Math.min(...rows.map((r) => r.min_first_timestamp))) };
    case 'end_time':
      return { kind: 'datetime', of: (rows) => new Time(Math.max(...rows.map((r) => r.max_last_timestamp))) };
    case '_timestamp':
      return { kind: 'datetime', of: (rows) => new Time(Math.max(...rows.map((r) => r._timestamp))) };
    case 'first_url':
      return { kind: 'nullable', of: (rows) => rows.reduce((a, b) => (b.min_first_timestamp < a.min_first_timestamp ? b : a)).first_url };
    case 'all_urls':
      return { kind: 'array', of: (rows) => [...new Set(rows.flatMap((r) => r.all_urls))] };
    case 'distinct_id':
      return { kind: 'string', of: (rows) => rows[0]!.distinct_id };
    case 'is_deleted':
      return { kind: 'number', of: () => 0 };
    default:
      if (!COUNT_COLUMNS.has(name)) return undefined;
      return { kind: 'number', of: (rows) => rows.reduce((sum, r) => sum + r[name as CountColumn], 0) };
  }
}

function viewKey(row: ReplayRow, key: (typeof VIEW_KEYS)[number], data: ProjectData): Value {
  switch (key) {
    case 'session_id':
      return row.session_id;
    case 'team_id':
      return data.teamId;
    case 'retention_period_days':
      return row.retention_period_days;
    default:
      return 'web';
  }
}

/**
 * session_replay_events as PostHog's lazy table builds it for one query: grouped by the key
 * fields the query reads (one row per session when it reads session_id; one for the whole
 * project when it reads no key), every other field aggregated over the group's stored rows.
 */
function replayView(data: ProjectData, fieldsRead: ReadonlyArray<readonly string[]>): Table {
  const read = new Set(fieldsRead.map((chain) => chain[0]!));
  const keys = VIEW_KEYS.filter((k) => read.has(k));
  const groups = new Map<string, ReplayRow[]>();
  if (keys.length === 0) groups.set('', []);
  for (const row of data.replay) {
    const key = keys.length === 1 && keys[0] === 'session_id' ? row.session_id : keys.map((k) => String(viewKey(row, k, data))).join('\u0001');
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(row);
  }
  const rows: ViewRow[] = [...groups.values()].filter((g) => g.length > 0 || keys.length === 0).map((g) => ({ rows: g, cache: new Map() }));
  const personId = placeholderPerson(data);
  const distinctId = (r: ViewRow) => r.rows[0]?.distinct_id ?? '';
  return {
    name: 'session_replay_events',
    rows,
    column(chain) {
      const personal = personColumns<ViewRow>(chain, (r) => data.personByDistinctId.get(distinctId(r)), (r) => personId(distinctId(r)));
      if (personal) return personal;
      if (chain.length !== 1) return undefined;
      const name = chain[0]!;
      if ((VIEW_KEYS as readonly string[]).includes(name)) {
        const key = name as (typeof VIEW_KEYS)[number];
        return col<ViewRow>(key === 'session_id' ? 'string' : key === 'retention_period_days' ? 'nullable' : key === 'team_id' ? 'number' : 'string', (r) => (r.rows[0] ? viewKey(r.rows[0], key, data) : null));
      }
      if (name === 'min_first_timestamp' || name === 'max_last_timestamp') {
        throw queryError(`Unable to resolve field: ${name}. In session_replay_events it is start_time / end_time (min_first_timestamp and max_last_timestamp are columns of raw_session_replay_events).`);
      }
      const aggregate = viewAggregate(name);
      if (!aggregate) return undefined;
      return col<ViewRow>(aggregate.kind, (r) => {
        if (r.rows.length === 0) return aggregate.kind === 'number' ? 0 : aggregate.kind === 'datetime' ? new Time(0) : aggregate.kind === 'array' ? [] : null;
        let value = r.cache.get(name);
        if (value === undefined) r.cache.set(name, (value = aggregate.of(r.rows)));
        return value;
      });
    },
  };
}

function consoleTable(name: string, data: ProjectData): Table {
  return {
    name,
    rows: data.console,
    column(chain) {
      if (chain.length !== 1) return undefined;
      type C = ProjectData['console'][number];
      switch (chain[0]) {
        case 'team_id':
          return col<C>('number', () => data.teamId);
        case 'log_source':
          return col<C>('string', () => 'session_replay');
        case 'log_source_id':
          return col<C>('string', (r) => r.sessionId);
        case 'instance_id':
          return col<C>('string', () => '');
        case 'timestamp':
          return col<C>('datetime', (r) => new Time(r.timestampMs));
        case 'message':
          return col<C>('string', (r) => r.message);
        case 'level':
          return col<C>('string', (r) => r.level);
        default:
          return undefined;
      }
    },
  };
}

function personsTable(data: ProjectData): Table {
  return {
    name: 'persons',
    rows: data.persons,
    column(chain) {
      const [head, ...rest] = chain;
      if (head === 'properties') return rest.length === 0 ? col<PersonRecord>('string', (p) => JSON.stringify(p.properties)) : col<PersonRecord>('nullable', (p) => nested(p.properties, rest));
      if (rest.length > 0) return undefined;
      switch (head) {
        case 'id':
          return col<PersonRecord>('string', (p) => p.uuid);
        case 'created_at':
          return col<PersonRecord>('datetime', (p) => new Time(p.createdMs));
        case 'team_id':
          return col<PersonRecord>('number', () => data.teamId);
        case 'is_identified':
          return col<PersonRecord>('bool', (p) => p.isIdentified);
        default:
          return undefined;
      }
    },
  };
}

function distinctIdsTable(data: ProjectData): Table {
  const rows = data.persons.flatMap((person) => person.distinctIds.map((distinctId) => ({ distinctId, person })));
  type R = (typeof rows)[number];
  return {
    name: 'person_distinct_ids',
    rows,
    column(chain) {
      const personal = personColumns<R>(chain, (r) => r.person, (r) => r.person.uuid);
      if (personal) return personal;
      if (chain.length !== 1) return undefined;
      if (chain[0] === 'distinct_id') return col<R>('string', (r) => r.distinctId);
      if (chain[0] === 'team_id') return col<R>('number', () => data.teamId);
      return undefined;
    },
  };
}

/** The table a query reads, or PostHog's error for one it does not know (the sandbox's for one it does not hold). */
export function openTable(name: string, data: ProjectData, fieldsRead: ReadonlyArray<readonly string[]>): Table {
  switch (name) {
    case 'events':
      return eventsTable(data);
    case 'session_replay_events':
      return replayView(data, fieldsRead);
    case 'raw_session_replay_events':
      return rawReplayTable(data);
    case 'console_logs_log_entries':
    case 'log_entries':
      return consoleTable(name, data);
    case 'persons':
      return personsTable(data);
    case 'person_distinct_ids':
      return distinctIdsTable(data);
    default:
      if (UNSERVED.has(name) || name.startsWith('posthog.')) throw queryError(`The sandbox does not serve \`${name}\`: it serves ${SERVED.join(', ')}.`);
      throw queryError(`Unknown table \`${name}\`.`);
  }
}

/** A field chain without the table's own name in front (`events.event` is `event`). */
export function withoutTableName(chain: readonly string[], table: string): readonly string[] {
  return chain.length > 1 && chain[0] === table ? chain.slice(1) : chain;
}
