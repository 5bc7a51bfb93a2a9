// The query-first half of the triage (docs/posthog-api.md, "Tables the query API reads"): every recording of the period
// counted through the query API, its problems grouped and ranked by sessions hit, the symptoms of
// one failure (an exception, the console error before it, the rage click after it, in one session
// within seconds) made one problem that names its parts; then which recordings best show the top
// problems, for the digests that add what events lack (failed requests, page messages).

import { UpstreamError, UpstreamUnavailableError, UserInputError } from '../../errors.js';
import { BudgetExceeded } from '../../posthog/budget.js';
import { RECORDINGS_DEFAULT_FROM, resolveDate } from '../../posthog/hogql.js';
import type { ChainConsoleLine, ChainEvent, PeriodOptions, PostHogOperations } from '../../posthog/operations/index.js';
import { aggregate, type TriageInput } from '../../digest/aggregate.js';
import { clip } from '../format.js';
import { numberRange } from '../../words.js';

export type CountedKind = 'exception' | 'console-error' | 'rage-click' | 'dead-click';

/** One problem counted over every recording of the period. */
export interface CountedProblem {
  kind: CountedKind | 'chain';
  /** Type and folded message, the folded console message, or `page: element`; a chain's parts joined by →. */
  signature: string;
  sessions: number;
  /** Null when the sessions were more than the ids a query names (people then unknown). */
  people: number | null;
  occurrences: number;
  first_seen: string;
  last_seen: string;
  /** A folded message as shown: the first and last as logged, differing numbers as "first…last"; absent when it is the signature. */
  shown?: string;
  /** A message whose first and last differ in more than numbers: both as they were logged. */
  values?: { first: string; last: string };
  handled?: boolean;
  fingerprint?: string;
  examples: string[];
  /** An exception's own line in the console ("Uncaught TypeError: …"), the browser's echo of it: its counts, not a problem of its own. */
  console?: { signature: string; sessions: number; people: number | null; occurrences: number };
  /** A chain's parts, each with its own counts over the period. */
  parts?: ChainPart[];
  /** A chain's sessions (the first few) and when in each its first symptom came, epoch ms: where the digests' evidence for it is looked for. */
  spans?: Record<string, [number, number]>;
}

/** One symptom of a chain: its own counts over the period, or over the recordings read (`evidence`). */
export type ChainPart = {
  kind: CountedKind | 'request-failed' | 'message' | 'console-warn';
  signature: string;
  shown?: string;
  values?: { first: string; last: string };
  /** A failed request's reason, as the digest keeps it. */
  body?: string;
  /** An exception's, as its events say it. */
  handled?: boolean;
  sessions: number;
  people: number | null;
  evidence?: string;
  /** After the chain's first symptom, the least over its sessions: the parts' order. */
  offset_ms?: number;
};

export interface Population {
  recordings: number;
  people: number;
  /** More recordings than the query pages read: the counts are of those read. */
  complete: boolean;
  period: { from: string; to: string };
  /** Which of the caller's filters the counting applied, and which only the digests did. */
  applied: string[];
  notApplied: string[];
  problems: CountedProblem[];
  /** Query requests made. */
  queries: number;
}

/** Within this long after an exception, a rage click is its symptom; a console error as long before it. */
const CHAIN_WINDOW_MS = 10_000;
/** A pair seen together in fewer sessions than this share of its exception's is no chain. */
const CHAIN_SHARE = 0.5;
/** Rage-click groups whose sessions are read for chains. */
const CHAIN_GROUPS = 5;

/** Filters the list takes that the counting applies (dates, a person) and the ones it does not. */
const COUNTED_FILTERS = new Set(['date_from', 'date_to', 'person_uuid']);
const IGNORED = new Set(['project_id', 'max_recordings', 'max_chars', 'cursor', 'order', 'order_direction']);

/**
 * The period's problems over every recording, or why the query API could not count them (the
 * triage then reads recordings only, as before it existed). `queries` spent either way is said.
 */
