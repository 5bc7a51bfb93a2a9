import { z } from 'zod';
import { UpstreamUnavailableError } from '../../errors.js';
import { clip, joinParts, shortTime } from '../format.js';
import { timezoneField } from '../schemas.js';

/** Project secrets and credentials never reach the model, even when settings are asked for. */
const SECRET_FIELDS = new Set(['secret_api_token', 'secret_api_token_backup', 'live_events_token']);

export const projectOutput = z.looseObject({
  id: z.number().int(),
  uuid: z.string().nullish(),
  name: z.string().nullish(),
  organization: z.string().nullish(),
  timezone: z.string().nullish(),
  is_demo: z.boolean().nullish(),
  ingested_event: z.boolean().nullish(),
  omitted_fields: z.array(z.string()).optional().describe('Settings left out to save tokens; ask with include_settings=true.'),
});

export type ProjectOutput = z.infer<typeof projectOutput>;

/**
 * A project for the model: scalar fields and short lists kept; settings objects and long lists
 * (filters, onboarding maps, ~90 fields in all) named in omitted_fields unless asked for.
 */
export function projectView(raw: Record<string, unknown>, includeSettings: boolean): ProjectOutput {
  const view: Record<string, unknown> = {};
  const omitted: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (SECRET_FIELDS.has(key)) continue;
    const heavy = (typeof value === 'object' && value !== null && !Array.isArray(value)) || (Array.isArray(value) && (value.length > 10 || value.some((v) => typeof v === 'object')));
    if (heavy && !includeSettings) omitted.push(key);
    else view[key] = value;
  }
  if (omitted.length > 0) view.omitted_fields = omitted;
  // The id is what every next call needs; a body without a usable one is not a project.
  const id = typeof raw.id === 'number' ? raw.id : Number(raw.id);
  if (!Number.isInteger(id)) throw new UpstreamUnavailableError('malformed', 'PostHog answered with a project that has no id; check POSTHOG_HOST points at the PostHog app.');
  view.id = id;
  for (const key of ['uuid', 'name', 'organization', 'timezone'] as const) {
    if (view[key] !== undefined && view[key] !== null && typeof view[key] !== 'string') view[key] = String(view[key]);
  }
  for (const key of ['is_demo', 'ingested_event'] as const) {
    if (view[key] !== undefined && view[key] !== null && typeof view[key] !== 'boolean') view[key] = null;
  }
  return view as ProjectOutput;
}

export function projectLine(p: Record<string, unknown>): string {
  return joinParts([
    `${p.id} "${clip(String(p.name ?? ''), 80)}"`,
    p.timezone ? String(p.timezone) : '',
    p.is_demo ? 'demo' : '',
    p.ingested_event === false ? 'no events yet' : '',
  ]);
}

/** Every field of a project, one per line, heavy ones compacted. */
export function projectDetail(p: ProjectOutput, heading: string): string {
  const lines = [heading];
  for (const [key, value] of Object.entries(p)) {
    if (key === 'omitted_fields' || value === null || value === undefined || value === '') continue;
    const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
    lines.push(`${key}: ${clip(key.endsWith('_at') ? shortTime(text) : text, 300)}`);
  }
  if (p.omitted_fields?.length) lines.push(`(settings left out: ${p.omitted_fields.join(', ')}; include_settings=true shows them)`);
  return lines.join('\n');
}

const json = z.record(z.string(), z.unknown());
const stringList = z.array(z.string().max(2000)).max(1000);

/** The writable fields of api-interface.md §4.2, with their types, all optional. */
export const writableProjectFields = {
  name: z.string().trim().min(1).max(200).describe('Project name, unique in the organization (ignoring case).'),
  app_urls: stringList.describe('URLs of the apps this project tracks (toolbar, heatmaps).'),
  slack_incoming_webhook: z.string().max(2000).describe('Slack incoming webhook URL for notifications.'),
  anonymize_ips: z.boolean().describe('Drop client IP addresses from events.'),
  completed_snippet_onboarding: z.boolean().describe('Whether the PostHog snippet install step is done.'),
  test_account_filters: json.describe('Filters that identify internal/test users.'),
  test_account_filters_default_checked: z.boolean().describe('Filter out test accounts by default in insights.'),
  path_cleaning_filters: json.describe('Rules that normalize URL paths.'),
  is_demo: z.boolean().describe('Mark the project as a demo project.'),
  timezone: timezoneField,
  data_attributes: json.describe('Element data attributes used for autocapture selectors.'),
  person_display_name_properties: stringList.describe('Person properties used as display names, in order.'),
  correlation_config: json.describe('Correlation analysis settings (excluded properties and events).'),
  autocapture_opt_out: z.boolean().describe('Turn autocapture off.'),
  autocapture_exceptions_opt_in: z.boolean().describe('Capture JavaScript exceptions.'),
  autocapture_exceptions_errors_to_ignore: json.describe('Exception messages that exception autocapture ignores.'),
  capture_console_log_opt_in: z.boolean().describe('Capture console logs in recordings.'),
  capture_performance_opt_in: z.boolean().describe('Capture network performance in recordings.'),
  session_recording_opt_in: z.boolean().describe('Turn session recording on.'),
  access_control: z.boolean().describe('Restrict the project to members given access.'),
  primary_dashboard: z.number().int().positive().describe('Id of the project\'s home dashboard.'),
  live_events_columns: stringList.describe('Columns shown in the live events view.'),
  recording_domains: stringList.describe('Domains allowed to send recordings.'),
  inject_web_apps: z.boolean().describe('Allow site apps to be injected into the tracked site.'),
  extra_settings: json.describe('Other project settings, as key/value pairs.'),
  has_completed_onboarding_for: json.describe('Onboarding completion per product, e.g. {"session_replay": true}.'),
};

/** The same fields, each optional: what project-update takes, and project-create besides its name. */
export const optionalProjectFields = Object.fromEntries(Object.entries(writableProjectFields).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof writableProjectFields]: z.ZodOptional<(typeof writableProjectFields)[K]>;
};

export const projectIdInput = z.number().int().positive().describe('The project id (a number; projects-list shows them).');

export const projectNotFound = (id: number) => `No project ${id} visible to this key: it may not exist, be deleted, or be in another organization. Call projects-list to see valid ids.`;
