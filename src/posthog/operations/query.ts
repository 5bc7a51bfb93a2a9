// PostHog's query API (docs/posthog-api.md, "The query API"): the one place a HogQL query is sent. Queries are
// HogQL with `{name}` placeholders filled from `values` by PostHog itself: no input ever becomes
// query text. The queries themselves are built in hogql-queries.ts, the one place allowed to write
// HogQL; hogql.ts says when the query API stands in for an endpoint. A query PostHog throttles (429:
// the hourly budget, the bytes-read budget, or too many queries running, docs/posthog-api.md, "Tables the query API reads") is asked again
// here, after the wait PostHog named, within the call's bound: every query's caller waits as replay
// reads wait for theirs.

import { UpstreamError, UpstreamUnavailableError } from '../../errors.js';
import { hogqlResultSchema } from '../answers.js';
import type { CallBudget } from '../budget.js';
import type { PostHogClient } from '../client.js';
import type { BuiltQuery } from '../hogql-queries.js';
import { apiPath } from '../query.js';
import { sleep } from '../sleep.js';
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

/** Times one throttled query is asked again. */
const QUERY_RETRIES = 3;
/** The backoff's first wait, where PostHog names none (then 2, 4 s): a query running elsewhere ends in seconds. */
const QUERY_BACKOFF_MS = 1_000;
/** Outside a tool call (no budget), the waits one query may make together. */
const UNBOUNDED_CALL_WAIT_MS = 10_000;

/**
 * The wait before asking a throttled query again, or undefined: give up with PostHog's answer.
 * A call's waits for the query API and for replay reads share its throttle allowance and its time.
 */
function queryWait(error: UpstreamError, attempt: number, budget: CallBudget | undefined, waitedMs: number): number | undefined {
  if (attempt >= QUERY_RETRIES) return undefined;
  const wait = error.retryAfterSeconds !== undefined ? Math.ceil(error.retryAfterSeconds * 1000) : QUERY_BACKOFF_MS * 2 ** attempt;
  // The query itself needs time after the wait: a wait that leaves it none gives up now.
  const allowance = budget ? Math.min(budget.throttleAllowanceMs(), budget.remainingMs() - 5_000) : UNBOUNDED_CALL_WAIT_MS - waitedMs;
  return wait <= allowance ? wait : undefined;
}

export function queryOperations(client: PostHogClient): QueryOperations {
  /** One POST of the query; a 429 asked again after its wait (queryWait), else thrown as PostHog answered it. */
  async function send(projectId: string, built: BuiltQuery, options: CallOptions & { reserved?: boolean }): Promise<unknown> {
    let waitedMs = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        return await client.json({
          method: 'POST',
          path: apiPath('projects', projectId, 'query'),
          body: { query: { kind: 'HogQLQuery', query: built.query, values: built.values } },
          signal: options.signal,
          meter: options.meter,
          reserved: options.reserved,
        });
      } catch (error) {
        if (!(error instanceof UpstreamError) || error.status !== 429) throw error;
        const wait = queryWait(error, attempt, client.budget, waitedMs);
        if (wait === undefined) throw error;
        client.budget?.recordThrottleWait(wait);
        client.budget?.progress?.(`Waiting ${Math.ceil(wait / 1000)} s: PostHog's query API is throttling this key`);
        waitedMs += wait;
        await sleep(wait, options.signal);
      }
    }
  }

  return {
    async hogql(projectId, built, options = {}) {
      const body = await send(projectId, built, options);
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