export async function countPopulation(
  posthog: PostHogOperations,
  projectId: string,
  input: Record<string, unknown>,
  signal: AbortSignal,
  /** Recordings this call would read anyway: a period of no more is read whole, and not counted apart. */
  readsAll: number,
  /** A sequence's matching recordings: the period's recordings among them only (the `sequence` filter applied). */
  within?: readonly string[],
): Promise<{ population: Population } | { unavailable: string } | { few: number }> {
  const now = Date.now();
  let period: PeriodOptions;
  try {
    const from = resolveDate(typeof input.date_from === 'string' ? input.date_from : RECORDINGS_DEFAULT_FROM, now);
    const to = typeof input.date_to === 'string' ? resolveDate(input.date_to, now) : new Date(now);
    period = { from, to, ...(typeof input.person_uuid === 'string' ? { personUuid: input.person_uuid } : {}), ...(within ? { within } : {}) };
  } catch (error) {
    if (error instanceof UserInputError) return { unavailable: 'the dates given are not ones a query can be bounded by' };
    throw error;
  }
  const counts = (key: string) => COUNTED_FILTERS.has(key) || (key === 'sequence' && within !== undefined);
  const given = Object.keys(input).filter((key) => input[key] !== undefined && input[key] !== null && !IGNORED.has(key));
  // A filter the counting cannot apply would count recordings the caller excluded: those calls
  // read the recordings PostHog's list chooses, as before, and say so.
  const uncounted = given.filter((key) => !counts(key));
  if (uncounted.length > 0) return { unavailable: `${uncounted.join(', ')} ${uncounted.length === 1 ? 'is a filter' : 'are filters'} only PostHog's recordings list applies, not the counting` };
  // No session went through the sequence: nothing to count, and no query to ask it.
  if (within?.length === 0) return { population: { recordings: 0, people: 0, complete: true, period: { from: period.from.toISOString(), to: period.to.toISOString() }, applied: given, notApplied: [], problems: [], queries: 0 } };
  const options = { signal };
  const ops = posthog.population;
  try {
    const recorded = await ops.recorded(projectId, period, options);
    if (recorded.complete && recorded.people.size <= readsAll) return { few: recorded.people.size };
    const [exceptions, clicks, consoleErrors] = await Promise.all([
      ops.exceptions(projectId, period, options),
      ops.clicks(projectId, period, options),
      ops.consoleErrors(projectId, period, options),
    ]);
    let queries = 4 + (recorded.complete ? 0 : 3);
    const peopleOf = (ids: readonly string[], sessions: number): number | null => (ids.length < sessions ? null : new Set(ids.map((id) => recorded.people.get(id) ?? id)).size);
    const problems: CountedProblem[] = [
      ...exceptions.map((e): CountedProblem => ({
        kind: 'exception',
        signature: clip(`${e.type || 'Error'}: ${e.folded}`, 200),
        sessions: e.sessions,
        people: e.people,
        occurrences: e.occurrences,
        first_seen: e.first_seen,
        last_seen: e.last_seen,
        ...shownMessage(e.folded, e.first_message, e.last_message, `${e.type || 'Error'}: `),
        ...(e.handled === 'true' ? { handled: true } : e.handled === 'false' ? { handled: false } : {}),
        ...(e.fingerprints[0] ? { fingerprint: clip(e.fingerprints[0], 80) } : {}),
        examples: e.examples.slice(0, 3),
      })),
      ...consoleErrors.map((c): CountedProblem => ({
        kind: 'console-error',
        signature: clip(c.folded, 200),
        sessions: c.sessions,
        people: peopleOf(c.ids, c.sessions),
        occurrences: c.occurrences,
        first_seen: c.first_seen,
        last_seen: c.last_seen,
        ...shownMessage(c.folded, c.first_message, c.last_message),
        examples: c.ids.slice(0, 3),
      })),
      ...clicks.map((c): CountedProblem => ({
        kind: c.event === '$rageclick' ? 'rage-click' : 'dead-click',
        signature: clip(`${c.page || '(page unknown)'}: ${c.text || '(no text)'}`, 200),
        sessions: c.sessions,
        people: c.people,
        occurrences: c.occurrences,
        first_seen: c.first_seen,
        last_seen: c.last_seen,
        examples: c.ids.slice(0, 3),
      })),
    ];
    // The chains: read in the sessions of the most hit rage clicks (their exceptions, rage clicks and console errors).
    const rageIds = [...new Set(clicks.filter((c) => c.event === '$rageclick').slice(0, CHAIN_GROUPS).flatMap((c) => c.ids))];
    if (rageIds.length > 0) {
      const read = await ops.chains(projectId, period, rageIds, options);
      queries += 2;
      const chains = findChains(read.events, read.console, problems, recorded.people);
      for (const chain of chains) {
        // Its parts are lines of the chain, not problems of their own.
        for (const part of chain.parts ?? []) {
          const at = problems.findIndex((p) => p.kind === part.kind && p.signature === part.signature);
          if (at >= 0) problems.splice(at, 1);
        }
        problems.push(chain);
      }
    }
    echoesFolded(problems);
    problems.sort((a, b) => b.sessions - a.sessions);
    return {
      population: {
        recordings: recorded.people.size,
        people: new Set(recorded.people.values()).size,
        complete: recorded.complete,
        period: { from: period.from.toISOString(), to: period.to.toISOString() },
        applied: given,
        notApplied: [],
        problems,
        queries,
      },
    };
  } catch (error) {
    if (signal.aborted || error instanceof BudgetExceeded) throw error;
    if (error instanceof UpstreamError && error.status !== 429 && error.status < 500) return { unavailable: whyUnavailable(error) };
    if (error instanceof UpstreamError || error instanceof UpstreamUnavailableError) return { unavailable: `the query API did not answer (${clip(error.message, 160)})` };
    throw error;
  }
}

