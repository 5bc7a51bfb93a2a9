// POST /api/projects/{id}/query/ for a HogQLQuery: a small, real parser and evaluator for the
// subset of HogQL that posthog-replay-mcp's own queries use (one SELECT over `events` with
// WHERE, GROUP BY, ORDER BY, LIMIT; comparisons, IN, AND/OR/NOT; toDateTime, matchesAction,
// argMin/argMax/min/max/count), with `{name}` placeholders filled from `values` as PostHog does.
// Anything outside the subset is answered with PostHog's query-error body (400), never with a
// made-up result.

import { ACTIONS } from './demo/catalog.js';
import type { CapturedEvent } from './demo/dataset.js';
import { ApiError, errors, json, parseJsonBody, type Reply } from './http.js';
import type { RequestContext } from './state.js';

/** PostHog's defaults for HogQL run through the API: 100 rows unless LIMIT says otherwise, at most 50,000. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 50_000;

/** A query PostHog would refuse: ValidationError(str(e)) → drf-exceptions-hog's envelope. */
function queryError(detail: string): ApiError {
  return errors.validation(detail);
}

// ---------------------------------------------------------------------------------------
// Tokens

/** Every token keeps its text as written (`raw`): PostHog's parser errors quote it. */
type Token = ({ t: 'kw' | 'id' | 'str' | 'ph' | 'op'; v: string } | { t: 'num'; v: number } | { t: 'eof' }) & { at: number; raw: string };

const KEYWORDS = new Set(['SELECT', 'FROM', 'WHERE', 'AND', 'OR', 'NOT', 'IN', 'GROUP', 'BY', 'ORDER', 'ASC', 'DESC', 'LIMIT', 'AS', 'NULL', 'TRUE', 'FALSE']);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (c === '{') {
      const m = /^\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}/.exec(text.slice(i));
      if (!m) throw queryError(`token recognition error at: '${text.slice(at, at + 20)}'`);
      tokens.push({ t: 'ph', v: m[1]!, at, raw: m[0] });
      i += m[0].length;
      continue;
    }
    if (c === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw queryError(`token recognition error at: '${text.slice(at, at + 20)}'`);
        const d = text[i]!;
        if (d === '\\' && i + 1 < text.length) {
          value += text[i + 1];
          i += 2;
        } else if (d === "'" && text[i + 1] === "'") {
          value += "'";
          i += 2;
        } else if (d === "'") {
          i++;
          break;
        } else {
          value += d;
          i++;
        }
      }
      tokens.push({ t: 'str', v: value, at, raw: text.slice(at, i) });
      continue;
    }
    const num = /^\d+(\.\d+)?/.exec(text.slice(i));
    if (num) {
      tokens.push({ t: 'num', v: Number(num[0]), at, raw: num[0] });
      i += num[0].length;
      continue;
    }
    const ident = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(text.slice(i));
    if (ident) {
      const upper = ident[0].toUpperCase();
      tokens.push({ t: KEYWORDS.has(upper) ? 'kw' : 'id', v: KEYWORDS.has(upper) ? upper : ident[0], at, raw: ident[0] });
      i += ident[0].length;
      continue;
    }
    const op = /^(!=|<>|<=|>=|=|<|>|\(|\)|,|\.|\*)/.exec(text.slice(i));
    if (op) {
      tokens.push({ t: 'op', v: op[0] === '<>' ? '!=' : op[0], at, raw: op[0] });
      i += op[0].length;
      continue;
    }
    throw queryError(`token recognition error at: '${c}'`);
  }
  tokens.push({ t: 'eof', at: text.length, raw: '<EOF>' });
  return tokens;
}

// ---------------------------------------------------------------------------------------
// Syntax tree and parser

type Value = string | number | boolean | null | Time | Value[];
/** A DateTime value (ms since the epoch), distinct from a number as in ClickHouse. */
class Time {
  constructor(readonly ms: number) {}
}

type Expr =
  | { k: 'const'; v: Value }
  | { k: 'field'; chain: string[] }
  | { k: 'call'; name: string; args: Expr[]; star?: boolean }
  | { k: 'cmp'; op: string; l: Expr; r: Expr }
  | { k: 'in'; not: boolean; l: Expr; r: Expr }
  | { k: 'and' | 'or'; items: Expr[] }
  | { k: 'not'; e: Expr };

interface SelectQuery {
  select: Array<{ expr: Expr; alias?: string }>;
  from: string;
  where?: Expr;
  groupBy: Expr[];
  orderBy: Array<{ expr: Expr; desc: boolean }>;
  limit?: number;
}

