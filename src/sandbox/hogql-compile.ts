// Expressions of the sandbox's HogQL compiled once per query into closures, so a query over tens
// of thousands of rows costs a function call per node and row, not a tree walk: constants are
// folded (toDateTime({from}) is read once), DateTime bounds are parsed once, IN lists and IN
// subqueries become sets. The same compiler serves rows and groups: the environment says what a
// field, an aggregate and an arrayJoin() mean where the expression stands.

import { ACTIONS } from './demo/catalog.js';
import { aggregateBase } from './hogql-aggregates.js';
import { childrenOf, exprText, type CallExpr, type Expr, type SelectQuery } from './hogql-ast.js';
import { FUNCTIONS, arithmetic, type FnContext } from './hogql-functions.js';
import { AggState, Interval, Time, asTime, compare, queryError, truthy, valueKey, type Kind, type Value } from './hogql-values.js';

export type Fn = (x: never) => Value;

export interface Compiled {
  fn: Fn;
  kind: Kind;
  /** The value when it does not depend on the row (folded at compile time). */
  constant?: { value: Value };
}

export interface CompileEnv {
  fnContext: FnContext;
  /** The table the query reads (matchesAction() reads events only). */
  table: string;
  field(chain: string[]): Compiled;
  /** An aggregate call: a group's value, or an error where aggregates are not allowed. */
  aggregate(call: CallExpr): Compiled;
  /** An arrayJoin() call: the value the row was expanded by, or an error where there is none. */
  arrayJoin(call: CallExpr): Compiled;
  /** What stands for the whole expression here (a GROUP BY key in a group), if anything. */
  intercept?(expr: Expr): Compiled | undefined;
  /** The values of an IN subquery's one column. */
  subquery(query: SelectQuery): Value[];
}

export const constant = (value: Value): Compiled => ({ fn: () => value, kind: kindOfValue(value), constant: { value } });

function kindOfValue(value: Value): Kind {
  if (value === null) return 'nullable';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  if (value instanceof Time) return 'datetime';
  if (value instanceof Interval) return 'interval';
  if (value instanceof AggState) return 'state';
  return 'array';
}

/** Folds a node whose parts are all constant; otherwise wraps the computation. */
function derive(parts: Compiled[], kind: Kind, compute: (values: Value[]) => Value): Compiled {
  if (parts.every((p) => p.constant)) return constant(compute(parts.map((p) => p.constant!.value)));
  const fns = parts.map((p) => p.fn);
  if (fns.length === 1) {
    const [a] = fns as [Fn];
    return { kind, fn: ((x: never) => compute([a(x)])) as Fn };
  }
  if (fns.length === 2) {
    const [a, b] = fns as [Fn, Fn];
    return { kind, fn: ((x: never) => compute([a(x), b(x)])) as Fn };
  }
  return { kind, fn: ((x: never) => compute(fns.map((f) => f(x)))) as Fn };
}

/** A constant compared with a DateTime is read as one DateTime, once. */
function asTimeConstant(part: Compiled, other: Compiled): Compiled {
  if (!part.constant || other.kind !== 'datetime') return part;
  const value = part.constant.value;
  if (value instanceof Time || value === null) return part;
  const ms = asTime(value);
  if (ms === null) throw queryError('Cannot compare a DateTime with that value.');
  return constant(new Time(ms));
}

