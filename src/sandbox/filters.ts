// The subset of PostHog's recording filters the sandbox evaluates: event and action filters,
// property filters on persons, events, sessions and recording metrics, console log filters,
// and the project's test-account filters.

import { ACTIONS } from './demo/catalog.js';
import type { CapturedEvent, LiveRecording } from './demo/dataset.js';
import { errors } from './http.js';
import type { Filter, RecordingsQuery } from './query.js';

export function matchProperty(filter: Filter, props: Record<string, unknown>): boolean {
  const key = String(filter.key ?? '');
  const operator = String(filter.operator ?? 'exact');
  const actual = props[key];
  const values = Array.isArray(filter.value) ? filter.value : [filter.value];
  const present = actual !== undefined && actual !== null;
  const text = present ? String(actual) : '';
  const numeric = (cmp: (a: number, b: number) => boolean) => present && values.length > 0 && cmp(Number(actual), Number(values[0]));
  switch (operator) {
    case 'is_set':
      return present;
    case 'is_not_set':
      return !present;
    case 'exact':
      return present && values.some((v) => String(v) === text);
    case 'is_not':
      return !present || !values.some((v) => String(v) === text);
    case 'icontains':
      return present && values.some((v) => text.toLowerCase().includes(String(v).toLowerCase()));
    case 'not_icontains':
      return !present || !values.some((v) => text.toLowerCase().includes(String(v).toLowerCase()));
    case 'regex':
      return present && values.some((v) => safeRegex(String(v))?.test(text) === true);
    case 'not_regex':
      return !present || !values.some((v) => safeRegex(String(v))?.test(text) === true);
    case 'gt':
      return numeric((a, b) => a > b);
    case 'gte':
      return numeric((a, b) => a >= b);
    case 'lt':
      return numeric((a, b) => a < b);
    case 'lte':
      return numeric((a, b) => a <= b);
    default:
      return true;
  }
}

function safeRegex(source: string): RegExp | undefined {
  try {
    return new RegExp(source);
  } catch {
    return undefined;
  }
}

/** The event name an action id stands for; unknown ids are an error, as a missing Action is in PostHog. */
export function actionEvent(id: unknown): string {
  const action = ACTIONS.find((a) => String(a.id) === String(id));
  if (!action) throw errors.validation(`Action ${String(id)} does not exist.`, 'actions');
  return action.event;
}

/** Whether an event satisfies one `events`/`actions` entity filter (including its own properties). */
export function entityMatches(filter: Filter, kind: 'events' | 'actions', event: CapturedEvent): boolean {
  const name = kind === 'actions' ? actionEvent(filter.id) : filter.id === null || filter.id === undefined ? null : String(filter.id);
  if (name !== null && event.event !== name) return false;
  const props = Array.isArray(filter.properties) ? (filter.properties as Filter[]) : [];
  return props.every((p) => matchProperty(p, event.properties));
}

export interface RecordingFacts {
  rec: LiveRecording;
  personProperties: Record<string, unknown>;
  events: CapturedEvent[];
  metrics: Record<string, unknown>;
}

function propertyMatches(filter: Filter, facts: RecordingFacts): boolean {
  switch (filter.type) {
    case 'person':
      return matchProperty(filter, facts.personProperties);
    case 'event':
      return facts.events.some((e) => matchProperty(filter, e.properties));
    case 'recording':
      if (filter.key === 'visited_page') return facts.events.some((e) => matchProperty({ ...filter, key: '$current_url' }, e.properties));
      return matchProperty(filter, facts.metrics);
    case 'session': {
      const start = facts.rec.script.stats.startUrl;
      const session: Record<string, unknown> = {
        $entry_current_url: start,
        $entry_pathname: start ? new URL(start).pathname : null,
        $session_duration: facts.metrics.duration,
        $entry_referring_domain: referringDomain(facts.rec.seed.device.referrer),
      };
      return matchProperty(filter, session);
    }
    default:
      // cohort, group, hogql…: not modelled here, so they do not narrow the results.
      return true;
  }
}

function referringDomain(referrer: string): string {
  try {
    return new URL(referrer).host;
  } catch {
    return '$direct';
  }
}

function consoleMatches(filters: Filter[], facts: RecordingFacts): boolean {
  return facts.rec.script.console.some((entry) =>
    filters.every((f) => matchProperty(f, { level: entry.level === 'info' ? 'info' : entry.level, message: entry.message })),
  );
}

/** Whether a recording passes the query's entity, property and console filters. */
export function recordingMatches(query: RecordingsQuery, facts: RecordingFacts): boolean {
  const checks: boolean[] = [
    ...query.events.map((f) => facts.events.some((e) => entityMatches(f, 'events', e))),
    ...query.actions.map((f) => facts.events.some((e) => entityMatches(f, 'actions', e))),
    ...query.properties.map((f) => propertyMatches(f, facts)),
  ];
  if (query.console_log_filters.length > 0) checks.push(consoleMatches(query.console_log_filters, facts));
  const combined = checks.length === 0 || (query.operand === 'OR' ? checks.some(Boolean) : checks.every(Boolean));
  return combined && query.having_predicates.every((f) => propertyMatches({ type: 'recording', ...f }, facts));
}
