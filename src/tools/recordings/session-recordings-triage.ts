import { getMaxListeners, setMaxListeners } from 'node:events';
import { z } from 'zod';
import { aggregate, type TriageInput } from '../../digest/aggregate.js';
import { UpstreamError, UserInputError } from '../../errors.js';
import { BudgetExceeded } from '../../posthog/budget.js';
import { RECORDING_ORDERS } from '../../posthog/recording-orders.js';
import { defineTool } from '../define.js';
import { RECORDED_DATA_NOTICE, asText, clip } from '../format.js';
import { dateField, maxCharsField, personUuidField, projectIdField, recordingIdsField, resolveProjectId } from '../schemas.js';
import { digestRecording, partialOf, type RecordingDigest } from './recording-digest.js';
import { onRecordingClock, readExceptionsOf } from './session-exceptions.js';
import { tailOf } from './tail.js';
import { playerUrl } from './player-link.js';
import { filterParams, recordingFilterFields } from './filters.js';
import { DEFAULT_TRIAGE_REPLAY_BUDGET } from '../../call-limits.js';
import { MINUTE_MS } from '../../replay-rates.js';
import { MAX_REQUESTS_PER_RECORDING, RecordingBoundReached, RecordingMeter } from '../../posthog/snapshots.js';
import { countPopulation, evidenceOf, withEvidence } from './triage-population.js';
import { renderTriage, type SequenceScope, type TriageFound, type Unread } from './triage-render.js';
import { matchSequence, parseSequence, sequenceField, sequenceLabel, sequencePeriod, unrecordedLine } from './sequence.js';
import { quote } from '../../digest/quote.js';
import type { PostHogOperations } from '../../posthog/operations/index.js';
import type { Recording } from '../../posthog/resources.js';

/** Recordings one call reads at most (each costs PostHog replay requests: a listing and its blocks). */
export const TRIAGE_MAX = 50;
const TRIAGE_DEFAULT = 10;
/**
 * Rows one listing request scans, beside the ones read, to choose the most promising from: three
 * times those read, at least 30, at most PostHog's largest page (it counts a request, not rows).
 */
const scanOf = (room: number) => Math.min(100, Math.max(30, room * 3));
/**
 * Recordings read at once (listings and blocks in flight); the digest slots (one per core) and the
 * per-key gate bound the work further. Under PostHog's replay throttle, one at a time: the throttle
 * is the bottleneck then, and recordings started side by side would each be cut short by it
 * (reported unread, their requests spent for nothing) instead of some being read whole.
 */
const CONCURRENCY = 6;
const CONCURRENCY_PACED = 1;
/** A recording is started only while the call may still make this many requests (its listing and a block range). */
const REQUESTS_TO_START = 2;
/**
 * Replay requests a counted triage keeps for evidence however much of the window earlier calls
 * spent: the page of the list and three recordings' listings and first blocks. Without them a
 * busy minute answers counts with no example; with them the reads wait for PostHog's window
 * (where it is known) or stop with when to continue, as any read does.
 */
const EVIDENCE_FLOOR = 1 + 3 * REQUESTS_TO_START;
/**
 * A sequence's matching recordings the counting is narrowed to at most (the latest first steps
 * first): their ids travel as one list value of each query, a few hundred kilobytes at most.
 */
const MAX_SEQUENCE_POPULATION = 10_000;
/** Of them, the ids one list request names, where recordings are chosen from the list (PostHog's largest page). */
const LISTED_SEQUENCE_IDS = 100;


interface Candidate {
  id: string;
  person: string | null;
  promise: number;
  /** Its row in the list, read with the caller's key. */
  row: Record<string, unknown>;
}

/** What a triage call continues from: the unread recordings of the pages it had, and the next list offset. */
interface Cursor {
  /** list offset of the next page (absent: no more pages) */
  o?: number;
  /** recordings chosen but not read */
  p: string[];
}

/**
 * The cursor as text, short enough for both views of a result within max_chars: "2:<offset>:" then
 * the pending ids joined by "."; an id in PostHog's UUID form is written as "=" and its 16 bytes in
 * base64url (23 characters for 36). "." ":" "=" are not in a recording id's alphabet.
 */
