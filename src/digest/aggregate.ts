/**
 * What went wrong across many recordings (issue 13): the digests of single recordings, folded
 * into problems ranked by how many sessions they hit. Pure: it reads digests, fetches nothing.
 *
 * A problem is one kind of trouble with one signature:
 * - console errors and warnings: the message with numbers, ids and URLs folded;
 * - failed requests: method, path pattern (ids folded, no query) and status;
 * - rage and dead clicks: the page's path pattern and the element;
 * - exceptions (`$exception` events, read beside the recording): type and folded message, uncaught
 *   and handled apart as each event says it;
 * - page messages that told the person something went wrong (an alert, a form error, an error
 *   toast: rules/messages.ts tellsTrouble): their text as the digest shows it (masked), folded as a
 *   console message is. A confirmation, a status or a heading is no problem.
 */

import { clip, numberRange } from '../words.js';
import type { Digest, ItemKind, TimelineItem } from './digest.js';

export type ProblemKind = 'console-error' | 'console-warn' | 'request-failed' | 'rage-click' | 'dead-click' | 'exception' | 'message';
const PROBLEM_KINDS = new Set<ItemKind>(['console-error', 'console-warn', 'request-failed', 'rage-click', 'dead-click']);

/** A timeline entry that is a problem: one of PROBLEM_KINDS, or a page message that tells of trouble. */
function isProblem(item: TimelineItem): boolean {
  return PROBLEM_KINDS.has(item.kind) || (item.kind === 'message' && item.trouble === true);
}

/**
 * How much each kind weighs when sessions and pages are ranked by trouble, and which kind comes
 * first among problems that hit as many sessions. A page message that told of trouble is what the
 * person saw go wrong (an error in the console or a failed request may pass them by, or be retried
 * unseen): it weighs the most.
 */
const WEIGHT: Record<ProblemKind, number> = {
  message: 4,
  'console-error': 3,
  exception: 3,
  'request-failed': 3,
  'rage-click': 2,
  'dead-click': 1,
  'console-warn': 0.5,
};

export interface TriageInput {
  id: string;
  /** Who was recorded (person uuid or distinct id), to count people; null when unknown. */
  person: string | null;
  digest: Digest;
  /** The session's uncaught exceptions: `t` in ms from the recording's start, `w` its window label when known. */
  exceptions?: ReadonlyArray<{ t: number; w?: string | undefined; type: string; message: string; handled?: boolean | undefined }> | undefined;
}

export interface ProblemExample {
  session_id: string;
  /** Seconds into the recording. */
  at_s: number;
  link?: string | undefined;
}

/** How far a problem or a failure reached: its sessions, people, occurrences, when, and examples. */
export interface Reach {
  sessions: number;
  people: number;
  /** Every occurrence, repeats included. */
  occurrences: number;
  first_seen: string | null;
  last_seen: string | null;
  examples: ProblemExample[];
}

export type Problem = Reach & {
  kind: ProblemKind;
  /** The folded message, `METHOD /path/:id → 500`, or `page: element`. */
  signature: string;
  /** One real instance, unfolded (clipped). */
  sample: string;
  /** An exception's: as its events say it (uncaught: false); absent when they do not. */
  handled?: boolean;
  /** A failed request's: the first response body the digests kept for it (the server's reason, masked). */
  body?: string;
  /** A folded message as shown: the first and last as logged, differing numbers as "first…last"; absent when it is the signature. */
  shown?: string;
  /** The first and last messages as logged, where they differ in more than numbers. */
  values?: { first: string; last: string };
};

/**
 * The symptoms of one failure (a failed request, the exception it caused, the page's message, the
 * rage click after it): problems that came together in a session, each within FAILURE_GAP_MS of
 * the one before, as one entry naming its parts, each part with its own counts.
 */
export interface Failure extends Reach {
  /** The parts' problems, in the order they came (`offset_ms` after the failure's first symptom, the least over its sessions). */
  parts: Array<Problem & { offset_ms: number }>;
}

