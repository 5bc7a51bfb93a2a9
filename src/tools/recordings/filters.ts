import { z } from 'zod';
import { clip, didYouMean } from '../../words.js';
import { RECORDINGS_DEFAULT_FROM } from '../../posthog/hogql.js';

/**
 * PostHog's recording filters, as session-recordings-list and -triage take them (docs/design.md, "Filters, sequences and people",
 * docs/posthog-api.md, "Recording filters"): the names and shapes PostHog's list accepts, sent as given.
 *
 * Each filter list is advertised as a list of free-form objects (a JSON text to hosts that cannot
 * express those, tools/listing-portable.ts) whose shape one description line gives: a full schema
 * of eight filter types would cost every conversation kilobytes. The checks are all here instead,
 * run before any request, and a refusal names the near miss ("contains" → "icontains").
 */

export const PROPERTY_TYPES = ['event', 'person', 'session', 'recording', 'cohort', 'element', 'group', 'hogql'] as const;

/** Numeric metrics a `recording` property filter compares with gt/lt/exact. */
const RECORDING_NUMERIC_KEYS = ['duration', 'active_seconds', 'inactive_seconds', 'console_error_count', 'console_log_count', 'console_warn_count', 'click_count', 'keypress_count', 'activity_score'];
export const RECORDING_KEYS = [...RECORDING_NUMERIC_KEYS, 'visited_page', 'snapshot_source'];
/** What having_predicates may filter on (docs/posthog-api.md, "Recording filters"). */
const HAVING_KEYS = ['duration', 'active_seconds', 'inactive_seconds', 'snapshot_source'];
const ELEMENT_KEYS = ['tag_name', 'text', 'href', 'selector'];
const CONSOLE_KEYS = ['level', 'message'];
const CONSOLE_LEVELS = ['error', 'warn', 'info'];

const TEXT_OPERATORS = ['icontains', 'not_icontains', 'regex', 'not_regex'];
const LIST_OPERATORS = ['exact', 'is_not'];
const NUMBER_OPERATORS = ['gt', 'lt'];
const DATE_OPERATORS = ['is_date_exact', 'is_date_before', 'is_date_after'];
const PRESENCE_OPERATORS = ['is_set', 'is_not_set'];
const COHORT_OPERATORS = ['in', 'not_in'];
const OPERATORS = [...LIST_OPERATORS, ...TEXT_OPERATORS, ...NUMBER_OPERATORS, ...DATE_OPERATORS, ...PRESENCE_OPERATORS, ...COHORT_OPERATORS];

/** Words people write for an operator PostHog spells otherwise. */
const OPERATOR_ALIASES: Record<string, string> = {
  contains: 'icontains',
  not_contains: 'not_icontains',
  does_not_contain: 'not_icontains',
  equals: 'exact',
  equal: 'exact',
  eq: 'exact',
  is: 'exact',
  '=': 'exact',
  '==': 'exact',
  '!=': 'is_not',
  not_equals: 'is_not',
  neq: 'is_not',
  ne: 'is_not',
  '>': 'gt',
  greater_than: 'gt',
  '<': 'lt',
  less_than: 'lt',
  exists: 'is_set',
  not_exists: 'is_not_set',
  before: 'is_date_before',
  after: 'is_date_after',
  matches: 'regex',
};

export type Issue = { path: Array<string | number>; message: string };
type Check = (value: Record<string, unknown>, path: Array<string | number>, issues: Issue[]) => void;

const show = (value: unknown) => clip(JSON.stringify(value) ?? String(value), 60);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isScalar = (value: unknown) => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean';
const isNumeric = (value: unknown) => (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
const DATE_TEXT = /^(-?\d+[hdwmyHM]|\d{4}-\d\d-\d\d([T ][0-9:.]+(Z|[+-]\d\d:?\d\d)?)?)$/;

/** "is not one of …; did you mean …?" for a value outside a fixed set. */
function oneOf(what: string, value: unknown, allowed: readonly string[], aliases: Record<string, string> = {}): string | undefined {
  if (typeof value === 'string' && allowed.includes(value)) return undefined;
  const alias = typeof value === 'string' ? aliases[value.toLowerCase()] : undefined;
  const near = alias && allowed.includes(alias) ? `Did you mean "${alias}"?` : typeof value === 'string' ? didYouMean(value, allowed) : '';
  return `${show(value)} is not ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what}: ${allowed.join(', ')}.${near ? ` ${near}` : ''}`;
}

function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], path: Array<string | number>, issues: Issue[]): void {
  for (const key of Object.keys(value)) {
    if (allowed.includes(key)) continue;
    const near = didYouMean(key, allowed);
    issues.push({ path: [...path, key], message: `unrecognized field; a filter here takes ${allowed.join(', ')}.${near ? ` ${near}` : ''}` });
  }
}

