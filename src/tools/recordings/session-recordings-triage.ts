import { getMaxListeners, setMaxListeners } from 'node:events';
import { z } from 'zod';
import { aggregate, type Problem, type SessionTrouble, type TriageInput } from '../../digest/aggregate.js';
import { quote } from '../../digest/quote.js';
import { UpstreamError, UserInputError } from '../../errors.js';
import { BudgetExceeded } from '../../posthog/budget.js';
import { RECORDING_ORDERS } from '../../posthog/recording-orders.js';
import { defineTool } from '../define.js';
import { RECORDED_DATA_NOTICE, asText, clip, clock, duration, structuredSize } from '../format.js';
import { plural } from '../../words.js';
import { dateField, maxCharsField, personUuidField, projectIdField, recordingIdsField, resolveProjectId } from '../schemas.js';
import { digestRecording, partialOf, type RecordingDigest } from './recording-digest.js';
import { onRecordingClock, readExceptionsOf } from './session-exceptions.js';
import { tailOf, type Tail } from './tail.js';
import { playerUrl } from './player-link.js';
import { filterParams, recordingFilterFields } from './filters.js';

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

type Unread = { id: string; reason: 'throttled' | 'budget' | 'expired' | 'failed' | 'not-started'; detail: string; retry_after_seconds?: number };

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
  description: `Ranks what went wrong across many recordings (filtered as in session-recordings-list): console errors, exceptions, failed requests, rage/dead clicks; sessions, people hit, examples. Reads are rate-limited (free plan 12/min): a partial result names what was not read; continue with cursor.`,
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
      max_recordings: z.number().int().min(1).max(TRIAGE_MAX).default(TRIAGE_DEFAULT).describe('Read in this call.'),
      max_chars: maxCharsField,
      cursor: z.string().max(20_000).optional().describe('Previous next_cursor (same filters).'),
      ...recordingFilterFields(true),
    }),
  // Declared: what a next step reads. Also returned, when there is something to say: cached,
  // not_read, notes, clean, pages, sessions, unread, left_out, partial, more (renderTriage).
  outputSchema: z.looseObject({
    problems: z.array(z.looseObject({ kind: z.string(), signature: z.string(), sessions: z.number() })),
    next_cursor: z.string().nullable(),
  }),
  // The call spends POSTHOG_CALL_MAX_REQUESTS like any other; past it, a partial result and a cursor.
  async handler(input, { posthog, defaultProjectId, signal, cache, progress }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const cursor = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    const filters = { date_from: input.date_from, date_to: input.date_to, order: input.order, order_direction: input.order_direction, person_uuid: input.person_uuid, ...filterParams(input) };

    // 1. The recordings to read: the cursor's unread ones first, then a page of the list.
    // Patient like the reads that follow: a throttle within the wait allowance is waited out.
    const candidates: Candidate[] = [];
    let nextOffset: number | undefined;
    const unread: Unread[] = [];
    try {
      if (cursor && cursor.p.length > 0) {
        const ids = cursor.p.slice(0, input.max_recordings);
        const page = await posthog.recordings.list(projectId, { ...filters, session_ids: ids, limit: ids.length }, { signal, patient: true });
        candidates.push(...page.results.map(candidateOf));
        // Still pending beyond this call's share stay in the cursor.
        for (const id of cursor.p.slice(input.max_recordings)) unread.push({ id, reason: 'not-started', detail: 'beyond max_recordings for this call' });
        for (const id of ids) if (!candidates.some((c) => c.id === id)) unread.push({ id, reason: 'expired', detail: 'no longer listed by PostHog (expired, deleted, or outside the filters)' });
      }
      const room = input.max_recordings - candidates.length;
      const offset = cursor ? cursor.o : 0;
      if (room > 0 && offset !== undefined) {
        // Without an order of the caller's, one listing request scans more rows of
        // period (PostHog counts a request, not its rows) and the most promising are read first;
        // the rest wait in the cursor, said as not read. With an order, the caller's first rows.
        const want = input.order === undefined ? scanOf(room) : room;
        const limit = input.session_ids ? Math.min(want, input.session_ids.length) : want;
        const page = await posthog.recordings.list(projectId, { ...filters, session_ids: input.session_ids, limit, offset }, { signal, patient: true });
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
      // Throttled before a single recording could be chosen: nothing read, and when to ask again.
      const retry = err.retryAfterSeconds;
      const again = cursor ? input.cursor! : null;
      const more = retry !== undefined ? `Call again in about ${retry} seconds${again ? ' with the same cursor' : ''}.` : '';
      return {
        data: { project_id: projectId, read: 0, problems: [], next_cursor: again, partial: { ...partialOf(err), ...(more ? { more } : {}) } },
        text: `${RECORDED_DATA_NOTICE}\nNo triage yet: ${err.message}${more ? ` ${more}` : ''}`,
      };
    }

    // 2. The most promising first (errors, then activity, from the list's own counts), so a
    // throttle or budget stop leaves the least useful recordings unread. One request is kept for
    // the exceptions of the recordings read (step 3).
    candidates.sort((a, b) => b.promise - a.promise);
    posthog.budget?.holdBack(1);
    const digests = new Map<string, RecordingDigest>();
    let stop: BudgetExceeded | undefined;
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
        if (budget && budget.available() < REQUESTS_TO_START * (inFlight + 1)) {
          if (inFlight > 0) break; // The others go on, and take the next ones when they are done.
          // Not enough left to read one more: stop here rather than spend the rest on a listing alone.
          stop ??= new BudgetExceeded('requests', `This call reached its budget of ${budget.limits.maxRequests} upstream requests (POSTHOG_CALL_MAX_REQUESTS) before reading every recording.`);
          break;
        }
        const candidate = candidates[next++]!;
        inFlight++;
        try {
          const result = await digestRecording({ posthog, signal, cache }, projectId, candidate.id, candidate.row);
          if (result.stopped) {
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
    await Promise.all(Array.from({ length: Math.min(posthog.pacesReplay ? CONCURRENCY_PACED : CONCURRENCY, candidates.length) }, worker));
    for (const candidate of candidates.slice(next)) unread.push({ id: candidate.id, reason: 'not-started', detail: stop ? 'stopped before it' : 'cancelled' });

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

    // Continue with what is left: retryable unread recordings and the rest of the list.
    const pending = unread.filter((u) => u.reason === 'throttled' || u.reason === 'budget' || u.reason === 'not-started').map((u) => u.id);
    const nextCursor = pending.length > 0 || nextOffset !== undefined ? encodeCursor({ ...(nextOffset !== undefined ? { o: nextOffset } : {}), p: pending }) : null;
    const cachedCount = [...digests.values()].filter((d) => d.cached).length;
    const found: TriageFound = {
      project_id: projectId,
      searchedDefault: input.date_from === undefined && input.session_ids === undefined,
      read: digests.size,
      cached: cachedCount,
      problems: triage.problems,
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

function candidateOf(row: Record<string, unknown>): Candidate {
  const n = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const person = typeof row.person === 'object' && row.person !== null ? (row.person as Record<string, unknown>) : {};
  const who = typeof person.uuid === 'string' ? person.uuid : typeof row.distinct_id === 'string' ? row.distinct_id : null;
  return {
    id: asText(row.id),
    person: who,
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

const KIND_WORDS: Record<Problem['kind'], string> = {
  'console-error': 'console error',
  'console-warn': 'console warning',
  'request-failed': 'failed request',
  'rage-click': 'rage click',
  'dead-click': 'dead click',
  exception: 'exception',
  // As the summary's timeline says it: the page put this text in front of the person.
  message: 'page showed',
};

/** The words for a problem's kind; an exception's as its events say it (never guessed uncaught). */
function kindWords(p: Pick<Problem, 'kind' | 'handled'>): string {
  if (p.kind !== 'exception' || p.handled === undefined) return KIND_WORDS[p.kind];
  return p.handled ? 'handled exception' : 'uncaught exception';
}

/** What one triage call found, before it is written out for the model. */
type TriageFound = {
  project_id: string;
  /** No date_from was given: PostHog searched only its default window. */
  searchedDefault: boolean;
  read: number;
  cached: number;
  problems: Problem[];
  pages: Array<{ page: string; sessions: number; problems: number }>;
  sessions: Array<SessionTrouble & { tail?: Tail }>;
  unread: Unread[];
  notes: string[];
  next_cursor: string | null;
  partial?: { reason: string; message: string; retry_after_seconds?: number };
};

/** A line of the text and the same entry for the structured view. */
type Entry = { line: string; item: Record<string, unknown> };

/**
 * Within max_chars, both views: the header and the continuation always; then problems (most
 * sessions first), pages, sessions and what was not read, each entry kept whole, until the budget
 * is spent. The structured view holds the same entries as the text, and says what was left out
 * the same way. Recorded text (messages, URLs, element names) is quoted in the text, never bare.
 */
function renderTriage(found: TriageFound, maxChars: number) {
  const notes = [...found.notes];
  if (found.read === 0 && found.unread.length === 0 && !found.partial) notes.push(`No recordings matched these filters${found.searchedDefault ? ' (PostHog searched the last 3 days; pass date_from, e.g. "-30d", to look further back)' : ''}.`);
  const clean = found.read > 0 && found.problems.length === 0 ? 'No console errors or warnings, exceptions, failed requests, error messages on the page, rage or dead clicks in them.' : undefined;
  const head = [`Triage of ${plural(found.read, 'recording')} in project ${found.project_id}${found.cached ? ` (${found.cached} from the digest cache)` : ''}${found.unread.length ? `; ${found.unread.length} not read` : ''}.`, RECORDED_DATA_NOTICE];
  if (clean) head.push(clean);
  for (const note of notes) head.push(`Note: ${note}`);
  const retry = found.partial?.retry_after_seconds;
  const more = found.next_cursor ? `call again with the cursor and the same filters${retry !== undefined ? ` in about ${retry} seconds` : ''}.` : undefined;
  const tail: string[] = [];
  if (found.partial) tail.push(`PARTIAL: ${found.partial.message}`);
  if (found.next_cursor) tail.push(`More: call again with cursor="${found.next_cursor}" and the same filters${retry !== undefined ? ` in about ${retry} seconds` : ''}.`);

  const sections: Array<{ name: 'problems' | 'pages' | 'sessions' | 'unread'; heading: string; entries: Entry[] }> = [
    { name: 'problems', heading: 'Problems, by sessions hit:', entries: found.problems.map(problemEntry) },
    {
      name: 'pages',
      heading: 'Pages with the most trouble:',
      entries: found.pages.slice(0, PAGES_LISTED).map((p) => ({ line: `- ${quote(clip(p.page, 120))}: ${plural(p.problems, 'problem')} in ${plural(p.sessions, 'session')}`, item: { page: clip(p.page, 120), problems: p.problems, sessions: p.sessions } })),
    },
    { name: 'sessions', heading: 'Sessions, most trouble first:', entries: found.sessions.map(sessionEntry) },
    { name: 'unread', heading: 'Not read:', entries: unreadEntries(found.unread) },
  ];

  const compose = (budget: number) => {
    let used = [...head, ...tail].join('\n').length + 1;
    const body: string[] = [];
    const chosen: Record<string, Array<Record<string, unknown>>> = {};
    const leftOut: Record<string, number> = {};
    for (const { name, heading, entries } of sections) {
      let headed = false;
      for (const { line, item } of entries) {
        // A heading goes in with the first of its lines that fits, never alone.
        const cost = line.length + 1 + (headed ? 0 : heading.length + 1);
        if (used + cost + 80 > budget) {
          leftOut[name] = (leftOut[name] ?? 0) + 1;
          continue;
        }
        if (!headed) body.push(heading);
        headed = true;
        body.push(line);
        (chosen[name] ??= []).push(item);
        used += cost;
      }
    }
    const cutWords = Object.entries(leftOut).map(([name, n]) => plural(n, SECTION_NOUNS[name]!));
    const cut = cutWords.length ? `Left out for max_chars: ${cutWords.join(', ')}; raise max_chars to see them.` : undefined;
    if (cut) body.push(`(${cut})`);
    const data = {
      project_id: found.project_id,
      read: found.read,
      ...(found.cached ? { cached: found.cached } : {}),
      ...(found.unread.length ? { not_read: found.unread.length } : {}),
      ...(notes.length ? { notes } : {}),
      ...(clean ? { clean } : {}),
      problems: (chosen.problems ?? []) as Array<{ kind: string; signature: string; sessions: number }>,
      ...(chosen.pages ? { pages: chosen.pages } : {}),
      ...(chosen.sessions ? { sessions: chosen.sessions } : {}),
      ...(chosen.unread ? { unread: chosen.unread } : {}),
      ...(cut ? { left_out: cut } : {}),
      ...(found.partial ? { partial: found.partial } : {}),
      next_cursor: found.next_cursor,
      ...(more ? { more } : {}),
    };
    return { text: [...head, ...body, ...tail].join('\n'), data };
  };
  // Both views within max_chars (the structured one with the notice server.ts puts first): the
  // structured one runs longer for the same entries, so when it does not fit, fewer entries. Each
  // try asks for less than the one before (the text can run past its budget by the cut line, so a
  // budget made from the text's length alone can give the same entries again), until it fits:
  // with no entry left, only the header and the way to go on remain.
  let budget = maxChars;
  let result = compose(budget);
  for (let size = structuredSize(result.data); size > maxChars && budget > 0; size = structuredSize(result.data)) {
    budget = Math.min(budget - 40, Math.floor(budget * (maxChars / size)) - 20);
    result = compose(budget);
  }
  return result;
}

/**
 * What was not read, one entry a recording, or one for three or more left for the same reason
 * (the cursor holds every id): "- 12 recordings: not-started (…): a, b, c and 9 more".
 */
function unreadEntries(unread: Unread[]): Entry[] {
  const groups = new Map<string, Unread[]>();
  for (const u of unread) {
    const key = `${u.reason}\u0000${u.detail}`;
    groups.set(key, [...(groups.get(key) ?? []), u]);
  }
  return [...groups.values()].flatMap((group): Entry[] => {
    const { reason, detail } = group[0]!;
    if (group.length < 3) return group.map((u) => ({ line: `- ${u.id}: ${u.reason} (${u.detail})`, item: { id: u.id, reason: u.reason, detail: u.detail } }));
    const shown = group.slice(0, 3).map((u) => u.id);
    const rest = group.length - shown.length;
    return [{ line: `- ${group.length} recordings: ${reason} (${detail}): ${shown.join(', ')} and ${rest} more`, item: { count: group.length, reason, detail, ids: shown } }];
  });
}

const SECTION_NOUNS: Record<string, string> = { problems: 'problem', pages: 'page', sessions: 'session', unread: 'unread recording' };

/** Pages listed at most. */
const PAGES_LISTED = 10;

function problemEntry(p: Problem): Entry {
  const example = p.examples[0];
  const first = p.first_seen?.slice(0, 16).replace('T', ' ');
  const last = p.last_seen?.slice(0, 16).replace('T', ' ');
  const seen = first && last ? `${first === last ? first : `${first} to ${last}`} UTC` : undefined;
  const signature = clip(p.signature, 160);
  // One example: PostHog's player at its moment (its URL names the recording, and the summary and
  // replay tools take it as an id), or the recording and the moment where no link can be made.
  const shown = example ? (example.link ?? `${example.session_id} at ${clock(example.at_s * 1000)}`) : undefined;
  return {
    line: `- ${plural(p.sessions, 'session')}, ${plural(p.people, 'person', 'people')}, ${p.occurrences}×: ${kindWords(p)} ${quote(signature)}${seen ? ` (${seen})` : ''}${shown ? ` e.g. ${shown}` : ''}`,
    item: { kind: p.kind, ...(p.handled !== undefined ? { handled: p.handled } : {}), signature, sessions: p.sessions, people: p.people, occurrences: p.occurrences, ...(seen ? { seen } : {}), ...(shown ? { example: shown } : {}) },
  };
}

/** A session's trouble: the counts that are not zero, as the text names them. */
function sessionEntry(s: SessionTrouble & { tail?: Tail }): Entry {
  const counts: Array<[keyof SessionTrouble, string, string]> = [
    ['console_errors', 'error', 'errors'],
    ['exceptions', 'exception', 'exceptions'],
    ['failed_requests', 'failed request', 'failed requests'],
    ['error_messages', 'error message shown', 'error messages shown'],
    ['rage_clicks', 'rage click', 'rage clicks'],
    ['dead_clicks', 'dead click', 'dead clicks'],
    ['console_warnings', 'warning', 'warnings'],
  ];
  const present = counts.filter(([key]) => (s[key] as number) > 0);
  // Exceptions with how many were uncaught and handled, as their events say it: "2 exceptions (1 uncaught, 1 handled)".
  const how = [...(s.exceptions_uncaught ? [`${s.exceptions_uncaught} uncaught`] : []), ...(s.exceptions_handled ? [`${s.exceptions_handled} handled`] : [])].join(', ');
  const word = ([key, one, many]: [keyof SessionTrouble, string, string]) => `${plural(s[key] as number, one, many)}${key === 'exceptions' && how ? ` (${how})` : ''}`;
  const startUrl = s.start_url ? clip(s.start_url, 80) : undefined;
  const length = duration(s.duration_s);
  return {
    line: `- ${s.id} (${length}${startUrl ? `, ${quote(startUrl)}` : ''}): ${present.length ? present.map(word).join(', ') : 'no trouble'}${s.tail ? `. ${s.tail.says}` : ''}`,
    item: {
      id: s.id,
      duration: length,
      ...(startUrl ? { start_url: startUrl } : {}),
      ...Object.fromEntries(present.map(([key]) => [key, s[key]])),
      ...(s.exceptions_uncaught ? { exceptions_uncaught: s.exceptions_uncaught } : {}),
      ...(s.exceptions_handled ? { exceptions_handled: s.exceptions_handled } : {}),
      ...(s.tail ? { ...(s.tail.ongoing ? { ongoing: true } : {}), tail: s.tail.says } : {}),
    },
  };
}
