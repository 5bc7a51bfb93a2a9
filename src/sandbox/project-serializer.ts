// The project serializer: what a create or update may write (DRF serializer semantics and
// drf-exceptions-hog errors, field by field in serializer order) and what a project shows, with
// today's serializer's differences from the 2024 API's.

import { ApiError, errors } from './http.js';
import type { Project } from './project-object.js';
import { RETENTION_PERIODS } from './retention-plan.js';
import type { SandboxApi, SandboxState } from './state.js';
import { SANDBOX_TIMEZONES } from './timezones.js';
import { pyType } from './util.js';

const TIMEZONES: ReadonlySet<string> = new Set(SANDBOX_TIMEZONES);

type Validator = (value: unknown, field: string) => unknown;

const TRUE_VALUES = new Set<unknown>(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1', 1, true]);
const FALSE_VALUES = new Set<unknown>(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0', 0, false]);

function pyStr(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null) return 'None';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function nullable(inner: Validator): Validator {
  return (value, field) => (value === null ? null : inner(value, field));
}

function notNull(inner: Validator): Validator {
  return (value, field) => {
    if (value === null) throw errors.validation('This field may not be null.', field, 'null');
    return inner(value, field);
  };
}

const bool: Validator = (value, field) => {
  if (TRUE_VALUES.has(value)) return true;
  if (FALSE_VALUES.has(value)) return false;
  throw errors.validation('Must be a valid boolean.', field);
};

function text(maxLength?: number): Validator {
  return (value, field) => {
    if (typeof value !== 'string' && typeof value !== 'number') throw errors.validation('Not a valid string.', field);
    const s = String(value).trim();
    if (maxLength !== undefined && s.length > maxLength) throw errors.validation(`Ensure this field has no more than ${maxLength} characters.`, field, 'max_length');
    return s;
  };
}

const stringList: Validator = (value, field) => {
  if (!Array.isArray(value)) throw errors.validation(`Expected a list of items but got type "${pyType(value)}".`, field, 'not_a_list');
  return value
    .map((item, i) => {
      if (item === null) return null;
      if (typeof item !== 'string' && typeof item !== 'number') throw errors.validation('Not a valid string.', `${field}__${i}`);
      return String(item);
    })
    .filter((item) => item !== null && item !== '');
};

const dict: Validator = (value, field) => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw errors.validation(`Expected a dictionary of items but got type "${pyType(value)}".`, field, 'not_a_dict');
  }
  return value;
};

/** Property filter types PostHog's AnyPropertyFilter union knows (a filter without `type` is an event filter). */
const PROPERTY_FILTER_TYPES = new Set([
  'event', 'person', 'element', 'session', 'cohort', 'recording', 'group', 'hogql', 'feature', 'flag', 'data_warehouse',
  'data_warehouse_person_property', 'error_tracking_issue', 'log_entry', 'revenue_analytics', 'log', 'event_metadata', 'workflow_variable',
]);

/**
 * Today's test_account_filters: a list of valid property filters, else PostHog's message followed
 * by the pydantic error (its wording here is an approximation).
 */
const propertyFilterList: Validator = (value, field) => {
  const fail = (problem: string) => errors.validation(`Must provide an array of valid property filters. 1 validation error for list[AnyPropertyFilter]\n  ${problem}`, field);
  if (!Array.isArray(value)) throw fail(`Input should be a valid list [type=list_type, input_type=${pyType(value)}]`);
  value.forEach((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw fail(`${i}: Input should be a valid dictionary [type=model_type, input_type=${pyType(item)}]`);
    const filter = item as Record<string, unknown>;
    if (typeof filter.key !== 'string') throw fail(`${i}.key: Field required [type=missing]`);
    if (filter.type !== undefined && !PROPERTY_FILTER_TYPES.has(String(filter.type))) throw fail(`${i}.type: Input tag '${String(filter.type)}' does not match any of the expected tags [type=union_tag_invalid]`);
  });
  return value;
};

/** Today's path_cleaning_filters (validate_path_cleaning_filters): empty, or rules with a regex that compiles. */
const pathCleaningRules: Validator = (value, field) => {
  const empty = value === null || value === '' || value === false || value === 0 || (Array.isArray(value) && value.length === 0) || (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);
  if (empty) return value;
  if (!Array.isArray(value)) throw errors.validation('Must provide a list of path cleaning rules.', field);
  for (const rule of value) {
    if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) continue;
    const regex = (rule as Record<string, unknown>).regex;
    if (typeof regex !== 'string' || regex === '') throw errors.validation('A path cleaning rule needs a regex. Remove the rule or give it one.', field);
    try {
      new RegExp(regex);
    } catch (e) {
      throw errors.validation(`Invalid path cleaning regex '${regex}': ${(e as Error).message}`, field);
    }
  }
  return value;
};

