// PostHog's RecordingsQuery as the recordings list and matching_events read it: every query
// parameter is JSON-decoded when it parses (else kept as a string), then validated by a
// pydantic model that forbids unknown fields. Validation failures are a 400 whose detail is
// the pydantic error list dumped as JSON, as PostHog does.

import { RECORDING_ORDERS as PRODUCT_ORDERS } from '../posthog/recording-orders.js';
import { errors } from './http.js';
import { pythonJsonDumps } from './util.js';

// What the tools offer, plus the feature-flagged order the newest PostHog also accepts.
export const RECORDING_ORDERS = [...PRODUCT_ORDERS, 'surfacing_score'] as const;
export type RecordingOrder = (typeof RECORDING_ORDERS)[number];

export type Filter = Record<string, unknown>;

export interface RecordingsQuery {
  date_from: string | null;
  date_to: string | null;
  order: RecordingOrder;
  order_direction: 'ASC' | 'DESC';
  limit: number | null;
  offset: number | null;
  session_ids: string[] | null;
  distinct_ids: string[] | null;
  person_uuid: string | null;
  filter_test_accounts: boolean | null;
  events: Filter[];
  actions: Filter[];
  properties: Filter[];
  console_log_filters: Filter[];
  having_predicates: Filter[];
  operand: 'AND' | 'OR';
  session_recording_id: string | null;
  after: string | null;
}

interface PydanticError {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
  url: string;
}

type Check = (value: unknown, loc: Array<string | number>, errs: PydanticError[]) => unknown;

function err(errs: PydanticError[], type: string, loc: Array<string | number>, msg: string, input: unknown, ctx?: Record<string, unknown>): undefined {
  const e: PydanticError = { type, loc, msg, input, url: `https://errors.pydantic.dev/2.11/v/${type}` };
  if (ctx) e.ctx = ctx;
  errs.push(e);
  return undefined;
}

const optString: Check = (v, loc, errs) => (v === null || typeof v === 'string' ? v : err(errs, 'string_type', loc, 'Input should be a valid string', v));

const optInt: Check = (v, loc, errs) => {
  if (v === null) return null;
  if (typeof v === 'number') {
    return Number.isInteger(v) ? v : err(errs, 'int_from_float', loc, 'Input should be a valid integer, got a number with a fractional part', v);
  }
  if (typeof v === 'string') {
    if (/^\s*[-+]?\d+\s*$/.test(v)) return Number.parseInt(v, 10);
    return err(errs, 'int_parsing', loc, 'Input should be a valid integer, unable to parse string as an integer', v);
  }
  return err(errs, 'int_type', loc, 'Input should be a valid integer', v);
};

const BOOL_STRINGS: Record<string, boolean> = {
  ...Object.fromEntries(['0', 'off', 'f', 'false', 'n', 'no'].map((s) => [s, false])),
  ...Object.fromEntries(['1', 'on', 't', 'true', 'y', 'yes'].map((s) => [s, true])),
};
const optBool: Check = (v, loc, errs) => {
  if (v === null || typeof v === 'boolean') return v;
  if (v === 0 || v === 1) return v === 1;
  if (typeof v === 'string' && v.toLowerCase() in BOOL_STRINGS) return BOOL_STRINGS[v.toLowerCase()];
  if (typeof v === 'string') return err(errs, 'bool_parsing', loc, 'Input should be a valid boolean, unable to interpret input', v);
  return err(errs, 'bool_type', loc, 'Input should be a valid boolean', v);
};

const stringList: Check = (v, loc, errs) => {
  if (v === null) return null;
  if (!Array.isArray(v)) return err(errs, 'list_type', loc, 'Input should be a valid list', v);
  v.forEach((item, i) => {
    if (typeof item !== 'string') err(errs, 'string_type', [...loc, i], 'Input should be a valid string', item);
  });
  return v;
};

const filterList: Check = (v, loc, errs) => {
  if (v === null) return [];
  if (!Array.isArray(v)) return err(errs, 'list_type', loc, 'Input should be a valid list', v);
  v.forEach((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) err(errs, 'dict_type', [...loc, i], 'Input should be a valid dictionary', item);
  });
  return v;
};

