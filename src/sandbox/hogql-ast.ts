// From PostHog's parsed HogQL (hogql-parse.ts) to the small tree the sandbox evaluates, refusing
// every construct it does not run with PostHog's query-error body (never ignoring one): JOINs,
// UNION, DISTINCT, table aliases, subqueries anywhere but on the right of IN, LIKE and regex
// comparisons, lambdas, window functions.

import type { AstNode } from './hogql-parse.js';
import { notEvaluated, queryError, type Value } from './hogql-values.js';

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type ArithOp = '+' | '-' | '*' | '/' | '%';

export type Expr =
  | { k: 'const'; v: Value }
  | { k: 'field'; chain: string[] }
  | { k: 'call'; name: string; args: Expr[]; params: Expr[]; distinct: boolean; star: boolean }
  | { k: 'cmp'; op: CompareOp; l: Expr; r: Expr }
  | { k: 'in'; not: boolean; l: Expr; r: Expr }
  | { k: 'sub'; q: SelectQuery }
  | { k: 'isNull'; not: boolean; e: Expr }
  | { k: 'and' | 'or'; items: Expr[] }
  | { k: 'not'; e: Expr }
  | { k: 'arith'; op: ArithOp; l: Expr; r: Expr }
  | { k: 'between'; not: boolean; e: Expr; lo: Expr; hi: Expr }
  | { k: 'list'; items: Expr[] }
  | { k: 'index'; e: Expr; i: Expr };

export type CallExpr = Extract<Expr, { k: 'call' }>;

export interface SelectItem {
  expr: Expr;
  alias?: string;
}

export interface SelectQuery {
  select: SelectItem[];
  table: string;
  where?: Expr;
  groupBy: Expr[];
  having?: Expr;
  orderBy: Array<{ expr: Expr; desc: boolean }>;
  limit?: number;
  offset?: number;
}

/** PostHog refuses OFFSET on queries made with a personal API key (posthog/hogql/user_query_validator.py). */
const OFFSET_REFUSED =
  'OFFSET is not supported on queries made with a personal API key. For pagination, use keyset pagination on the `timestamp` column, e.g. `WHERE timestamp > :last_seen_timestamp ORDER BY timestamp LIMIT N`. For bulk data extraction, use batch exports: https://posthog.com/docs/cdp/batch-exports';

const COMPARE_OPS: Record<string, CompareOp> = { '==': '=', '!=': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };
const ARITH_OPS = new Set(['+', '-', '*', '/', '%']);

/** An AST property that is absent in every sense the parser writes it (null, false, empty list). */
const absent = (value: unknown) => value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0);

function children(node: AstNode, key: string): AstNode[] {
  const value = node[key];
  return Array.isArray(value) ? (value as AstNode[]) : [];
}

/** How the query is read: OFFSET is PostHog's error for today's personal keys, a clause in 2024's. */
export interface ReadOptions {
  offsetAllowed: boolean;
}

