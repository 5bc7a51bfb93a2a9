// How a triage is written out for the model: both views (docs/design.md, "Both views") within max_chars, the
// counted problems of the whole period first where the query API counted them, then what the
// digests of the recordings read add.

import type { Failure, Problem, SessionTrouble } from '../../digest/aggregate.js';
import { quote } from '../../digest/quote.js';
import { RECORDED_DATA_NOTICE, clip, clock, duration, structuredSize } from '../format.js';
import { plural } from '../../words.js';
import type { Tail } from './tail.js';
import type { CountedProblem, Population } from './triage-population.js';

export type Unread = { id: string; reason: 'throttled' | 'budget' | 'expired' | 'failed' | 'not-started'; detail: string; retry_after_seconds?: number };

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

/** A sequence's matches as the triage says them: the steps (quoted), the recordings, and the matching sessions without one, apart. */
export type SequenceScope = { steps: string; recordings: number; unrecorded_sessions: number; unrecorded_reasons: Record<string, number>; unrecorded: string; partial?: string };

/** What one triage call found, before it is written out for the model. */
export type TriageFound = {
  project_id: string;
  /** No date_from was given: PostHog searched only its default window. */
  searchedDefault: boolean;
  read: number;
  cached: number;
  problems: Problem[];
  /** The failures the problems came together in (their parts are among `problems`). */
  failures: Failure[];
  pages: Array<{ page: string; sessions: number; problems: number }>;
  sessions: Array<SessionTrouble & { tail?: Tail }>;
  unread: Unread[];
  notes: string[];
  /** The period counted over every recording through the query API (query-first). */
  population?: Population;
  /** List + snapshot requests the evidence digests spent, and the replay budget (Infinity: the caller's max_recordings). */
  replay?: { spent: number; budget: number };
  /** Why the query API could not count the period: the triage is of the recordings read only. */
  fallback?: string;
  /** The call's sequence: its matching recordings are the only ones triaged. */
  sequence?: SequenceScope;
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
export function renderTriage(found: TriageFound, maxChars: number) {
  const notes = [...found.notes];
  if (found.fallback) notes.push(`Not counted over every recording of the period: ${found.fallback}. Below, only the recordings read.`);
  if (found.read === 0 && found.unread.length === 0 && !found.partial && (found.population?.recordings ?? 0) === 0) notes.push(`No recordings matched these filters${found.searchedDefault ? ' (PostHog searched the last 3 days; pass date_from, e.g. "-30d", to look further back)' : ''}.`);
  const clean = found.read > 0 && found.problems.length === 0 ? 'No console errors or warnings, exceptions, failed requests, error messages on the page, rage or dead clicks in them.' : undefined;
  const population = found.population;
  const readLine = `${plural(found.read, 'recording')}${found.cached ? ` (${found.cached} from the digest cache)` : ''}`;
  const unreadWords = found.unread.length ? `, ${found.unread.length} not read` : '';
  const budgetWords = found.replay ? ` (${found.replay.spent} list + snapshot requests${Number.isFinite(found.replay.budget) ? ` of the replay budget ${found.replay.budget}` : ''})` : '';
  const head = population
    ? [`Triage of project ${found.project_id}, ${population.period.from.slice(0, 16)} to ${population.period.to.slice(0, 16)} UTC: ${plural(population.recordings, 'recording')} from ${plural(population.people, 'person', 'people')} looked at, counted over ${found.sequence ? 'every matching recording' : 'every recording'} through PostHog's query API${population.complete ? '' : ' (only the first pages of recordings: counts are of those)'}; ${readLine} digested for evidence${unreadWords}${budgetWords}.`, countedWith(population), RECORDED_DATA_NOTICE]
    : [`Triage of ${readLine} in project ${found.project_id}${unreadWords}.`, RECORDED_DATA_NOTICE];
  if (found.sequence) head.splice(1, 0, ...sequenceLines(found.sequence));
  if (clean) head.push(clean);
  for (const note of notes) head.push(`Note: ${note}`);
  const retry = found.partial?.retry_after_seconds;
  const more = found.next_cursor ? `call again with the cursor and the same filters${retry !== undefined ? ` in about ${retry} seconds` : ''}.` : undefined;
  const tail: string[] = [];
  if (found.partial) tail.push(`PARTIAL: ${found.partial.message}`);
  if (found.next_cursor) tail.push(`More: call again with cursor="${found.next_cursor}" and the same filters${retry !== undefined ? ` in about ${retry} seconds` : ''}.`);

  // At most PROBLEMS_LISTED problems, the symptoms of one failure one entry: the most sessions first.
  const ranked = population ? { problems: population.problems.map(countedEntry), evidence: evidenceEntries(found, population) } : { problems: digestEntries(found), evidence: [] };
  const listed = { problems: ranked.problems.slice(0, PROBLEMS_LISTED), evidence: ranked.evidence.slice(0, Math.max(0, PROBLEMS_LISTED - ranked.problems.length)) };
  const notListed = ranked.problems.length + ranked.evidence.length - listed.problems.length - listed.evidence.length;
  if (notListed > 0) tail.unshift(`(${plural(notListed, 'more problem')} not listed: each hit no more sessions than the ones above.)`);
  const sections: Array<{ name: 'problems' | 'evidence' | 'pages' | 'sessions' | 'unread'; heading: string; entries: Entry[] }> = [
    population
      ? { name: 'problems', heading: `Problems across every ${found.sequence ? 'matching ' : ''}recording of the period, by sessions hit:`, entries: listed.problems }
      : { name: 'problems', heading: 'Problems, by sessions hit:', entries: listed.problems },
    ...(population ? [{ name: 'evidence' as const, heading: `What only the ${plural(found.read, 'recording')} read show (counts over them):`, entries: listed.evidence }] : []),
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
      ...(population ? { population: { recordings: population.recordings, people: population.people, from: population.period.from, to: population.period.to, counted_with: population.applied, digests_only: population.notApplied, ...(population.complete ? {} : { complete: false }) } } : {}),
      ...(found.sequence ? { sequence_match: sequenceData(found.sequence) } : {}),
      ...(found.replay ? { replay_requests: found.replay.spent, ...(Number.isFinite(found.replay.budget) ? { replay_budget: found.replay.budget } : {}) } : {}),
      read: found.read,
      ...(found.cached ? { cached: found.cached } : {}),
      ...(found.unread.length ? { not_read: found.unread.length } : {}),
      ...(notes.length ? { notes } : {}),
      ...(clean ? { clean } : {}),
      problems: (chosen.problems ?? []) as Array<{ kind: string; signature: string; sessions: number }>,
      ...(chosen.evidence ? { evidence: chosen.evidence } : {}),
      ...(chosen.pages ? { pages: chosen.pages } : {}),
      ...(chosen.sessions ? { sessions: chosen.sessions } : {}),
      ...(chosen.unread ? { unread: chosen.unread } : {}),
      ...(cut ? { left_out: cut } : {}),
      ...(notListed > 0 ? { problems_not_listed: notListed } : {}),
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

const SECTION_NOUNS: Record<string, string> = { evidence: 'evidence problem', problems: 'problem', pages: 'page', sessions: 'session', unread: 'unread recording' };

/** Pages listed at most. */
const PAGES_LISTED = 10;

function problemEntry(p: Problem): Entry {
  const example = p.examples[0];
  const seen = seenWords(p.first_seen, p.last_seen);
  // One example: PostHog's player at its moment (its URL names the recording, and the summary and
  // replay tools take it as an id), or the recording and the moment where no link can be made.
  const shown = example ? (example.link ?? `${example.session_id} at ${clock(example.at_s * 1000)}`) : undefined;
  const { words, item } = problemWords(p);
  return {
    line: `- ${hits(p.sessions, p.people)}, ${p.occurrences}×${example ? `, in ${example.session_id}` : ''}: ${words}${seen ? ` (${seen})` : ''}${shown ? ` e.g. ${shown}` : ''}`,
    item: { sessions: p.sessions, people: p.people, occurrences: p.occurrences, ...(shown ? { example: shown } : {}), ...item, ...(seen ? { seen } : {}) },
  };
}

/** "2026-11-29 08:18 UTC", or a span "… to … UTC". */
function seenWords(firstSeen: string | null | undefined, lastSeen: string | null | undefined): string | undefined {
  const first = firstSeen?.slice(0, 16).replace('T', ' ');
  const last = lastSeen?.slice(0, 16).replace('T', ' ');
  return first && last ? `${first === last ? first : `${first} to ${last}`} UTC` : undefined;
}

/**
 * A problem's kind and text as both views say it: a folded message with the numbers it had
 * ("attempt 1…5"), or its first and last where they differ in more; a failed request with its reason.
 */
function problemWords(p: Pick<Problem, 'kind' | 'handled' | 'signature' | 'shown' | 'values' | 'body'>, max = 160): { words: string; item: Record<string, unknown> } {
  const signature = clip(p.signature, max);
  const shown = p.shown ? clip(p.shown, max) : undefined;
  const values = p.values ? { first: clip(p.values.first, max), last: clip(p.values.last, max) } : undefined;
  const text = values ? `${quote(values.first)} … ${quote(values.last)}` : quote(shown ?? signature);
  // A failed request's reason as the digest keeps it (the server's words, masked).
  const body = p.body ? clip(p.body, 160) : undefined;
  return {
    words: `${kindWords(p)} ${text}${body ? ` body ${quote(body)}` : ''}`,
    item: { kind: p.kind, ...(p.handled !== undefined ? { handled: p.handled } : {}), ...(shown ? { message: shown } : {}), ...(values ? { values } : {}), signature, ...(body ? { body } : {}) },
  };
}

/** The symptoms of one failure, one entry naming its parts, each with its own counts. */
function failureEntry(f: Failure): Entry {
  const example = f.examples[0];
  const seen = seenWords(f.first_seen, f.last_seen);
  const shown = example ? (example.link ?? `${example.session_id} at ${clock(example.at_s * 1000)}`) : undefined;
  const parts = f.parts.map((part) => ({ ...problemWords(part, 120), part }));
  return {
    line: `- ${hits(f.sessions, f.people)}, ${f.occurrences}×${example ? `, in ${example.session_id}` : ''}: one failure, in one session within seconds: ${parts.map(({ words, part }) => `${words} (${hits(part.sessions, part.people)}, ${part.occurrences}×)`).join(' → ')}${seen ? ` (${seen})` : ''}${shown ? ` e.g. ${shown}` : ''}`,
    item: {
      sessions: f.sessions,
      people: f.people,
      occurrences: f.occurrences,
      ...(shown ? { example: shown } : {}),
      kind: 'chain',
      // Named by its first symptom; the parts say the rest.
      signature: String(parts[0]?.item.message ?? parts[0]?.item.signature ?? ''),
      // Each part by the text it showed (its numbers, not the grouping key's placeholders).
      parts: parts.map(({ item: { message, signature, ...item }, part }) => ({ sessions: part.sessions, people: part.people, occurrences: part.occurrences, ...item, signature: message ?? signature })),
      ...(seen ? { seen } : {}),
    },
  };
}

/** The digests' problems with each failure one entry in place of its parts, the most sessions first (a failure first among equals). */
function digestEntries(found: TriageFound): Entry[] {
  const parts = new Set(found.failures.flatMap((f) => f.parts.map(problemKey)));
  const ranked: Array<{ sessions: number; failure: boolean; entry: Entry }> = [
    ...found.failures.map((f) => ({ sessions: f.sessions, failure: true, entry: failureEntry(f) })),
    ...found.problems.filter((p) => !parts.has(problemKey(p))).map((p) => ({ sessions: p.sessions, failure: false, entry: problemEntry(p) })),
  ];
  return ranked.sort((a, b) => b.sessions - a.sessions || Number(b.failure) - Number(a.failure)).map((r) => r.entry);
}

const problemKey = (p: Pick<Problem, 'kind' | 'signature' | 'handled'>) => `${p.kind}\u0000${p.signature}\u0000${String(p.handled)}`;

/** What only the recordings read show, less what a counted failure already names as its part. */
function evidenceEntries(found: TriageFound, population: Population): Entry[] {
  const named = new Set(population.problems.flatMap((p) => (p.parts ?? []).map((part) => `${part.kind}\u0000${part.signature}`)));
  return found.problems.filter((p) => !COUNTED_KINDS.has(p.kind) && !named.has(`${p.kind}\u0000${clip(p.signature, 200)}`)).map(problemEntry);
}

/** Problems listed at most: the rest are said as a number. */
const PROBLEMS_LISTED = 10;

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

/** Kinds the query API counts over the period; the others only the digests see. */
const COUNTED_KINDS = new Set<Problem['kind']>(['exception', 'console-error', 'rage-click', 'dead-click']);

/** "Sequence "a" → "b" never after: 212 matching recordings, …": the population, and the sessions without a recording apart. */
function sequenceLines(s: SequenceScope): string[] {
  return [`Sequence ${s.steps}: ${plural(s.recordings, 'matching recording')} in the period; only they are triaged.`, s.unrecorded, s.partial ?? ''].filter(Boolean);
}

function sequenceData(s: SequenceScope) {
  return { recordings: s.recordings, unrecorded_sessions: s.unrecorded_sessions, unrecorded_reasons: s.unrecorded_reasons, ...(s.partial ? { partial: s.partial } : {}) };
}

/** Which of the caller's filters the counting applied, and which only the recordings read honour. */
function countedWith(population: Population): string {
  const applied = population.applied.length ? population.applied.join(', ') : 'the default period (date_from -3d)';
  const only = population.notApplied.length ? `; ${population.notApplied.join(', ')} applied to the recordings read, not to the counts` : '';
  return `Counted with: ${applied}${only}.`;
}

const COUNTED_WORDS: Record<CountedProblem['kind'], string> = { exception: 'exception', 'console-error': 'console error', 'rage-click': 'rage click', 'dead-click': 'dead click', chain: 'one failure' };

/** "416 sessions, 390 people": people unknown when a group named more sessions than a query returns. */
const hits = (sessions: number, people: number | null) => `${plural(sessions, 'session')}${people === null ? '' : `, ${plural(people, 'person', 'people')}`}`;

function countedEntry(p: CountedProblem): Entry {
  const kind = p.kind === 'exception' && p.handled !== undefined ? (p.handled ? 'handled exception' : 'uncaught exception') : COUNTED_WORDS[p.kind];
  const seen = `${p.first_seen.slice(0, 16).replace('T', ' ')} to ${p.last_seen.slice(0, 16).replace('T', ' ')} UTC`;
  const text = (q: { signature: string; shown?: string | undefined; values?: { first: string; last: string } | undefined }, max: number) => (q.values ? `${quote(clip(q.values.first, max))} … ${quote(clip(q.values.last, max))}` : quote(clip(q.shown ?? q.signature, max)));
  const parts = p.parts?.map((part) => `${part.kind === 'exception' && part.handled !== undefined ? (part.handled ? 'handled exception' : 'uncaught exception') : PART_WORDS[part.kind]} ${text(part, 120)}${part.body ? ` body ${quote(part.body)}` : ''} (${part.evidence ?? hits(part.sessions, part.people)})`);
  const echo = p.console ? `, logged as console error ${quote(clip(p.console.signature, 120))} (${hits(p.console.sessions, p.console.people)}, ${p.console.occurrences}×)` : '';
  const what = parts ? `${kind}, in one session within seconds: ${parts.join(' → ')}` : `${kind} ${text(p, 160)}${echo}`;
  return {
    line: `- ${hits(p.sessions, p.people)}, ${p.occurrences}×, in ${p.examples.join(', ')}: ${what} (${seen}${p.fingerprint ? `; fingerprint ${quote(p.fingerprint)}` : ''})`,
    item: {
      sessions: p.sessions,
      people: p.people,
      occurrences: p.occurrences,
      examples: p.examples,
      kind: p.kind,
      ...(p.handled !== undefined ? { handled: p.handled } : {}),
      ...(p.shown ? { message: clip(p.shown, 160) } : {}),
      ...(p.values ? { values: p.values } : {}),
      // A chain named by its first symptom; the parts say the rest.
      signature: clip(p.parts?.[0] ? (p.parts[0].shown ?? p.parts[0].signature) : p.signature, 160),
      seen,
      ...(p.fingerprint ? { fingerprint: p.fingerprint } : {}),
      ...(p.console ? { console: { ...p.console, signature: clip(p.console.signature, 120) } } : {}),
      ...(p.parts ? { parts: p.parts.map(({ offset_ms: _offset, shown, ...part }) => ({ ...part, signature: clip(shown ?? part.signature, 120) })) } : {}),
    },
  };
}

const PART_WORDS: Record<NonNullable<CountedProblem['parts']>[number]['kind'], string> = { exception: 'exception', 'console-error': 'console error', 'rage-click': 'rage click', 'dead-click': 'dead click', 'request-failed': 'failed request', message: 'page showed', 'console-warn': 'console warning' };