class Parser {
  private i = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly values: Record<string, unknown>,
  ) {}

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private next(): Token {
    return this.tokens[this.i++]!;
  }

  private isKw(v: string): boolean {
    const t = this.peek();
    return t.t === 'kw' && t.v === v;
  }

  private isOp(v: string): boolean {
    const t = this.peek();
    return t.t === 'op' && t.v === v;
  }

  /** ANTLR's wording, as PostHog's HogQL parser reports it. */
  private fail(expecting: string): never {
    const t = this.peek();
    throw queryError(`mismatched input ${t.t === 'eof' ? '<EOF>' : `'${t.raw}'`} expecting ${expecting}`);
  }

  private expectKw(v: string): void {
    if (!this.isKw(v)) this.fail(v);
    this.i++;
  }

  private expectOp(v: string): void {
    if (!this.isOp(v)) this.fail(`'${v}'`);
    this.i++;
  }

  parseSelect(): SelectQuery {
    this.expectKw('SELECT');
    const select: SelectQuery['select'] = [];
    do {
      const expr = this.parseExpr();
      let alias: string | undefined;
      if (this.isKw('AS')) {
        this.i++;
        const t = this.next();
        if (t.t !== 'id') {
          this.i--;
          this.fail('an alias');
        }
        alias = t.v;
      }
      select.push(alias === undefined ? { expr } : { expr, alias });
    } while (this.isOp(',') && this.next());
    this.expectKw('FROM');
    const table = this.next();
    if (table.t !== 'id') {
      this.i--;
      this.fail('a table name');
    }
    const query: SelectQuery = { select, from: table.v, groupBy: [], orderBy: [] };
    if (this.isKw('WHERE')) {
      this.i++;
      query.where = this.parseExpr();
    }
    if (this.isKw('GROUP')) {
      this.i++;
      this.expectKw('BY');
      do query.groupBy.push(this.parseExpr());
      while (this.isOp(',') && this.next());
    }
    if (this.isKw('ORDER')) {
      this.i++;
      this.expectKw('BY');
      do {
        const expr = this.parseExpr();
        const desc = this.isKw('DESC');
        if (desc || this.isKw('ASC')) this.i++;
        query.orderBy.push({ expr, desc });
      } while (this.isOp(',') && this.next());
    }
    if (this.isKw('LIMIT')) {
      this.i++;
      const limit = this.parsePrimary();
      if (limit.k !== 'const' || typeof limit.v !== 'number' || !Number.isInteger(limit.v) || limit.v < 0) throw queryError('LIMIT must be a non-negative integer.');
      query.limit = limit.v;
    }
    if (this.peek().t !== 'eof') this.fail('<EOF>');
    return query;
  }

  parseExpr(): Expr {
    const items = [this.parseAnd()];
    while (this.isKw('OR')) {
      this.i++;
      items.push(this.parseAnd());
    }
    return items.length === 1 ? items[0]! : { k: 'or', items };
  }

  private parseAnd(): Expr {
    const items = [this.parseNot()];
    while (this.isKw('AND')) {
      this.i++;
      items.push(this.parseNot());
    }
    return items.length === 1 ? items[0]! : { k: 'and', items };
  }

  private parseNot(): Expr {
    if (this.isKw('NOT')) {
      this.i++;
      return { k: 'not', e: this.parseNot() };
    }
    return this.parseComparison();
  }

  private parseComparison(): Expr {
    const l = this.parsePrimary();
    const t = this.peek();
    if (t.t === 'op' && ['=', '!=', '<', '<=', '>', '>='].includes(t.v)) {
      this.i++;
      return { k: 'cmp', op: t.v, l, r: this.parsePrimary() };
    }
    if (this.isKw('NOT') && this.tokens[this.i + 1]?.t === 'kw' && (this.tokens[this.i + 1] as { v: string }).v === 'IN') {
      this.i += 2;
      return { k: 'in', not: true, l, r: this.parsePrimary() };
    }
    if (this.isKw('IN')) {
      this.i++;
      return { k: 'in', not: false, l, r: this.parsePrimary() };
    }
    return l;
  }

  private parsePrimary(): Expr {
    const t = this.next();
    switch (t.t) {
      case 'num':
        return { k: 'const', v: t.v };
      case 'str':
        return { k: 'const', v: t.v };
      case 'ph': {
        if (!(t.v in this.values)) {
          throw queryError(`Placeholder {${t.v}} is not available in this context. You can use the following: ${Object.keys(this.values).sort().join(', ') || 'none'}`);
        }
        return { k: 'const', v: toValue(this.values[t.v]) };
      }
      case 'kw':
        if (t.v === 'NULL') return { k: 'const', v: null };
        if (t.v === 'TRUE' || t.v === 'FALSE') return { k: 'const', v: t.v === 'TRUE' };
        break;
      case 'op':
        if (t.v === '(') {
          const first = this.parseExpr();
          if (!this.isOp(',')) {
            this.expectOp(')');
            return first;
          }
          const items = [first];
          while (this.isOp(',')) {
            this.i++;
            items.push(this.parseExpr());
          }
          this.expectOp(')');
          if (items.some((e) => e.k !== 'const')) throw queryError('Only constant tuples are supported here.');
          return { k: 'const', v: items.map((e) => (e as { v: Value }).v) };
        }
        break;
      case 'id': {
        if (this.isOp('(')) {
          this.i++;
          const args: Expr[] = [];
          let star = false;
          if (this.isOp('*')) {
            this.i++;
            star = true;
          } else if (!this.isOp(')')) {
            do args.push(this.parseExpr());
            while (this.isOp(',') && this.next());
          }
          this.expectOp(')');
          return star ? { k: 'call', name: t.v, args, star } : { k: 'call', name: t.v, args };
        }
        const chain = [t.v];
        while (this.isOp('.')) {
          this.i++;
          const part = this.next();
          if (part.t !== 'id') {
            this.i--;
            this.fail('a field name');
          }
          chain.push(part.v);
        }
        return { k: 'field', chain };
      }
      default:
        break;
    }
    this.i--;
    return this.fail('an expression');
  }
}

