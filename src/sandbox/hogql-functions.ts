// The scalar functions the sandbox's HogQL evaluates, with ClickHouse's meaning: dates (in the
// project's timezone where ClickHouse uses the session's), intervals, JSON extraction with
// 1-based paths, strings, arrays, NULL handling and conditionals. A function not listed here is
// PostHog's "Unsupported function call" error, never a guess.

import { AggState, Interval, Time, asTime, compare, offsetMinutes, queryError, stateError, truthy, type Kind, type Value } from './hogql-values.js';

export interface FnContext {
  nowMs: number;
  zone: string;
}

interface FnSpec {
  min: number;
  max: number;
  kind: Kind | ((args: Kind[]) => Kind);
  fn: (args: Value[], ctx: FnContext) => Value;
  /** Called with NULL arguments as they are; otherwise any NULL argument makes the result NULL. */
  takesNull?: boolean;
}

const DAY = 86_400_000;
const UNIT_MS: Record<string, number> = { second: 1_000, minute: 60_000, hour: 3_600_000, day: DAY, week: 7 * DAY };

const text = (v: Value): string => (v instanceof Time ? new Date(v.ms).toISOString().replace('T', ' ').slice(0, v.dateOnly ? 10 : 19) : Array.isArray(v) ? JSON.stringify(v) : String(v));
const num = (v: Value, name: string): number => {
  const n = typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw queryError(`${name}: cannot read ${JSON.stringify(text(v))} as a number.`);
  return n;
};
const time = (v: Value, name: string): number => {
  const ms = asTime(v);
  if (ms === null) throw queryError(`${name}: cannot read ${JSON.stringify(text(v))} as a DateTime.`);
  return ms;
};
const arr = (v: Value, name: string): Value[] => {
  if (!Array.isArray(v)) throw queryError(`${name} expects an array.`);
  return v;
};

/** Midnight (in the project's timezone) of the day `ms` falls on. */
function startOfDay(ms: number, zone: string): number {
  const local = ms + offsetMinutes(zone, ms) * 60_000;
  const midnightLocal = Math.floor(local / DAY) * DAY;
  return midnightLocal - offsetMinutes(zone, midnightLocal) * 60_000;
}

function truncate(unit: string, ms: number, zone: string): number {
  switch (unit.toLowerCase()) {
    case 'second':
      return Math.floor(ms / 1000) * 1000;
    case 'minute':
      return Math.floor(ms / 60_000) * 60_000;
    case 'hour':
      return Math.floor(ms / 3_600_000) * 3_600_000;
    case 'day':
      return startOfDay(ms, zone);
    case 'week': {
      // ClickHouse's default week starts on Sunday (mode 0).
      const day = startOfDay(ms, zone);
      const weekday = new Date(day + offsetMinutes(zone, day) * 60_000).getUTCDay();
      return startOfDay(day - weekday * DAY + DAY / 2, zone);
    }
    case 'month': {
      const d = new Date(startOfDay(ms, zone) + offsetMinutes(zone, ms) * 60_000);
      const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
      return first - offsetMinutes(zone, first) * 60_000;
    }
    default:
      throw queryError(`Unknown date part '${unit}'.`);
  }
}

function addMonths(ms: number, months: number): number {
  const d = new Date(ms);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.getTime();
}

/** ClickHouse's dateDiff: how many unit boundaries lie between the two times. */
function dateDiff(unit: string, a: number, b: number, zone: string): number {
  const u = unit.toLowerCase().replace(/s$/, '');
  if (u === 'month' || u === 'year' || u === 'quarter') {
    const x = new Date(a + offsetMinutes(zone, a) * 60_000);
    const y = new Date(b + offsetMinutes(zone, b) * 60_000);
    const months = (y.getUTCFullYear() - x.getUTCFullYear()) * 12 + (y.getUTCMonth() - x.getUTCMonth());
    return u === 'month' ? months : u === 'quarter' ? Math.floor(months / 3) : y.getUTCFullYear() - x.getUTCFullYear();
  }
  const size = UNIT_MS[u];
  if (size === undefined) throw queryError(`Unknown unit '${unit}' for dateDiff.`);
  if (u === 'second' || u === 'minute' || u === 'hour') return Math.floor(b / size) - Math.floor(a / size);
  const dayNumber = (ms: number) => Math.floor((ms + offsetMinutes(zone, ms) * 60_000) / DAY);
  const days = dayNumber(b) - dayNumber(a);
  return u === 'day' ? days : Math.trunc(days / 7);
}

