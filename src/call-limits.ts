/**
 * What one tool call may spend upstream, and its defaults: read by the settings table
 * (settings.ts) and spent by posthog/budget.ts, so below both.
 */

/** What one tool call may spend upstream (settings POSTHOG_CALL_MAX_REQUESTS, POSTHOG_CALL_TIMEOUT_MS, POSTHOG_THROTTLE_WAIT_MS). */
export interface CallLimits {
  /** Upstream requests (retries included) one tool call may make. */
  maxRequests: number;
  /** Wall clock of one tool call, waits included. */
  wallClockMs: number;
  /** How long the patient tools (summary, snapshots) may wait in all for PostHog's replay throttle. */
  throttleWaitMs: number;
  /** List + snapshot requests one triage call may spend on evidence digests (POSTHOG_TRIAGE_REPLAY_BUDGET; the query API's are not counted). */
  triageReplayBudget?: number;
}

/** One free-plan minute of PostHog's replay throttle (docs/posthog-api.md, "Throttles"). */
export const DEFAULT_TRIAGE_REPLAY_BUDGET = 12;

/**
 * The throttle wait is 40 s so that a call that waits, with the reading around its wait, still
 * answers within the 60 s an MCP client gives a request by default (the SDK's
 * DEFAULT_REQUEST_TIMEOUT_MSEC, not extended by progress unless the client asks): a partial
 * result with when to continue is worth more than an answer the client no longer waits for.
 */
export const DEFAULT_CALL_LIMITS: CallLimits = { maxRequests: 100, wallClockMs: 120_000, throttleWaitMs: 40_000 };
