// A period's recordings counted as a whole through the query API (docs/posthog-api.md, "Tables the query API reads"): who
// was recorded, and each kind of trouble grouped with the sessions and people it hit. Each query
// is a builder of hogql-queries.ts; each answer's rows are read once with a zod schema here. A
// query PostHog throttles is asked again by the query operation (query.ts), as every query is.

import { z } from 'zod';
import {
  chainConsoleQuery,
  chainEventsQuery,
  periodClicksQuery,
  periodConsoleErrorsQuery,
  periodExceptionsQuery,
  POPULATION_ROWS,
  recordedSessionsQuery,
  type BuiltQuery,
  type PeriodOptions,
} from '../hogql-queries.js';
import type { CallOptions } from './options.js';
import { unusable } from './parse.js';
import type { QueryOperations } from './query.js';

export type { PeriodOptions } from '../hogql-queries.js';

const text = z.preprocess((v) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v)), z.string());
const count = z.coerce.number().int().min(0);
const ids = z.array(z.string()).catch([]);
const seen = { first_seen: text, last_seen: text };

const recordedRow = z.object({ session_id: z.string(), person_id: text });
const exceptionRow = z.object({ type: text, folded: text, handled: text, occurrences: count, sessions: count, people: count, ...seen, first_message: text, last_message: text, fingerprints: ids, examples: ids });
const clickRow = z.object({ event: z.string(), text, page: text, occurrences: count, sessions: count, people: count, ...seen, ids });
const consoleRow = z.object({ folded: text, occurrences: count, sessions: count, ...seen, first_message: text, last_message: text, ids });
const chainEventRow = z.object({ session_id: z.string(), person_id: text, event: z.string(), timestamp: z.string(), type: text, folded: text, handled: text, text, page: text });
const chainConsoleRow = z.object({ session_id: z.string(), timestamp: z.string(), folded: text });

export type ExceptionGroup = z.output<typeof exceptionRow>;
export type ClickGroup = z.output<typeof clickRow>;
export type ConsoleGroup = z.output<typeof consoleRow>;
export type ChainEvent = z.output<typeof chainEventRow>;
export type ChainConsoleLine = z.output<typeof chainConsoleRow>;

/** Pages of the period's recordings read at most (50,000 sessions each). */
const MAX_POPULATION_PAGES = 4;

export interface PopulationOperations {
  /** Each recording of the period and its person; `complete` false when more were left than the pages read. */
  recorded(projectId: string, period: PeriodOptions, options?: CallOptions): Promise<{ people: Map<string, string>; complete: boolean }>;
  exceptions(projectId: string, period: PeriodOptions, options?: CallOptions): Promise<ExceptionGroup[]>;
  clicks(projectId: string, period: PeriodOptions, options?: CallOptions): Promise<ClickGroup[]>;
  consoleErrors(projectId: string, period: PeriodOptions, options?: CallOptions): Promise<ConsoleGroup[]>;
  /** In these sessions, exceptions and rage clicks, then console errors, each in time order. */
  chains(projectId: string, period: PeriodOptions, sessionIds: readonly string[], options?: CallOptions): Promise<{ events: ChainEvent[]; console: ChainConsoleLine[] }>;
}

export function populationOperations(query: QueryOperations): PopulationOperations {
  /** The query's rows, each read with `schema`. */
  async function rows<S extends z.ZodType>(projectId: string, built: BuiltQuery, schema: S, options: CallOptions): Promise<{ rows: Array<z.output<S>>; hasMore: boolean }> {
    const answer = await query.hogql(projectId, built, options);
    const parsed = z.array(schema).safeParse(answer.rows);
    if (!parsed.success) throw unusable('rows', `the query API's rows lack the columns asked for (${parsed.error.issues[0]?.path.join('.') ?? ''})`);
    return { rows: parsed.data, hasMore: answer.hasMore };
  }

  return {
    async recorded(projectId, period, options = {}) {
      const people = new Map<string, string>();
      let after: string | undefined;
      for (let page = 0; page < MAX_POPULATION_PAGES; page++) {
        const answer = await rows(projectId, recordedSessionsQuery({ ...period, after }), recordedRow, options);
        for (const row of answer.rows) people.set(row.session_id, row.person_id);
        if (!answer.hasMore && answer.rows.length < POPULATION_ROWS) return { people, complete: true };
        after = answer.rows.at(-1)?.session_id;
        if (after === undefined) return { people, complete: true };
      }
      return { people, complete: false };
    },
    exceptions: async (projectId, period, options = {}) => (await rows(projectId, periodExceptionsQuery(period), exceptionRow, options)).rows,
    clicks: async (projectId, period, options = {}) => (await rows(projectId, periodClicksQuery(period), clickRow, options)).rows,
    consoleErrors: async (projectId, period, options = {}) => (await rows(projectId, periodConsoleErrorsQuery(period), consoleRow, options)).rows,
    async chains(projectId, period, sessionIds, options = {}) {
      if (sessionIds.length === 0) return { events: [], console: [] };
      const [events, console] = await Promise.all([
        rows(projectId, chainEventsQuery({ ...period, sessionIds }), chainEventRow, options),
        rows(projectId, chainConsoleQuery({ ...period, sessionIds }), chainConsoleRow, options),
      ]);
      return { events: events.rows, console: console.rows };
    },
  };
}