function encodeCursor(cursor: Cursor): string {
  const ids = cursor.p.map((id) => (UUID.test(id) ? `=${Buffer.from(id.replace(/-/g, ''), 'hex').toString('base64url')}` : id));
  return `2:${cursor.o ?? ''}:${ids.join('.')}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_PENDING = 2 * TRIAGE_MAX;

function decodeCursor(text: string): Cursor {
  const cursor = /^2:(\d{0,7}):([A-Za-z0-9_.=-]*)$/.exec(text) ? readCompact(text) : readJson(text);
  if (cursor) return cursor;
  throw new UserInputError('cursor is not one this tool gave: pass next_cursor from a previous session-recordings-triage result unchanged (with the same filters), or leave it out to start over.');
}

function readCompact(text: string): Cursor | undefined {
  const [, offset, list] = text.split(':') as [string, string, string];
  const o = offset === '' ? undefined : Number(offset);
  const ids = list === '' ? [] : list.split('.').map((part) => (part.startsWith('=') ? uuidOf(part.slice(1)) : part));
  return valid(o, ids);
}

function uuidOf(packed: string): string {
  const hex = /^[A-Za-z0-9_-]{22}$/.test(packed) ? Buffer.from(packed, 'base64url').toString('hex') : '';
  return hex.length === 32 ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` : '';
}

/** The first form (base64url JSON {o, p}), as earlier versions gave it. */
function readJson(text: string): Cursor | undefined {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const { o, p } = value as Record<string, unknown>;
    return valid(o, Array.isArray(p) ? p : []);
  } catch {
    return undefined;
  }
}

function valid(o: unknown, ids: unknown[]): Cursor | undefined {
  const offsetOk = o === undefined || (Number.isInteger(o) && (o as number) >= 0 && (o as number) <= 1_000_000);
  if (!offsetOk || ids.length > MAX_PENDING || !ids.every((id) => typeof id === 'string' && /^[A-Za-z0-9_-]{1,200}$/.test(id))) return undefined;
  return { ...(o !== undefined ? { o: o as number } : {}), p: ids as string[] };
}

