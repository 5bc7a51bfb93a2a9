// Aggregate functions of the sandbox's HogQL, with ClickHouse's meaning: NULL arguments are
// skipped, an aggregate over no rows gives its type's default (0, 1970-01-01, '' or NULL for a
// Nullable), `-If` filters the rows by its last argument, and groupUniqArray keeps values in the
// order first seen (ClickHouse promises no order) so answers are stable.

import type { CallExpr } from './hogql-ast.js';
import { AggState, compare, kindDefault, queryError, truthy, valueKey, type Kind, type Value } from './hogql-values.js';

type RowFn = (row: never) => Value;
export type Aggregate = (rows: readonly never[]) => Value;

const BASES = new Set([
  'count',
  'uniq',
  'uniqExact',
  'sum',
  'avg',
  'min',
  'max',
  'any',
  'anyLast',
  'argMin',
  'argMax',
  'groupArray',
  'groupUniqArray',
  'groupArrayArray',
  'groupUniqArrayArray',
  'argMinMerge',
  'argMaxMerge',
]);

/** The aggregate a call names (`countIf` is `count` with a condition), or undefined for a scalar function. */
export function aggregateBase(name: string): { base: string; conditional: boolean } | undefined {
  if (BASES.has(name)) return { base: name, conditional: false };
  if (name.endsWith('If') && BASES.has(name.slice(0, -2)) && !name.endsWith('MergeIf')) return { base: name.slice(0, -2), conditional: true };
  return undefined;
}

const ARITY: Record<string, [number, number]> = {
  count: [0, 1],
  uniq: [1, 10],
  uniqExact: [1, 10],
  argMin: [2, 2],
  argMax: [2, 2],
};

/** What an aggregate yields, for defaults and column types. */
export function aggregateKind(base: string, argKinds: Kind[]): Kind {
  if (base === 'count' || base === 'uniq' || base === 'uniqExact' || base === 'sum' || base === 'avg') return 'number';
  if (base.startsWith('group')) return 'array';
  if (base === 'argMinMerge' || base === 'argMaxMerge') return 'nullable';
  return argKinds[0] ?? 'nullable';
}

/**
 * An aggregate over a group's rows. `args` are the call's arguments compiled for one row (the
 * condition of an -If last), `params` its constant parameters (`groupUniqArray(5)(x)`).
 */
export function compileAggregate(call: CallExpr, args: RowFn[], argKinds: Kind[], params: Value[]): Aggregate {
  const found = aggregateBase(call.name)!;
  const base = call.distinct ? (call.name === 'count' ? 'uniqExact' : undefined) : found.base;
  if (base === undefined) throw queryError(`The sandbox evaluates DISTINCT only in count(DISTINCT …), not in ${call.name}().`);
  const condition = found.conditional ? args[args.length - 1] : undefined;
  if (found.conditional && !condition) throw queryError(`Aggregation '${call.name}' expects a condition as its last argument.`);
  const values = found.conditional ? args.slice(0, -1) : args;
  const [min, max] = ARITY[base] ?? [1, 1];
  if (values.length < min || values.length > max) {
    const expected = min === max ? String(min) : `${min} to ${max}`;
    throw queryError(`Aggregation '${call.name}' expects ${expected} argument${max === 1 ? '' : 's'}${found.conditional ? ' and a condition' : ''}, found ${args.length}`);
  }
  const limit = params.length > 0 ? params[0] : undefined;
  if (params.length > 1 || (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0)) || (limit !== undefined && !base.startsWith('group'))) {
    throw queryError(`Aggregation '${call.name}' takes no such parameters.`);
  }
  const cap = typeof limit === 'number' ? limit : Infinity;
  const empty = kindDefault(aggregateKind(base, argKinds.slice(0, values.length)));
  const nullable = argKinds[0] === 'nullable';
  const pick = (rows: readonly never[]) => (condition ? rows.filter((r) => truthy(condition(r))) : rows);
  const first = values[0]!;

  switch (base) {
    case 'count':
      return first ? (rows) => pick(rows).filter((r) => first(r) !== null).length : (rows) => pick(rows).length;
    case 'uniq':
    case 'uniqExact':
      return (rows) => {
        const seen = new Set<string>();
        for (const r of pick(rows)) {
          const parts = values.map((f) => f(r));
          if (parts.some((p) => p === null)) continue;
          seen.add(parts.length === 1 ? valueKey(parts[0]!) : parts.map(valueKey).join('\u0002'));
        }
        return seen.size;
      };
    case 'sum':
    case 'avg':
      return (rows) => {
        let sum = 0;
        let n = 0;
        for (const r of pick(rows)) {
          const v = first(r);
          if (v === null) continue;
          if (typeof v !== 'number' && typeof v !== 'boolean') throw queryError(`Aggregation '${call.name}' needs numbers, found ${JSON.stringify(v)}.`);
          sum += Number(v);
          n++;
        }
        return base === 'sum' ? sum : n === 0 ? null : sum / n;
      };
    case 'min':
    case 'max':
    case 'argMin':
    case 'argMax': {
      const key = base === 'argMin' || base === 'argMax' ? values[1]! : first;
      const lower = base === 'min' || base === 'argMin';
      return (rows) => {
        let best: { value: Value; key: Value } | undefined;
        for (const r of pick(rows)) {
          const value = first(r);
          const k = key === first ? value : key(r);
          if (value === null || k === null) continue;
          const c = best === undefined ? 0 : compare(k, best.key)!;
          if (best === undefined || (lower ? c < 0 : c > 0)) best = { value, key: k };
        }
        return best ? best.value : nullable ? null : empty;
      };
    }
    case 'any':
    case 'anyLast':
      return (rows) => {
        const picked = pick(rows);
        const ordered = base === 'any' ? picked : [...picked].reverse();
        for (const r of ordered) {
          const v = first(r);
          if (v !== null) return v;
        }
        return nullable ? null : empty;
      };
    case 'groupArray':
    case 'groupUniqArray':
    case 'groupArrayArray':
    case 'groupUniqArrayArray': {
      const unique = base.startsWith('groupUniq');
      const flatten = base.endsWith('ArrayArray');
      return (rows) => {
        const out: Value[] = [];
        const seen = new Set<string>();
        for (const r of pick(rows)) {
          const v = first(r);
          if (v === null) continue;
          if (flatten && !Array.isArray(v)) throw queryError(`Aggregation '${call.name}' needs an array argument.`);
          for (const item of flatten ? (v as Value[]) : [v]) {
            if (out.length >= cap) return out;
            if (unique) {
              const k = valueKey(item);
              if (seen.has(k)) continue;
              seen.add(k);
            }
            out.push(item);
          }
        }
        return out;
      };
    }
    default: {
      // argMinMerge / argMaxMerge: merge AggregateFunction(argMin|argMax) states.
      const lower = base === 'argMinMerge';
      return (rows) => {
        let best: AggState | undefined;
        for (const r of pick(rows)) {
          const state = first(r);
          if (state === null) continue;
          if (!(state instanceof AggState)) throw queryError(`Aggregation '${call.name}' merges aggregate function states, such as raw_session_replay_events.first_url.`);
          if (best === undefined || (lower ? state.key < best.key : state.key > best.key)) best = state;
        }
        return best ? best.value : null;
      };
    }
  }
}