/** Symptoms this close together in one session are one failure's. */
export const FAILURE_GAP_MS = 10_000;

export interface PageTrouble {
  page: string;
  sessions: number;
  problems: number;
  score: number;
}

export interface SessionTrouble {
  id: string;
  score: number;
  console_errors: number;
  failed_requests: number;
  rage_clicks: number;
  dead_clicks: number;
  console_warnings: number;
  exceptions: number;
  /** Page messages that told the person something went wrong. */
  error_messages: number;
  /** Of the exceptions, the ones their event says were uncaught, and handled (the rest do not say). */
  exceptions_uncaught: number;
  exceptions_handled: number;
  duration_s: number;
  start_url: string | null;
}

export interface Triage {
  problems: Problem[];
  /** The failures the problems came together in; their parts are among `problems` too. */
  failures: Failure[];
  pages: PageTrouble[];
  sessions: SessionTrouble[];
}

export interface AggregateOptions {
  /** Examples kept per problem. */
  examples?: number;
  /** A link to PostHog's player at a moment, where the host has one. */
  link?: (sessionId: string, seconds: number) => string | undefined;
}

/** A Reach while it is counted: the sessions and people as sets, the first and last moments in ms. */
interface Tally {
  sessions: Set<string>;
  people: Set<string>;
  occurrences: number;
  first: number | null;
  last: number | null;
  examples: ProblemExample[];
}