/** JSON fields that hold filter lists or settings objects: anything structured, not a scalar. */
const structured: Validator = (value, field) => {
  if (value === null || typeof value !== 'object') throw errors.validation(`Expected a JSON object or array but got type "${pyType(value)}".`, field);
  return value;
};

function integer(min?: number, max?: number): Validator {
  return (value, field) => {
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(n) || typeof value === 'boolean') throw errors.validation('A valid integer is required.', field);
    if (min !== undefined && n < min) throw errors.validation(`Ensure this value is greater than or equal to ${min}.`, field, 'min_value');
    if (max !== undefined && n > max) throw errors.validation(`Ensure this value is less than or equal to ${max}.`, field, 'max_value');
    return n;
  };
}

function choice(options: readonly (string | number)[]): Validator {
  const byString = new Map(options.map((o) => [String(o), o]));
  return (value, field) => {
    if ((typeof value === 'string' || typeof value === 'number') && byString.has(String(value))) return byString.get(String(value));
    throw errors.validation(`"${pyStr(value)}" is not a valid choice.`, field, 'invalid_choice');
  };
}

const timezone: Validator = (value, field) => {
  if (typeof value === 'string' && TIMEZONES.has(value)) return value;
  throw errors.validation(`"${pyStr(value)}" is not a valid choice.`, field, 'invalid_choice');
};

const sampleRate: Validator = (value, field) => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n) || typeof value === 'boolean') throw errors.validation('A valid number is required.', field);
  if (n < 0) throw errors.validation('Ensure this value is greater than or equal to 0.', field, 'min_value');
  if (n > 1) throw errors.validation('Ensure this value is less than or equal to 1.', field, 'max_value');
  if (Math.abs(n * 100 - Math.round(n * 100)) > 1e-9) {
    throw errors.validation('Ensure that there are no more than 2 decimal places.', field, 'max_decimal_places');
  }
  return n.toFixed(2);
};

/** A JSON object with only these keys (validate_session_recording_*_config: "Must provide a dictionary or None." first). */
function keysOnly(allowed: readonly string[], message: string): Validator {
  return (value, field) => {
    const object = dict(value, field) as Record<string, unknown>;
    if (!Object.keys(object).every((k) => allowed.includes(k))) throw errors.validation(message, field);
    return object;
  };
}

const linkedFlag: Validator = (value, field) => {
  const keys = Object.keys(dict(value, field) as object).sort().join(',');
  if (keys !== 'id,key' && keys !== 'id,key,variant') {
    throw errors.validation("Must provide a dictionary with only 'id' and 'key' keys. _or_ only 'id', 'key', and 'variant' keys.", field);
  }
  return value;
};

const networkPayloadCapture = keysOnly(['recordHeaders', 'recordBody'], "Must provide a dictionary with only 'recordHeaders' and/or 'recordBody' keys.");

const MASKING_KEYS = ['maskAllInputs', 'maskTextSelector', 'blockSelector'] as const;
const maskingConfig: Validator = (value, field) => {
  const object = keysOnly(MASKING_KEYS, `Must provide a dictionary with only known keys: ${MASKING_KEYS.join(', ')}.`)(value, field) as Record<string, unknown>;
  if ('maskAllInputs' in object && typeof object.maskAllInputs !== 'boolean') throw errors.validation('maskAllInputs must be a boolean.', field);
  for (const key of ['maskTextSelector', 'blockSelector'] as const) {
    if (key in object && typeof object[key] !== 'string') throw errors.validation(`${key} must be a string.`, field);
  }
  return object;
};

const AI_CONFIG_KEYS = ['included_event_properties', 'opt_in', 'preferred_events', 'excluded_events', 'important_user_properties'];
const replayConfig: Validator = (value, field) => {
  const object = keysOnly(['record_canvas', 'ai_config'], 'Must provide a dictionary with only known keys. One or more of record_canvas, ai_config.')(value, field) as Record<string, unknown>;
  const ai = object.ai_config;
  if (ai !== undefined && ai !== null) {
    if (typeof ai !== 'object' || Array.isArray(ai)) throw errors.validation('Must provide a dictionary or None.', field);
    if (!Object.keys(ai).every((k) => AI_CONFIG_KEYS.includes(k))) throw errors.validation(`Must provide a dictionary with only allowed keys: ${AI_CONFIG_KEYS.join(', ')}.`, field);
  }
  return object;
};

