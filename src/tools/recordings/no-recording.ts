// Why PostHog has no recording of a session that has events (issue 40 item 4): what posthog-js
// wrote about its recorder on all of the session's events, read against the project's replay
// settings (docs/posthog-api.md, "Projects" and "Why a session has no recording"). Only the recorder's own words are compared, and only
// values from posthog-js's fixed lists are repeated: a visitor's browser writes these properties.

import { z } from 'zod';
import { UpstreamError, UpstreamUnavailableError, isAnswerableFailure } from '../../errors.js';
import type { PostHogOperations, Project, SessionRecorderState } from '../../posthog/operations/index.js';

const NO_RECORDING_CAUSES = ['sampled_out', 'too_short', 'replay_off', 'expired', 'not_yet_ingested', 'unknown'] as const;
export type NoRecordingCause = (typeof NO_RECORDING_CAUSES)[number];

export const noRecordingOutput = z.object({
  cause: z.enum(NO_RECORDING_CAUSES).describe('unknown: the events cannot tell.'),
  detail: z.string(),
  next_step: z.string(),
  session_events: z.number().int().describe("The session's events PostHog has."),
  first_seen: z.string().nullable(),
  last_seen: z.string().nullable(),
  sample_rate: z.number().nullable().optional(),
});
export type NoRecording = z.output<typeof noRecordingOutput>;

/** The project's replay settings as they are now (they may have changed since the session). */
export interface ReplaySettings {
  optIn: boolean | null;
  sampleRate: number | null;
  minimumDurationMs: number | null;
  retention: string | null;
}

/** A session whose last event is this recent may still be going on, or its recording still on its way. */
const INGESTION_LAG_MS = 10 * 60_000;

/** posthog-js's `$recording_status` values (docs/posthog-api.md, "Why a session has no recording"): only these are ever repeated. */
const STATUS_MEANING: Record<string, string> = {
  disabled: 'disabled',
  lazy_loading: 'loading',
  buffering: 'buffering',
  active: 'recording',
  sampled: 'recording (sampled in)',
  paused: 'paused (URL blocked)',
  awaiting_config: 'waiting for its config',
  missing_config: 'without its config',
  rrweb_error: 'failed (rrweb error)',
};
const RUNNING = new Set(['active', 'sampled', 'buffering']);
const NOT_RUNNING = new Set(['disabled', 'lazy_loading']);
const RETENTION_DAYS: Record<string, number> = { '30d': 30, '90d': 90, '1y': 365, '5y': 1825 };
const DAY_MS = 86_400_000;

const seconds = (ms: number) => (ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : ms < 2 * 3_600_000 ? `${Math.round(ms / 60_000)} min` : `${(ms / 3_600_000).toFixed(1)} h`);
const percent = (rate: number) => `${Math.round(rate * 1000) / 10} %`;

function replaySettingsOf(project: Project): ReplaySettings {
  const record = project as Record<string, unknown>;
  const number = (value: unknown) => {
    const n = typeof value === 'number' ? value : typeof value === 'string' ? Number.parseFloat(value) : Number.NaN;
    return Number.isFinite(n) ? n : null;
  };
  return {
    optIn: typeof project.session_recording_opt_in === 'boolean' ? project.session_recording_opt_in : null,
    sampleRate: number(project.session_recording_sample_rate),
    minimumDurationMs: number(record.session_recording_minimum_duration_milliseconds),
    retention: typeof project.session_recording_retention_period === 'string' ? project.session_recording_retention_period : null,
  };
}

/**
 * The one cause the session's events show, or 'unknown' saying what they do show. `settings` is
 * a string when the project could not be read (why).
 */
