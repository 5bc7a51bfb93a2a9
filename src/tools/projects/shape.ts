import { z } from 'zod';
import { PROJECT_SECRETS, projectListItemSchema, projectSchema, type Project, type ProjectListItem } from '../../posthog/resources.js';
import { isRetentionPeriod, periodsUpTo, RETENTION_PERIODS, type RetentionCap, type RetentionPeriod } from '../../posthog/plan.js';
import { quote, unbidi } from '../../digest/quote.js';
import { asText, clip, joinParts, shortTime } from '../format.js';
import { advertiseAs } from '../listing.js';
import { timezoneField } from '../schemas.js';

/** A project's credentials are in no result (PROJECT_SECRETS; the public api_token is not one). */
const withoutSecrets = <T extends object>(p: T): T => Object.fromEntries(Object.entries(p).filter(([key]) => !PROJECT_SECRETS.has(key))) as T;

/** Project names are chosen by its members: quoted data in both views, invisible controls escaped (docs/design.md, "Recorded text is data"). */
const namedSafely = <T extends { name?: string | null | undefined }>(p: T, max?: number): T =>
  typeof p.name === 'string' ? { ...p, name: unbidi(max === undefined ? p.name : clip(p.name, max)) } : p;

/**
 * A project as a result carries it (docs/design.md, "Both views"): PostHog's project, every
 * field it returned under its own name and JSON type, whatever include_settings says (that only
 * shapes the text); its credentials never (PROJECT_SECRETS), even when every setting is asked for.
 */
export function projectResource(p: Project): Project {
  return namedSafely(withoutSecrets(p));
}

/** What output schemas declare of a project: PostHog's fields and types (posthog/resources.ts), any other kept. */
export const projectOutput = projectSchema;

/** A projects-list row: PostHog's list item as sent, and beside it what the project's own record adds (tools/projects/recording-settings.ts). */
export const projectRowOutput = projectListItemSchema.extend({
  recording: z.enum(['on', 'off']).optional().describe("session_recording_opt_in, from the project's own record."),
  sample_rate: z.number().optional().describe('session_recording_sample_rate as a fraction; 1 (or null) records all sessions.'),
  pending_deletion: z.literal(true).optional(),
  settings_not_read: z.string().optional().describe("Why the project's own record was not read."),
});

export type ProjectRow = z.output<typeof projectRowOutput>;

/** A list item as a row carries it: as PostHog sent it, the name clipped as every row's is, no secret should a PostHog list one. */
export function projectRow(item: ProjectListItem): ProjectRow {
  return namedSafely(withoutSecrets(item), 200);
}

/** A project as texts name it: its id and its name, quoted (its members chose it). */
export function projectLabel(p: { id?: unknown; name?: unknown }): string {
  return `${asText(p.id)} ${quote(clip(asText(p.name), 200))}`;
}

/** One line for a project: a list row, or a project PostHog returned (no recording fields). */
export function projectLine(row: Record<string, unknown>): string {
  const p = row as Partial<ProjectRow>;
  const share = p.sample_rate === undefined ? '' : p.sample_rate >= 1 ? ' for all sessions' : ` for ${Math.round(p.sample_rate * 100)}% of sessions`;
  return joinParts([
    projectLabel(p),
    p.timezone ? `timezone ${asText(p.timezone)}` : '',
    p.is_demo ? 'demo project' : '',
    p.ingested_event === false ? 'no events yet' : 'has events',
    p.recording ? `recording ${p.recording}${p.recording === 'on' ? share : ''}` : '',
    p.pending_deletion ? 'PENDING DELETION' : '',
    p.settings_not_read ? `recording settings not read: ${p.settings_not_read}` : '',
  ]);
}

/** Said in the heading, or grouped apart, not among the settings. */
const HEADING_FIELDS = new Set(['id', 'name', 'timezone', 'organization', 'api_token', 'created_at', 'updated_at', 'is_demo', 'ingested_event', 'product_description', 'omitted_fields']);
/** Not in the text (the structured view has PostHog's whole project): bookkeeping that describes neither the project nor anything a tool takes. */
const LEFT_OUT = new Set(['uuid', 'available_setup_task_ids', 'effective_membership_level', 'user_access_level']);

