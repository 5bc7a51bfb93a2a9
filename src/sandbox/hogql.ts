// POST /api/projects/{id}/query/ for a HogQLQuery. The query is parsed by PostHog's own parser
// (hogql-parse.ts), its placeholders filled from `values` in the tree as PostHog does, and the
// tree evaluated over the project's demo events for the subset posthog-replay-mcp's queries use:
// one SELECT over `events` with WHERE, GROUP BY, ORDER BY, LIMIT; comparisons, IN, IS NULL,
// AND/OR/NOT; toDateTime, matchesAction, argMin/argMax/min/max/count. Anything else is answered
// with PostHog's query-error body (400), never with a made-up result.

import { ACTIONS } from './demo/catalog.js';
import type { CapturedEvent } from './demo/dataset.js';
import { ApiError, errors, json, parseJsonBody, type Reply } from './http.js';
import { HogQLError, parseSelect, replacePlaceholders, type AstNode } from './hogql-parse.js';
import type { RequestContext, SandboxApi } from './state.js';

/** PostHog's defaults for HogQL run through the API: 100 rows unless LIMIT says otherwise, at most 50,000. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 50_000;

/** PostHog refuses OFFSET on queries made with a personal API key (posthog/hogql/user_query_validator.py). */
const OFFSET_REFUSED =
  'OFFSET is not supported on queries made with a personal API key. For pagination, use keyset pagination on the `timestamp` column, e.g. `WHERE timestamp > :last_seen_timestamp ORDER BY timestamp LIMIT N`. For bulk data extraction, use batch exports: https://posthog.com/docs/cdp/batch-exports';

/** Tables PostHog has that the sandbox does not model (a query naming another is PostHog's unknown table). */
const UNMODELLED_TABLES = new Set(['persons', 'person_distinct_ids', 'sessions', 'groups', 'cohort_people', 'session_replay_events', 'log_entries', 'query_log']);

const queryError = (message: string) => new HogQLError('query', message);
const notEvaluated = (what: string) => queryError(`The sandbox does not evaluate ${what}: it runs the HogQL posthog-replay-mcp sends (one SELECT over events).`);

// ---------------------------------------------------------------------------------------
// From PostHog's AST to a small expression tree the evaluator runs

type Value = string | number | boolean | null | Time | Value[];
/** A DateTime value (ms since the epoch), distinct from a number as in ClickHouse. */
class Time {
  constructor(readonly ms: number) {}
}

type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

type Expr =
  | { k: 'const'; v: Value }
  | { k: 'field'; chain: string[] }
  | { k: 'call'; name: string; args: Expr[]; star: boolean }
  | { k: 'cmp'; op: CompareOp; l: Expr; r: Expr }
  | { k: 'in'; not: boolean; l: Expr; r: Expr }
  | { k: 'isNull'; not: boolean; e: Expr }
  | { k: 'and' | 'or'; items: Expr[] }
  | { k: 'not'; e: Expr };

interface SelectQuery {
  select: Array<{ expr: Expr; alias?: string }>;
  where?: Expr;
  groupBy: Expr[];
  orderBy: Array<{ expr: Expr; desc: boolean }>;
  limit?: number;
}

const COMPARE_OPS: Record<string, CompareOp> = { '==': '=', '!=': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

/** An AST property that is absent in every sense the parser writes it (null, false, empty list). */
const absent = (value: unknown) => value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0);

function children(node: AstNode, key: string): AstNode[] {
  const value = node[key];
  return Array.isArray(value) ? (value as AstNode[]) : [];
}