function toExpr(node: AstNode, options: ReadOptions): Expr {
  const expr = (child: unknown) => toExpr(child as AstNode, options);
  switch (node.node) {
    case 'Constant':
      return { k: 'const', v: node.value as Value };
    case 'Tuple':
    case 'Array': {
      const items = children(node, 'exprs').map(expr);
      // A list of constants (what a list placeholder becomes) is one value.
      if (items.every((e) => e.k === 'const')) return { k: 'const', v: items.map((e) => (e as { v: Value }).v) };
      return { k: 'list', items };
    }
    case 'Field': {
      const chain = node.chain as unknown[];
      if (!chain.every((part): part is string => typeof part === 'string')) throw queryError(`Unable to resolve field: ${chain.join('.')}`);
      return { k: 'field', chain };
    }
    case 'Call': {
      const name = String(node.name);
      if (!absent(node.filter_expr) || !absent(node.order_by)) throw notEvaluated(`FILTER or ORDER BY in a call of ${name}()`);
      const args = children(node, 'args');
      const star = args.length === 1 && args[0]!.node === 'Field' && (args[0]!.chain as unknown[]).length === 1 && (args[0]!.chain as unknown[])[0] === '*';
      return { k: 'call', name, args: star ? [] : args.map(expr), params: children(node, 'params').map(expr), distinct: node.distinct === true, star };
    }
    case 'CompareOperation': {
      const op = String(node.op);
      const l = expr(node.left);
      const right = node.right as AstNode;
      if (op === 'in' || op === 'not in') {
        const r: Expr = right.node === 'SelectQuery' || right.node === 'SelectSetQuery' ? { k: 'sub', q: toSelect(right, options) } : expr(right);
        return { k: 'in', not: op === 'not in', l, r };
      }
      const r = expr(right);
      if (node.is_null_comparison_style === true && r.k === 'const' && r.v === null) return { k: 'isNull', not: op === '!=', e: l };
      const cmp = COMPARE_OPS[op];
      if (!cmp) throw notEvaluated(`the '${op}' comparison`);
      return { k: 'cmp', op: cmp, l, r };
    }
    case 'ArithmeticOperation': {
      const op = String(node.op);
      if (!ARITH_OPS.has(op)) throw notEvaluated(`the '${op}' operator`);
      return { k: 'arith', op: op as ArithOp, l: expr(node.left), r: expr(node.right) };
    }
    case 'BetweenExpr':
      return { k: 'between', not: node.negated === true, e: expr(node.expr), lo: expr(node.low), hi: expr(node.high) };
    case 'ArrayAccess':
      return { k: 'index', e: expr(node.array), i: expr(node.property) };
    case 'And':
    case 'Or':
      return { k: node.node === 'And' ? 'and' : 'or', items: children(node, 'exprs').map(expr) };
    case 'Not':
      return { k: 'not', e: expr(node.expr) };
    case 'Alias':
      throw notEvaluated('an alias inside an expression');
    case 'SelectQuery':
    case 'SelectSetQuery':
      throw notEvaluated('subqueries anywhere but on the right of IN');
    default:
      throw notEvaluated(`${node.node} expressions`);
  }
}

/** Keys of a SelectQuery node the sandbox reads; any other that is set is a feature it does not run. */
const SELECT_KEYS = new Set(['node', 'select', 'select_from', 'where', 'group_by', 'having', 'order_by', 'limit', 'offset']);
const JOIN_KEYS = new Set(['node', 'table', 'alias']);

function nonNegativeInteger(node: AstNode, options: ReadOptions, what: string): number {
  const value = toExpr(node, options);
  if (value.k !== 'const' || typeof value.v !== 'number' || !Number.isInteger(value.v) || value.v < 0) throw queryError(`${what} must be a non-negative integer.`);
  return value.v;
}

/** One SELECT as the evaluator runs it, or the query error that says why it cannot. */
export function toSelect(tree: AstNode, options: ReadOptions): SelectQuery {
  if (tree.node === 'SelectSetQuery') throw notEvaluated('UNION, INTERSECT or EXCEPT');
  if (tree.node !== 'SelectQuery') throw notEvaluated(`a ${tree.node}`);
  if (!absent(tree.offset) && !options.offsetAllowed) throw queryError(OFFSET_REFUSED);
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
  if (table.node !== 'Field') throw notEvaluated('subqueries in FROM');
  const expr = (child: unknown) => toExpr(child as AstNode, options);

  const query: SelectQuery = {
    table: (table.chain as unknown[]).join('.'),
    select: children(tree, 'select').map((item) => (item.node === 'Alias' ? { expr: expr(item.expr), alias: String(item.alias) } : { expr: expr(item) })),
    groupBy: children(tree, 'group_by').map(expr),
    orderBy: children(tree, 'order_by').map((o) => {
      if (o.node !== 'OrderExpr') throw notEvaluated(`${o.node} in ORDER BY`);
      return { expr: expr(o.expr), desc: o.order === 'DESC' };
    }),
  };
  if (tree.where) query.where = expr(tree.where);
  if (tree.having) query.having = expr(tree.having);
  if (tree.limit) query.limit = nonNegativeInteger(tree.limit as AstNode, options, 'LIMIT');
  if (!absent(tree.offset)) query.offset = nonNegativeInteger(tree.offset as AstNode, options, 'OFFSET');
  return query;
}