/**
 * A project as the text gives it to the model, the compact reading of the resource the structured
 * view carries (docs/design.md, "Both views"): the heading facts, switches grouped as `on` and
 * `off` lists of PostHog's field names (project-update takes those names), every other setting as
 * PostHog holds it, settings objects only named unless include_settings.
 */
export type ProjectFacts = {
  id: number;
  name?: string;
  timezone?: string;
  organization?: string;
  created_at?: string;
  updated_at?: string;
  is_demo?: true;
  /** false: the project has no events yet. */
  ingested_event?: false;
  product_description?: string;
  /** The project's public token (phc_…), what its snippet sends events with: not a secret. */
  api_token?: string;
  /** The switches that are on, and those that are off, by PostHog's field names. */
  on?: string[];
  off?: string[];
  /** Settings objects and long lists left out; include_settings=true adds them. */
  omitted_fields?: string[];
  /** Every other setting, under PostHog's name, as PostHog holds it. */
  [setting: string]: unknown;
};

/** A settings object, or a long list or one of objects: named, not shown, in the text unless include_settings. */
function isHeavy(value: unknown): boolean {
  return (typeof value === 'object' && value !== null && !Array.isArray(value)) || (Array.isArray(value) && (value.length > 10 || value.some((v) => typeof v === 'object')));
}

/** The text's reading of a project (projectDetail renders it): include_settings decides whether settings objects are shown or only named. */
export function projectFacts(project: Project, includeSettings: boolean): ProjectFacts {
  const p: Record<string, unknown> = {};
  const omitted: string[] = [];
  for (const [key, value] of Object.entries(project)) {
    if (PROJECT_SECRETS.has(key)) continue;
    if (isHeavy(value) && !includeSettings) omitted.push(key);
    else p[key] = value;
  }
  const facts: ProjectFacts = { id: project.id };
  for (const key of ['name', 'timezone', 'organization', 'api_token', 'created_at', 'updated_at', 'product_description'] as const) {
    const value = p[key];
    if (typeof value === 'string' && value !== '') facts[key] = value;
  }
  if (p.is_demo === true) facts.is_demo = true;
  if (p.ingested_event === false) facts.ingested_event = false;
  const on: string[] = [];
  const off: string[] = [];
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(p)) {
    if (HEADING_FIELDS.has(key) || LEFT_OUT.has(key) || value === null || value === undefined || value === '') continue;
    if (typeof value === 'boolean') (value ? on : off).push(key);
    else if (!Array.isArray(value) || value.length > 0) settings[key] = value;
  }
  if (on.length) facts.on = on;
  if (off.length) facts.off = off;
  Object.assign(facts, settings);
  if (omitted.length) facts.omitted_fields = omitted;
  return facts;
}

/** ProjectFacts' own fields: every other one is a setting. */
const FACT_FIELDS: ReadonlySet<string> = new Set([...HEADING_FIELDS, 'on', 'off']);

/** A setting's value in the text: a string quoted (its members chose it, docs/design.md, "Recorded text is data"), anything else as its JSON. */
const settingText = (value: unknown) => (typeof value === 'string' ? quote(value) : asText(value));

/**
 * A project in a few lines: heading, then switches grouped as on/off, then other settings as
 * key=value (strings quoted, a list of them as "a","b"; objects as their JSON): what projectFacts
 * holds, no more.
 */
export function projectDetail(p: ProjectFacts, heading: string): string {
  const settings = Object.entries(p).filter(([key]) => !FACT_FIELDS.has(key)).map(([key, value]) => {
    const scalars = Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object');
    return `${key}=${scalars ? value.map(settingText).join(',') : settingText(value)}`;
  });
  const lines = [
    joinParts([
      heading,
      p.timezone ?? '',
      p.is_demo ? 'demo' : '',
      p.ingested_event === false ? 'no events yet' : '',
      p.created_at ? `created ${shortTime(p.created_at)}` : '',
      p.updated_at ? `updated ${shortTime(p.updated_at)}` : '',
      p.organization ? `organization ${p.organization}` : '',
      p.api_token ? `public token ${p.api_token}` : '',
    ]),
  ];
  if (p.product_description) lines.push(`product_description: ${quote(p.product_description)}`);
  if (p.on?.length) lines.push(`on: ${p.on.join(' ')}`);
  if (p.off?.length) lines.push(`off: ${p.off.join(' ')}`);
  if (settings.length) lines.push(settings.join(' '));
  if (p.omitted_fields?.length) lines.push(`Left out (include_settings=true adds them): ${p.omitted_fields.join(' ')}.`);
  return lines.join('\n');
}

