// POST /api/projects/{id}/query/ for a HogQLQuery. The query is parsed by PostHog's own parser
// (hogql-parse.ts), its placeholders filled from `values` in the tree as PostHog does, read into
// the evaluator's tree (hogql-ast.ts) and run over the project's tables (hogql-run.ts,
// hogql-tables.ts). What the sandbox does not evaluate is answered with PostHog's query-error
// body (400), never with a made-up result; the subset is listed in docs/sandbox.md.

import { ApiError, errors, json, parseJsonBody, type Reply } from './http.js';
import { HogQLError, parseSelect, replacePlaceholders } from './hogql-parse.js';
import { toSelect } from './hogql-ast.js';
import { DEFAULT_LIMIT, MAX_LIMIT, runSelect, type QueryResult } from './hogql-run.js';
import { columnType, serializeValue } from './hogql-values.js';
import { projectData } from './project-data.js';
import type { RequestContext, SandboxApi } from './state.js';

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

  const zone = String(ctx.state.projects.get(projectId)?.timezone ?? 'UTC');
  let result: QueryResult;
  let results: unknown[][];
  try {
    const tree = replacePlaceholders(await parseSelect(q.query), values as Record<string, unknown>);
    // Older PostHogs ran OFFSET; today's refuses it for personal API keys.
    const select = toSelect(tree, { offsetAllowed: ctx.options.api === '2024' });
    result = runSelect(select, { data: projectData(ctx.state, projectId), fnContext: { nowMs: ctx.state.clock(), zone } }, { fallback: DEFAULT_LIMIT, max: MAX_LIMIT });
    results = result.rows.map((row) => row.map((v) => serializeValue(v, zone)));
  } catch (error) {
    if (error instanceof HogQLError) throw errorReply(error, ctx.options.api);
    throw error;
  }
  const first = result.rows[0];
  return json(200, {
    cache_key: null,
    is_cached: false,
    columns: result.columns,
    error: null,
    hasMore: result.hasMore,
    hogql: q.query,
    limit: result.limit,
    offset: result.offset,
    query: q.query,
    results,
    timings: [],
    types: result.columns.map((name, i) => [name, columnType(result.kinds[i]!, first?.[i] ?? undefined)]),
  });
}