/** A `values` entry as HogQL takes it: JSON scalars and lists (constants). */
function toValue(raw: unknown): Value {
  if (raw === null || typeof raw === 'string' || typeof raw === 'boolean' || typeof raw === 'number') return raw;
  if (Array.isArray(raw)) return raw.map(toValue);
  throw queryError('Placeholder values must be strings, numbers, booleans, null or lists of them.');
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
  if (rest.length === 0) {
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
        break;
    }
  }
  throw queryError(`Unable to resolve field: ${chain.join('.')}`);
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

function equal(a: Value, b: Value): boolean | null {
  const c = compare(a, b);
  return c === null ? null : c === 0;
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
      return { '=': c === 0, '!=': c !== 0, '<': c < 0, '<=': c <= 0, '>': c > 0, '>=': c >= 0 }[expr.op] ?? false;
    }
    case 'in': {
      const left = evaluate(expr.l, row);
      const right = evaluate(expr.r, row);
      const list = Array.isArray(right) ? right : [right];
      if (left === null) return null;
      const found = list.some((item) => equal(left, item) === true);
      return expr.not ? !found : found;
    }
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
      if (expr.args.length !== 1) throw queryError('Function \'toDateTime\' expects 1 argument.');
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

function isAggregate(expr: Expr): boolean {
  return expr.k === 'call' && AGGREGATES.has(expr.name);
}

function aggregate(expr: Extract<Expr, { k: 'call' }>, rows: EventRow[]): Value {
  const arity = expr.name === 'count' ? 0 : expr.name === 'argMin' || expr.name === 'argMax' ? 2 : 1;
  if (expr.args.length !== arity && !(expr.name === 'count' && expr.star)) {
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

/** Runs a parsed query over one project's events; rows are arrays of Values. */
function run(query: SelectQuery, events: EventRow[]): { columns: string[]; rows: Value[][]; hasMore: boolean; limit: number } {
  if (query.from !== 'events') throw queryError(`Unknown table "${query.from}".`);
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
      cells: query.select.map((item) => (isAggregate(item.expr) ? aggregate(item.expr as Extract<Expr, { k: 'call' }>, group) : group[0] ? evaluate(item.expr, group[0]) : null)),
    }));
  } else {
    rows = matching.map((row) => ({ group: [row], sample: row, cells: query.select.map((item) => evaluate(item.expr, row)) }));
  }

  if (query.orderBy.length > 0) {
    const aliases = new Map(query.select.map((item, i) => [item.alias ?? '', i]));
    const keyOf = (expr: Expr, row: (typeof rows)[number]): Value => {
      if (expr.k === 'field' && expr.chain.length === 1 && aliases.has(expr.chain[0]!)) return row.cells[aliases.get(expr.chain[0]!)!]!;
      if (isAggregate(expr)) return aggregate(expr as Extract<Expr, { k: 'call' }>, row.group);
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

function containsAggregate(expr: Expr): boolean {
  switch (expr.k) {
    case 'call':
      return isAggregate(expr) || expr.args.some(containsAggregate);
    case 'cmp':
    case 'in':
      return containsAggregate(expr.l) || containsAggregate(expr.r);
    case 'and':
    case 'or':
      return expr.items.some(containsAggregate);
    case 'not':
      return containsAggregate(expr.e);
    default:
      return false;
  }
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

/** POST /api/projects/{id}/query/ */
export function runQuery(ctx: RequestContext, projectId: number): Reply {
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
  const parsed = new Parser(tokenize(q.query), values as Record<string, unknown>).parseSelect();
  const result = run(parsed, projectEvents(ctx, projectId));
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