const COMPARE: Record<string, (c: number) => boolean> = {
  '=': (c) => c === 0,
  '!=': (c) => c !== 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

/** Membership in a fixed list, by key, with DateTimes matched by time and numbers by their text as ClickHouse coerces them. */
function membership(items: readonly Value[]): (value: Value) => boolean {
  const keys = new Set<string>();
  const times = new Set<number>();
  for (const item of items) {
    if (item === null) continue;
    keys.add(valueKey(item));
    if (typeof item === 'number') keys.add(`s${item}`);
    if (typeof item === 'string' && item.trim() !== '' && Number.isFinite(Number(item))) keys.add(`n${Number(item)}`);
    const ms = asTime(item instanceof Time || typeof item === 'string' ? item : null);
    if (ms !== null) times.add(ms);
  }
  return (value) => (value instanceof Time ? times.has(value.ms) : keys.has(valueKey(value)));
}

function compileCall(expr: CallExpr, env: CompileEnv): Compiled {
  if (expr.name === 'matchesAction') {
    // Read when the first row reaches it, as the sandbox always has: a query whose other
    // conditions leave no row never looks the action up.
    let condition: Fn | undefined;
    return { kind: 'bool', fn: ((x: never) => (condition ??= compile(actionCondition(expr, env), env).fn)(x)) as Fn };
  }
  if (aggregateBase(expr.name)) return env.aggregate(expr);
  if (expr.name === 'arrayJoin') return env.arrayJoin(expr);
  const spec = Object.hasOwn(FUNCTIONS, expr.name) ? FUNCTIONS[expr.name] : undefined;
  if (!spec) throw queryError(`Unsupported function call '${expr.name}(...)'`);
  if (expr.params.length > 0 || expr.distinct || expr.star) throw queryError(`Function '${expr.name}' takes no parameters, DISTINCT or *.`);
  if (expr.args.length < spec.min || expr.args.length > spec.max) {
    const expected = spec.min === spec.max ? `${spec.min}` : spec.max === 99 ? `at least ${spec.min}` : `${spec.min} to ${spec.max}`;
    throw queryError(`Function '${expr.name}' expects ${expected} argument${spec.max === 1 ? '' : 's'}, found ${expr.args.length}.`);
  }
  const args = expr.args.map((a) => compile(a, env));
  const kind = typeof spec.kind === 'function' ? spec.kind(args.map((a) => a.kind)) : spec.kind;
  const ctx = env.fnContext;
  const takesNull = spec.takesNull === true;
  return derive(args, kind, (values) => {
    if (!takesNull && values.some((v) => v === null)) return null;
    for (const v of values) if (v instanceof AggState) throw queryError(`\`${v.column}\` is an aggregate function state: read it with argMinMerge(${v.column}).`);
    return spec.fn(values, ctx);
  });
}

/** matchesAction(id or name): the action's definition (one event here) as a condition, with PostHog's texts. */
function actionCondition(expr: CallExpr, env: CompileEnv): Expr {
  const arg = expr.args[0];
  if (expr.args.length !== 1 || arg?.k !== 'const') throw queryError('action() takes only constant arguments');
  if (env.table !== 'events') throw queryError('matchesAction() can only be used on the events table');
  // PostHog's own texts, including the "cohort" its code says for an unknown action id.
  let action: (typeof ACTIONS)[number] | undefined;
  if (typeof arg.v === 'number') {
    action = ACTIONS.find((a) => a.id === Math.trunc(arg.v as number));
    if (!action) throw queryError(`Could not find cohort with ID ${arg.v}`);
  } else if (typeof arg.v === 'string') {
    action = ACTIONS.find((a) => a.name === arg.v);
    if (!action) throw queryError(`Could not find an action with the name '${arg.v}'`);
  } else {
    throw queryError('action() takes exactly one string or integer argument');
  }
  return { k: 'cmp', op: '=', l: { k: 'field', chain: ['event'] }, r: { k: 'const', v: action.event } };
}

export function compile(expr: Expr, env: CompileEnv): Compiled {
  const intercepted = env.intercept?.(expr);
  if (intercepted) return intercepted;
  switch (expr.k) {
    case 'const':
      return constant(expr.v);
    case 'field':
      return env.field(expr.chain);
    case 'call':
      return compileCall(expr, env);
    case 'cmp': {
      let l = compile(expr.l, env);
      let r = compile(expr.r, env);
      l = asTimeConstant(l, r);
      r = asTimeConstant(r, l);
      const test = COMPARE[expr.op]!;
      return derive([l, r], 'bool', ([a, b]) => {
        const c = compare(a!, b!);
        return c === null ? null : test(c);
      });
    }
    case 'in': {
      const l = compile(expr.l, env);
      const not = expr.not;
      if (expr.r.k === 'sub' || expr.r.k === 'const') {
        const items = expr.r.k === 'sub' ? env.subquery(expr.r.q) : Array.isArray(expr.r.v) ? expr.r.v : [expr.r.v];
        const has = membership(items);
        return derive([l], 'bool', ([v]) => (v === null ? null : has(v!) !== not));
      }
      const r = compile(expr.r, env);
      return derive([l, r], 'bool', ([v, list]) => {
        if (v === null) return null;
        const found = (Array.isArray(list) ? list : [list!]).some((item) => compare(v!, item) === 0);
        return found !== not;
      });
    }
    case 'sub':
      throw queryError('A subquery is evaluated only on the right of IN.');
    case 'isNull': {
      const e = compile(expr.e, env);
      return derive([e], 'bool', ([v]) => (v === null) !== expr.not);
    }
    case 'and':
    case 'or': {
      const items = expr.items.map((e) => compile(e, env));
      const all = expr.k === 'and';
      if (items.every((i) => i.constant)) return constant(all ? items.every((i) => truthy(i.constant!.value)) : items.some((i) => truthy(i.constant!.value)));
      const fns = items.map((i) => i.fn);
      return { kind: 'bool', fn: (all ? (x: never) => fns.every((f) => truthy(f(x))) : (x: never) => fns.some((f) => truthy(f(x)))) as Fn };
    }
    case 'not': {
      const e = compile(expr.e, env);
      return derive([e], 'bool', ([v]) => (v === null ? null : !truthy(v!)));
    }
    case 'arith': {
      const l = compile(expr.l, env);
      const r = compile(expr.r, env);
      const kind: Kind = l.kind === 'datetime' && r.kind === 'datetime' ? 'number' : l.kind === 'datetime' || r.kind === 'datetime' ? 'datetime' : 'number';
      return derive([l, r], kind, ([a, b]) => arithmetic(expr.op, a!, b!));
    }
    case 'between': {
      const e = compile(expr.e, env);
      const lo = asTimeConstant(compile(expr.lo, env), e);
      const hi = asTimeConstant(compile(expr.hi, env), e);
      return derive([e, lo, hi], 'bool', ([v, a, b]) => {
        const x = compare(v!, a!);
        const y = compare(v!, b!);
        return x === null || y === null ? null : (x >= 0 && y <= 0) !== expr.not;
      });
    }
    case 'list': {
      const items = expr.items.map((e) => compile(e, env));
      return derive(items, 'array', (values) => values);
    }
    case 'index': {
      const e = compile(expr.e, env);
      const i = compile(expr.i, env);
      return derive([e, i], 'nullable', ([a, n]) => {
        if (!Array.isArray(a)) throw queryError(`Only arrays can be indexed: ${exprText(expr.e)} is not one.`);
        if (typeof n !== 'number' || !Number.isInteger(n)) throw queryError('An array index is an integer counting from 1.');
        return (n > 0 ? a[n - 1] : n < 0 ? a[a.length + n] : undefined) ?? null;
      });
    }
  }
}

/** Every call in an expression (not inside IN subqueries), for finding aggregates and arrayJoin(). */
export function callsOf(expr: Expr, out: CallExpr[] = []): CallExpr[] {
  if (expr.k === 'call') out.push(expr);
  for (const child of childrenOf(expr)) callsOf(child, out);
  return out;
}