/**
 * The operator and value of a property filter, for the kind of value its key holds: text
 * (exact/is_not with a value or list; icontains…regex with text), number (exact/is_not, gt/lt),
 * date (is_date_*), presence (is_set/is_not_set, no value).
 */
function checkOperatorAndValue(filter: Record<string, unknown>, path: Array<string | number>, issues: Issue[], kind: 'any' | 'number' | 'text', operators = OPERATORS.filter((o) => !COHORT_OPERATORS.includes(o))): void {
  const operator = filter.operator ?? 'exact';
  const allowed = kind === 'number' ? [...LIST_OPERATORS, ...NUMBER_OPERATORS, ...PRESENCE_OPERATORS] : kind === 'text' ? operators.filter((o) => !NUMBER_OPERATORS.includes(o) && !DATE_OPERATORS.includes(o)) : operators;
  const problem = oneOf(`operator${kind === 'number' ? ' for a number' : kind === 'text' ? ' for text' : ''}`, operator, allowed, OPERATOR_ALIASES);
  if (problem) {
    const gteHint = operator === 'gte' || operator === 'lte' ? ` PostHog's list takes gt and lt only: use ${operator === 'gte' ? 'gt' : 'lt'} with a value one step ${operator === 'gte' ? 'lower' : 'higher'}.` : '';
    issues.push({ path: [...path, 'operator'], message: problem + gteHint });
    return;
  }
  const value = filter.value;
  const at = [...path, 'value'];
  const op = operator as string;
  if (PRESENCE_OPERATORS.includes(op)) {
    // PostHog's own UI sends the operator's name as the value; nothing else means anything.
    if (value !== undefined && value !== null && value !== op) issues.push({ path: at, message: `${op} takes no value; leave value out.` });
    return;
  }
  if (value === undefined || value === null) {
    issues.push({ path: at, message: `${op} needs a value.` });
    return;
  }
  const list = Array.isArray(value) ? value : [value];
  if (Array.isArray(value) && value.length === 0) {
    issues.push({ path: at, message: 'an empty list matches nothing; give at least one value.' });
    return;
  }
  if (LIST_OPERATORS.includes(op)) {
    if (!list.every(isScalar)) issues.push({ path: at, message: `${op} takes a value or a list of values (text, numbers, true/false), like ["Chrome"].` });
    else if (kind === 'number' && !list.every(isNumeric)) issues.push({ path: at, message: `${op} on ${show(filter.key)} takes numbers.` });
  } else if (TEXT_OPERATORS.includes(op)) {
    if (!list.every((v) => typeof v === 'string' || typeof v === 'number')) issues.push({ path: at, message: `${op} takes text (or a list of texts), like "/checkout".` });
  } else if (NUMBER_OPERATORS.includes(op)) {
    if (Array.isArray(value) || !isNumeric(value)) issues.push({ path: at, message: `${op} takes one number, like 60.` });
  } else if (DATE_OPERATORS.includes(op)) {
    if (typeof value !== 'string' || !DATE_TEXT.test(value.trim())) issues.push({ path: at, message: `${op} takes a date like "2025-06-01" or "-7d".` });
  }
}

