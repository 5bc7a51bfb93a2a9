// The values the sandbox's HogQL evaluator computes with, and how they compare and are written
// back: DateTimes and intervals are kept apart from numbers as ClickHouse keeps them, and an
// aggregate-function state (a raw replay row's `first_url`) can only be merged, never shown.

import { HogQLError } from './hogql-parse.js';

/** A DateTime (ms since the epoch); `dateOnly` for a Date, which is written without a time. */
export class Time {
  constructor(
    readonly ms: number,
    readonly dateOnly = false,
  ) {}
}

/** An INTERVAL: fixed milliseconds, or calendar months (a month or a year). */
export class Interval {
  constructor(
    readonly ms: number,
    readonly months: number,
  ) {}
}

/** An AggregateFunction(argMin, …) state: the value, and the time it is the minimum of. */
export class AggState {
  constructor(
    readonly value: Value,
    readonly key: number,
    readonly column: string,
  ) {}
}

export type Value = string | number | boolean | null | Time | Interval | AggState | Value[];

/**
 * What an expression yields, as far as the evaluator needs to know it: the default an aggregate
 * over no rows gives (ClickHouse's type default, NULL for a Nullable) and a column's type name.
 */
export type Kind = 'string' | 'nullable' | 'number' | 'datetime' | 'bool' | 'array' | 'state' | 'interval';

export const queryError = (message: string): HogQLError => new HogQLError('query', message);

export const notEvaluated = (what: string): HogQLError =>
  queryError(`The sandbox does not evaluate ${what}: it runs the HogQL subset docs/sandbox.md lists (one SELECT over one table, IN subqueries, aggregates).`);

/** ClickHouse's default for a type: what min/argMin/…If give when no row matched. */
export function kindDefault(kind: Kind): Value {
  switch (kind) {
    case 'datetime':
      return new Time(0);
    case 'number':
      return 0;
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'array':
      return [];
    default:
      return null;
  }
}

/** Milliseconds of a DateTime-like value: a DateTime, ISO text (zone-less read as UTC), or unix seconds. */
export function asTime(value: Value): number | null {
  if (value instanceof Time) return value.ms;
  if (typeof value === 'number') return Number.isFinite(value) ? value * 1000 : null;
  if (typeof value === 'string') {
    // Zone-less text is read as UTC here (PostHog reads it in the project's timezone; our tools always send a zone).
    const text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00` : value.replace(' ', 'T');
    const ms = Date.parse(/([Zz]|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text}Z`);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

/** Like ClickHouse: NULL compares as unknown (null); a DateTime against text or seconds reads them as times. */
export function compare(a: Value, b: Value): number | null {
  if (a === null || b === null) return null;
  if (a instanceof Time || b instanceof Time) {
    const x = asTime(a);
    const y = asTime(b);
    if (x === null || y === null) throw queryError('Cannot compare a DateTime with that value.');
    return x - y;
  }
  if (a instanceof AggState || b instanceof AggState) throw stateError(a instanceof AggState ? a : (b as AggState));
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compare(a[i]!, b[i]!);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' || typeof b === 'boolean') {
    if ((typeof a === 'boolean' || typeof a === 'number') && (typeof b === 'boolean' || typeof b === 'number')) return Number(a) - Number(b);
  }
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function stateError(state: AggState): HogQLError {
  return queryError(`\`${state.column}\` is an aggregate function state: read it with argMinMerge(${state.column}).`);
}

/** A key that groups equal values together (GROUP BY, uniq, DISTINCT). */
export function valueKey(value: Value): string {
  if (value === null) return '\u0000';
  if (typeof value === 'string') return `s${value}`;
  if (typeof value === 'number') return `n${value}`;
  if (typeof value === 'boolean') return `n${Number(value)}`;
  if (value instanceof Time) return `t${value.ms}`;
  if (value instanceof AggState) throw stateError(value);
  if (value instanceof Interval) return `i${value.ms}:${value.months}`;
  return `a${value.map(valueKey).join('\u0001')}`;
}

/** Truthiness as ClickHouse filters rows: non-zero and not NULL. */
export function truthy(value: Value): boolean {
  return value === true || (typeof value === 'number' && value !== 0);
}

let timezoneFormat: { zone: string; format: Intl.DateTimeFormat } | undefined;

/** The offset of `zone` at `ms`, in minutes east of UTC. */
export function offsetMinutes(zone: string, ms: number): number {
  if (zone === 'UTC') return 0;
  if (timezoneFormat?.zone !== zone) {
    timezoneFormat = { zone, format: new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }) };
  }
  const parts = Object.fromEntries(timezoneFormat.format.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const local = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return Math.round((local - Math.floor(ms / 1000) * 1000) / 60_000);
}

/**
 * DateTimes come back in the project's timezone, as DRF's JSON encoder writes them
 * (milliseconds, `Z` for UTC, else the offset); a Date as its day.
 */
function formatTime(value: Time, zone: string): string {
  const offset = offsetMinutes(zone, value.ms);
  const iso = new Date(value.ms + offset * 60_000).toISOString().slice(0, 23);
  if (value.dateOnly) return iso.slice(0, 10);
  if (offset === 0) return `${iso}Z`;
  const sign = offset > 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return `${iso}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** A value as the query API writes it into `results`. */
export function serializeValue(value: Value, zone = 'UTC'): unknown {
  if (value instanceof Time) return formatTime(value, zone);
  if (value instanceof AggState) throw stateError(value);
  if (value instanceof Interval) throw queryError('An INTERVAL cannot be a result: add it to a DateTime.');
  if (Array.isArray(value)) return value.map((v) => serializeValue(v, zone));
  return value;
}

/** The type PostHog reports for a column, from what it holds. */
export function columnType(kind: Kind, sample: Value | undefined): string {
  if (sample instanceof Time || kind === 'datetime') return sample instanceof Time && sample.dateOnly ? 'Date' : "DateTime64(6, 'UTC')";
  if (Array.isArray(sample) || kind === 'array') return 'Array(String)';
  if (typeof sample === 'number' || (sample === undefined && kind === 'number')) return typeof sample === 'number' && !Number.isInteger(sample) ? 'Float64' : 'Int64';
  if (typeof sample === 'boolean' || kind === 'bool') return 'Bool';
  return 'Nullable(String)';
}

/** A property as HogQL reads it: objects and arrays as their JSON text, absent as NULL. */
export function propertyValue(raw: unknown): Value {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === 'object') return JSON.stringify(raw);
  return raw as Value;
}