const json = z.record(z.string(), z.unknown());
const stringList = z.array(z.string().max(2000)).max(1000);
const objectList = z.array(json).max(500);
/**
 * PostHog requires arrays for these settings (docs/posthog-api.md, "Projects"); PostHog's published reference
 * documents them as objects. Both are accepted and sent as given: plain unions, no type arrays,
 * so the schema stays portable to strict-mode hosts. A list of strings is listed as that alone
 * (advertiseAs): the object form is what PostHog refuses.
 */
const filtersOrObject = z.union([objectList, json]);
const stringsOrObject = z.union([stringList, json]);

/** The writable fields of docs/posthog-api.md, "Projects", with their types, all optional. */
/**
 * The writable fields of docs/posthog-api.md, "Projects", with their types, all optional. The names say
 * most; descriptions add the rest in few words (the model reads them in every session).
 */
export const writableProjectFields = {
  name: z.string().trim().min(1).max(200).describe('Unique in the org, any case.'),
  app_urls: stringList.describe('Site URLs (toolbar, heatmaps).'),
  slack_incoming_webhook: z.string().max(2000).describe('Newer PostHog ignores it.'),
  anonymize_ips: z.boolean().describe("Drop visitors' IPs."),
  completed_snippet_onboarding: z.boolean().describe('Snippet installed.'),
  test_account_filters: filtersOrObject.describe('Internal users, e.g. [{"key":"$host","operator":"not_regex","value":"localhost","type":"event"}].'),
  test_account_filters_default_checked: z.boolean().describe('Insights skip internal users.'),
  path_cleaning_filters: filtersOrObject.describe('URL rewrites, e.g. [{"regex":"/[0-9]+","alias":"/<id>"}].'),
  is_demo: z.boolean().describe('Demo data.'),
  timezone: timezoneField.describe('IANA, e.g. Europe/Berlin; dates use it.'),
  data_attributes: advertiseAs(stringsOrObject.describe('Element attributes for actions, e.g. ["data-attr"].'), stringList),
  person_display_name_properties: stringList.describe('Shown as person name, e.g. ["email"].'),
  correlation_config: json.describe('Funnel correlation exclusions.'),
  autocapture_opt_out: z.boolean().describe('true turns autocapture off.'),
  autocapture_exceptions_opt_in: z.boolean().describe('Capture JS exceptions.'),
  autocapture_exceptions_errors_to_ignore: advertiseAs(stringsOrObject.describe('Messages not to capture.'), stringList),
  capture_console_log_opt_in: z.boolean().describe('Console logs in recordings.'),
  capture_performance_opt_in: z.boolean().describe('Network timing.'),
  session_recording_opt_in: z.boolean().describe('Record sessions.'),
  access_control: z.boolean().describe('Members only.'),
  primary_dashboard: z.number().int().positive().describe('Home dashboard id.'),
  live_events_columns: stringList.describe('Live events view columns.'),
  recording_domains: stringList.describe('Record only on these origins.'),
  inject_web_apps: z.boolean().describe('Load site apps into pages.'),
  extra_settings: json.describe('Other settings by key.'),
  has_completed_onboarding_for: json.describe('E.g. {"session_replay":true}.'),
};

/**
 * "clear" removes a setting (PostHog stores null). Not null itself: docs/design.md, "Inputs as hosts send them" reads null as "not
 * given", and strict-mode hosts send null for every field the model left out, which would
 * silently clear settings on an unrelated change.
 */