let lastJson: { text: string; value: unknown } | undefined;

/** Parsed JSON text (the last one is kept: a query often reads several parts of one property). */
function parseJson(source: Value): unknown {
  if (typeof source !== 'string') return undefined;
  if (lastJson?.text === source) return lastJson.value;
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    value = undefined;
  }
  lastJson = { text: source, value };
  return value;
}

/** The JSONExtract path: numbers count from 1 (negative from the end), strings are keys. */
function jsonAt(args: Value[]): unknown {
  let value = parseJson(args[0]!);
  for (const part of args.slice(1)) {
    if (typeof part === 'number') {
      if (!Array.isArray(value) && (value === null || typeof value !== 'object')) return undefined;
      const items = Array.isArray(value) ? value : Object.values(value as object);
      const i = part > 0 ? part - 1 : items.length + part;
      value = part === 0 ? undefined : items[i];
    } else if (typeof part === 'string') {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
      value = (value as Record<string, unknown>)[part];
    } else {
      throw queryError('JSONExtract paths are keys (strings) and 1-based indexes (integers).');
    }
  }
  return value;
}

function regex(pattern: Value, name: string): RegExp {
  const source = text(pattern);
  if (source.length > 1000) throw queryError(`${name}: the pattern is too long.`);
  try {
    return new RegExp(source, 'g');
  } catch {
    throw queryError(`${name}: cannot compile the regular expression ${JSON.stringify(source)}.`);
  }
}

const same = (i: number) => (kinds: Kind[]) => kinds[i] ?? 'nullable';
const timeFn = (f: (ms: number, ctx: FnContext) => number): FnSpec => ({ min: 1, max: 2, kind: 'datetime', fn: ([t], ctx) => new Time(f(time(t!, 'date function'), ctx)) });
const interval = (ms: number, months = 0): FnSpec => ({ min: 1, max: 1, kind: 'interval', fn: ([n]) => new Interval(num(n!, 'INTERVAL') * ms, num(n!, 'INTERVAL') * months) });
const shift = (sign: 1 | -1, ms: number, months = 0): FnSpec => ({
  min: 2,
  max: 2,
  kind: 'datetime',
  fn: ([t, n]) => {
    const base = time(t!, 'date arithmetic');
    const by = num(n!, 'date arithmetic') * sign;
    return new Time(months ? addMonths(base, by * months) : base + by * ms);
  },
});

// Named apart: a `toString` member of an object literal is checked against Object's own.
const TO_STRING: FnSpec = { min: 1, max: 2, kind: 'string', fn: ([v]) => text(v!) };

