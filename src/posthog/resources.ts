/**
 * PostHog's resources as its API sends them (docs/posthog-api.md, "Resources", "Recordings list" and "Projects"): one zod schema each, used twice. The operations layer parses every answer with them once,
 * so tools receive typed values; and tools declare them in their outputSchema, so a client that
 * validates `structuredContent` reads PostHog's own field names and JSON types.
 *
 * Every field may be null or absent (PostHog adds, drops and nulls fields between versions), and
 * fields not named here are kept (loose objects). Parsing is forgiving of a variant type where an
 * older PostHog sent another form of the same value (a count as "12", `viewed` as "true"): the
 * value is read as the declared type, and one that cannot be becomes null instead of failing a
 * good answer. Only what makes an answer unusable (not an object, no id) is refused, by the
 * operations that read them.
 */
import { z } from 'zod';

/** A number, or a numeric string read as one; anything else is null. */
function toNumber(value: unknown): unknown {
  if (value === undefined || value === null) return value;
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
}

function toBoolean(value: unknown): unknown {
  if (value === undefined || value === null || typeof value === 'boolean') return value;
  return value === 'true' ? true : value === 'false' ? false : null;
}

/** A string as sent; a number or boolean as its text (an id PostHog sent as a number); anything else null. */
function toText(value: unknown): unknown {
  if (value === undefined || value === null || typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
}

const lenient = <T extends z.ZodType>(read: (value: unknown) => unknown, schema: T) => z.preprocess(read, schema.nullable()).optional();

/** Field kinds, each null or absent allowed. */
export const field = {
  /** A whole number; a fraction (no count PostHog sends has one) is null, as any other unreadable value. */
  int: () => lenient((v) => { const n = toNumber(v); return typeof n === 'number' && !Number.isInteger(n) ? null : n; }, z.number().int()),
  number: () => lenient(toNumber, z.number()),
  bool: () => lenient(toBoolean, z.boolean()),
  text: () => lenient(toText, z.string()),
  /** An array of strings; a non-array is null, non-string items are dropped. */
  strings: () =>
    lenient((v) => (v === undefined || v === null ? v : Array.isArray(v) ? v.filter((s) => typeof s === 'string') : null), z.array(z.string())),
  /** A JSON object with any keys. */
  object: () => lenient((v) => (v === undefined || v === null ? v : typeof v === 'object' && !Array.isArray(v) ? v : null), z.record(z.string(), z.unknown())),
  /**
   * A setting PostHog stores as JSON: an array in today's PostHog (filters, attribute names), an
   * object in the seed's description (docs/posthog-api.md, "Resources"); anything else is null.
   */
  listOrObject: () =>
    lenient((v) => (v === undefined || v === null || typeof v === 'object' ? v : null), z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())])),
  /** Any JSON value. */
  json: () => z.unknown().optional(),
};

/** The person nested in a recording (docs/posthog-api.md, "Resources"). PostHog's placeholder for a distinct id with no person has id, name and created_at null. */
export const personSchema = z.looseObject({
  id: field.int(),
  name: field.text(),
  distinct_ids: field.strings(),
  properties: field.object(),
  created_at: field.text(),
  uuid: field.text(),
});
export type Person = z.output<typeof personSchema>;

/** A session recording (docs/posthog-api.md, "Resources"; list items and retrieve share the serializer). */
export const recordingSchema = z.looseObject({
  id: z.preprocess(toText, z.string()),
  distinct_id: field.text(),
  /** PostHog sends a boolean (the published reference says string). */
  viewed: field.bool(),
  recording_duration: field.int(),
  active_seconds: field.int(),
  inactive_seconds: field.int(),
  start_time: field.text(),
  end_time: field.text(),
  click_count: field.int(),
  keypress_count: field.int(),
  mouse_activity_count: field.int(),
  console_log_count: field.int(),
  console_warn_count: field.int(),
  console_error_count: field.int(),
  start_url: field.text(),
  person: lenient((v) => (v === undefined || v === null ? v : typeof v === 'object' && !Array.isArray(v) ? v : null), personSchema),
  /** 2024 to mid-2025 only. */
  storage: field.text(),
  /** A ~2023 serializer's; typed as the seed documents it. */
  pinned_count: field.json(),
  ongoing: field.bool(),
  activity_score: field.number(),
  viewers: field.strings(),
  retention_period_days: field.int(),
  expiry_time: field.text(),
  recording_ttl: field.int(),
  snapshot_source: field.text(),
  snapshot_library: field.text(),
});
export type Recording = z.output<typeof recordingSchema>;

/** A project as retrieve, create and update return it (docs/posthog-api.md, "Resources"; today about 90 fields, the rest kept as sent). */
export const projectSchema = z.looseObject({
  id: z.preprocess(toNumber, z.number().int()),
  uuid: field.text(),
  organization: field.text(),
  api_token: field.text(),
  app_urls: field.strings(),
  name: field.text(),
  slack_incoming_webhook: field.text(),
  created_at: field.text(),
  updated_at: field.text(),
  anonymize_ips: field.bool(),
  completed_snippet_onboarding: field.bool(),
  ingested_event: field.bool(),
  /** An array of property filters today; an object in the seed's description. */
  test_account_filters: field.listOrObject(),
  test_account_filters_default_checked: field.bool(),
  path_cleaning_filters: field.listOrObject(),
  is_demo: field.bool(),
  timezone: field.text(),
  data_attributes: field.listOrObject(),
  person_display_name_properties: field.strings(),
  correlation_config: field.listOrObject(),
  autocapture_opt_out: field.bool(),
  autocapture_exceptions_opt_in: field.bool(),
  autocapture_exceptions_errors_to_ignore: field.listOrObject(),
  capture_console_log_opt_in: field.bool(),
  capture_performance_opt_in: field.bool(),
  session_recording_opt_in: field.bool(),
  effective_membership_level: field.int(),
  access_control: field.bool(),
  has_group_types: field.bool(),
  primary_dashboard: field.int(),
  live_events_columns: field.strings(),
  recording_domains: field.strings(),
  person_on_events_querying_enabled: field.bool(),
  groups_on_events_querying_enabled: field.bool(),
  inject_web_apps: field.bool(),
  extra_settings: field.listOrObject(),
  has_completed_onboarding_for: field.listOrObject(),
  /** Served as a decimal string ("0.50"); null records every session. */
  session_recording_sample_rate: lenient((v) => (typeof v === 'number' ? String(v) : v === undefined || v === null || typeof v === 'string' ? v : null), z.string()),
  session_recording_retention_period: field.text(),
  is_pending_deletion: field.bool(),
});
export type Project = z.output<typeof projectSchema>;

/** A projects-list item (docs/posthog-api.md, "Resources": a subset of the project's fields, same types). */
export const projectListItemSchema = projectSchema.pick({
  id: true,
  uuid: true,
  organization: true,
  api_token: true,
  name: true,
  completed_snippet_onboarding: true,
  has_completed_onboarding_for: true,
  ingested_event: true,
  is_demo: true,
  timezone: true,
  access_control: true,
});
export type ProjectListItem = z.output<typeof projectListItemSchema>;

/** Project credentials: never in a result, even when every setting is asked for. The public api_token is not one. */
export const PROJECT_SECRETS: ReadonlySet<string> = new Set(['secret_api_token', 'secret_api_token_backup', 'live_events_token']);