export const CLEAR = 'clear';
const clearable = <T extends z.ZodType>(schema: T) =>
  z.union([schema, z.literal(CLEAR)], {
    // What is wrong with the value itself, not zod's bare "Invalid input" for the union.
    error: (issue) => {
      const first = (issue as { errors?: z.core.$ZodIssue[][] }).errors?.[0]?.[0];
      return first ? `${first.path.length ? `${first.path.join('.')}: ` : ''}${first.message} (or "${CLEAR}")` : undefined;
    },
  });

const twoDecimals = (n: number) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-9;

/**
 * Replay settings of today's PostHog (docs/posthog-api.md, "Projects"), with the types and ranges its
 * newest serializer enforces; the tool description says what "clear" does, once.
 */
export const replaySettingsFields = {
  product_description: z.string().trim().max(1000).describe('What the product does.'),
  week_start_day: clearable(z.number().int().min(0).max(1)).describe('0 Sunday, 1 Monday.'),
  session_recording_sample_rate: clearable(z.number().min(0).max(1).refine(twoDecimals, 'at most 2 decimal places, e.g. 0.25')).describe(
    'Share recorded, 0-1 (0.25 = 25%).',
  ),
  session_recording_minimum_duration_milliseconds: clearable(z.number().int().min(0).max(30_000)).describe('Skip shorter sessions.'),
  session_recording_retention_period: z.enum(RETENTION_PERIODS).describe('Kept this long; plan may cap it.'),
  session_recording_linked_flag: clearable(
    z.strictObject({
      id: z.number().int().positive().describe('Flag id.'),
      key: z.string().min(1).max(400).describe('Flag key.'),
      variant: z.string().max(400).optional().describe('Only this variant.'),
    }),
  ).describe('Record only while this flag is on.'),
  session_recording_network_payload_capture_config: clearable(
    z.strictObject({ recordHeaders: z.boolean().describe('Headers.'), recordBody: z.boolean().describe('Bodies.') }),
  ).describe('Network payloads to record.'),
  session_recording_masking_config: clearable(
    z.strictObject({
      maskAllInputs: z.boolean().optional().describe('Mask all inputs.'),
      maskTextSelector: z.string().max(2000).optional().describe('CSS of text to hide.'),
      blockSelector: z.string().max(2000).optional().describe('CSS of elements to block.'),
    }),
  ).describe('Masking; replaces the stored one.'),
  session_replay_config: z.strictObject({ record_canvas: z.boolean().describe('Record <canvas>.') }).describe('Merged into the stored one.'),
};

/** Which settings PostHog merges into the stored value rather than replacing it. */
export const MERGED_FIELDS: ReadonlySet<string> = new Set(['session_replay_config']);

/** What the tool description adds, once, about the replay settings. */
export const CLEAR_NOTE = `"clear" unsets a setting.`;

const allProjectFields = { ...writableProjectFields, ...replaySettingsFields };

/** The same fields, each optional: what project-update takes, and project-create besides its name. */
export const optionalProjectFields = Object.fromEntries(Object.entries(allProjectFields).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof allProjectFields]: z.ZodOptional<(typeof allProjectFields)[K]>;
};

/** The body PostHog is sent: the fields given, "clear" as null. */
export function requestBody(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined).map(([k, v]) => [k, v === CLEAR ? null : v]));
}

/** A field PostHog's answer shows it did not take as sent (ignored, or stored otherwise). */
export interface UnappliedField {
  field: string;
  /** What PostHog stored instead; absent when its answer has no such field (ignored). */
  stored?: unknown;
}

/**
 * Compares what was sent with PostHog's answer. PostHog quietly ignores fields its serializer no
 * longer has (today slack_incoming_webhook) and may normalise others; a write result must not
 * report those as applied.
 */
export function unappliedFields(sent: Record<string, unknown>, answer: Record<string, unknown>): UnappliedField[] {
  const unapplied: UnappliedField[] = [];
  for (const [field, value] of Object.entries(sent)) {
    if (!(field in answer)) unapplied.push({ field });
    else if (!(MERGED_FIELDS.has(field) ? containedIn(value, answer[field]) : sameValue(value, answer[field]))) unapplied.push({ field, stored: answer[field] });
  }
  return unapplied;
}