function toExpr(node: AstNode): Expr {
  switch (node.node) {
    case 'Constant':
      return { k: 'const', v: node.value as Value };
    case 'Tuple':
    case 'Array': {
      const items = children(node, 'exprs').map(toExpr);
      if (items.some((e) => e.k !== 'const')) throw notEvaluated('tuples or arrays of anything but constants');
      return { k: 'const', v: items.map((e) => (e as { v: Value }).v) };
    }
    case 'Field': {
      const chain = node.chain as unknown[];
      if (!chain.every((part): part is string => typeof part === 'string')) throw queryError(`Unable to resolve field: ${chain.join('.')}`);
      // `events.x` is `x` on the one table the query reads.
      return { k: 'field', chain: chain[0] === 'events' && chain.length > 1 ? chain.slice(1) : chain };
    }
    case 'Call': {
      const name = String(node.name);
      if (!absent(node.params) || !absent(node.distinct) || !absent(node.filter_expr) || !absent(node.order_by)) throw notEvaluated(`parameters, DISTINCT, FILTER or ORDER BY in a call of ${name}()`);
      const args = children(node, 'args');
      const star = args.length === 1 && args[0]!.node === 'Field' && (args[0]!.chain as unknown[]).length === 1 && (args[0]!.chain as unknown[])[0] === '*';
      return { k: 'call', name, args: star ? [] : args.map(toExpr), star };
    }
    case 'CompareOperation': {
      const op = String(node.op);
      const l = toExpr(node.left as AstNode);
      const r = toExpr(node.right as AstNode);
      if (node.is_null_comparison_style === true && r.k === 'const' && r.v === null) return { k: 'isNull', not: op === '!=', e: l };
      if (op === 'in' || op === 'not in') return { k: 'in', not: op === 'not in', l, r };
      const cmp = COMPARE_OPS[op];
      if (!cmp) throw notEvaluated(`the '${op}' comparison`);
      return { k: 'cmp', op: cmp, l, r };
    }
    case 'And':
    case 'Or':
      return { k: node.node === 'And' ? 'and' : 'or', items: children(node, 'exprs').map(toExpr) };
    case 'Not':
      return { k: 'not', e: toExpr(node.expr as AstNode) };
    case 'Alias':
      throw notEvaluated('an alias inside an expression');
    default:
      throw notEvaluated(`${node.node} expressions`);
  }
}

/** Keys of a SelectQuery node the sandbox reads; any other that is set is a feature it does not run. */
const SELECT_KEYS = new Set(['node', 'select', 'select_from', 'where', 'group_by', 'order_by', 'limit', 'offset']);
const JOIN_KEYS = new Set(['node', 'table', 'alias']);

function toSelect(tree: AstNode, api: SandboxApi): SelectQuery {
  if (tree.node === 'SelectSetQuery') throw notEvaluated('UNION, INTERSECT or EXCEPT');
  if (tree.node !== 'SelectQuery') throw notEvaluated(`a ${tree.node}`);
  if (!absent(tree.offset)) throw api === 'today' ? queryError(OFFSET_REFUSED) : notEvaluated('OFFSET');
  for (const [key, value] of Object.entries(tree)) {
    if (!SELECT_KEYS.has(key) && !absent(value)) throw notEvaluated(key.replaceAll('_', ' ').toUpperCase());
  }
  const from = tree.select_from as AstNode | null | undefined;
  if (!from) throw notEvaluated('a SELECT without FROM');
  for (const [key, value] of Object.entries(from)) {
    if (!JOIN_KEYS.has(key) && !absent(value)) throw notEvaluated(key === 'next_join' ? 'JOIN' : key.replaceAll('_', ' ').toUpperCase());
  }
  if (!absent(from.alias)) throw notEvaluated('a table alias');
  const table = from.table as AstNode;
  if (table.node !== 'Field') throw notEvaluated('subqueries');
  const name = (table.chain as unknown[]).join('.');
  if (name !== 'events') {
    throw queryError(UNMODELLED_TABLES.has(name) ? `The sandbox serves only the events table, not \`${name}\`.` : `Unknown table \`${name}\`.`);
  }

  const query: SelectQuery = {
    select: children(tree, 'select').map((item) =>
      item.node === 'Alias' ? { expr: toExpr(item.expr as AstNode), alias: String(item.alias) } : { expr: toExpr(item) },
    ),
    groupBy: children(tree, 'group_by').map(toExpr),
    orderBy: children(tree, 'order_by').map((o) => {
      if (o.node !== 'OrderExpr') throw notEvaluated(`${o.node} in ORDER BY`);
      return { expr: toExpr(o.expr as AstNode), desc: o.order === 'DESC' };
    }),
  };
  if (tree.where) query.where = toExpr(tree.where as AstNode);
  if (tree.limit) {
    const limit = toExpr(tree.limit as AstNode);
    if (limit.k !== 'const' || typeof limit.v !== 'number' || !Number.isInteger(limit.v) || limit.v < 0) throw queryError('LIMIT must be a non-negative integer.');
    query.limit = limit.v;
  }
  return query;
}