export const sessionRecordingsTriage = defineTool({
  name: 'session-recordings-triage',
  title: 'Find what went wrong across many recordings',
  toolset: 'recordings',
  description: `What went wrong most in a period (list filters, sequence): exceptions, console errors, rage/dead clicks counted over every recording by PostHog's query API (sessions, people, example ids; a failure's symptoms form one problem), then a few recordings digested for evidence (failed requests, page messages); without query:read, digests only. Replay reads are throttled (free 12/min): a partial result names what was not read; continue with cursor.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  recordedData: true,
  inputSchema: (options) =>
    z.strictObject({
      project_id: projectIdField(options),
      date_from: dateField('"-7d", "-24h" or an ISO date in the project\'s time zone; default "-3d".').optional(),
      date_to: dateField('Same forms; default now.').optional(),
      order: z.enum(RECORDING_ORDERS).optional().describe('Read first; default start_time.'),
      order_direction: z.enum(['ASC', 'DESC']).optional().describe('Default DESC.'),
      person_uuid: personUuidField.optional(),
      session_ids: recordingIdsField(TRIAGE_MAX).optional().describe('Only these ids or replay URLs.'),
      max_recordings: z.number().int().min(1).max(TRIAGE_MAX).optional().describe('Read in this call (default 10; more than the replay budget allows when given).'),
      max_chars: maxCharsField,
      cursor: z.string().max(20_000).optional().describe('Previous next_cursor (same filters).'),
      ...recordingFilterFields(true),
      sequence: sequenceField.optional().describe('As in session-recordings-list: only the recordings that went through these steps.'),
    }),
  // Declared: what a next step reads. Also returned, when there is something to say: cached,
  // not_read, notes, clean, pages, sessions, unread, left_out, problems_not_listed, partial, more (renderTriage).
  outputSchema: z.looseObject({
    problems: z.array(z.looseObject({ kind: z.string(), signature: z.string(), sessions: z.number() })),
    next_cursor: z.string().nullable(),
  }),
  // The call spends POSTHOG_CALL_MAX_REQUESTS like any other; past it, a partial result and a cursor.
  async handler(input, { posthog, defaultProjectId, signal, cache, progress }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const cursor = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    const maxRecordings = input.max_recordings ?? TRIAGE_DEFAULT;
    // With a sequence, the recordings triaged are its matches (one query); its dates are checked before any request.
    const sequencePeriodOf = input.sequence ? sequencePeriod(input.date_from, input.date_to) : undefined;
    const sequence = input.sequence && sequencePeriodOf ? await sequenceScope(posthog, projectId, input.sequence, sequencePeriodOf, input.session_ids, signal) : undefined;
    // 0. Query-first: every recording of the period counted through the query API (not for a
    // cursor's continuation, nor named session ids, nor a period of no more recordings than this
    // call reads: those are read whole); where it cannot, the recordings read are all the triage
    // sees, and it says why.
    const counting = cursor || input.session_ids ? undefined : await countPopulation(posthog, projectId, { ...input, ...filterParams(input) }, signal, maxRecordings, sequence?.ids.slice(0, MAX_SEQUENCE_POPULATION));
    const counted = counting && 'population' in counting ? counting.population : undefined;
    // The replay budget binds the evidence digests, unless the caller asked for a number of recordings.
    // It is a minute of this key's replay requests: what earlier calls spent of PostHog's current
    // window (under the rates the key is paced by, else the budget per minute) is not there to
    // spend again, and planning within the rest meets no 429.
    const replayBudget = posthog.budget?.limits.triageReplayBudget ?? DEFAULT_TRIAGE_REPLAY_BUDGET;
    const replayRoom = counted && input.max_recordings === undefined ? posthog.replayRoom([{ count: replayBudget, windowMs: MINUTE_MS }]) : Infinity;
    const evidenceFloor = Math.min(replayBudget, EVIDENCE_FLOOR);
    const replay = counted ? { left: input.max_recordings === undefined ? Math.min(replayBudget, Math.max(replayRoom, evidenceFloor)) : Infinity, spent: 0 } : undefined;
    const filters = { date_from: input.date_from, date_to: input.date_to, order: input.order, order_direction: input.order_direction, person_uuid: input.person_uuid, ...filterParams(input) };

    // 1. The recordings to read: the cursor's unread ones first, then a page of the list.
    // Patient like the reads that follow: a throttle within the wait allowance is waited out.
    const candidates: Candidate[] = [];
    let nextOffset: number | undefined;
    const unread: Unread[] = [];
    let stop: BudgetExceeded | undefined;
    let evidence: string[] = [];
    try {
      if (counted && replay) {
        // The recordings that best show the top problems, listed by id (one request).
        const ids = (evidence = evidenceOf(counted.problems, Math.min(maxRecordings, Math.floor((replay.left - 1) / REQUESTS_TO_START))));
        if (ids.length > 0) {
          replay.spent++;
          const page = await posthog.recordings.list(projectId, { date_from: input.date_from, date_to: input.date_to, session_ids: ids, limit: ids.length }, { signal, patient: true });
          const rows = new Map(page.results.map((row) => [row.id, row]));
          candidates.push(...ids.flatMap((id) => (rows.has(id) ? [candidateOf(rows.get(id)!)] : [])));
        }
      } else if (cursor && cursor.p.length > 0) {
        const ids = cursor.p.slice(0, maxRecordings);
        const page = await posthog.recordings.list(projectId, { ...filters, session_ids: ids, limit: ids.length }, { signal, patient: true });
        candidates.push(...page.results.map(candidateOf));
        // Still pending beyond this call's share stay in the cursor.
        for (const id of cursor.p.slice(maxRecordings)) unread.push({ id, reason: 'not-started', detail: 'beyond max_recordings for this call' });
        for (const id of ids) if (!candidates.some((c) => c.id === id)) unread.push({ id, reason: 'expired', detail: 'no longer listed by PostHog (expired, deleted, or outside the filters)' });
      }
      const room = maxRecordings - candidates.length;
      // Query-first, the evidence is what is read, unless the caller asked for more recordings: then the list's most promising too.
      const offset = counted && input.max_recordings === undefined ? undefined : cursor ? cursor.o : 0;
      if (room > 0 && offset !== undefined) {
        // Without an order of the caller's, one listing request scans more rows of
        // period (PostHog counts a request, not its rows) and the most promising are read first;
        // the rest wait in the cursor, said as not read. With an order, the caller's first rows.
        const want = input.order === undefined ? scanOf(room) : room;
        // With a sequence, the list is asked for its matches only (the latest of them), and not at all when none matched.
        const scope = sequence ? sequence.ids.slice(0, LISTED_SEQUENCE_IDS) : input.session_ids;
        const limit = scope ? Math.min(want, scope.length) : want;
        const page = limit === 0 ? { results: [], has_more: false, next_offset: null } : await posthog.recordings.list(projectId, { ...filters, session_ids: scope, limit, offset }, { signal, patient: true });
        const listed = page.results.map(candidateOf).filter((c) => !candidates.some((d) => d.id === c.id));
        if (input.order === undefined) listed.sort((a, b) => b.promise - a.promise);
        candidates.push(...listed.slice(0, room));
        for (const c of listed.slice(room)) unread.push({ id: c.id, reason: 'not-started', detail: 'beyond max_recordings; fewer errors and less activity than those read' });
        nextOffset = page.has_more ? (page.next_offset ?? offset + page.results.length) : undefined;
      } else if (offset !== undefined) {
        nextOffset = offset;
      }
    } catch (err) {
      if (!(err instanceof BudgetExceeded)) throw err;
      if (counted) {
        // The counts cost no replay request: they stand, and the evidence waits in the cursor.
        stop = err;
        for (const id of evidence) unread.push({ id, reason: 'throttled', detail: 'its listing was throttled' });
      } else {
        // Throttled before a single recording could be chosen: nothing read, and when to ask again.
        const retry = err.retryAfterSeconds;
        const again = cursor ? input.cursor! : null;
        const more = retry !== undefined ? `Call again in about ${retry} seconds${again ? ' with the same cursor' : ''}.` : '';
        return {
          data: { project_id: projectId, read: 0, problems: [], next_cursor: again, partial: { ...partialOf(err), ...(more ? { more } : {}) } },
          text: `${RECORDED_DATA_NOTICE}\nNo triage yet: ${err.message}${more ? ` ${more}` : ''}`,
        };
      }
    }

    // 2. The most promising first (errors, then activity, from the list's own counts), so a
    // throttle or budget stop leaves the least useful recordings unread. One request is kept for
    // the exceptions of the recordings read (step 3).
    if (!counted) candidates.sort((a, b) => b.promise - a.promise);
    posthog.budget?.holdBack(1);
    const digests = new Map<string, RecordingDigest>();
    let next = 0;
    let done = 0;
    let inFlight = 0;
    // Each recording in flight listens on the call's signal twice (its request, and its place in
    // the digest queue or its digest): on top of what the signal already allows, and no leak.
    setMaxListeners(getMaxListeners(signal) + CONCURRENCY * 2, signal);
    const worker = async () => {
      while (next < candidates.length && !stop && !signal.aborted) {
        const budget = posthog.budget;
        // Each recording in flight will spend at least REQUESTS_TO_START: one more is started only
        // while the budget covers them all, or recordings started side by side would share out a
        // small budget, each be cut short, and a cursor followed call after call read none.
        // Evidence digests stop where the replay budget would not cover one more.
        if (replay && replay.left - replay.spent < REQUESTS_TO_START) break;
        if (budget && budget.available() < REQUESTS_TO_START * (inFlight + 1)) {
          if (inFlight > 0) break; // The others go on, and take the next ones when they are done.
          // Not enough left to read one more: stop here rather than spend the rest on a listing alone.
          stop ??= new BudgetExceeded('requests', `This call reached its budget of ${budget.limits.maxRequests} upstream requests (POSTHOG_CALL_MAX_REQUESTS) before reading every recording.`);
          break;
        }
        const candidate = candidates[next++]!;
        inFlight++;
        try {
          const meter = replay ? new RecordingMeter(Math.min(MAX_REQUESTS_PER_RECORDING, replay.left - replay.spent)) : undefined;
          const result = await digestRecording({ posthog, signal, cache, meter }, projectId, candidate.id, candidate.row).finally(() => {
            if (replay && meter) replay.spent += meter.requests;
          });
          if (result.stopped instanceof RecordingBoundReached && replay) {
            unread.push({ id: candidate.id, reason: 'budget', detail: 'the replay budget (POSTHOG_TRIAGE_REPLAY_BUDGET) ran out in it' });
          } else if (result.stopped) {
            stop ??= result.stopped;
            unread.push(unreadOf(candidate.id, result.stopped));
          } else {
            digests.set(candidate.id, result);
          }
        } catch (err) {
          if (signal.aborted) throw err;
          if (err instanceof BudgetExceeded) {
            stop ??= err;
            unread.push(unreadOf(candidate.id, err));
          } else if (err instanceof UpstreamError && (err.status === 404 || err.status === 410)) {
            unread.push({ id: candidate.id, reason: 'expired', detail: err.status === 410 ? 'deleted' : 'no snapshot data (expired or never stored)' });
          } else {
            unread.push({ id: candidate.id, reason: 'failed', detail: clip(err instanceof Error ? err.message : String(err), 200) });
          }
        }
        inFlight--;
        done++;
        progress?.(`Read ${done} of ${candidates.length} recordings.`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(posthog.pacesReplay || replay ? CONCURRENCY_PACED : CONCURRENCY, candidates.length) }, worker));
    for (const candidate of candidates.slice(next)) unread.push({ id: candidate.id, reason: 'not-started', detail: stop ? 'stopped before it' : replay ? 'beyond the replay budget (POSTHOG_TRIAGE_REPLAY_BUDGET)' : 'cancelled' });

    // 3. Across them, with their uncaught exceptions (`$exception` events, beside the recordings:
    // one query for all of them; not readable, a note).
    const readOnes = candidates.filter((c) => digests.has(c.id));
    const [numeric, exceptions] = await Promise.all([
      digests.size > 0 ? posthog.projects.numericId(projectId, { signal }) : null,
      readOnes.length > 0 ? readExceptionsOf(posthog.query, projectId, readOnes.map((c) => ({ id: c.id, meta: c.row })), signal, true) : undefined,
    ]);
    const link = numeric === null ? undefined : (id: string, seconds: number) => playerUrl(posthog.baseUrl, numeric, id, seconds);
    const inputs: TriageInput[] = readOnes.map((c) => {
      const digest = digests.get(c.id)!.digest;
      const own = onRecordingClock(exceptions?.bySession?.get(c.id) ?? [], digest, Date.parse(asText(c.row.start_time)));
      return {
        id: c.id,
        person: c.person,
        digest,
        exceptions: own.map(({ t_ms, ...e }) => ({ t: t_ms, ...e })),
      };
    });
    const triage = aggregate(inputs, { link });
    const notes = exceptions?.unread
      ? [`Exceptions not read: ${exceptions.unread}.`]
      : exceptions?.limited
        ? ['Exceptions: only the first the query asks for were read (100 a recording on average); the recordings may have more.']
        : [];
    if (replay && replayRoom < replayBudget) {
      // Whose window: PostHog's throttle as configured or learned, else only our own count of the budget per minute.
      const window = posthog.pacesReplay ? "PostHog's throttle, as known for this key" : 'the replay budget, counted per minute';
      const within = replayRoom >= evidenceFloor
        ? `the evidence was read within ${replayRoom === 1 ? 'it' : 'them'}, not the replay budget of ${replayBudget}.`
        : `the evidence was read within the ${evidenceFloor} a triage always keeps for it, not the replay budget of ${replayBudget}; those reads wait for the window or stop with when to continue.`;
      notes.push(`Only ${replayRoom} of this key's replay requests ${replayRoom === 1 ? 'was' : 'were'} left in the current window (${window}; earlier calls spent the rest): ${within}`);
    }
    // Where the list chose the recordings read, it chose among the latest matches only.
    if (sequence && !counted && sequence.ids.length > LISTED_SEQUENCE_IDS) notes.push(`The recordings read were chosen among the latest ${LISTED_SEQUENCE_IDS} of the ${sequence.ids.length} matching recordings.`);

    // Continue with what is left: retryable unread recordings and the rest of the list.
    const pending = unread.filter((u) => u.reason === 'throttled' || u.reason === 'budget' || u.reason === 'not-started').map((u) => u.id);
    const nextCursor = pending.length > 0 || nextOffset !== undefined ? encodeCursor({ ...(nextOffset !== undefined ? { o: nextOffset } : {}), p: pending }) : null;
    const cachedCount = [...digests.values()].filter((d) => d.cached).length;
    const found: TriageFound = {
      project_id: projectId,
      searchedDefault: input.date_from === undefined && input.session_ids === undefined,
      ...(counted ? { population: withEvidence(counted, inputs), replay: { spent: replay!.spent, budget: replay!.left } } : {}),
      ...(counting && 'unavailable' in counting ? { fallback: counting.unavailable } : {}),
      ...(sequence ? { sequence: sequence.view } : {}),
      read: digests.size,
      cached: cachedCount,
      problems: triage.problems,
      failures: triage.failures,
      pages: triage.pages,
      // A session still recording, or whose tail has not arrived, says so against the list's row (tail.ts).
      sessions: triage.sessions.map((t) => {
        const c = readOnes.find((one) => one.id === t.id);
        const tail = c ? tailOf(c.row, digests.get(c.id)!.digest) : undefined;
        return tail ? { ...t, tail } : t;
      }),
      unread,
      notes,
      next_cursor: nextCursor,
      ...(stop ? { partial: partialOf(stop) } : {}),
    };
    return renderTriage(found, input.max_chars);
  },
  explainError: (error) => (error.status === 404 ? 'Check the project id with projects-list.' : undefined),
});