/** A merged setting took what was sent when every key sent is stored with that value (objects merged a level down too). */
function containedIn(sent: unknown, stored: unknown): boolean {
  if (sent === null || typeof sent !== 'object' || Array.isArray(sent)) return sameValue(sent, stored);
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return false;
  return Object.entries(sent).every(([k, v]) => k in stored && containedIn(v, (stored as Record<string, unknown>)[k]));
}

function sameValue(sent: unknown, stored: unknown): boolean {
  if (typeof sent === 'string' && typeof stored === 'string') return sent.trim() === stored.trim();
  if (typeof sent === 'number' && typeof stored === 'string') return stored.trim() !== '' && Number(stored) === sent;
  if (Array.isArray(sent)) return Array.isArray(stored) && sent.length === stored.length && sent.every((v, i) => sameValue(v, stored[i]));
  if (typeof sent === 'object' && sent !== null) {
    if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return false;
    const a = sent as Record<string, unknown>;
    const b = stored as Record<string, unknown>;
    return Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => k in b && sameValue(a[k], b[k]));
  }
  return sent === stored;
}

/** "PostHog did not apply: x (ignored), y (stored …)". */
export function unappliedText(unapplied: UnappliedField[]): string {
  const parts = unapplied.map((u) =>
    'stored' in u ? `${u.field} (PostHog stored ${clip(unbidi(JSON.stringify(u.stored) ?? 'nothing'), 120)} instead)` : `${u.field} (ignored: this PostHog does not take it)`,
  );
  return `PostHog did not apply: ${parts.join('; ')}.`;
}

/** A project id: an integer, also taken as a numeric string ("1001"), as people and hosts pass it (docs/design.md, "Inputs as hosts send them"). Advertised as the integer. */
export const projectIdInput = z
  .preprocess(
    (v) => (typeof v === 'string' && /^\s*\d{1,15}\s*$/.test(v) ? Number(v) : v),
    z.number('id must be a project number like 12345 (see projects-list)').int('id must be a whole project number like 12345').positive('id must be a project number like 12345 (see projects-list)'),
  )
  .describe('Project id (projects-list).');

export const projectNotFound = (id: number) => `No project ${id} visible to this key: it may not exist, be deleted, or be in another organization. Call projects-list to see valid ids.`;

/**
 * PostHog's 403 for a retention period longer than the organization's plan allows ("… longest
 * allowable retention period is '90d'."), as a next step; undefined for another 403 (a scope).
 */
export function retentionRefused(detail: string | undefined, asked: string): string | undefined {
  if (!detail || !/retention/i.test(detail)) return undefined;
  const longest = /longest allowable retention period is '([^']{1,10})'/.exec(detail)?.[1];
  const shorter = longest ? periodsUpTo(longest as RetentionPeriod) : [];
  return `Nothing was changed: the organization's plan does not allow keeping recordings ${asked}${longest ? `; the longest it allows is ${longest}` : ''}. Pick ${shorter.length ? shorter.join(' or ') : 'a shorter period'}, or raise the plan's replay retention in PostHog (Billing).`;
}

/** The plan's longest replay retention as project-get gives it, in both views (retentionLine renders it). */
export type RetentionFacts = { retention_allowed: RetentionPeriod } | { retention_allowed_unknown: string };

export function retentionFacts(cap: RetentionCap): RetentionFacts {
  return 'longest' in cap ? { retention_allowed: cap.longest } : { retention_allowed_unknown: cap.unknown };
}

/** One line: how long the project keeps recordings, and the longest its organization's plan allows. */
export function retentionLine(facts: RetentionFacts, kept: unknown): string {
  if ('retention_allowed_unknown' in facts) return `The plan's longest replay retention is not known: ${facts.retention_allowed_unknown}.`;
  const allowed = facts.retention_allowed;
  const choices = `(session_recording_retention_period: ${periodsUpTo(allowed).join(' or ')})`;
  return isRetentionPeriod(kept) ? `Recordings kept ${kept}; the organization's plan allows up to ${allowed} ${choices}.` : `The organization's plan allows keeping recordings up to ${allowed} ${choices}.`;
}