// ---------------------------------------------------------------------------------------
// Evaluation over the demo events

interface EventRow {
  event: CapturedEvent;
  sessionId: string;
}

const AGGREGATES = new Set(['argMin', 'argMax', 'min', 'max', 'count']);
const EVENT_COLUMNS = new Set(['uuid', 'event', 'timestamp', 'distinct_id', '$session_id', 'properties']);

function field(row: EventRow, chain: string[]): Value {
  const [head, ...rest] = chain;
  if (head === 'properties' && rest.length === 1) {
    if (rest[0] === '$session_id') return row.sessionId;
    const value = row.event.properties[rest[0]!];
    return value === undefined || value === null ? null : typeof value === 'object' ? JSON.stringify(value) : (value as Value);
  }
  switch (head) {
    case 'uuid':
      return row.event.uuid;
    case 'event':
      return row.event.event;
    case 'timestamp':
      return new Time(row.event.timestampMs);
    case 'distinct_id':
      return row.event.distinctId;
    case '$session_id':
      return row.sessionId;
    default:
      throw queryError(`Unable to resolve field: ${chain.join('.')}`);
  }
}

function checkFields(expr: Expr): void {
  switch (expr.k) {
    case 'field':
      if (!(EVENT_COLUMNS.has(expr.chain[0]!) && (expr.chain.length === 1 ? expr.chain[0] !== 'properties' : expr.chain[0] === 'properties' && expr.chain.length === 2))) {
        throw queryError(`Unable to resolve field: ${expr.chain.join('.')}`);
      }
      return;
    case 'call':
      return expr.args.forEach(checkFields);
    case 'cmp':
    case 'in':
      checkFields(expr.l);
      return checkFields(expr.r);
    case 'and':
    case 'or':
      return expr.items.forEach(checkFields);
    case 'not':
    case 'isNull':
      return checkFields(expr.e);
    default:
      return;
  }
}