/** An expression as text: how PostHog names an unaliased column, and how GROUP BY keys are matched. */
export function exprText(expr: Expr): string {
  switch (expr.k) {
    case 'const':
      return typeof expr.v === 'string' ? `'${expr.v}'` : JSON.stringify(expr.v);
    case 'field':
      return expr.chain.join('.');
    case 'call': {
      const params = expr.params.length > 0 ? `(${expr.params.map(exprText).join(', ')})` : '';
      return `${expr.name}${params}(${expr.distinct ? 'DISTINCT ' : ''}${expr.star ? '*' : expr.args.map(exprText).join(', ')})`;
    }
    case 'cmp':
      return `${exprText(expr.l)} ${expr.op} ${exprText(expr.r)}`;
    case 'in':
      return `${exprText(expr.l)} ${expr.not ? 'NOT IN' : 'IN'} ${exprText(expr.r)}`;
    case 'sub':
      return `(SELECT … FROM ${expr.q.table})`;
    case 'isNull':
      return `${exprText(expr.e)} IS ${expr.not ? 'NOT ' : ''}NULL`;
    case 'and':
    case 'or':
      return expr.items.map(exprText).join(` ${expr.k.toUpperCase()} `);
    case 'not':
      return `NOT ${exprText(expr.e)}`;
    case 'arith':
      return `${exprText(expr.l)} ${expr.op} ${exprText(expr.r)}`;
    case 'between':
      return `${exprText(expr.e)} ${expr.not ? 'NOT ' : ''}BETWEEN ${exprText(expr.lo)} AND ${exprText(expr.hi)}`;
    case 'list':
      return `[${expr.items.map(exprText).join(', ')}]`;
    case 'index':
      return `${exprText(expr.e)}[${exprText(expr.i)}]`;
  }
}

/** The expressions directly inside one (not an IN subquery's, which is a query of its own). */
export function childrenOf(expr: Expr): Expr[] {
  switch (expr.k) {
    case 'call':
      return [...expr.args, ...expr.params];
    case 'cmp':
    case 'in':
    case 'arith':
      return [expr.l, expr.r];
    case 'and':
    case 'or':
    case 'list':
      return expr.items;
    case 'not':
    case 'isNull':
      return [expr.e];
    case 'between':
      return [expr.e, expr.lo, expr.hi];
    case 'index':
      return [expr.e, expr.i];
    default:
      return [];
  }
}

/** Every field chain an expression reads in its own query (not inside its IN subqueries). */
export function fieldsOf(expr: Expr, out: string[][] = []): string[][] {
  if (expr.k === 'field') out.push(expr.chain);
  for (const child of childrenOf(expr)) fieldsOf(child, out);
  return out;
}

/**
 * The query with its SELECT aliases written out where other clauses (and other select items)
 * name them, as ClickHouse resolves an alias before a column of the same name; an alias is not
 * expanded inside its own definition (`SELECT event AS event`).
 */
export function inlineAliases(query: SelectQuery): SelectQuery {
  const aliases = new Map<string, Expr>();
  for (const item of query.select) if (item.alias !== undefined) aliases.set(item.alias, item.expr);
  if (aliases.size === 0) return query;
  const expanding = new Set<string>();
  const visit = (expr: Expr): Expr => {
    switch (expr.k) {
      case 'field': {
        const name = expr.chain.length === 1 ? expr.chain[0]! : undefined;
        const target = name === undefined ? undefined : aliases.get(name);
        if (target === undefined || expanding.has(name!)) return expr;
        expanding.add(name!);
        const out = visit(target);
        expanding.delete(name!);
        return out;
      }
      case 'call':
        return { ...expr, args: expr.args.map(visit), params: expr.params.map(visit) };
      case 'cmp':
      case 'arith':
        return { ...expr, l: visit(expr.l), r: visit(expr.r) };
      case 'in':
        return { ...expr, l: visit(expr.l), r: expr.r.k === 'sub' ? expr.r : visit(expr.r) };
      case 'and':
      case 'or':
      case 'list':
        return { ...expr, items: expr.items.map(visit) };
      case 'not':
      case 'isNull':
        return { ...expr, e: visit(expr.e) };
      case 'between':
        return { ...expr, e: visit(expr.e), lo: visit(expr.lo), hi: visit(expr.hi) };
      case 'index':
        return { ...expr, e: visit(expr.e), i: visit(expr.i) };
      default:
        return expr;
    }
  };
  const select = query.select.map((item) => {
    if (item.alias === undefined) return { expr: visit(item.expr) };
    expanding.add(item.alias);
    const expr = visit(item.expr);
    expanding.delete(item.alias);
    return { expr, alias: item.alias };
  });
  const out: SelectQuery = { ...query, select, groupBy: query.groupBy.map(visit), orderBy: query.orderBy.map((o) => ({ expr: visit(o.expr), desc: o.desc })) };
  if (query.where) out.where = visit(query.where);
  if (query.having) out.having = visit(query.having);
  return out;
}
