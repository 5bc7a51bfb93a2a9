import { z } from 'zod';
import { UserInputError } from '../../errors.js';
import { RECORDINGS_DEFAULT_FROM, resolveDate } from '../../posthog/hogql.js';
import type { EventPropertyCondition, PostHogOperations, Recording, SequenceStep } from '../../posthog/operations/index.js';
import { clip } from '../../words.js';
import { eventEntityIssues, type Issue } from './filters.js';

/**
 * `sequence` (docs/design.md, "Filters, sequences and people", issue 40): 2 to 5 steps in PostHog's `events` filter shape, matched in order
 * within one session; the last may be `absent` (the earlier steps happened and it never came after
 * them). The sessions come from one HogQL query over the period (segments.sequenceSessions); the
 * recordings among them from the list endpoint with `session_ids`, the list's other filters applied.
 * The list uses it; the triage can (matchSequence takes no tool's input but the steps and dates).
 */

type Step = Record<string, unknown>;

/** The step properties a sequence translates: event properties, the operators below. */
const TRANSLATED_OPERATORS = ['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'gt', 'lt', 'is_set', 'is_not_set'] as const;
type Operator = (typeof TRANSLATED_OPERATORS)[number];

/** The JSON texts a property equal to `value` may have: PostHog compares `exact` as text, so 42 and "42" are one. */
function rawForms(value: unknown): string[] {
  const forms = new Set([JSON.stringify(value)]);
  const text = String(value);
  forms.add(JSON.stringify(text));
  if (text.trim() !== '' && Number.isFinite(Number(text))) forms.add(String(Number(text)));
  if (text === 'true' || text === 'false') forms.add(text);
  return [...forms];
}

/** One step's (or a requested event's) property filter as a query condition, or why it cannot be one. */
export function stepCondition(filter: Record<string, unknown>): EventPropertyCondition | string {
  if (filter.type !== 'event') {
    return filter.type === 'person'
      ? 'person properties hold for the whole recording: put them in the list\'s properties, not in a step.'
      : `${JSON.stringify(filter.type)} filters are not matched inside a sequence step; only "event" properties are.`;
  }
  const key = String(filter.key);
  const operator = String(filter.operator ?? 'exact');
  if (!(TRANSLATED_OPERATORS as readonly string[]).includes(operator)) return `${operator} is not matched inside a sequence step; use ${TRANSLATED_OPERATORS.join(', ')}.`;
  const value = filter.value;
  const list = Array.isArray(value) ? value : [value];
  const one = (): string | undefined => (list.length === 1 ? String(list[0]) : undefined);
  switch (operator as Operator) {
    case 'exact':
      return { key, exact: list.flatMap(rawForms) };
    case 'is_not':
      return { key, is_not: list.flatMap(rawForms) };
    case 'is_set':
      return { key, is_set: true };
    case 'is_not_set':
      return { key, is_not_set: true };
    case 'gt':
      return { key, gt: Number(value) };
    case 'lt':
      return { key, lt: Number(value) };
    default: {
      const text = one();
      if (text === undefined) return `${operator} takes one text inside a sequence step.`;
      if (operator === 'icontains') return { key, icontains: text.toLowerCase() };
      if (operator === 'not_icontains') return { key, not_icontains: text.toLowerCase() };
      return operator === 'regex' ? { key, regex: text } : { key, not_regex: text };
    }
  }
}

export interface ParsedSequence {
  steps: SequenceStep[];
  lastAbsent: boolean;
}

/** The steps as the query takes them, and the issues that keep them from being sent (none: ready). */
export function parseSequence(raw: readonly unknown[]): { sequence: ParsedSequence; issues: Issue[] } {
  const issues: Issue[] = [];
  const steps: SequenceStep[] = [];
  raw.forEach((item, i) => {
    const stepIssues = eventEntityIssues(item, [i], ['absent']);
    issues.push(...stepIssues);
    if (stepIssues.length > 0) return;
    const step = item as Step;
    if (step.absent !== undefined && typeof step.absent !== 'boolean') issues.push({ path: [i, 'absent'], message: 'absent is true or false.' });
    if (step.absent === true && i !== raw.length - 1) issues.push({ path: [i, 'absent'], message: 'only the last step can be absent ("did A, never B after it").' });
    const properties: EventPropertyCondition[] = [];
    ((step.properties as Array<Record<string, unknown>> | undefined) ?? []).forEach((filter, j) => {
      const translated = stepCondition(filter);
      if (typeof translated === 'string') issues.push({ path: [i, 'properties', j], message: translated });
      else properties.push(translated);
    });
    steps.push({ event: step.id as string, properties });
  });
  const last = raw.at(-1);
  return { sequence: { steps, lastAbsent: typeof last === 'object' && last !== null && (last as Step).absent === true }, issues };
}

export const sequenceField = z
  .array(z.record(z.string(), z.unknown()))
  .min(2, 'a sequence has 2 to 5 steps.')
  .max(5, 'a sequence has 2 to 5 steps.')
  .superRefine((steps, ctx) => {
    for (const issue of parseSequence(steps).issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  })
  .describe('2-5 steps in order in one session, as events entries; last may have absent:true (never came after). E.g. [{"id":"checkout_started"},{"id":"order_completed","absent":true}].');

/** Why a matching session has no recording, as its events tell (docs/posthog-api.md, "Why a session has no recording"); the full account is session-recording-get's. */
export type NoRecordingReason = 'sampled_out' | 'too_short' | 'replay_off' | 'expired' | 'unknown';

const REASON_WORDS: Record<NoRecordingReason, string> = {
  sampled_out: 'sampled out',
  too_short: 'sampled in but never sent (shorter than the minimum duration, or not yet ingested)',
  replay_off: 'replay off',
  expired: 'expired (past the retention or TTL)',
  unknown: 'events do not tell',
};

function reasonOf(session: UnrecordedEvidence): NoRecordingReason {
  // Recorded once: whatever its events say, the recording is gone by age.
  if (session.expired) return 'expired';
  if (session.sampled?.startsWith('!')) return 'sampled_out';
  if (session.sampled) return 'too_short';
  if (session.statuses.length > 0 && session.statuses.every((s) => s === 'disabled' || s === 'lazy_loading')) return 'replay_off';
  return 'unknown';
}

/** What the queries say of a session without a recording PostHog shows. */
type UnrecordedEvidence = { sampled: string | null; statuses: readonly string[]; expired: boolean };

/** Sessions that have events but no recording within the dates, by reason. */
export interface UnrecordedTally {
  unrecorded: number;
  reasons: Partial<Record<NoRecordingReason, number>>;
}

/** The sessions counted by the reason their events give (one classification for the sequence's and a person's). */
export function tallyUnrecorded(sessions: readonly UnrecordedEvidence[]): UnrecordedTally {
  const reasons: Partial<Record<NoRecordingReason, number>> = {};
  for (const session of sessions) {
    const reason = reasonOf(session);
    reasons[reason] = (reasons[reason] ?? 0) + 1;
  }
  return { unrecorded: sessions.length, reasons };
}

export interface SequenceMatch extends UnrecordedTally {
  /** Recorded matching sessions, the latest first step first. */
  recordedIds: string[];
  /** PostHog cut the query's rows: the numbers are a floor. */
  truncated: boolean;
}

/**
 * The period a sequence is searched in: the list's dates (default the last 3 days, as the list's);
 * `widened` when an absolute date made it wider than the list's own.
 */
export function sequencePeriod(dateFrom: string | undefined, dateTo: string | undefined, nowMs = Date.now()): { from: Date; to: Date; widened: boolean } {
  // An absolute date is in the project's time zone, which the query's UTC bound may be up to a
  // day off from: the list applies the exact dates to the recordings afterwards.
  const widen = (value: string, date: Date, sign: number) => (/^\d{4}-/.test(value) ? new Date(date.getTime() + sign * 86_400_000) : date);
  const from = dateFrom ? widen(dateFrom, resolveDate(dateFrom, nowMs), -1) : resolveDate(RECORDINGS_DEFAULT_FROM, nowMs);
  let to = new Date(nowMs);
  if (dateTo) {
    try {
      to = widen(dateTo, resolveDate(dateTo, nowMs), +1);
    } catch {
      throw new UserInputError(`date_to "${clip(dateTo, 40)}" is not a date a sequence or person query can be bounded by: use a relative date such as -1d or an ISO date such as 2025-06-01.`);
    }
  }
  return { from, to, widened: [dateFrom, dateTo].some((d) => d !== undefined && /^\d{4}-/.test(d)) };
}

/** The sessions that went through the sequence in the period: one query. */
export async function matchSequence(posthog: PostHogOperations, projectId: string, sequence: ParsedSequence, period: { from: Date; to: Date }, signal?: AbortSignal): Promise<SequenceMatch> {
  const answer = await posthog.segments.sequenceSessions(projectId, { ...sequence, from: period.from, to: period.to }, { signal });
  const tally = tallyUnrecorded(answer.sessions.filter((s) => !s.recorded));
  return { recordedIds: answer.sessions.filter((s) => s.recorded).map((s) => s.sessionId), ...tally, truncated: answer.truncated };
}

/** "19 more matching sessions have events but no recording (sampled out 17; …)": the unrecorded sessions and their reasons, for the text. */
export function unrecordedLine(tally: UnrecordedTally, who = { one: 'more matching session has', many: 'more matching sessions have' }, tail = 'not counted, not listed'): string {
  if (tally.unrecorded === 0) return '';
  const parts = Object.entries(tally.reasons).map(([reason, n]) => `${REASON_WORDS[reason as NoRecordingReason]} ${n}`);
  return `${tally.unrecorded} ${tally.unrecorded === 1 ? who.one : who.many} events but no recording (${parts.join('; ')}); ${tail}.`;
}

/** How the steps read: "checkout_started → order_completed (never after)". */
export function sequenceLabel(sequence: ParsedSequence, quote: (text: string) => string): string {
  return sequence.steps.map((s, i) => `${quote(s.event)}${s.properties.length ? ` (${s.properties.length} propert${s.properties.length === 1 ? 'y' : 'ies'})` : ''}${sequence.lastAbsent && i === sequence.steps.length - 1 ? ' never after' : ''}`).join(' → ');
}

/** Most recordings a sequence's page is chosen from: five list requests of 100. */
export const MAX_SEQUENCE_LISTED = 500;
const IDS_PER_REQUEST = 100;

export interface SequencePageQuery {
  limit: number;
  offset: number;
  order?: string | undefined;
  order_direction?: 'ASC' | 'DESC' | undefined;
  /** The list's other parameters (dates, person, filters), sent as given. */
  params: Record<string, unknown>;
}

export interface SequencePage {
  results: Recording[];
  /** The matching recordings the list keeps (its filters applied). */
  count: number;
  has_more: boolean;
  next_offset: number | null;
  /** More recorded sessions matched than MAX_SEQUENCE_LISTED: the page is chosen among the latest of them. */
  capped: boolean;
}

/** What a recording is sorted by for an `order` (the list's own sort, across the list requests). */
function sortValue(recording: Recording, order: string): number | null {
  const field = order === 'duration' ? 'recording_duration' : order;
  const value = (recording as Record<string, unknown>)[field];
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    return Number.isFinite(ms) ? ms : null;
  }
  return null;
}

/**
 * The list's recordings among `ids`, its filters applied: 100 ids a request (the URL stays a few
 * kilobytes), sorted together as the list sorts, and the page asked for.
 */
export async function sequencePage(posthog: PostHogOperations, projectId: string, ids: readonly string[], query: SequencePageQuery, signal?: AbortSignal): Promise<SequencePage> {
  const considered = ids.slice(0, MAX_SEQUENCE_LISTED);
  const rows: Recording[] = [];
  for (let i = 0; i < considered.length; i += IDS_PER_REQUEST) {
    const page = await posthog.recordings.list(projectId, { ...query.params, order: query.order, order_direction: query.order_direction, session_ids: considered.slice(i, i + IDS_PER_REQUEST), limit: IDS_PER_REQUEST, offset: 0 } as Parameters<PostHogOperations['recordings']['list']>[1], { signal });
    rows.push(...page.results);
  }
  const order = query.order ?? 'start_time';
  const sign = query.order_direction === 'ASC' ? 1 : -1;
  rows.sort((a, b) => {
    const x = sortValue(a, order);
    const y = sortValue(b, order);
    if (x === y) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    return sign * (x - y);
  });
  const end = query.offset + query.limit;
  return { results: rows.slice(query.offset, end), count: rows.length, has_more: end < rows.length, next_offset: end < rows.length ? end : null, capped: ids.length > considered.length };
}