/** A sequence's matching recordings (among `session_ids` when given, the latest first steps first), and how both views say them. */
async function sequenceScope(posthog: PostHogOperations, projectId: string, raw: readonly unknown[], period: { from: Date; to: Date }, sessionIds: readonly string[] | undefined, signal: AbortSignal): Promise<{ ids: string[]; view: SequenceScope }> {
  const parsed = parseSequence(raw).sequence;
  const match = await matchSequence(posthog, projectId, parsed, period, signal);
  const ids = sessionIds ? match.recordedIds.filter((id) => sessionIds.includes(id)) : match.recordedIds;
  const partial = [
    match.truncated ? 'PostHog cut the sequence query at its row limit: the matches are a floor; narrow the dates.' : '',
    ids.length > MAX_SEQUENCE_POPULATION ? `${ids.length} recordings matched; the counts are over the latest ${MAX_SEQUENCE_POPULATION}.` : '',
  ].filter(Boolean).join(' ');
  return { ids, view: { steps: sequenceLabel(parsed, quote), recordings: ids.length, unrecorded_sessions: match.unrecorded, unrecorded_reasons: match.reasons, unrecorded: unrecordedLine(match), ...(partial ? { partial } : {}) } };
}

/** A listed row as the operations parsed it (recordingSchema): id a string, person and counts typed or null. */
function candidateOf(row: Recording): Candidate {
  const n = (value: number | null | undefined) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  return {
    id: row.id,
    person: row.person?.uuid ?? row.distinct_id ?? null,
    promise: n(row.console_error_count) * 10 + n(row.console_warn_count) + (n(row.click_count) + n(row.keypress_count)) / 20 + n(row.activity_score) / 10,
    row,
  };
}

function unreadOf(id: string, err: BudgetExceeded): Unread {
  return {
    id,
    reason: err.reason === 'throttle' ? 'throttled' : 'budget',
    detail: clip(err.message, 200),
    ...(err.retryAfterSeconds !== undefined ? { retry_after_seconds: err.retryAfterSeconds } : {}),
  };
}

