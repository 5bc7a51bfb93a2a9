import { z } from 'zod';
import { quote } from '../../digest/quote.js';
import { isAnswerableFailure } from '../../errors.js';
import type { EventPropertyCondition, PostHogOperations, RequestedEntity } from '../../posthog/operations/index.js';
import { sessionWindow } from '../../posthog/operations/sessions.js';
import { clip, joinParts } from '../format.js';
import { whyNotQueried } from './session-exceptions.js';
import { stepCondition } from './sequence.js';
import type { RecordingView } from './shape.js';

/**
 * Which of the requested `events` and `actions` each row of a list page has (issue 44): PostHog's
 * list says a recording matched the filters as a whole, and with operand OR not which of them.
 * One query for the page (segments.matchedEvents), bounded by the rows' own times.
 */

/** Events of a session may be stamped a little before its recording starts or after its end. */
const MARGIN_MS = 60 * 60_000;
/** A row with a start and no end: a session ends within a day. */
const DAY_MS = 86_400_000;

/** What a caller asked for, as rows name it: its entity for the query, or why it cannot be checked. */
export interface Requested {
  label: string;
  entity?: RequestedEntity;
  /** Why the rows cannot say whether they have it (a filter the query cannot apply per event). */
  unchecked?: string;
}

export const matchedOutputFields = {
  matched_events: z.array(z.string()).optional().describe('Which of the requested events and actions this recording has: event names as given, actions by name as given or "action <id>".'),
  events_not_checked: z.array(z.string()).optional().describe('Requested events not checked for this recording (matched_events_note says why).'),
};

type Entity = Record<string, unknown>;

/** The requested events and actions, labelled as given (a label given twice gets its place in the list). */
export function requestedOf(input: { events?: Entity[] | undefined; actions?: Entity[] | undefined }): Requested[] {
  const requested: Requested[] = [];
  const used = new Set<string>();
  const add = (base: string, where: string, head: { event: string } | { actionId: number }, properties: unknown) => {
    const label = used.has(base) ? `${base} (${where})` : base;
    used.add(label);
    const conditions: EventPropertyCondition[] = [];
    for (const filter of Array.isArray(properties) ? (properties as Entity[]) : []) {
      const translated = stepCondition(filter);
      if (typeof translated === 'string') {
        requested.push({ label, unchecked: `its ${String(filter.type)} filter on ${quote(clip(String(filter.key ?? ''), 80))} (${String(filter.operator ?? 'exact')}) is not one the events query applies` });
        return;
      }
      conditions.push(translated);
    }
    requested.push({ label, entity: { ...head, properties: conditions } });
  };
  (input.events ?? []).forEach((e, i) => add(String(e.id), `events[${i}]`, { event: String(e.id) }, e.properties));
  (input.actions ?? []).forEach((a, i) => add(typeof a.name === 'string' && a.name !== '' ? a.name : `action ${String(a.id)}`, `actions[${i}]`, { actionId: Number(a.id) }, a.properties));
  return requested;
}

/** The dates the rows' events lie within: their starts and ends, a margin either side; from their ids when the rows carry no times. */
function pageWindow(rows: readonly RecordingView[]): [Date, Date] | null {
  let from = Infinity;
  let to = -Infinity;
  for (const row of rows) {
    const start = Date.parse(typeof row.start_time === 'string' ? row.start_time : '');
    const end = Date.parse(typeof row.end_time === 'string' ? row.end_time : '');
    const window = Number.isFinite(start) ? [start, Number.isFinite(end) ? end : start + DAY_MS] : sessionWindow(String(row.id))?.map((d) => d.getTime());
    if (!window) return null;
    from = Math.min(from, window[0]!);
    to = Math.max(to, window[1]!);
  }
  return Number.isFinite(from) && Number.isFinite(to) ? [new Date(from - MARGIN_MS), new Date(to + MARGIN_MS)] : null;
}

/**
 * The rows with matched_events (and events_not_checked) filled in, and a note for what could not
 * be said: a requested event the query cannot check, or no query API (the rows then carry nothing).
 */
export async function withMatchedEvents(posthog: PostHogOperations, projectId: string, rows: RecordingView[], requested: readonly Requested[], signal?: AbortSignal): Promise<{ results: RecordingView[]; note?: string }> {
  if (rows.length === 0 || requested.length === 0) return { results: rows };
  const checked = requested.filter((r) => r.entity !== undefined);
  const unchecked = requested.filter((r) => r.unchecked !== undefined);
  const uncheckedNote = unchecked.map((r) => `${quote(r.label)} not checked in rows: ${r.unchecked}.`).join(' ');
  let counts = new Map<string, number[]>();
  if (checked.length > 0) {
    const window = pageWindow(rows);
    if (!window) return { results: rows, note: 'Rows do not say which requested events each has: the rows carry no times to bound the events query by.' };
    try {
      counts = await posthog.segments.matchedEvents(projectId, { sessionIds: rows.map((r) => String(r.id)), entities: checked.map((r) => r.entity!), from: window[0], to: window[1] }, { signal });
    } catch (error) {
      if (!isAnswerableFailure(error, signal)) throw error;
      return { results: rows, note: `Rows do not say which requested events each has: ${whyNotQueried(error, 'which requested events each recording has', 'the events')}.` };
    }
  }
  const results = rows.map((row) => {
    const n = counts.get(String(row.id));
    const matched = checked.filter((_, i) => (n?.[i] ?? 0) > 0).map((r) => r.label);
    return { ...row, ...(checked.length > 0 ? { matched_events: matched } : {}), ...(unchecked.length > 0 ? { events_not_checked: unchecked.map((r) => r.label) } : {}) };
  });
  return { results, ...(uncheckedNote ? { note: uncheckedNote } : {}) };
}

/** The text row's compact form of the same facts: "has A, B", "has none of the requested", "not checked C". */
export function matchedPart(row: RecordingView): string {
  const matched = row.matched_events as string[] | undefined;
  const unchecked = row.events_not_checked as string[] | undefined;
  return joinParts([
    matched === undefined ? '' : matched.length > 0 ? `has ${matched.map(quote).join(', ')}` : 'has none of the requested',
    unchecked && unchecked.length > 0 ? `not checked ${unchecked.map(quote).join(', ')}` : '',
  ]);
}
