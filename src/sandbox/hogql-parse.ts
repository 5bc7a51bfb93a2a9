// PostHog's own HogQL parser (@posthog/hogql-parser: their C++ ANTLR grammar compiled to
// WASM, the code PostHog runs server side) and what PostHog does between parsing and running:
// `{name}` placeholders replaced by constants from the request's `values`, in the tree, never
// in the text. The WASM is loaded on the first query, so a sandbox that is never queried
// (and the server beside it) pays nothing for it at start-up.

import type { HogQLParser } from '@posthog/hogql-parser';

/** A node of the parser's JSON AST: `node` names its kind (SelectQuery, Field, Call, …). */
export interface AstNode {
  node: string;
  [key: string]: unknown;
}

/**
 * Why a query cannot run, as PostHog classes it: `syntax` and `query` are its exposed HogQL
 * errors (a 400 carrying the message), `internal` the parser's own failures (a 500).
 */
export class HogQLError extends Error {
  constructor(
    readonly kind: 'syntax' | 'query' | 'internal',
    message: string,
  ) {
    super(message);
  }
}

let loading: Promise<HogQLParser> | undefined;

function parser(): Promise<HogQLParser> {
  if (!loading) {
    loading = import('@posthog/hogql-parser').then((module) => module.default());
    // A failed load is retried by the next query rather than remembered.
    loading.catch(() => {
      loading = undefined;
    });
  }
  return loading;
}

/** Whether the parser has been loaded (or is loading) in this process: not before the first query. */
export const parserLoaded = (): boolean => loading !== undefined;

/**
 * Parsed trees by query text. A parse takes tens of milliseconds, and the tools send the same
 * few texts (their values vary, not their text), so PostHog caches parses too. Trees are never
 * changed once cached (placeholders are replaced in a copy); the bound keeps odd queries from
 * growing it.
 */
const parsed = new Map<string, AstNode>();
const MAX_CACHED = 64;

/** The SELECT as PostHog's parser reads it, or the parser's own error. */
export async function parseSelect(query: string): Promise<AstNode> {
  const cached = parsed.get(query);
  if (cached) return cached;
  const instance = await parser();
  let text: string;
  try {
    // isInternal: no positions in the tree, as PostHog parses queries it runs.
    text = instance.parseSelect(query, true);
  } catch (error) {
    // A trap inside the WASM may leave its memory unusable: start afresh next time.
    loading = undefined;
    throw new HogQLError('internal', `The HogQL parser failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const result = JSON.parse(text) as AstNode & { error?: boolean; type?: string; message?: string };
  if (result.error === true) throw new HogQLError(result.type === 'SyntaxError' ? 'syntax' : 'internal', String(result.message ?? 'Syntax error'));
  if (parsed.size >= MAX_CACHED) parsed.delete(parsed.keys().next().value!);
  parsed.set(query, result);
  return result;
}

/** A value PostHog can turn into a constant: JSON scalars and (nested) lists of them. */
type Value = string | number | boolean | null | Value[];

function constantValue(name: string, raw: unknown): Value {
  if (raw === null || typeof raw === 'string' || typeof raw === 'boolean' || (typeof raw === 'number' && Number.isFinite(raw))) return raw;
  if (Array.isArray(raw)) return raw.map((item) => constantValue(name, item));
  throw new HogQLError('query', `Placeholder {${name}} has a value that is not a string, number, boolean, null or a list of them.`);
}

function placeholderName(node: AstNode): string {
  const expr = node.expr as AstNode | undefined;
  const chain = expr?.node === 'Field' ? (expr.chain as unknown[]) : undefined;
  if (!chain || !chain.every((part) => typeof part === 'string')) throw new HogQLError('query', 'Placeholder expressions are not yet supported');
  return chain.join('.');
}

/**
 * Every placeholder of the tree replaced by a Constant holding its value, as PostHog's
 * HogQLQueryRunner does (`ast.Constant(value=…)` per entry of `values`), with its messages
 * for a placeholder that has no value. Returns a new tree; the parsed one is left as it was.
 */
export function replacePlaceholders(tree: AstNode, values: Record<string, unknown>): AstNode {
  const names = Object.keys(values);
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (value === null || typeof value !== 'object') return value;
    const node = value as AstNode;
    if (node.node === 'Placeholder') {
      const name = placeholderName(node);
      if (names.length === 0) throw new HogQLError('query', `Unresolved placeholder: {${name}}`);
      if (!Object.hasOwn(values, name)) {
        throw new HogQLError('query', `Placeholder {${name}} is not available in this context. You can use the following: ${names.join(', ')}`);
      }
      return { node: 'Constant', value: constantValue(name, values[name]) };
    }
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, visit(child)]));
  };
  return visit(tree) as AstNode;
}

/** The names of the tree's placeholders, each once, in order of appearance. */
export function placeholderNames(tree: AstNode): string[] {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    const node = value as AstNode;
    if (node.node === 'Placeholder') found.add(placeholderName(node));
    else Object.values(node).forEach(visit);
  };
  visit(tree);
  return [...found];
}