/** One property filter `{type, key, operator, value}`; `types` are those allowed where it stands. */
function checkProperty(types: readonly string[]): Check {
  return (filter, path, issues) => {
    const type = filter.type;
    const typeProblem = type === undefined ? `type is required: one of ${types.join(', ')}.` : oneOf('filter type', type, types, { persons: 'person', events: 'event', user: 'person', sessions: 'session', recordings: 'recording', cohorts: 'cohort', groups: 'group', elements: 'element' });
    if (typeProblem) {
      issues.push({ path: [...path, 'type'], message: typeProblem });
      return;
    }
    const fields = type === 'group' ? ['type', 'key', 'operator', 'value', 'group_type_index', 'label'] : type === 'hogql' ? ['type', 'key', 'value', 'label'] : ['type', 'key', 'operator', 'value', 'label'];
    onlyKeys(filter, fields, path, issues);
    const key = filter.key;
    if (type !== 'cohort' && (typeof key !== 'string' || key.trim() === '' || key.length > 1000)) {
      issues.push({ path: [...path, 'key'], message: type === 'hogql' ? 'key is the HogQL expression, e.g. "properties.$browser = \'Chrome\'".' : 'key is the property name, e.g. "$browser" or "email" (recording-filter-options lists them).' });
      return;
    }
    switch (type) {
      case 'hogql':
        return;
      case 'cohort': {
        if (key !== undefined && key !== 'id') issues.push({ path: [...path, 'key'], message: 'a cohort filter\'s key is "id"; the cohort id goes in value.' });
        const problem = oneOf('cohort operator', filter.operator ?? 'in', COHORT_OPERATORS, OPERATOR_ALIASES);
        if (problem) issues.push({ path: [...path, 'operator'], message: problem });
        if (!(Number.isInteger(filter.value) && (filter.value as number) > 0) && !(typeof filter.value === 'string' && /^\d+$/.test(filter.value))) {
          issues.push({ path: [...path, 'value'], message: 'a cohort filter\'s value is the cohort id (a number).' });
        }
        return;
      }
      case 'group':
        if (!Number.isInteger(filter.group_type_index) || (filter.group_type_index as number) < 0 || (filter.group_type_index as number) > 4) {
          issues.push({ path: [...path, 'group_type_index'], message: 'a group filter needs group_type_index (0-4): which group type the property belongs to.' });
        }
        return checkOperatorAndValue(filter, path, issues, 'any');
      case 'recording': {
        const problem = oneOf('recording key', key, RECORDING_KEYS, { console_errors: 'console_error_count', errors: 'console_error_count', recording_duration: 'duration', clicks: 'click_count', url: 'visited_page', current_url: 'visited_page' });
        if (problem) return void issues.push({ path: [...path, 'key'], message: problem });
        return checkOperatorAndValue(filter, path, issues, RECORDING_NUMERIC_KEYS.includes(key as string) ? 'number' : 'text');
      }
      case 'element': {
        const problem = oneOf('element key', key, ELEMENT_KEYS);
        if (problem) return void issues.push({ path: [...path, 'key'], message: problem });
        return checkOperatorAndValue(filter, path, issues, 'text');
      }
      default:
        return checkOperatorAndValue(filter, path, issues, 'any');
    }
  };
}

const eventProperty = checkProperty(['event', 'person', 'element', 'session', 'cohort', 'group', 'hogql']);

function checkList(list: unknown, path: Array<string | number>, issues: Issue[], check: Check): void {
  if (!Array.isArray(list)) return void issues.push({ path, message: 'a list of filter objects, like [{"type":"event","key":"$browser","operator":"exact","value":["Chrome"]}].' });
  list.forEach((item, i) => {
    if (!isRecord(item)) issues.push({ path: [...path, i], message: `a filter is an object, not ${show(item)}.` });
    else check(item, [...path, i], issues);
  });
}

/** An `events` entity: `{id: event name, name?, type?: "events", order?, properties?}`. */
const checkEvent: Check = (entity, path, issues) => {
  onlyKeys(entity, ['id', 'name', 'type', 'order', 'properties', 'custom_name'], path, issues);
  if (typeof entity.id !== 'string' || entity.id === '' || entity.id.length > 400) issues.push({ path: [...path, 'id'], message: 'id is the event name, like "$pageview" or "order_completed" (recording-filter-options lists them).' });
  if (entity.type !== undefined && entity.type !== 'events') issues.push({ path: [...path, 'type'], message: `${oneOf('type here', entity.type, ['events'])} An action goes in actions.` });
  checkEntityRest(entity, path, issues);
};

/** What is wrong with one `events` entity (`extraKeys` also allowed), before any request; empty when nothing. */
export function eventEntityIssues(entity: unknown, path: Array<string | number>, extraKeys: readonly string[] = []): Issue[] {
  const issues: Issue[] = [];
  if (!isRecord(entity)) return [{ path, message: `a step is an object like {"id":"checkout_started"}, not ${show(entity)}.` }];
  const rest = Object.fromEntries(Object.entries(entity).filter(([key]) => !extraKeys.includes(key)));
  checkEvent(rest, path, issues);
  return issues;
}

