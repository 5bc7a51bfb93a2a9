/**
 * Sort fields PostHog's recordings list accepts (docs/posthog-api.md, "Recordings list"). The newest code also
 * has a feature-flagged `surfacing_score`, left out here because it silently falls back to
 * start_time where the flag is off.
 */
export const RECORDING_ORDERS = [
  'start_time',
  'duration',
  'recording_duration',
  'active_seconds',
  'inactive_seconds',
  'console_error_count',
  'click_count',
  'keypress_count',
  'mouse_activity_count',
  'activity_score',
  'recording_ttl',
] as const;
