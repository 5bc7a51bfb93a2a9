// The project object /api/projects/ serves: PostHog's ~90-field ProjectBackwardCompat shape with
// its defaults for a new project, the demo projects' values, and the list item.

import { createHmac, randomBytes } from 'node:crypto';
import { ORGANIZATION, TEST_ACCOUNT_FILTERS, type ProjectSeed } from './demo/catalog.js';
import { drfDate } from './util.js';

export type Project = Record<string, unknown> & { id: number; name: string };

const DAY = 86_400_000;

/** Fields of a project list item (docs/posthog-api.md, "Resources"). */
const LIST_FIELDS = [
  'id',
  'uuid',
  'organization',
  'api_token',
  'name',
  'completed_snippet_onboarding',
  'has_completed_onboarding_for',
  'ingested_event',
  'is_demo',
  'timezone',
  'access_control',
] as const;

const SETUP_TASKS = [
  'ingest_first_event',
  'set_up_reverse_proxy',
  'create_first_insight',
  'create_first_dashboard',
  'setup_session_recordings',
  'watch_session_recording',
  'track_custom_events',
  'define_actions',
  'set_up_first_feature_flag',
  'invite_teammate',
];

const DEFAULT_MODIFIERS = {
  personsOnEventsMode: 'person_id_override_properties_on_events',
  personsArgMaxVersion: 'auto',
  inCohortVia: 'auto',
  materializationMode: 'legacy_null_as_null',
  optimizeJoinedFilters: false,
  bounceRatePageViewMode: 'count_pageviews',
  sessionTableVersion: 'auto',
  sessionsV2JoinMode: 'string',
  propertyGroupsMode: 'optimized',
  useMaterializedViews: true,
  convertToProjectTimezone: true,
};