/** A folded message as shown (see CountedProblem.shown and values); nothing when no number was folded. */
function shownMessage(folded: string, first: string, last: string, prefix = ''): Pick<CountedProblem, 'shown' | 'values'> {
  const range = numberRange(first, last);
  if (range === undefined) return { values: { first: clip(prefix + first, 160), last: clip(prefix + last, 160) } };
  return range === folded ? {} : { shown: clip(prefix + range, 200) };
}

function whyUnavailable(error: UpstreamError): string {
  if (error.status === 403) return /scope/i.test(error.detail ?? '') || !error.detail ? "the key lacks the query:read scope (add it to the personal API key to count every recording)" : 'the query API refused this key for the project';
  if (error.status === 404 || error.status === 405) return 'this PostHog has no query API (POST /api/projects/{id}/query/)';
  return `PostHog refused the query (${error.status}${error.detail ? `: ${clip(error.detail, 120)}` : ''})`;
}

/** The browser logs an uncaught exception as "Uncaught <type>: <message>": that line is the exception's, said with it. */
function echoesFolded(problems: CountedProblem[]): void {
  for (const exception of problems.filter((p) => p.kind === 'exception')) {
    const at = problems.findIndex((p) => p.kind === 'console-error' && (p.signature === `Uncaught ${exception.signature}` || p.signature === `Uncaught (in promise) ${exception.signature}`));
    if (at < 0) continue;
    const [echo] = problems.splice(at, 1);
    exception.console = { signature: echo!.signature, sessions: echo!.sessions, people: echo!.people, occurrences: echo!.occurrences };
  }
}

type Step = { at: number; kind: CountedKind; signature: string; person: string };

/**
 * In each session, its exceptions, console errors and rage clicks in time order, cut where
 * CHAIN_WINDOW_MS pass without one: a run with a rage click and an exception or console error
 * before or after it is one failure's chain. A chain seen in at least CHAIN_SHARE of the sessions
 * of its first cause is one problem naming its parts, in the order they came.
 */
