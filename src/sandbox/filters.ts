// The subset of PostHog's recording filters the sandbox evaluates: event and action filters,
// property filters on persons, events, sessions and recording metrics, console log filters,
// and the project's test-account filters. Filters it cannot evaluate (cohorts, groups, HogQL
// expressions, elements) are refused with a 400, never ignored: an ignored filter would answer
// with recordings PostHog would have left out.

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
      // Refused before any recording is looked at (assertEvaluable); kept total for the compiler.
      return true;
  }
}

/** Property filter types the sandbox evaluates; PostHog also has cohort, group, hogql and element filters. */
const EVALUATED = new Set(['person', 'event', 'recording', 'session', undefined]);

/**
 * A 400 in PostHog's error shape for a filter the sandbox cannot evaluate, wherever it stands
 * (top-level properties, an entity's properties, having predicates), before any recording is read.
 */
export function assertEvaluable(query: RecordingsQuery): void {
  const check = (filters: unknown, attr: string) => {
    if (!Array.isArray(filters)) return;
    for (const filter of filters as Filter[]) {
      if (EVALUATED.has(filter.type as string | undefined)) continue;
      throw errors.validation(`The sandbox cannot evaluate ${String(filter.type)} filters (PostHog can): remove it, or try it against a real PostHog.`, attr, 'unsupported_filter');
    }
  };
  check(query.properties, 'properties');
  check(query.having_predicates, 'having_predicates');
  for (const entity of query.events) check(entity.properties, 'events');
  for (const entity of query.actions) check(entity.properties, 'actions');
}

function referringDomain(referrer: string): string {
  try {
    return new URL(referrer).host;
  } catch {
    return '$direct';
  }
}

/** One console entry has to satisfy the console filters, combined by the query's operand as PostHog does. */
function consoleMatches(filters: Filter[], operand: 'AND' | 'OR', facts: RecordingFacts): boolean {
  return facts.rec.script.console.some((entry) => {
    // PostHog stores plain log entries at level "info" (what console_log_count counts too).
    const fields = { level: entry.level === 'log' ? 'info' : entry.level, message: entry.message };
    return operand === 'OR' ? filters.some((f) => matchProperty(f, fields)) : filters.every((f) => matchProperty(f, fields));
  });
}

/** Whether a recording passes the query's entity, property and console filters. */
export function recordingMatches(query: RecordingsQuery, facts: RecordingFacts): boolean {
  const checks: boolean[] = [
    ...query.events.map((f) => facts.events.some((e) => entityMatches(f, 'events', e))),
    ...query.actions.map((f) => facts.events.some((e) => entityMatches(f, 'actions', e))),
    ...query.properties.map((f) => propertyMatches(f, facts)),
  ];
  if (query.console_log_filters.length > 0) checks.push(consoleMatches(query.console_log_filters, query.operand, facts));
  const combined = checks.length === 0 || (query.operand === 'OR' ? checks.some(Boolean) : checks.every(Boolean));
  return combined && query.having_predicates.every((f) => propertyMatches({ type: 'recording', ...f }, facts));
}