/**
 * session_replay_config as PostHog's update merges it: each key sent that holds an object, where
 * the stored one does too, is merged into it; keys not sent are kept.
 */
function mergeReplayConfig(previous: Record<string, unknown>, sent: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...previous };
  for (const [key, value] of Object.entries(sent)) {
    const old = previous[key];
    const bothObjects = [old, value].every((v) => typeof v === 'object' && v !== null && !Array.isArray(v));
    merged[key] = bothObjects ? { ...(old as object), ...(value as object) } : value;
  }
  return merged;
}


const primaryKey: Validator = (value, field) => {
  if (typeof value === 'boolean' || (typeof value !== 'number' && typeof value !== 'string')) {
    throw errors.validation(`Incorrect type. Expected pk value, received ${pyType(value)}.`, field, 'incorrect_type');
  }
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw errors.validation(`Invalid pk "${pyStr(value)}" - object does not exist.`, field, 'does_not_exist');
  return n;
};

const CURRENCIES = [
  'USD', 'EUR', 'GBP', 'CAD', 'AUD', 'NZD', 'JPY', 'CNY', 'INR', 'BRL', 'MXN', 'CHF', 'SEK', 'NOK', 'DKK', 'PLN',
  'CZK', 'HUF', 'ZAR', 'NGN', 'KES', 'SGD', 'HKD', 'KRW', 'TRY', 'ILS', 'AED', 'SAR', 'ARS', 'CLP', 'COP',
];

/** Writable fields in serializer order; `merge` fields are merged into the stored value, as PostHog does. */
const WRITABLE: ReadonlyArray<[field: string, validate: Validator, merge?: boolean]> = [
  ['product_description', nullable(text(1000))],
  ['app_urls', notNull(stringList)],
  ['slack_incoming_webhook', nullable(text(500))],
  ['anonymize_ips', notNull(bool)],
  ['completed_snippet_onboarding', notNull(bool)],
  ['test_account_filters', notNull(structured)],
  ['test_account_filters_default_checked', nullable(bool)],
  ['path_cleaning_filters', nullable(structured)],
  ['is_demo', notNull(bool)],
  ['timezone', notNull(timezone)],
  ['data_attributes', notNull(structured)],
  ['person_display_name_properties', nullable(stringList)],
  ['correlation_config', nullable(dict)],
  ['autocapture_opt_out', nullable(bool)],
  ['autocapture_exceptions_opt_in', nullable(bool)],
  ['autocapture_web_vitals_opt_in', nullable(bool)],
  ['autocapture_web_vitals_allowed_metrics', nullable(structured)],
  ['autocapture_exceptions_errors_to_ignore', nullable(structured)],
  ['capture_console_log_opt_in', nullable(bool)],
  ['capture_performance_opt_in', nullable(bool)],
  ['session_recording_opt_in', notNull(bool)],
  ['session_recording_sample_rate', nullable(sampleRate)],
  ['session_recording_minimum_duration_milliseconds', nullable(integer(0, 30_000))],
  ['session_recording_linked_flag', nullable(linkedFlag)],
  ['session_recording_network_payload_capture_config', nullable(networkPayloadCapture)],
  ['session_recording_masking_config', nullable(maskingConfig)],
  ['session_recording_url_trigger_config', nullable(structured)],
  ['session_recording_url_blocklist_config', nullable(structured)],
  ['session_recording_event_trigger_config', nullable(structured)],
  ['session_recording_trigger_match_type_config', nullable(choice(['any', 'all']))],
  ['session_recording_trigger_groups', nullable(structured)],
  ['session_recording_retention_period', notNull(choice(RETENTION_PERIODS))],
  ['session_replay_config', nullable(replayConfig), true],
  ['survey_config', nullable(dict)],
  ['access_control', notNull(bool)],
  ['week_start_day', nullable(choice([0, 1]))],
  ['primary_dashboard', nullable(primaryKey)],
  ['live_events_columns', nullable(stringList)],
  ['recording_domains', nullable(stringList)],
  ['inject_web_apps', nullable(bool)],
  ['extra_settings', nullable(dict)],
  ['modifiers', nullable(dict), true],
  ['has_completed_onboarding_for', nullable(dict)],
  ['surveys_opt_in', nullable(bool)],
  ['heatmaps_opt_in', nullable(bool)],
  ['flags_persistence_default', nullable(bool)],
  ['receive_org_level_activity_logs', nullable(bool)],
  ['business_model', nullable(choice(['b2b', 'b2c']))],
  ['conversations_enabled', nullable(bool)],
  ['conversations_settings', nullable(dict)],
  ['logs_settings', nullable(dict)],
  ['proactive_tasks_enabled', nullable(bool)],
  ['revenue_analytics_config', notNull(dict), true],
  ['marketing_analytics_config', notNull(dict), true],
  ['customer_analytics_config', notNull(dict), true],
  ['workflows_config', notNull(dict), true],
  ['base_currency', notNull(choice(CURRENCIES))],
  ['capture_dead_clicks', nullable(bool)],
  ['cookieless_server_hash_mode', nullable(choice([0, 1, 2]))],
  ['human_friendly_comparison_periods', nullable(bool)],
  ['feature_flag_confirmation_enabled', nullable(bool)],
  ['feature_flag_confirmation_message', nullable(text(1000))],
  ['default_evaluation_contexts_enabled', notNull(bool)],
  ['require_evaluation_contexts', notNull(bool)],
  ['default_data_theme', nullable(integer(1))],
  ['onboarding_tasks', nullable(dict)],
  ['web_analytics_pre_aggregated_tables_enabled', nullable(bool)],
];