function liveEventsToken(id: number, apiToken: string): string {
  const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ team_id: id, api_token: apiToken, aud: 'posthog:livestream' })}`;
  return `${unsigned}.${createHmac('sha256', 'sandbox-livestream').update(unsigned).digest('base64url')}`;
}

interface Core {
  id: number;
  uuid: string;
  name: string;
  apiToken: string;
  createdMs: number;
  timezone: string;
}

/** Every field of the full project object, with PostHog's defaults for a new project. */
export function baseProject(core: Core): Project {
  const created = drfDate(core.createdMs);
  return {
    id: core.id,
    organization: ORGANIZATION.id,
    name: core.name,
    product_description: null,
    created_at: created,
    effective_membership_level: 15,
    has_group_types: false,
    group_types: [],
    live_events_token: liveEventsToken(core.id, core.apiToken),
    updated_at: created,
    uuid: core.uuid,
    api_token: core.apiToken,
    app_urls: [],
    slack_incoming_webhook: null,
    anonymize_ips: false,
    completed_snippet_onboarding: false,
    ingested_event: false,
    test_account_filters: [],
    test_account_filters_default_checked: false,
    path_cleaning_filters: [],
    is_demo: false,
    timezone: core.timezone,
    data_attributes: ['data-attr'],
    person_display_name_properties: ['email', 'name', 'username'],
    correlation_config: {},
    autocapture_opt_out: false,
    autocapture_exceptions_opt_in: false,
    autocapture_web_vitals_opt_in: false,
    autocapture_web_vitals_allowed_metrics: null,
    autocapture_exceptions_errors_to_ignore: null,
    capture_console_log_opt_in: true,
    capture_performance_opt_in: true,
    session_recording_opt_in: false,
    session_recording_sample_rate: null,
    session_recording_minimum_duration_milliseconds: null,
    session_recording_linked_flag: null,
    session_recording_network_payload_capture_config: null,
    session_recording_masking_config: null,
    session_recording_url_trigger_config: [],
    session_recording_url_blocklist_config: [],
    session_recording_event_trigger_config: [],
    session_recording_trigger_match_type_config: null,
    session_recording_trigger_groups: null,
    session_recording_retention_period: '30d',
    session_replay_config: { record_canvas: false, ai_config: null },
    survey_config: null,
    access_control: false,
    week_start_day: null,
    primary_dashboard: null,
    live_events_columns: null,
    recording_domains: [],
    person_on_events_querying_enabled: true,
    groups_on_events_querying_enabled: false,
    inject_web_apps: false,
    extra_settings: null,
    modifiers: {},
    default_modifiers: DEFAULT_MODIFIERS,
    has_completed_onboarding_for: {},
    surveys_opt_in: null,
    heatmaps_opt_in: null,
    product_intents: [],
    flags_persistence_default: false,
    secret_api_token: null,
    secret_api_token_backup: null,
    receive_org_level_activity_logs: false,
    business_model: null,
    conversations_enabled: false,
    conversations_settings: null,
    logs_settings: null,
    proactive_tasks_enabled: false,
    available_setup_task_ids: SETUP_TASKS,
    is_pending_deletion: false,
    project_id: core.id,
    user_access_level: 'admin',
    managed_viewsets: { revenue_analytics: false },
    revenue_analytics_config: { base_currency: 'USD', events: [], goals: [], filter_test_accounts: false },
    marketing_analytics_config: { sources_map: {}, conversion_goals: [], attribution_window_days: 90, attribution_mode: 'last_touch', campaign_name_mappings: {} },
    customer_analytics_config: { activity_event: null, signup_pageview_event: null, signup_event: null, subscription_event: null, payment_event: null, account_group_type_index: null },
    workflows_config: {},
    base_currency: 'USD',
    capture_dead_clicks: false,
    cookieless_server_hash_mode: 0,
    human_friendly_comparison_periods: false,
    feature_flag_confirmation_enabled: false,
    feature_flag_confirmation_message: '',
    default_evaluation_contexts_enabled: false,
    require_evaluation_contexts: false,
    default_data_theme: 1,
    onboarding_tasks: {},
    web_analytics_pre_aggregated_tables_enabled: false,
    event_retention_months: 84,
    events_retention_enforced: false,
  };
}

export function seedProject(seed: ProjectSeed, nowMs: number): Project {
  const createdMs = Math.floor((nowMs - seed.createdDaysAgo * DAY) / 1000) * 1000 - 41_000;
  const project = baseProject({ id: seed.id, uuid: seed.uuid, name: seed.name, apiToken: seed.apiToken, createdMs, timezone: seed.timezone });
  const live = seed.sessionRecordingOptIn;
  const onboarded = (days: number) => drfDate(createdMs + days * DAY);
  Object.assign(project, {
    product_description: seed.productDescription,
    updated_at: drfDate(Math.floor((nowMs - 6 * DAY) / 1000) * 1000 + 13_000),
    app_urls: seed.appUrls,
    recording_domains: seed.recordingDomains,
    ingested_event: seed.ingestedEvent,
    completed_snippet_onboarding: seed.completedSnippetOnboarding,
    session_recording_opt_in: live,
    session_recording_sample_rate: live ? (seed.id === 1001 ? '1.00' : '0.50') : null,
    session_recording_minimum_duration_milliseconds: live ? 2000 : null,
    session_recording_masking_config: live ? { maskAllInputs: false, maskTextSelector: null, blockSelector: '.ph-no-capture' } : null,
    session_recording_network_payload_capture_config: live ? { recordHeaders: false, recordBody: true } : null,
    autocapture_exceptions_opt_in: live,
    heatmaps_opt_in: live ? true : null,
    week_start_day: seed.weekStartDay,
    primary_dashboard: seed.primaryDashboard,
    test_account_filters: seed.ingestedEvent ? TEST_ACCOUNT_FILTERS : [],
    test_account_filters_default_checked: seed.ingestedEvent,
    business_model: seed.id === 1001 ? 'b2c' : null,
    has_completed_onboarding_for: seed.ingestedEvent ? { product_analytics: true, session_replay: true } : {},
    product_intents: seed.ingestedEvent
      ? [
          { product_type: 'product_analytics', created_at: onboarded(0), onboarding_completed_at: onboarded(1), updated_at: onboarded(1) },
          { product_type: 'session_replay', created_at: onboarded(2), onboarding_completed_at: onboarded(2), updated_at: onboarded(30) },
        ]
      : [],
    path_cleaning_filters: seed.id === 1001 ? [{ alias: '/products/<slug>', regex: '^/products/[^/]+$' }] : [],
  });
  return project;
}

export function newApiToken(): string {
  return `phc_${randomBytes(32).toString('base64url').replace(/[-_]/g, '').slice(0, 43)}`;
}

/** A project as list endpoints show it (docs/posthog-api.md, "Resources": the list row). */
export function projectListItem(project: Project): Record<string, unknown> {
  return Object.fromEntries(LIST_FIELDS.map((f) => [f, project[f]]));
}