/** Widens a tally's first and last moments to take in `when`. */
function seenAt(tally: Tally, when: number): void {
  tally.first = tally.first === null ? when : Math.min(tally.first, when);
  tally.last = tally.last === null ? when : Math.max(tally.last, when);
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function reachOf(t: Tally): Reach {
  return { sessions: t.sessions.size, people: t.people.size, occurrences: t.occurrences, first_seen: iso(t.first), last_seen: iso(t.last), examples: t.examples };
}

interface Group extends Tally {
  kind: ProblemKind;
  signature: string;
  sample: string;
  handled?: boolean | undefined;
  body?: string | undefined;
  /** The last occurrence's own text (the first is `sample`), for the range of a folded message. */
  lastSample: string;
}

export function aggregate(inputs: readonly TriageInput[], options: AggregateOptions = {}): Triage {
  const maxExamples = options.examples ?? 3;
  const groups = new Map<string, Group>();
  const pages = new Map<string, { sessions: Set<string>; problems: number; score: number }>();
  const sessions: SessionTrouble[] = [];
  const clusters: Cluster[] = [];

  for (const { id, person, digest, exceptions } of inputs) {
    const trouble: SessionTrouble = {
      id,
      score: 0,
      console_errors: 0,
      failed_requests: 0,
      rage_clicks: 0,
      dead_clicks: 0,
      console_warnings: 0,
      exceptions: 0,
      error_messages: 0,
      exceptions_uncaught: 0,
      exceptions_handled: 0,
      duration_s: Math.round(digest.duration_ms / 1000),
      start_url: digest.pages[0]?.url ?? null,
    };
    // One example per session and problem: the first moment it happened there.
    const seenHere = new Set<string>();
    // The session's problems in the order they came, for its failures.
    const happened: Happening[] = [];
    const add = (kind: ProblemKind, t: number, count: number, page: string | null, { signature, sample }: { signature: string; sample: string }, handled?: boolean, body?: string, lastSample = sample) => {
      const groupKey = `${kind}\u0000${signature}\u0000${handled === undefined ? '' : String(handled)}`;
      let group = groups.get(groupKey);
      if (!group) {
        group = { kind, signature, sample, lastSample, sessions: new Set(), people: new Set(), occurrences: 0, first: null, last: null, examples: [], handled };
        groups.set(groupKey, group);
      }
      group.body ??= body;
      group.sessions.add(id);
      group.people.add(person ?? `session:${id}`);
      group.occurrences += count;
      const when = digest.start === null ? null : digest.start + t;
      if (when !== null && Number.isFinite(when)) {
        if (group.first === null || when < group.first) group.sample = sample;
        if (group.last === null || when >= group.last) group.lastSample = lastSample;
        seenAt(group, when);
      }
      happened.push({ key: groupKey, t, at: when });
      if (!seenHere.has(groupKey)) {
        seenHere.add(groupKey);
        if (group.examples.length < maxExamples) {
          const at = Math.max(0, Math.floor(t / 1000));
          group.examples.push({ session_id: id, at_s: at, link: options.link?.(id, at) });
        }
      }

      trouble.score += WEIGHT[kind] * count;
      if (kind === 'console-error') trouble.console_errors += count;
      else if (kind === 'console-warn') trouble.console_warnings += count;
      else if (kind === 'request-failed') trouble.failed_requests += count;
      else if (kind === 'rage-click') trouble.rage_clicks += count;
      else if (kind === 'exception') trouble.exceptions += count;
      else if (kind === 'message') trouble.error_messages += count;
      else trouble.dead_clicks += count;

      const pageKey = page ?? '(unknown page)';
      let pageTrouble = pages.get(pageKey);
      if (!pageTrouble) {
        pageTrouble = { sessions: new Set(), problems: 0, score: 0 };
        pages.set(pageKey, pageTrouble);
      }
      pageTrouble.sessions.add(id);
      pageTrouble.problems += count;
      pageTrouble.score += WEIGHT[kind] * count;
    };
    for (const item of digest.timeline) {
      if (!isProblem(item)) continue;
      const kind = item.kind as ProblemKind;
      // A console message, failed request or page message repeated is counted each time (as the
      // digest's counts do); a rage click is one however many clicks its burst had, and so is a dead click.
      const count = kind === 'rage-click' || kind === 'dead-click' ? 1 : (item.count ?? 1);
      const page = pageAt(digest, item);
      add(kind, item.t, count, page, signatureOf(kind, item, page), undefined, item.request?.body, item.last_detail === undefined ? undefined : clip(item.last_detail, 200));
    }
    for (const exception of exceptions ?? []) {
      const page = exception.w === undefined ? null : pageAt(digest, { w: exception.w, t: exception.t });
      const named = exception.message ? `${exception.type}: ${exception.message}` : exception.type;
      add('exception', exception.t, 1, page, { signature: foldMessage(named) || '(empty message)', sample: clip(named, 200) }, exception.handled);
      if (exception.handled === false) trouble.exceptions_uncaught++;
      else if (exception.handled === true) trouble.exceptions_handled++;
    }
    sessions.push(trouble);
    clusters.push(...failuresIn(id, person, happened, digest.start));
  }

  const problemOf = (g: Group): Problem => ({
    kind: g.kind,
    signature: g.signature,
    sample: g.sample,
    ...reachOf(g),
    ...(g.handled !== undefined ? { handled: g.handled } : {}),
    ...(g.body !== undefined ? { body: g.body } : {}),
    ...shownOf(g),
  });
  return {
    problems: [...groups.values()].map(problemOf).sort(byRank),
    failures: failuresOf(clusters, groups, problemOf, maxExamples, options.link),
    pages: [...pages.entries()]
      .map(([page, p]) => ({ page, sessions: p.sessions.size, problems: p.problems, score: round(p.score) }))
      .sort((a, b) => b.score - a.score || b.sessions - a.sessions || a.page.localeCompare(b.page)),
    sessions: sessions.map((s) => ({ ...s, score: round(s.score) })).sort((a, b) => b.score - a.score || a.id.localeCompare(b.id)),
  };
}

const byRank = (a: Problem, b: Problem) => b.sessions - a.sessions || WEIGHT[b.kind] - WEIGHT[a.kind] || b.occurrences - a.occurrences || a.signature.localeCompare(b.signature);

/** Kinds whose signature is a folded message: shown with the numbers they had. */
const MESSAGE_KINDS = new Set<ProblemKind>(['console-error', 'console-warn', 'message', 'exception']);

function shownOf(g: Group): Pick<Problem, 'shown' | 'values'> {
  if (!MESSAGE_KINDS.has(g.kind)) return {};
  const shown = numberRange(g.sample, g.lastSample);
  if (shown === undefined) return { values: { first: g.sample, last: g.lastSample } };
  return shown === g.signature ? {} : { shown: clip(shown, 200) };
}

type Happening = { key: string; t: number; at: number | null };
type Cluster = { session: string; person: string; steps: Happening[]; start: number | null };

/** The order symptoms of one failure take when they come at the same moment (a retry's warning before the error it ends in). */
const CAUSE_ORDER: ProblemKind[] = ['request-failed', 'console-warn', 'console-error', 'exception', 'message', 'rage-click', 'dead-click'];

/**
 * A session's problems, in time order, cut where FAILURE_GAP_MS pass without one; a run of two
 * kinds or more (warnings aside: a warning alone tells of no failure) is a failure.
 */
function failuresIn(session: string, person: string | null, happened: Happening[], start: number | null): Cluster[] {
  const ordered = [...happened].sort((a, b) => a.t - b.t);
  const runs: Happening[][] = [];
  for (const step of ordered) {
    const run = runs.at(-1);
    if (run && step.t - run.at(-1)!.t <= FAILURE_GAP_MS) run.push(step);
    else runs.push([step]);
  }
  const kindOf = (key: string) => key.slice(0, key.indexOf('\u0000')) as ProblemKind;
  return runs
    .filter((run) => new Set(run.map((s) => kindOf(s.key)).filter((k) => k !== 'console-warn')).size >= 2)
    .map((steps) => ({ session, person: person ?? `session:${session}`, steps, start: start === null ? null : start + steps[0]!.t }));
}

/** The sessions' failures with the same parts as one, most sessions first; a problem is a part of one failure at most. */
function failuresOf(clusters: Cluster[], groups: Map<string, Group>, problemOf: (g: Group) => Problem, maxExamples: number, link: AggregateOptions['link']): Failure[] {
  const merged = new Map<string, Tally & { keys: string[]; offsets: Map<string, number> }>();
  for (const cluster of clusters) {
    const offsets = new Map<string, number>();
    for (const step of cluster.steps) if (!offsets.has(step.key)) offsets.set(step.key, step.t - cluster.steps[0]!.t);
    const keys = [...offsets.keys()];
    const id = keys.join('\u0001');
    const failure = merged.get(id) ?? { keys, offsets: new Map<string, number>(), sessions: new Set<string>(), people: new Set<string>(), occurrences: 0, first: null, last: null, examples: [] as ProblemExample[] };
    for (const [key, offset] of offsets) failure.offsets.set(key, Math.min(failure.offsets.get(key) ?? Infinity, offset));
    failure.occurrences++;
    if (cluster.start !== null) seenAt(failure, cluster.start);
    if (!failure.sessions.has(cluster.session) && failure.examples.length < maxExamples) {
      const at = Math.max(0, Math.floor(cluster.steps[0]!.t / 1000));
      failure.examples.push({ session_id: cluster.session, at_s: at, link: link?.(cluster.session, at) });
    }
    failure.sessions.add(cluster.session);
    failure.people.add(cluster.person);
    merged.set(id, failure);
  }
  const taken = new Set<string>();
  const failures: Failure[] = [];
  for (const f of [...merged.values()].sort((a, b) => b.sessions.size - a.sessions.size || b.keys.length - a.keys.length)) {
    if (f.keys.some((key) => taken.has(key))) continue;
    f.keys.forEach((key) => taken.add(key));
    const parts = f.keys
      .map((key) => ({ ...problemOf(groups.get(key)!), offset_ms: f.offsets.get(key)! }))
      .sort((a, b) => a.offset_ms - b.offset_ms || CAUSE_ORDER.indexOf(a.kind) - CAUSE_ORDER.indexOf(b.kind));
    failures.push({ parts, ...reachOf(f) });
  }
  return failures;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

/** The page the window showed at the item's time, as a path pattern; null before any page. */
function pageAt(digest: Digest, item: Pick<TimelineItem, 'w' | 't'>): string | null {
  let url: string | undefined;
  for (const page of digest.pages) {
    if (page.w !== item.w) continue;
    if (page.t > item.t) break;
    url = page.url;
  }
  return url === undefined ? null : urlPattern(url);
}

function signatureOf(kind: ProblemKind, item: TimelineItem, page: string | null): { signature: string; sample: string } {
  if (kind === 'console-error' || kind === 'console-warn' || kind === 'message') {
    const message = item.detail ?? '';
    return { signature: foldMessage(message) || '(empty message)', sample: clip(message, 200) };
  }
  if (kind === 'request-failed') {
    // The digest keeps a failed request's parts; older cached digests only have its words.
    const request = item.request ?? requestFromWords(item);
    const status = request.status !== undefined ? String(request.status) : request.error ? foldMessage(request.error) : 'failed';
    const shown = `${request.method ? `${request.method} ` : ''}${request.url}`;
    return { signature: `${request.method ? `${request.method} ` : ''}${urlPattern(request.url)} → ${status}`, sample: clip(`${shown} → ${request.status ?? request.error ?? 'failed'}`, 200) };
  }
  const element = item.target ?? '(unknown element)';
  return { signature: `${page ?? '(unknown page)'}: ${element}`, sample: clip(element, 200) };
}

/** `POST https://…` and `500` as the digest words them. */
function requestFromWords(item: TimelineItem): NonNullable<TimelineItem['request']> {
  const target = item.target ?? '';
  const space = target.indexOf(' ');
  const hasMethod = space > 0 && /^[A-Z]{1,10}$/.test(target.slice(0, space));
  const status = /^\d{3}$/.test(item.detail ?? '') ? Number(item.detail) : undefined;
  return {
    ...(hasMethod ? { method: target.slice(0, space) } : {}),
    url: hasMethod ? target.slice(space + 1) : target,
    ...(status !== undefined ? { status } : item.detail ? { error: item.detail } : {}),
  };
}

const URL_IN_TEXT = /\b(?:https?|wss?|file|chrome-extension|moz-extension):\/\/[^\s'"`<>()[\]{}]+/gi;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/** Hex or base64-ish tokens with digits in them: ids, hashes, tokens. */
const ID_TOKEN = /\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{12,}\b|\b[0-9a-f]{8,}\b/gi;
const NUMBER = /(?<![A-Za-z_])-?\d+(?:\.\d+)?(?![A-Za-z_])/g;

/** Numbers, ids and URLs folded, so the same error from different users and pages is one problem. */
export function foldMessage(message: string): string {
  return clip(
    message
      .replace(URL_IN_TEXT, (url) => `<${urlPattern(url)}>`)
      .replace(UUID, '<id>')
      .replace(ID_TOKEN, '<id>')
      .replace(NUMBER, 'N')
      .replace(/\s+/g, ' ')
      .trim(),
    200,
  );
}

const ID_SEGMENT = /^(?:\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{8,}|(?=.*\d)[A-Za-z0-9_-]{16,})$/i;

/** A URL's host and path with id-like segments folded to `:id`; no query, no fragment. */
export function urlPattern(url: string): string {
  let host = '';
  let path = url;
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'data:' || parsed.protocol === 'blob:') return `${parsed.protocol}…`;
    host = parsed.host;
    path = parsed.pathname;
  } catch {
    path = url.replace(/[?#].*$/, '');
  }
  const folded = path
    .split('/')
    .map((segment) => (ID_SEGMENT.test(segment) ? ':id' : segment))
    .join('/');
  return clip(`${host}${folded || '/'}`, 160);
}