/** Today's serializer: array-typed settings, and slack_incoming_webhook no longer among its fields. */
const TODAY_VALIDATORS: Record<string, Validator> = {
  test_account_filters: notNull(propertyFilterList),
  path_cleaning_filters: pathCleaningRules,
};

/** Fields the Team model still has but today's project serializer neither takes nor shows. */
const DROPPED_TODAY = new Set(['slack_incoming_webhook']);

/** A project as this PostHog's serializer shows it. */
export function presentProject(project: Project, api: SandboxApi): Record<string, unknown> {
  if (api !== 'today') return project;
  return Object.fromEntries(Object.entries(project).filter(([key]) => !DROPPED_TODAY.has(key)));
}

/** validate_team_attrs' check of autocapture_exceptions_errors_to_ignore (a non-field error). */
function validateErrorsToIgnore(value: unknown): void {
  if (value === null || value === undefined) return;
  if (!Array.isArray(value)) throw errors.validation('Must provide a list for field: autocapture_exceptions_errors_to_ignore.');
  if (value.some((v) => typeof v !== 'string')) throw errors.validation('Must provide a list of strings to field: autocapture_exceptions_errors_to_ignore.');
  if (JSON.stringify(value).length > 300) {
    throw errors.validation('Field autocapture_exceptions_errors_to_ignore must be less than 300 characters. Complex config should be provided in posthog-js initialization.');
  }
}

export function sameName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * Validates a create/update body. Unknown and read-only fields are ignored; the name is
 * checked first (its conflict is raised at once, as PostHog does), other field errors are
 * collected and the first one reported.
 */
export function validateBody(state: SandboxState, body: Record<string, unknown>, current: Project | null, api: SandboxApi): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if ('name' in body) {
    const raw = body.name;
    if (raw === null) throw errors.validation('This field may not be null.', 'name', 'null');
    const name = text()(raw, 'name') as string;
    if (name === '') throw errors.validation('This field may not be blank.', 'name', 'blank');
    if (name.length > 200) throw errors.validation('Ensure this field has no more than 200 characters.', 'name', 'max_length');
    const unchanged = current !== null && name === current.name;
    if (!unchanged) {
      for (const other of state.projects.values()) {
        if (other.id !== current?.id && sameName(other.name, name)) {
          throw errors.conflict(`There is already a project called "${name}" in this organization. Choose a different name.`, 'name');
        }
      }
    }
    changes.name = name;
  }
  let firstError: ApiError | undefined;
  for (const [field, fallback, merge] of WRITABLE) {
    if (!(field in body)) continue;
    if (api === 'today' && DROPPED_TODAY.has(field)) continue;
    const validate = (api === 'today' ? TODAY_VALIDATORS[field] : undefined) ?? fallback;
    try {
      const value = validate(body[field], field);
      const previous = current?.[field];
      const mergeable = merge && value !== null && previous !== null && typeof previous === 'object' && !Array.isArray(previous);
      changes[field] = !mergeable
        ? value
        : field === 'session_replay_config'
          ? mergeReplayConfig(previous as Record<string, unknown>, value as Record<string, unknown>)
          : { ...previous, ...(value as object) };
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      firstError ??= e;
    }
  }
  if (firstError) throw firstError;
  if (api === 'today' && 'autocapture_exceptions_errors_to_ignore' in changes) validateErrorsToIgnore(changes.autocapture_exceptions_errors_to_ignore);
  return changes;
}