function findChains(events: ChainEvent[], console: ChainConsoleLine[], problems: CountedProblem[], people: Map<string, string>): CountedProblem[] {
  const bySession = new Map<string, Step[]>();
  const add = (session: string, step: Step) => bySession.set(session, [...(bySession.get(session) ?? []), step]);
  for (const e of events) {
    const person = e.person_id || (people.get(e.session_id) ?? e.session_id);
    const at = Date.parse(e.timestamp);
    if (e.event === '$exception') add(e.session_id, { at, kind: 'exception', signature: clip(`${e.type || 'Error'}: ${e.folded}`, 200), person });
    else add(e.session_id, { at, kind: 'rage-click', signature: clip(`${e.page || '(page unknown)'}: ${e.text || '(no text)'}`, 200), person });
  }
  for (const c of console) add(c.session_id, { at: Date.parse(c.timestamp), kind: 'console-error', signature: clip(c.folded, 200), person: people.get(c.session_id) ?? c.session_id });
  const keyOf = (step: Pick<Step, 'kind' | 'signature'>) => `${step.kind}\u0000${step.signature}`;
  const found = new Map<string, { parts: Step[]; offsets: Map<string, number>; sessions: Set<string>; people: Set<string>; spans: Record<string, [number, number]>; first: number; last: number; occurrences: number }>();
  for (const [session, steps] of bySession) {
    const runs: Step[][] = [];
    for (const step of steps.filter((s) => Number.isFinite(s.at)).sort((a, b) => a.at - b.at)) {
      const run = runs.at(-1);
      if (run && step.at - run.at(-1)!.at <= CHAIN_WINDOW_MS) run.push(step);
      else runs.push([step]);
    }
    for (const run of runs) {
      if (!run.some((s) => s.kind === 'rage-click') || !run.some((s) => s.kind !== 'rage-click')) continue;
      const offsets = new Map<string, number>();
      const parts: Step[] = [];
      for (const step of run) {
        if (offsets.has(keyOf(step))) continue;
        offsets.set(keyOf(step), step.at - run[0]!.at);
        parts.push(step);
      }
      const key = parts.map(keyOf).join('\u0001');
      const chain = found.get(key) ?? { parts, offsets: new Map<string, number>(), sessions: new Set<string>(), people: new Set<string>(), spans: {}, first: Infinity, last: -Infinity, occurrences: 0 };
      for (const [part, offset] of offsets) chain.offsets.set(part, Math.min(chain.offsets.get(part) ?? Infinity, offset));
      chain.occurrences++;
      chain.first = Math.min(chain.first, run[0]!.at);
      chain.last = Math.max(chain.last, run.at(-1)!.at);
      if (!chain.sessions.has(session) && chain.sessions.size < 3) chain.spans[session] = [run[0]!.at, run.at(-1)!.at];
      chain.sessions.add(session);
      chain.people.add(run[0]!.person);
      found.set(key, chain);
    }
  }
  const countOf = (step: Pick<Step, 'kind' | 'signature'>) => problems.find((p) => p.kind === step.kind && p.signature === step.signature);
  const chains: CountedProblem[] = [];
  for (const chain of [...found.values()].sort((a, b) => b.sessions.size - a.sessions.size || b.parts.length - a.parts.length)) {
    const cause = countOf(chain.parts.find((p) => p.kind !== 'rage-click')!);
    // A part already in a chain, or a cause the chain is rare for, makes no chain.
    if (!cause || chain.sessions.size < CHAIN_SHARE * cause.sessions) continue;
    if (chains.some((c) => c.parts!.some((p) => chain.parts.some((q) => q.kind === p.kind && q.signature === p.signature)))) continue;
    chains.push({
      kind: 'chain',
      signature: chain.parts.map((p) => p.signature).join(' → '),
      sessions: chain.sessions.size,
      people: chain.people.size,
      occurrences: chain.occurrences,
      first_seen: new Date(chain.first).toISOString(),
      last_seen: new Date(chain.last).toISOString(),
      examples: Object.keys(chain.spans),
      spans: chain.spans,
      parts: chain.parts.map((step): ChainPart => {
        const own = countOf(step);
        return { kind: step.kind, signature: step.signature, ...(own?.handled !== undefined ? { handled: own.handled } : {}), ...(own?.shown ? { shown: own.shown } : {}), ...(own?.values ? { values: own.values } : {}), sessions: own?.sessions ?? 0, people: own?.people ?? null, offset_ms: chain.offsets.get(keyOf(step))! };
      }),
    });
  }
  return chains;
}