export function diagnose(state: SessionRecorderState, settings: ReplaySettings | string, nowMs: number): NoRecording {
  const known = typeof settings === 'string' ? undefined : settings;
  const unread = typeof settings === 'string' ? ` (the project's settings could not be read: ${settings})` : '';
  const first = Date.parse(state.firstSeen ?? '');
  const last = Date.parse(state.lastSeen ?? '');
  const span = Number.isFinite(first) && Number.isFinite(last) ? Math.max(0, last - first) : 0;
  const statuses = state.statuses.filter((s) => Object.hasOwn(STATUS_MEANING, s));
  const dropped = state.sampling.some((v) => v.startsWith('!') || v === 'false');
  const kept = state.sampling.some((v) => !v.startsWith('!') && v !== 'false');
  const eventRate = state.rates.length > 0 ? Math.min(...state.rates) : null;
  const rate = eventRate ?? known?.sampleRate ?? null;
  const ran = kept || state.reasons.length > 0 || statuses.some((s) => RUNNING.has(s));
  const onlyIdle = statuses.length > 0 && statuses.every((s) => NOT_RUNNING.has(s));
  // groupUniqArray keeps no order in ClickHouse: the states are listed, not sequenced.
  const seen = statuses.length ? `its ${state.events} events say the recorder was ${statuses.map((s) => STATUS_MEANING[s]).join(' or ')}` : `none of its ${state.events} events says what the recorder was doing`;
  const answer = (cause: NoRecordingCause, detail: string, next_step: string): NoRecording => ({
    cause,
    detail,
    next_step,
    session_events: state.events,
    first_seen: state.firstSeen,
    last_seen: state.lastSeen,
    ...(cause === 'sampled_out' ? { sample_rate: rate } : {}),
  });
  const raiseRate = 'To record more sessions, raise session_recording_sample_rate (project-update).';

  // Sampling is decided once per session and written on every later event.
  if ((dropped && !kept) || (!ran && onlyIdle && eventRate !== null && eventRate < 1 && state.sampling.length === 0)) {
    return answer('sampled_out', `posthog-js dropped this session by sampling: the project records ${rate === null ? 'a sample' : `${percent(rate)} of sessions (sample rate ${rate})`}, and the session's events say it was not among them.`, raiseRate);
  }
  if (!ran) {
    if (known?.optIn === false && (onlyIdle || statuses.length === 0) && state.sampling.length === 0) {
      return answer('replay_off', `Replay is switched off in this project (session_recording_opt_in is false), and ${onlyIdle ? 'every event says the recorder was disabled' : 'no event carries a recorder state'}.`, 'Switch replay on with project-update (session_recording_opt_in: true); sessions from then on are recorded.');
    }
    const project = known?.optIn ? ', though the project has replay on now' : unread;
    const maybe = onlyIdle ? `replay was not running in this session (${seen})${project}: it may have been off then, the recorder blocked (an ad blocker), or the plan's recording quota reached.` : `${seen}${project}.`;
    return answer('unknown', `The events cannot tell: ${maybe}`, "Check the project's replay settings (project-get with include_settings) and PostHog's billing quota.");
  }
  if (Number.isFinite(last) && nowMs - last < INGESTION_LAG_MS) {
    return answer('not_yet_ingested', `The session's last event was ${seconds(Math.max(0, nowMs - last))} ago and replay was running: PostHog may still be ingesting its recording, or the session is still going on.`, 'Call session-recording-get again in a few minutes.');
  }
  const minimum = known?.minimumDurationMs ?? null;
  if (minimum !== null && minimum > 0 && span < minimum) {
    return answer('too_short', `The session lasted ${seconds(span)} by its events, shorter than the project's minimum duration (session_recording_minimum_duration_milliseconds ${minimum}): posthog-js never sends a recording that ends sooner.`, 'Lower session_recording_minimum_duration_milliseconds (project-update) to keep shorter sessions.');
  }
  const retention = known ? (known.retention ?? '30d') : null;
  const days = retention === null ? undefined : RETENTION_DAYS[retention];
  if (days !== undefined && Number.isFinite(first) && Math.floor(first / DAY_MS) * DAY_MS + days * DAY_MS < nowMs) {
    return answer('expired', `The session was recorded, but it began ${Math.floor((nowMs - first) / DAY_MS)} days ago and this project keeps recordings ${days} days (session_recording_retention_period "${retention}"): it has expired.`, 'A longer session_recording_retention_period (project-update, as the plan allows) keeps new recordings longer; this one is gone.');
  }
  const oddities = statuses.filter((s) => !RUNNING.has(s) && !NOT_RUNNING.has(s)).map((s) => STATUS_MEANING[s]);
  return answer(
    'unknown',
    `The events cannot tell: ${seen}, the session lasted ${seconds(span)}${oddities.length ? ` and the recorder was also ${oddities.join(', ')}` : ''}${unread}. The recording may have been deleted or lost in ingestion.`,
    'session-recordings-list with session_ids and an early date_from shows whether PostHog lists it.',
  );
}