/** An `actions` entity: `{id: action id, type?: "actions", …}`. */
const checkAction: Check = (entity, path, issues) => {
  onlyKeys(entity, ['id', 'name', 'type', 'order', 'properties', 'custom_name'], path, issues);
  if (!(Number.isInteger(entity.id) && (entity.id as number) > 0)) issues.push({ path: [...path, 'id'], message: 'id is the action\'s number, like 12; an event name goes in events.' });
  if (entity.type !== undefined && entity.type !== 'actions') issues.push({ path: [...path, 'type'], message: oneOf('type here', entity.type, ['actions']) ?? '' });
  checkEntityRest(entity, path, issues);
};

function checkEntityRest(entity: Record<string, unknown>, path: Array<string | number>, issues: Issue[]): void {
  if (entity.order !== undefined && !(Number.isInteger(entity.order) && (entity.order as number) >= 0)) issues.push({ path: [...path, 'order'], message: 'order is a whole number (0, 1, …).' });
  if (entity.name !== undefined && typeof entity.name !== 'string') issues.push({ path: [...path, 'name'], message: 'name is text.' });
  if (entity.properties !== undefined) checkList(entity.properties, [...path, 'properties'], issues, eventProperty);
}

/** A console filter: `{key: level|message, type: log_entry, operator, value}`. */
const checkConsole: Check = (filter, path, issues) => {
  onlyKeys(filter, ['key', 'type', 'operator', 'value', 'label'], path, issues);
  if (filter.type !== undefined && filter.type !== 'log_entry') issues.push({ path: [...path, 'type'], message: oneOf('console filter type', filter.type, ['log_entry']) ?? '' });
  const problem = oneOf('console filter key', filter.key, CONSOLE_KEYS);
  if (problem) return void issues.push({ path: [...path, 'key'], message: problem });
  if (filter.key === 'level') {
    checkOperatorAndValue(filter, path, issues, 'text', LIST_OPERATORS);
    const levels = Array.isArray(filter.value) ? filter.value : [filter.value];
    for (const level of levels) {
      const wrong = oneOf('console level', level, CONSOLE_LEVELS, { warning: 'warn', log: 'info', err: 'error' });
      if (wrong) issues.push({ path: [...path, 'value'], message: wrong });
    }
  } else {
    checkOperatorAndValue(filter, path, issues, 'text', [...LIST_OPERATORS, ...TEXT_OPERATORS]);
  }
};

/** A having predicate: a `recording` filter on duration, active/inactive seconds or snapshot source. */
const checkHaving: Check = (filter, path, issues) => {
  if (filter.type !== undefined && filter.type !== 'recording') {
    issues.push({ path: [...path, 'type'], message: `${oneOf('type here', filter.type, ['recording'])} Other filters go in properties.` });
    return;
  }
  onlyKeys(filter, ['type', 'key', 'operator', 'value', 'label'], path, issues);
  const problem = oneOf('having_predicates key', filter.key, HAVING_KEYS, { recording_duration: 'duration' });
  if (problem) return void issues.push({ path: [...path, 'key'], message: `${problem}${typeof filter.key === 'string' && RECORDING_KEYS.includes(filter.key) ? ' (that one goes in properties, type "recording")' : ''}` });
  checkOperatorAndValue(filter, path, issues, filter.key === 'snapshot_source' ? 'text' : 'number');
};

const propertyCheck = checkProperty(PROPERTY_TYPES);

