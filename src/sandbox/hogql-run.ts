// Runs one SELECT of the sandbox's HogQL over one project's tables: FROM, arrayJoin() expansion,
// WHERE, GROUP BY with aggregates, HAVING, ORDER BY, LIMIT (and OFFSET where the imitated PostHog
// allows it). IN subqueries run once, before the rows are read. Aggregates are computed once per
// group, however many clauses name them.

import { compileAggregate, aggregateBase, aggregateKind } from './hogql-aggregates.js';
import { exprText, fieldsOf, inlineAliases, type CallExpr, type Expr, type SelectQuery } from './hogql-ast.js';
import { callsOf, compile, type Compiled, type CompileEnv, type Fn } from './hogql-compile.js';
import type { FnContext } from './hogql-functions.js';
import { openTable, withoutTableName } from './hogql-tables.js';
import { compare, notEvaluated, queryError, truthy, valueKey, type Kind, type Value } from './hogql-values.js';
import type { ProjectData } from './project-data.js';

/** PostHog's defaults for HogQL run through the API: 100 rows unless LIMIT says otherwise, at most 50,000. */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 50_000;

export interface QueryResult {
  columns: string[];
  kinds: Kind[];
  rows: Value[][];
  hasMore: boolean;
  limit: number;
  offset: number;
}

interface Source {
  data: ProjectData;
  fnContext: FnContext;
}

/** A row expanded by arrayJoin(): the table's row and the array element it stands for. */
interface Expanded {
  r: unknown;
  j: Value;
}

interface Group {
  keys: Value[];
  rows: unknown[];
  memo: Map<string, Value>;
}

/** Column name as PostHog reports it: the alias, a field's last part, else the expression's text. */
function columnName(item: SelectQuery['select'][number]): string {
  if (item.alias) return item.alias;
  if (item.expr.k === 'field') return item.expr.chain[item.expr.chain.length - 1]!;
  return exprText(item.expr);
}

function allExprs(q: SelectQuery): Expr[] {
  return [...q.select.map((s) => s.expr), ...(q.where ? [q.where] : []), ...q.groupBy, ...(q.having ? [q.having] : []), ...q.orderBy.map((o) => o.expr)];
}

const conjuncts = (expr: Expr | undefined): Expr[] => (expr === undefined ? [] : expr.k === 'and' ? expr.items.flatMap((e) => conjuncts(e)) : [expr]);