function expected(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  return quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

function oneOf(values: readonly string[]): Check {
  return (v, loc, errs) => {
    if (typeof v === 'string' && values.includes(v)) return v;
    return err(errs, 'enum', loc, `Input should be ${expected(values)}`, v, { expected: expected(values) });
  };
}

const anything: Check = (v) => v;

const kind: Check = (v, loc, errs) =>
  v === 'RecordingsQuery' ? v : err(errs, 'literal_error', loc, "Input should be 'RecordingsQuery'", v, { expected: "'RecordingsQuery'" });

/** The RecordingsQuery fields, in model order. */
const FIELDS: Record<string, Check> = {
  actions: filterList,
  after: optString,
  comment_text: anything,
  console_log_filters: filterList,
  date_from: optString,
  date_to: optString,
  distinct_ids: stringList,
  events: filterList,
  filter_test_accounts: optBool,
  having_predicates: filterList,
  hide_viewed_recordings: optBool,
  kind,
  limit: optInt,
  modifiers: anything,
  offset: optInt,
  operand: oneOf(['AND', 'OR']),
  order: oneOf(RECORDING_ORDERS),
  order_direction: oneOf(['ASC', 'DESC']),
  person_uuid: optString,
  properties: filterList,
  response: anything,
  session_ids: stringList,
  session_recording_id: optString,
  tags: anything,
  user_modified_filters: anything,
};

/** Parameters PostHog drops before validating, for old clients. */
const DROPPED = new Set(['version', 'hogql_filtering', 'as_query', 'add_events_to_property_queries']);

/** `json.loads` if the value parses, else the raw string (PostHog's query_as_params_to_dict). */
export function decodeParam(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export function parseRecordingsQuery(query: Record<string, string>): RecordingsQuery {
  const input: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(query)) if (!DROPPED.has(key)) input[key] = decodeParam(raw);
  const errs: PydanticError[] = [];
  const out: Record<string, unknown> = {};
  for (const [field, check] of Object.entries(FIELDS)) {
    if (field in input) out[field] = check(input[field], [field], errs);
  }
  for (const key of Object.keys(input)) {
    if (!(key in FIELDS)) err(errs, 'extra_forbidden', [key], 'Extra inputs are not permitted', input[key]);
  }
  if (errs.length > 0) throw errors.validation(pythonJsonDumps(errs));
  const order = (out.order as RecordingOrder | undefined) ?? 'start_time';
  return {
    date_from: out.date_from === undefined ? '-3d' : (out.date_from as string | null),
    date_to: (out.date_to as string | null | undefined) ?? null,
    // surfacing_score is behind a feature flag that is off here, so it falls back like PostHog.
    order: order === 'surfacing_score' ? 'start_time' : order,
    order_direction: (out.order_direction as 'ASC' | 'DESC' | undefined) ?? 'DESC',
    limit: (out.limit as number | null | undefined) ?? null,
    offset: (out.offset as number | null | undefined) ?? null,
    session_ids: (out.session_ids as string[] | null | undefined) ?? null,
    distinct_ids: (out.distinct_ids as string[] | null | undefined) ?? null,
    person_uuid: (out.person_uuid as string | null | undefined) ?? null,
    filter_test_accounts: (out.filter_test_accounts as boolean | null | undefined) ?? null,
    events: (out.events as Filter[] | undefined) ?? [],
    actions: (out.actions as Filter[] | undefined) ?? [],
    properties: (out.properties as Filter[] | undefined) ?? [],
    console_log_filters: (out.console_log_filters as Filter[] | undefined) ?? [],
    having_predicates: (out.having_predicates as Filter[] | undefined) ?? [],
    operand: (out.operand as 'AND' | 'OR' | undefined) ?? 'AND',
    session_recording_id: (out.session_recording_id as string | null | undefined) ?? null,
    after: (out.after as string | null | undefined) ?? null,
  };
}

const UNIT_MS: Record<string, number> = { s: 1_000, M: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/**
 * PostHog date strings: relative (`-3d`, `-24h`, `-30M`, `-2w`, `-1m`, `-1y`, `dStart`, `mStart`, `all`)
 * or absolute ISO dates/datetimes (UTC). Returns ms, or null for "no bound".
 */
export function resolveDate(value: string | null, clockMs: number, field: string, endOfDay: boolean): number | null {
  if (value === null || value === 'all') return null;
  const relative = /^-?(\d+)([sMhdwmqy])(Start|End)?$/.exec(value) ?? (/^(d|m|y)(Start)$/.test(value) ? ['', '0', value[0]!, 'Start'] : null);
  if (relative) {
    const n = Number(relative[1]);
    const unit = relative[2]!;
    const date = new Date(clockMs);
    if (unit in UNIT_MS) date.setTime(clockMs - n * UNIT_MS[unit]!);
    else if (unit === 'm') date.setUTCMonth(date.getUTCMonth() - n);
    else if (unit === 'q') date.setUTCMonth(date.getUTCMonth() - 3 * n);
    else if (unit === 'y') date.setUTCFullYear(date.getUTCFullYear() - n);
    if (relative[3] === 'Start') {
      if (unit === 'm' || unit === 'q' || unit === 'y') date.setUTCDate(1);
      if (unit === 'y') date.setUTCMonth(0);
      date.setUTCHours(0, 0, 0, 0);
    } else if (relative[3] === 'End') {
      date.setUTCHours(23, 59, 59, 999);
    }
    return date.getTime();
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const ms = Date.parse(`${value}T00:00:00Z`);
    if (!Number.isNaN(ms)) return endOfDay ? ms + 86_400_000 - 1 : ms;
  }
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(value)) {
    const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(value);
    const ms = Date.parse(hasZone ? value.replace(' ', 'T') : `${value.replace(' ', 'T')}Z`);
    if (!Number.isNaN(ms)) return ms;
  }
  throw errors.validation(`Invalid date "${value}": use an ISO date such as 2024-01-31 or a relative date such as -3d or -24h.`, field);
}