function asTime(value: Value): number | null {
  if (value instanceof Time) return value.ms;
  if (typeof value === 'string') {
    // Zone-less text is read as UTC here (PostHog reads it in the project's timezone; our tools always send a zone).
    const text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00` : value.replace(' ', 'T');
    const ms = Date.parse(/([Zz]|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text}Z`);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

function compare(a: Value, b: Value): number | null {
  if (a === null || b === null) return null;
  if (a instanceof Time || b instanceof Time) {
    const x = asTime(a);
    const y = asTime(b);
    if (x === null || y === null) throw queryError('Cannot compare a DateTime with that value.');
    return x - y;
  }
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function evaluate(expr: Expr, row: EventRow): Value {
  switch (expr.k) {
    case 'const':
      return expr.v;
    case 'field':
      return field(row, expr.chain);
    case 'cmp': {
      const c = compare(evaluate(expr.l, row), evaluate(expr.r, row));
      if (c === null) return null;
      return { '=': c === 0, '!=': c !== 0, '<': c < 0, '<=': c <= 0, '>': c > 0, '>=': c >= 0 }[expr.op];
    }
    case 'in': {
      const left = evaluate(expr.l, row);
      const right = evaluate(expr.r, row);
      const list = Array.isArray(right) ? right : [right];
      if (left === null) return null;
      const found = list.some((item) => compare(left, item) === 0);
      return expr.not ? !found : found;
    }
    case 'isNull':
      return (evaluate(expr.e, row) === null) !== expr.not;
    case 'and':
      return expr.items.every((e) => evaluate(e, row) === true);
    case 'or':
      return expr.items.some((e) => evaluate(e, row) === true);
    case 'not': {
      const v = evaluate(expr.e, row);
      return v === null ? null : !v;
    }
    case 'call':
      return callScalar(expr, row);
  }
}

function callScalar(expr: Extract<Expr, { k: 'call' }>, row: EventRow): Value {
  switch (expr.name) {
    case 'toDateTime': {
      if (expr.args.length !== 1) throw queryError("Function 'toDateTime' expects 1 argument.");
      const value = evaluate(expr.args[0]!, row);
      if (value === null) return null;
      const ms = asTime(value);
      return ms === null ? null : new Time(ms);
    }
    case 'matchesAction': {
      const arg = expr.args[0];
      if (expr.args.length !== 1 || arg?.k !== 'const') throw queryError('action() takes only constant arguments');
      // PostHog's own texts, including the "cohort" its code says for an unknown action id.
      if (typeof arg.v === 'number') {
        const action = ACTIONS.find((a) => a.id === Math.trunc(arg.v as number));
        if (!action) throw queryError(`Could not find cohort with ID ${arg.v}`);
        return row.event.event === action.event;
      }
      if (typeof arg.v === 'string') {
        const action = ACTIONS.find((a) => a.name === arg.v);
        if (!action) throw queryError(`Could not find an action with the name '${arg.v}'`);
        return row.event.event === action.event;
      }
      throw queryError('action() takes exactly one string or integer argument');
    }
    default:
      if (AGGREGATES.has(expr.name)) throw queryError(`Aggregation '${expr.name}' cannot be used here (outside SELECT of a grouped query).`);
      throw queryError(`Unsupported function call '${expr.name}(...)'`);
  }
}

function isAggregate(expr: Expr): expr is Extract<Expr, { k: 'call' }> {
  return expr.k === 'call' && AGGREGATES.has(expr.name);
}

function aggregate(expr: Extract<Expr, { k: 'call' }>, rows: EventRow[]): Value {
  const arity = expr.name === 'count' ? 0 : expr.name === 'argMin' || expr.name === 'argMax' ? 2 : 1;
  if (expr.args.length !== arity) {
    throw queryError(`Aggregation '${expr.name}' expects ${arity} argument${arity === 1 ? '' : 's'}, found ${expr.args.length}`);
  }
  if (expr.name === 'count') return rows.length;
  // Like ClickHouse, aggregates skip rows whose arguments are NULL.
  let best: { value: Value; key: Value } | undefined;
  for (const row of rows) {
    const value = evaluate(expr.args[0]!, row);
    const key = arity === 2 ? evaluate(expr.args[1]!, row) : value;
    if (value === null || key === null) continue;
    const c = best === undefined ? 0 : compare(key, best.key)!;
    const better = best === undefined || (expr.name === 'argMin' || expr.name === 'min' ? c < 0 : c > 0);
    if (better) best = { value, key };
  }
  return best?.value ?? null;
}

function exprText(expr: Expr): string {
  switch (expr.k) {
    case 'const':
      return typeof expr.v === 'string' ? `'${expr.v}'` : JSON.stringify(expr.v);
    case 'field':
      return expr.chain.join('.');
    case 'call':
      return `${expr.name}(${expr.star ? '*' : expr.args.map(exprText).join(', ')})`;
    case 'cmp':
      return `${exprText(expr.l)} ${expr.op} ${exprText(expr.r)}`;
    case 'in':
      return `${exprText(expr.l)} ${expr.not ? 'NOT IN' : 'IN'} ${exprText(expr.r)}`;
    case 'isNull':
      return `${exprText(expr.e)} IS ${expr.not ? 'NOT ' : ''}NULL`;
    case 'and':
    case 'or':
      return expr.items.map(exprText).join(` ${expr.k.toUpperCase()} `);
    case 'not':
      return `NOT ${exprText(expr.e)}`;
  }
}

/** Column name as PostHog reports it: the alias, a field's last part, else the expression's text. */
function columnName(item: SelectQuery['select'][number]): string {
  if (item.alias) return item.alias;
  if (item.expr.k === 'field') return item.expr.chain[item.expr.chain.length - 1]!;
  return exprText(item.expr);
}

function columnType(value: Value | undefined): string {
  if (value instanceof Time) return "DateTime64(6, 'UTC')";
  if (typeof value === 'number') return Number.isInteger(value) ? 'Int64' : 'Float64';
  if (typeof value === 'boolean') return 'Bool';
  return 'Nullable(String)';
}

function containsAggregate(expr: Expr): boolean {
  switch (expr.k) {
    case 'call':
      return AGGREGATES.has(expr.name) || expr.args.some(containsAggregate);
    case 'cmp':
    case 'in':
      return containsAggregate(expr.l) || containsAggregate(expr.r);
    case 'and':
    case 'or':
      return expr.items.some(containsAggregate);
    case 'not':
    case 'isNull':
      return containsAggregate(expr.e);
    default:
      return false;
  }
}

/** Runs a query over one project's events; rows are arrays of Values. */
function run(query: SelectQuery, events: EventRow[]): { columns: string[]; rows: Value[][]; hasMore: boolean; limit: number } {
  for (const item of query.select) checkFields(item.expr);
  if (query.where) checkFields(query.where);
  query.groupBy.forEach(checkFields);
  const aliasNames = new Set(query.select.map((item) => item.alias).filter((a): a is string => a !== undefined));
  for (const o of query.orderBy) if (!(o.expr.k === 'field' && o.expr.chain.length === 1 && aliasNames.has(o.expr.chain[0]!))) checkFields(o.expr);
  if (query.where && containsAggregate(query.where)) throw queryError('Aggregations are not allowed in WHERE.');

  const matching = query.where ? events.filter((row) => evaluate(query.where!, row) === true) : events;
  const grouped = query.groupBy.length > 0 || query.select.some((s) => isAggregate(s.expr));
  let rows: Array<{ cells: Value[]; sample: EventRow | undefined; group: EventRow[] }>;
  if (grouped) {
    const groups = new Map<string, EventRow[]>();
    for (const row of matching) {
      const key = JSON.stringify(query.groupBy.map((g) => serializeValue(evaluate(g, row))));
      let group = groups.get(key);
      if (!group) groups.set(key, (group = []));
      group.push(row);
    }
    if (query.groupBy.length === 0 && groups.size === 0) groups.set('[]', []);
    const groupTexts = new Set(query.groupBy.map(exprText));
    for (const item of query.select) {
      if (!isAggregate(item.expr) && !groupTexts.has(exprText(item.expr)) && item.expr.k !== 'const') {
        throw queryError(`Field '${exprText(item.expr)}' is not part of the GROUP BY and not aggregated.`);
      }
    }
    rows = [...groups.values()].map((group) => ({
      group,
      sample: group[0],
      cells: query.select.map((item) => (isAggregate(item.expr) ? aggregate(item.expr, group) : group[0] ? evaluate(item.expr, group[0]) : null)),
    }));
  } else {
    rows = matching.map((row) => ({ group: [row], sample: row, cells: query.select.map((item) => evaluate(item.expr, row)) }));
  }

  if (query.orderBy.length > 0) {
    const aliases = new Map(query.select.map((item, i) => [item.alias ?? '', i]));
    const keyOf = (expr: Expr, row: (typeof rows)[number]): Value => {
      if (expr.k === 'field' && expr.chain.length === 1 && aliases.has(expr.chain[0]!)) return row.cells[aliases.get(expr.chain[0]!)!]!;
      if (isAggregate(expr)) return aggregate(expr, row.group);
      return row.sample ? evaluate(expr, row.sample) : null;
    };
    rows.sort((a, b) => {
      for (const o of query.orderBy) {
        const c = compare(keyOf(o.expr, a), keyOf(o.expr, b)) ?? 0;
        if (c !== 0) return o.desc ? -c : c;
      }
      return 0;
    });
  }
  const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  return { columns: query.select.map(columnName), rows: rows.slice(0, limit).map((r) => r.cells), hasMore: rows.length > limit, limit };
}

let timezoneFormat: { zone: string; format: Intl.DateTimeFormat } | undefined;

/** The offset of `zone` at `ms`, in minutes east of UTC. */
function offsetMinutes(zone: string, ms: number): number {
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
 * (milliseconds, `Z` for UTC, else the offset).
 */
function formatTime(ms: number, zone: string): string {
  const offset = offsetMinutes(zone, ms);
  const iso = new Date(ms + offset * 60_000).toISOString().slice(0, 23);
  if (offset === 0) return `${iso}Z`;
  const sign = offset > 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return `${iso}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

function serializeValue(value: Value, zone = 'UTC'): unknown {
  if (value instanceof Time) return formatTime(value.ms, zone);
  if (Array.isArray(value)) return value.map((v) => serializeValue(v, zone));
  return value;
}

/** Every event of the project's recordings (deleting a recording leaves its events in place). */
function projectEvents(ctx: RequestContext, projectId: number): EventRow[] {
  const rows: EventRow[] = [];
  for (const rec of ctx.state.recordings().values()) {
    if (rec.seed.projectId !== projectId) continue;
    for (const event of rec.captured()) rows.push({ event, sessionId: rec.id });
  }
  return rows;
}

/**
 * PostHog's answer to a HogQL error (posthog/api/query.py): an exposed error becomes DRF's
 * ValidationError(message, code) — 400 {type: 'validation_error', code, detail, attr: null}, the
 * code naming the error class today (hogql_syntax_error, hogql_query_error), 'invalid_input' in
 * 2024 — and a parser's internal failure is not caught, so the API answers 500.
 */
function errorReply(error: HogQLError, api: SandboxApi): ApiError {
  if (error.kind === 'internal') return new ApiError(500, { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null });
  const code = api === '2024' ? 'invalid_input' : error.kind === 'syntax' ? 'hogql_syntax_error' : 'hogql_query_error';
  return errors.validation(error.message, null, code);
}

/** POST /api/projects/{id}/query/ */
export async function runQuery(ctx: RequestContext, projectId: number): Promise<Reply> {
  const body = parseJsonBody(ctx.body, ctx.headers['content-type']);
  const node = body.query;
  if (node === null || typeof node !== 'object' || Array.isArray(node)) throw errors.validation('Field required', 'query', 'required');
  const q = node as Record<string, unknown>;
  if (q.kind !== 'HogQLQuery') {
    throw errors.validation(`The sandbox answers only HogQLQuery (the kind posthog-replay-mcp sends), not ${JSON.stringify(q.kind ?? null)}.`, 'query');
  }
  if (typeof q.query !== 'string' || q.query.trim() === '') throw errors.validation('HogQLQuery.query must be a non-empty string.', 'query');
  const values = q.values ?? {};
  if (values === null || typeof values !== 'object' || Array.isArray(values)) throw errors.validation('HogQLQuery.values must be an object.', 'query');

  let result: ReturnType<typeof run>;
  try {
    const tree = replacePlaceholders(await parseSelect(q.query), values as Record<string, unknown>);
    result = run(toSelect(tree, ctx.options.api), projectEvents(ctx, projectId));
  } catch (error) {
    if (error instanceof HogQLError) throw errorReply(error, ctx.options.api);
    throw error;
  }
  const zone = String(ctx.state.projects.get(projectId)?.timezone ?? 'UTC');
  const first = result.rows[0];
  return json(200, {
    cache_key: null,
    is_cached: false,
    columns: result.columns,
    error: null,
    hasMore: result.hasMore,
    hogql: q.query,
    limit: result.limit,
    offset: 0,
    query: q.query,
    results: result.rows.map((row) => row.map((v) => serializeValue(v, zone))),
    timings: [],
    types: result.columns.map((name, i) => [name, columnType(first?.[i])]),
  });
}