/**
 * The recordings that best show the top problems: the first example of each, most hit first, a
 * recording that shows several counted once; at most `max`.
 */
export function evidenceOf(problems: readonly CountedProblem[], max: number): string[] {
  const chosen: string[] = [];
  for (const problem of problems) {
    if (chosen.length >= max) break;
    const id = problem.examples.find((e) => !chosen.includes(e));
    if (id && !problem.examples.some((e) => chosen.includes(e))) chosen.push(id);
  }
  return chosen;
}

/** Kinds only the digests see that a chain names as its parts, and the order symptoms at one moment take. */
const PART_ORDER: ChainPart['kind'][] = ['request-failed', 'console-warn', 'console-error', 'exception', 'message', 'rage-click', 'dead-click'];
const EVIDENCE_KINDS = new Set<string>(['request-failed', 'message', 'console-warn']);

/**
 * The period's counts with what the digests add: in each chain, the failed requests, page
 * messages and warnings the snapshots of its sessions show within the chain's seconds there
 * (events do not carry them), counted over the recordings of the chain read, in the order they came.
 */
export function withEvidence(population: Population, inputs: readonly TriageInput[]): Population {
  const problems = population.problems.map((problem) => {
    if (problem.kind !== 'chain' || !problem.parts || !problem.spans) return problem;
    const spans = problem.spans;
    const read = inputs.filter((input) => spans[input.id] !== undefined && input.digest.start !== null);
    if (read.length === 0) return problem;
    const extra = new Map<string, ChainPart & { ids: Set<string> }>();
    for (const input of read) {
      const [from, to] = spans[input.id]!;
      const start = input.digest.start!;
      // The session's moments of this chain, with its seconds either side.
      const timeline = input.digest.timeline.filter((item) => start + item.t >= from - CHAIN_WINDOW_MS && start + item.t <= to + CHAIN_WINDOW_MS);
      const found = aggregate([{ ...input, digest: { ...input.digest, timeline }, exceptions: [] }]).problems.filter((p) => EVIDENCE_KINDS.has(p.kind));
      for (const p of found) {
        const key = `${p.kind}\u0000${p.signature}`;
        const offset = (p.first_seen === null ? from : Date.parse(p.first_seen)) - from;
        const part = extra.get(key) ?? { kind: p.kind as ChainPart['kind'], signature: clip(p.signature, 200), ...(p.shown ? { shown: p.shown } : {}), ...(p.values ? { values: p.values } : {}), ...(p.body ? { body: clip(p.body, 160) } : {}), sessions: 0, people: null, offset_ms: offset, ids: new Set<string>() };
        part.ids.add(input.id);
        part.offset_ms = Math.min(part.offset_ms ?? offset, offset);
        extra.set(key, part);
      }
    }
    const evidence = [...extra.values()].map(({ ids, ...part }): ChainPart => ({ ...part, sessions: ids.size, evidence: `in ${ids.size} of the ${read.length} recording${read.length === 1 ? '' : 's'} of this chain read` }));
    const parts = [...problem.parts, ...evidence].sort((a, b) => (a.offset_ms ?? 0) - (b.offset_ms ?? 0) || PART_ORDER.indexOf(a.kind) - PART_ORDER.indexOf(b.kind));
    return { ...problem, parts };
  });
  return { ...population, problems };
}