export const FUNCTIONS: Record<string, FnSpec> = {
  // Dates and times
  now: { min: 0, max: 0, kind: 'datetime', fn: (_, ctx) => new Time(ctx.nowMs) },
  now64: { min: 0, max: 1, kind: 'datetime', fn: (_, ctx) => new Time(ctx.nowMs) },
  today: { min: 0, max: 0, kind: 'datetime', fn: (_, ctx) => new Time(startOfDay(ctx.nowMs, ctx.zone), true) },
  toDateTime: { min: 1, max: 2, kind: 'datetime', fn: ([v]) => (asTime(v!) === null ? null : new Time(asTime(v!)!)) },
  toDateTime64: { min: 1, max: 3, kind: 'datetime', fn: ([v]) => (asTime(v!) === null ? null : new Time(asTime(v!)!)) },
  parseDateTimeBestEffort: { min: 1, max: 2, kind: 'datetime', fn: ([v]) => (asTime(v!) === null ? null : new Time(asTime(v!)!)) },
  toDate: { min: 1, max: 2, kind: 'datetime', fn: ([v], ctx) => new Time(startOfDay(time(v!, 'toDate'), ctx.zone), true) },
  toStartOfDay: timeFn((ms, ctx) => startOfDay(ms, ctx.zone)),
  toStartOfHour: timeFn((ms, ctx) => truncate('hour', ms, ctx.zone)),
  toStartOfMinute: timeFn((ms, ctx) => truncate('minute', ms, ctx.zone)),
  toStartOfWeek: timeFn((ms, ctx) => truncate('week', ms, ctx.zone)),
  toStartOfMonth: timeFn((ms, ctx) => truncate('month', ms, ctx.zone)),
  dateTrunc: { min: 2, max: 3, kind: 'datetime', fn: ([unit, t], ctx) => new Time(truncate(text(unit!), time(t!, 'dateTrunc'), ctx.zone)) },
  dateDiff: { min: 3, max: 4, kind: 'number', fn: ([unit, a, b], ctx) => dateDiff(text(unit!), time(a!, 'dateDiff'), time(b!, 'dateDiff'), ctx.zone) },
  toUnixTimestamp: { min: 1, max: 2, kind: 'number', fn: ([t]) => Math.floor(time(t!, 'toUnixTimestamp') / 1000) },
  toIntervalSecond: interval(1_000),
  toIntervalMinute: interval(60_000),
  toIntervalHour: interval(3_600_000),
  toIntervalDay: interval(DAY),
  toIntervalWeek: interval(7 * DAY),
  toIntervalMonth: interval(0, 1),
  toIntervalYear: interval(0, 12),
  addSeconds: shift(1, 1_000),
  addMinutes: shift(1, 60_000),
  addHours: shift(1, 3_600_000),
  addDays: shift(1, DAY),
  addWeeks: shift(1, 7 * DAY),
  addMonths: shift(1, 0, 1),
  subtractSeconds: shift(-1, 1_000),
  subtractMinutes: shift(-1, 60_000),
  subtractHours: shift(-1, 3_600_000),
  subtractDays: shift(-1, DAY),
  subtractWeeks: shift(-1, 7 * DAY),
  subtractMonths: shift(-1, 0, 1),

  // JSON (paths count from 1)
  JSONExtractString: { min: 1, max: 99, kind: 'string', fn: (args) => (typeof jsonAt(args) === 'string' ? (jsonAt(args) as string) : '') },
  JSONExtractRaw: { min: 1, max: 99, kind: 'string', fn: (args) => (jsonAt(args) === undefined ? '' : JSON.stringify(jsonAt(args))) },
  JSONExtractArrayRaw: { min: 1, max: 99, kind: 'array', fn: (args) => (Array.isArray(jsonAt(args)) ? (jsonAt(args) as unknown[]).map((v) => JSON.stringify(v)) : []) },
  JSONExtractInt: { min: 1, max: 99, kind: 'number', fn: (args) => (typeof jsonAt(args) === 'number' ? Math.trunc(jsonAt(args) as number) : 0) },
  JSONExtractFloat: { min: 1, max: 99, kind: 'number', fn: (args) => (typeof jsonAt(args) === 'number' ? (jsonAt(args) as number) : 0) },
  JSONExtractBool: { min: 1, max: 99, kind: 'number', fn: (args) => (jsonAt(args) === true ? 1 : 0) },
  JSONHas: { min: 2, max: 99, kind: 'number', fn: (args) => (jsonAt(args) === undefined ? 0 : 1) },
  JSONLength: { min: 1, max: 99, kind: 'number', fn: (args) => { const v = jsonAt(args); return Array.isArray(v) ? v.length : v !== null && typeof v === 'object' ? Object.keys(v).length : 0; } },

  // Strings
  lower: { min: 1, max: 1, kind: 'string', fn: ([s]) => text(s!).toLowerCase() },
  upper: { min: 1, max: 1, kind: 'string', fn: ([s]) => text(s!).toUpperCase() },
  trim: { min: 1, max: 1, kind: 'string', fn: ([s]) => text(s!).trim() },
  concat: { min: 1, max: 99, kind: 'string', fn: (args) => args.map(text).join('') },
  substring: { min: 2, max: 3, kind: 'string', fn: ([s, o, n]) => [...text(s!)].slice(num(o!, 'substring') - 1, n === undefined ? undefined : num(o!, 'substring') - 1 + num(n, 'substring')).join('') },
  left: { min: 2, max: 2, kind: 'string', fn: ([s, n]) => [...text(s!)].slice(0, num(n!, 'left')).join('') },
  replaceAll: { min: 3, max: 3, kind: 'string', fn: ([s, a, b]) => text(s!).split(text(a!)).join(text(b!)) },
  replaceRegexpAll: { min: 3, max: 3, kind: 'string', fn: ([s, re, by]) => text(s!).replace(regex(re!, 'replaceRegexpAll'), text(by!).replace(/\\(\d)/g, '$$$1')) },
  replaceRegexpOne: { min: 3, max: 3, kind: 'string', fn: ([s, re, by]) => text(s!).replace(new RegExp(regex(re!, 'replaceRegexpOne').source), text(by!).replace(/\\(\d)/g, '$$$1')) },
  match: { min: 2, max: 2, kind: 'bool', fn: ([s, re]) => new RegExp(regex(re!, 'match').source).test(text(s!)) },
  extract: { min: 2, max: 2, kind: 'string', fn: ([s, re]) => { const m = new RegExp(regex(re!, 'extract').source).exec(text(s!)); return m ? (m[1] ?? m[0]) : ''; } },
  position: { min: 2, max: 2, kind: 'number', fn: ([s, sub]) => text(s!).indexOf(text(sub!)) + 1 },
  startsWith: { min: 2, max: 2, kind: 'bool', fn: ([s, p]) => text(s!).startsWith(text(p!)) },
  endsWith: { min: 2, max: 2, kind: 'bool', fn: ([s, p]) => text(s!).endsWith(text(p!)) },
  toString: TO_STRING,
  splitByChar: { min: 2, max: 2, kind: 'array', fn: ([sep, s]) => text(s!).split(text(sep!)) },

  // Arrays and lengths
  length: { min: 1, max: 1, kind: 'number', fn: ([v]) => (Array.isArray(v) ? v.length : Buffer.byteLength(text(v!))) },
  empty: { min: 1, max: 1, kind: 'bool', fn: ([v]) => (Array.isArray(v) ? v.length === 0 : text(v!) === '') },
  notEmpty: { min: 1, max: 1, kind: 'bool', fn: ([v]) => (Array.isArray(v) ? v.length > 0 : text(v!) !== '') },
  has: { min: 2, max: 2, kind: 'bool', fn: ([a, x]) => arr(a!, 'has').some((item) => compare(item, x!) === 0) },
  arraySlice: { min: 2, max: 3, kind: 'array', fn: ([a, o, n]) => { const items = arr(a!, 'arraySlice'); const from = num(o!, 'arraySlice'); const start = from > 0 ? from - 1 : items.length + from; return items.slice(start, n === undefined ? undefined : start + num(n, 'arraySlice')); } },
  arrayDistinct: { min: 1, max: 1, kind: 'array', fn: ([a]) => arr(a!, 'arrayDistinct').filter((v, i, all) => all.findIndex((w) => compare(v, w) === 0) === i) },
  arrayStringConcat: { min: 1, max: 2, kind: 'string', fn: ([a, sep]) => arr(a!, 'arrayStringConcat').map(text).join(sep === undefined ? '' : text(sep)) },

  // NULLs and conditions
  isNull: { min: 1, max: 1, kind: 'bool', takesNull: true, fn: ([v]) => v === null },
  isNotNull: { min: 1, max: 1, kind: 'bool', takesNull: true, fn: ([v]) => v !== null },
  coalesce: { min: 1, max: 99, kind: (kinds) => kinds.find((k) => k !== 'nullable') ?? 'nullable', takesNull: true, fn: (args) => args.find((v) => v !== null) ?? null },
  ifNull: { min: 2, max: 2, kind: same(1), takesNull: true, fn: ([v, d]) => (v === null ? d! : v!) },
  nullIf: { min: 2, max: 2, kind: 'nullable', takesNull: true, fn: ([a, b]) => (a! !== null && b! !== null && compare(a!, b!) === 0 ? null : a!) },
  assumeNotNull: { min: 1, max: 1, kind: same(0), fn: ([v]) => v! },
  if: { min: 3, max: 3, kind: same(1), takesNull: true, fn: ([c, a, b]) => (truthy(c!) ? a! : b!) },
  multiIf: {
    min: 3,
    max: 99,
    kind: same(1),
    takesNull: true,
    fn: (args) => {
      if (args.length % 2 === 0) throw queryError('multiIf takes pairs of condition and value, then a default.');
      for (let i = 0; i + 1 < args.length; i += 2) if (truthy(args[i]!)) return args[i + 1]!;
      return args[args.length - 1]!;
    },
  },

  // Numbers
  toInt: { min: 1, max: 1, kind: 'number', fn: ([v]) => Math.trunc(num(v!, 'toInt')) },
  toInt64: { min: 1, max: 1, kind: 'number', fn: ([v]) => Math.trunc(num(v!, 'toInt64')) },
  toFloat: { min: 1, max: 1, kind: 'number', fn: ([v]) => num(v!, 'toFloat') },
  toFloat64: { min: 1, max: 1, kind: 'number', fn: ([v]) => num(v!, 'toFloat64') },
  round: { min: 1, max: 2, kind: 'number', fn: ([v, d]) => { const f = 10 ** (d === undefined ? 0 : num(d, 'round')); return Math.round(num(v!, 'round') * f) / f; } },
  floor: { min: 1, max: 1, kind: 'number', fn: ([v]) => Math.floor(num(v!, 'floor')) },
  ceil: { min: 1, max: 1, kind: 'number', fn: ([v]) => Math.ceil(num(v!, 'ceil')) },
  abs: { min: 1, max: 1, kind: 'number', fn: ([v]) => Math.abs(num(v!, 'abs')) },
  intDiv: { min: 2, max: 2, kind: 'number', fn: ([a, b]) => Math.trunc(num(a!, 'intDiv') / num(b!, 'intDiv')) },
  greatest: { min: 1, max: 99, kind: same(0), fn: (args) => args.reduce((a, b) => ((compare(a, b) ?? 0) >= 0 ? a : b)) },
  least: { min: 1, max: 99, kind: same(0), fn: (args) => args.reduce((a, b) => ((compare(a, b) ?? 0) <= 0 ? a : b)) },
};

/** `a op b` as ClickHouse computes it, DateTimes and INTERVALs included; NULL in, NULL out. */
export function arithmetic(op: string, a: Value, b: Value): Value {
  if (a === null || b === null) return null;
  if (a instanceof AggState) throw stateError(a);
  if (b instanceof AggState) throw stateError(b);
  if (a instanceof Time && (op === '+' || op === '-')) {
    if (b instanceof Interval) return new Time(b.months ? addMonths(a.ms, op === '+' ? b.months : -b.months) : a.ms + (op === '+' ? b.ms : -b.ms));
    if (b instanceof Time && op === '-') return Math.round((a.ms - b.ms) / 1000);
    if (typeof b === 'number') return new Time(a.ms + (op === '+' ? b : -b) * 1000);
  }
  if (a instanceof Interval && b instanceof Time && op === '+') return arithmetic('+', b, a);
  const x = num(a, `the '${op}' operator`);
  const y = num(b, `the '${op}' operator`);
  const result = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : op === '/' ? x / y : x % y;
  return Number.isFinite(result) ? result : null;
}
