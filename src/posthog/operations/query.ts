// PostHog's query API (posthog-api-facts.md §9): the one place a HogQL query is sent. Queries are
// HogQL with `{name}` placeholders filled from `values` by PostHog itself: no input ever becomes
// query text. The queries themselves are built in hogql-queries.ts, the one place allowed to write
// HogQL; hogql.ts says when the query API stands in for an endpoint.

import { UpstreamUnavailableError } from '../../errors.js';
import { hogqlResultSchema } from '../answers.js';
import type { PostHogClient } from '../client.js';
import type { BuiltQuery } from '../hogql-queries.js';
import { apiPath } from '../query.js';
import type { CallOptions } from './options.js';
import { parseAnswer } from './parse.js';

export interface HogQLRows {
  columns: string[];
  /** One object per row, keyed by column name. */
  rows: Array<Record<string, unknown>>;
  hasMore: boolean;
}

export interface QueryOperations {
  /** POST /api/projects/{id}/query/ with a HogQLQuery made by a builder; the rows come back keyed by column. */
  hogql(projectId: string, built: BuiltQuery, options?: CallOptions & { /** Spends a request the call held back (CallBudget.holdBack). */ reserved?: boolean }): Promise<HogQLRows>;
}

export function queryOperations(client: PostHogClient): QueryOperations {
  return {
    async hogql(projectId, built, options = {}) {
      const body = await client.json({
        method: 'POST',
        path: apiPath('projects', projectId, 'query'),
        body: { query: { kind: 'HogQLQuery', query: built.query, values: built.values } },
        signal: options.signal,
        meter: options.meter,
        reserved: options.reserved,
      });
      // Column names are strings in every HogQL result; anything else (an object String() cannot
      // convert) is an answer this client cannot read, not an internal error.
      const result = parseAnswer(hogqlResultSchema, body, () => new UpstreamUnavailableError('malformed', 'PostHog answered the query API without the columns and rows of a HogQL result; check POSTHOG_HOST points at the PostHog app.'));
      const names = result.columns;
      return {
        columns: names,
        rows: result.results.map((row) => Object.fromEntries(names.map((name, i) => [name, row[i] ?? null]))),
        hasMore: result.hasMore === true,
      };
    },
  };
}
