import { isAnswerableFailure } from '../../errors.js';
import type { PostHogOperations } from '../../posthog/operations/index.js';
import { needsSessionContext, withSessionContext, type RecordingView } from './shape.js';

/** Events of a session may be stamped a little before its recording starts. */
const MARGIN_MS = 60 * 60_000;

/**
 * The rows whose person's record lacks a device or a country, given the session's own (its first
 * page view's properties: one request for the page, recordings.properties); a note instead where
 * PostHog would not say.
 */
export async function sessionContexts(posthog: PostHogOperations, projectId: string, rows: RecordingView[], signal?: AbortSignal): Promise<{ results: RecordingView[]; note?: string }> {
  const lacking = rows.filter(needsSessionContext);
  if (lacking.length === 0) return { results: rows };
  const starts = lacking.map((r) => Date.parse(typeof r.start_time === 'string' ? r.start_time : '')).filter(Number.isFinite);
  const from = new Date((starts.length ? Math.min(...starts) : Date.now() - 90 * 86_400_000) - MARGIN_MS).toISOString();
  try {
    const { result } = await posthog.recordings.properties(projectId, lacking.map((r) => r.id as string), from, { signal });
    const byId = new Map(result.map((p) => [p.id, p.properties]));
    return { results: rows.map((r) => (byId.has(r.id as string) && needsSessionContext(r) ? withSessionContext(r, byId.get(r.id as string)!) : r)) };
  } catch (error) {
    if (!isAnswerableFailure(error, signal)) throw error;
    return { results: rows, note: "The sessions' own device and country could not be read (their events' properties did not answer)." };
  }
}