export function runSelect(original: SelectQuery, source: Source, limits: { fallback: number; max: number }): QueryResult {
  const q = inlineAliases(original);
  const exprs = allExprs(q);
  const fieldsRead = exprs.flatMap((e) => fieldsOf(e)).map((chain) => withoutTableName(chain, q.table));
  const table = openTable(q.table, source.data, fieldsRead);

  const joins = new Map<string, CallExpr>();
  for (const call of exprs.flatMap((e) => callsOf(e))) if (call.name === 'arrayJoin') joins.set(exprText(call), call);
  if (joins.size > 1) throw notEvaluated('more than one arrayJoin() in a query');
  const join = [...joins.values()][0];
  if (join && join.args.length !== 1) throw queryError("Function 'arrayJoin' expects 1 argument.");

  const subquery = (sub: SelectQuery): Value[] => {
    const result = runSelect(sub, source, { fallback: Infinity, max: Infinity });
    if (result.columns.length !== 1) throw queryError('An IN subquery must select exactly one column.');
    return result.rows.map((row) => row[0]!);
  };

  const rowEnv = (expanded: boolean): CompileEnv => ({
    fnContext: source.fnContext,
    table: q.table,
    subquery,
    field(chain) {
      const column = table.column(withoutTableName(chain, q.table));
      if (!column) throw queryError(`Unable to resolve field: ${chain.join('.')}`);
      const get = column.get as (row: unknown) => Value;
      return { kind: column.kind, fn: (expanded ? (x: Expanded) => get(x.r) : get) as Fn };
    },
    aggregate(call) {
      throw queryError(`Aggregation '${call.name}' cannot be used here (outside SELECT of a grouped query).`);
    },
    arrayJoin(call) {
      if (!expanded || !join || exprText(call) !== exprText(join)) throw notEvaluated('arrayJoin() here');
      return { kind: 'nullable', fn: ((x: Expanded) => x.j) as Fn };
    },
  });

  // WHERE: what does not need the expansion first, then arrayJoin(), then the rest.
  let rows: readonly unknown[] = table.rows;
  const where = conjuncts(q.where);
  const needsJoin = (e: Expr) => callsOf(e).some((c) => c.name === 'arrayJoin');
  const filter = (list: readonly unknown[], conditions: Expr[], env: CompileEnv) => {
    if (conditions.length === 0) return list;
    const tests = conditions.map((c) => compile(c, env).fn as (x: unknown) => Value);
    return list.filter((row) => tests.every((t) => truthy(t(row))));
  };
  rows = filter(rows, where.filter((e) => !needsJoin(e)), rowEnv(false));
  if (join) {
    const of = compile(join.args[0]!, rowEnv(false)).fn as (x: unknown) => Value;
    const expandedRows: Expanded[] = [];
    for (const r of rows) {
      const items = of(r);
      if (items === null) continue;
      if (!Array.isArray(items)) throw queryError('arrayJoin() needs an array.');
      for (const j of items) expandedRows.push({ r, j });
    }
    rows = filter(expandedRows, where.filter(needsJoin), rowEnv(true));
  }
  const env = rowEnv(join !== undefined);

  const grouped = q.groupBy.length > 0 || exprs.some((e) => e !== q.where && callsOf(e).some((c) => aggregateBase(c.name) !== undefined));
  if (q.having && !grouped) throw queryError('HAVING needs GROUP BY or an aggregate in the SELECT.');

  let cells: Value[][];
  let orderKeys: Value[][];
  let kinds: Kind[];
  if (grouped) {
    const keyFns = q.groupBy.map((g) => compile(g, env));
    const groups = new Map<string, Group>();
    if (q.groupBy.length === 0) groups.set('', { keys: [], rows: [], memo: new Map() });
    for (const row of rows) {
      const keys = keyFns.map((k) => (k.fn as (x: unknown) => Value)(row));
      const key = keys.length === 1 ? valueKey(keys[0]!) : keys.map(valueKey).join('\u0001');
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { keys, rows: [], memo: new Map() }));
      group.rows.push(row);
    }
    const groupEnv = groupEnvironment(q, keyFns, env);
    const compileGroup = (e: Expr) => compile(e, groupEnv);
    const select = q.select.map((s) => compileGroup(s.expr));
    const having = q.having ? compileGroup(q.having) : undefined;
    const order = q.orderBy.map((o) => compileGroup(o.expr));
    let list = [...groups.values()];
    if (having) list = list.filter((g) => truthy((having.fn as (g: Group) => Value)(g)));
    cells = list.map((g) => select.map((s) => (s.fn as (g: Group) => Value)(g)));
    orderKeys = order.length > 0 ? list.map((g) => order.map((o) => (o.fn as (g: Group) => Value)(g))) : [];
    kinds = select.map((s) => s.kind);
  } else {
    const select = q.select.map((s) => compile(s.expr, env));
    const order = q.orderBy.map((o) => compile(o.expr, env));
    cells = rows.map((row) => select.map((s) => (s.fn as (x: unknown) => Value)(row)));
    orderKeys = order.length > 0 ? rows.map((row) => order.map((o) => (o.fn as (x: unknown) => Value)(row))) : [];
    kinds = select.map((s) => s.kind);
  }

  let indexes = cells.map((_, i) => i);
  if (q.orderBy.length > 0) {
    indexes.sort((a, b) => {
      for (let k = 0; k < q.orderBy.length; k++) {
        const x = orderKeys[a]![k]!;
        const y = orderKeys[b]![k]!;
        // NULLs last in either direction, as ClickHouse sorts by default.
        if (x === null || y === null) {
          if (x !== y) return x === null ? 1 : -1;
          continue;
        }
        const c = compare(x, y) ?? 0;
        if (c !== 0) return q.orderBy[k]!.desc ? -c : c;
      }
      return 0;
    });
  }
  const limit = Math.min(q.limit ?? limits.fallback, limits.max);
  const offset = q.offset ?? 0;
  const end = offset + limit;
  indexes = indexes.slice(offset, end);
  return { columns: original.select.map(columnName), kinds, rows: indexes.map((i) => cells[i]!), hasMore: cells.length > end, limit, offset };
}

/**
 * How expressions read in a group: a GROUP BY key by its text, an aggregate computed once per
 * group over its rows, constants as they are; any other column is PostHog's error.
 */
function groupEnvironment(q: SelectQuery, keyFns: Compiled[], rowEnv: CompileEnv): CompileEnv {
  const keyIndex = new Map(q.groupBy.map((g, i) => [exprText(g), i]));
  return {
    fnContext: rowEnv.fnContext,
    table: rowEnv.table,
    subquery: rowEnv.subquery,
    intercept(expr) {
      const i = keyIndex.get(exprText(expr));
      if (i === undefined || expr.k === 'const') return undefined;
      return { kind: keyFns[i]!.kind, fn: ((g: Group) => g.keys[i]!) as Fn };
    },
    field(chain) {
      throw queryError(`Field '${chain.join('.')}' is not part of the GROUP BY and not aggregated.`);
    },
    arrayJoin() {
      throw queryError('arrayJoin() in a grouped query must be a GROUP BY key.');
    },
    aggregate(call) {
      const text = exprText(call);
      const args = call.args.map((a) => compile(a, rowEnv));
      const params = call.params.map((p) => {
        const c = compile(p, rowEnv);
        if (!c.constant) throw queryError(`The parameters of ${call.name}() must be constants.`);
        return c.constant.value;
      });
      const run = compileAggregate(call, args.map((a) => a.fn), args.map((a) => a.kind), params);
      const base = aggregateBase(call.name)!.base;
      const kind = call.distinct ? 'number' : aggregateKind(base, args.map((a) => a.kind));
      return {
        kind,
        fn: ((g: Group) => {
          let value = g.memo.get(text);
          if (value === undefined) g.memo.set(text, (value = run(g.rows as never[])));
          return value;
        }) as Fn,
      };
    },
  };
}