/** A filter list as advertised: free-form objects, checked by `check` before any request. */
function filterList(check: Check, description: string) {
  return z
    .array(z.record(z.string(), z.unknown()))
    .max(50)
    .superRefine((list, ctx) => {
      const issues: Issue[] = [];
      checkList(list, [], issues, check);
      for (const issue of issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    })
    .describe(description);
}

/**
 * The filter fields, with descriptions that teach the common questions (a page visited, a country,
 * a device, an email, errors, an event, internal users out) in few words; `brief` for a second
 * tool that points at the first.
 */
export function recordingFilterFields(brief = false) {
  const say = (full: string, short: string) => (brief ? short : full);
  return {
    properties: filterList(
      propertyCheck,
      say(
        '[{type,key,operator,value}], type event|person|session|recording|cohort|element|group|hogql. E.g. person $geoip_country_code exact ["FR"]; person email icontains "@acme.com"; event $device_type exact ["Mobile"]; recording console_error_count gt 0 (also duration, active_seconds, click_count, visited_page…). Operators: exact/is_not (list), icontains, not_icontains, regex, gt/lt, is_date_before/after, is_set/is_not_set (no value).',
        'As in the list tool.',
      ),
    ).optional(),
    events: filterList(
      checkEvent,
      say(
        'Events that happened: [{id: event name, properties?}]. Page viewed: [{"id":"$pageview","properties":[{"type":"event","key":"$current_url","operator":"icontains","value":"/pricing"}]}]; exceptions: [{"id":"$exception"}]. Names: recording-filter-options.',
        'As in the list tool.',
      ),
    ).optional(),
    actions: filterList(checkAction, say('[{id: action id}].', 'As in the list tool.')).optional(),
    console_log_filters: filterList(
      checkConsole,
      say('[{key: level|message, operator, value}], e.g. level exact ["error"], message icontains "timeout".', 'As in the list tool.'),
    ).optional(),
    having_predicates: filterList(checkHaving, say('[{key: duration|active_seconds|inactive_seconds, operator: gt|lt, value: seconds}].', 'As in the list tool.')).optional(),
    filter_test_accounts: z.boolean().optional().describe(say("true: leave out internal users (the project's test-account filters).", 'Leave out internal users.')),
    operand: z.enum(['AND', 'OR']).optional().describe(say('How filters combine; default AND.', 'Default AND.')),
    distinct_ids: z.array(z.string().min(1).max(400)).min(1).max(100).optional().describe(say("Only these persons' distinct ids.", 'As in the list tool.')),
  };
}

type FilterInput = {
  properties?: Array<Record<string, unknown>> | undefined;
  events?: Array<Record<string, unknown>> | undefined;
  actions?: Array<Record<string, unknown>> | undefined;
  console_log_filters?: Array<Record<string, unknown>> | undefined;
  having_predicates?: Array<Record<string, unknown>> | undefined;
  filter_test_accounts?: boolean | undefined;
  operand?: 'AND' | 'OR' | undefined;
  distinct_ids?: string[] | undefined;
};

/**
 * The filters as PostHog's list reads them, only those given: entity and console types PostHog
 * requires filled in where the caller left them out (`events`, `actions`, `log_entry`, `recording`).
 */
export function filterParams(input: FilterInput): Record<string, unknown> {
  const withType = (list: Array<Record<string, unknown>> | undefined, type: string) => list?.map((item) => ({ ...item, type: item.type ?? type }));
  return {
    properties: input.properties,
    events: input.events?.map((e, order) => ({ ...e, type: e.type ?? 'events', order: e.order ?? order })),
    actions: input.actions?.map((a, order) => ({ ...a, type: a.type ?? 'actions', order: a.order ?? order })),
    console_log_filters: withType(input.console_log_filters, 'log_entry'),
    having_predicates: withType(input.having_predicates, 'recording'),
    filter_test_accounts: input.filter_test_accounts,
    operand: input.operand,
    distinct_ids: input.distinct_ids,
  };
}

/** Whether any filter beyond dates and ids was given (for "no recordings" texts). */
export function hasFilters(input: FilterInput): boolean {
  return Object.values(filterParams(input)).some((v) => v !== undefined);
}

/** The period a list applied, as both views echo it (docs/design.md, "Both views"). */
export const periodOutput = z
  .looseObject({ date_from: z.string(), date_to: z.string(), time_zone: z.string() })
  .optional()
  .describe('The dates the list applied: date_from as given or PostHog\'s default "-3d", date_to as given or "now"; absolute dates in the project\'s time zone.');

export type AppliedPeriod = { date_from: string; date_to: string; time_zone: string };

/**
 * PostHog reads the dates in the project's time zone (relative ones count back from now), which
 * this call does not know without another request: named as the project's, not guessed.
 */
export function appliedPeriod(dateFrom: string | undefined, dateTo: string | undefined): AppliedPeriod {
  return { date_from: dateFrom ?? RECORDINGS_DEFAULT_FROM, date_to: dateTo ?? 'now', time_zone: 'project' };
}

export function periodLine(period: AppliedPeriod): string {
  return `Period: ${period.date_from} to ${period.date_to}, in the project's time zone.`;
}