/** What the call learned: an explanation, no events at all (a plain not-found), or why it could not look. */
export type Explanation = { kind: 'explained'; noRecording: NoRecording } | { kind: 'no-events' } | { kind: 'unchecked'; why: string };

/**
 * Reads the session's events (one bounded query) and, when there are some, the project's replay
 * settings (one request), and says why there is no recording. Cancelling throws.
 */
export async function explainMissingRecording(posthog: PostHogOperations, projectId: string, sessionId: string, signal: AbortSignal, nowMs = Date.now()): Promise<Explanation> {
  let state: SessionRecorderState | null;
  try {
    state = await posthog.sessions.recorderState(projectId, sessionId, { signal });
  } catch (error) {
    const why = whyUnchecked(error, signal);
    return why === null ? { kind: 'no-events' } : { kind: 'unchecked', why };
  }
  if (state === null || state.events === 0) return { kind: 'no-events' };
  let settings: ReplaySettings | string;
  try {
    settings = replaySettingsOf(await posthog.projects.get(projectId, { signal }));
  } catch (error) {
    if (!isAnswerableFailure(error, signal)) throw error;
    settings = error instanceof UpstreamError ? `PostHog answered ${error.status}` : error.message;
  }
  return { kind: 'explained', noRecording: diagnose(state, settings, nowMs) };
}

/** Why the query could not be made, in a few words; null where the project itself is unknown (a plain not-found says it). Cancelling and our own bugs throw. */
function whyUnchecked(error: unknown, signal: AbortSignal): string | null {
  if (signal.aborted) throw error;
  if (error instanceof UpstreamError) {
    if (error.status === 403) return /scope/i.test(error.detail ?? '') || !error.detail ? 'the key lacks the query:read scope PostHog\'s query API needs (add it under PostHog → Settings → Personal API keys)' : 'the query API refused the key for this project (403)';
    if (error.status === 404 && /project/i.test(error.detail ?? '')) return null;
    if (error.status === 404 || error.status === 405) return `this PostHog has no query API (it answered ${error.status})`;
    if (error.status === 429) return `the query API is rate limiting this key${error.retryAfterSeconds !== undefined ? ` (retry in about ${Math.ceil(error.retryAfterSeconds)} s)` : ''}`;
    return `the query API answered ${error.status}`;
  }
  if (error instanceof UpstreamUnavailableError) {
    if (error.kind === 'cancelled') throw error;
    const said: Record<string, string> = { timeout: 'the query API did not answer in time', connection: 'the query API could not be reached', malformed: "the query API's answer could not be read", budget: 'this call had no time or requests left for the query' };
    return said[error.kind] ?? 'the query API did not answer';
  }
  throw error;
}

/** A plain not-found that also says why the reason could not be looked for (explainError reads it). */
export class UncheckedNotFound extends UpstreamError {
  constructor(
    error: UpstreamError,
    readonly why: string,
  ) {
    super({ status: error.status, method: error.method, path: error.path, detail: error.detail, code: error.code, type: error.type, attr: error.attr, retryAfterSeconds: error.retryAfterSeconds });
  }
}

/** The text view of an explanation: the same facts as the structured one. */
export function noRecordingText(sessionId: string, projectId: string, why: NoRecording): string {
  const span = Date.parse(why.last_seen ?? '') - Date.parse(why.first_seen ?? '');
  const when = why.first_seen && why.last_seen ? ` from ${why.first_seen} to ${why.last_seen}${Number.isFinite(span) ? ` (${seconds(span)})` : ''}` : '';
  return [
    `No recording of session ${sessionId} in project ${projectId} (PostHog answered 404), but the session has ${why.session_events} events${when}.`,
    `Why (${why.cause}): ${why.detail}`,
    `Next: ${why.next_step}`,
  ].join('\n');
}
