// projects-list's recording columns: PostHog's list has no replay switch, sample rate or
// pending deletion, so each listed project's own record is read, for the first rows only.

import { UpstreamError } from '../../errors.js';
import { BudgetExceeded } from '../../posthog/budget.js';
import type { Project, ProjectOperations } from '../../posthog/operations/index.js';
import { clip } from '../format.js';
import type { ProjectRow } from './shape.js';

/** How many rows of a projects-list page get their own record read (one request each). */
export const SETTINGS_READ_LIMIT = 10;
const SETTINGS_CONCURRENCY = 3;

/**
 * The replay switch, sample rate and pending deletion of the first SETTINGS_READ_LIMIT rows,
 * from each project's own record (PostHog's list has none of them). A row whose record cannot
 * be read says why; a stopped call budget leaves the rest unread and says so; cancelling throws.
 */
export async function readRecordingSettings(projects: ProjectOperations, rows: ProjectRow[], signal: AbortSignal): Promise<ProjectRow[]> {
  const out = rows.map((r) => ({ ...r }));
  let next = 0;
  let stopped: string | undefined;
  const worker = async () => {
    while (next < Math.min(out.length, SETTINGS_READ_LIMIT)) {
      const row = out[next++]!;
      if (stopped) {
        row.settings_not_read = stopped;
        continue;
      }
      try {
        Object.assign(row, recordingSettingsOf(await projects.get(row.id, { signal }), row.id));
      } catch (err) {
        if (signal.aborted) throw err;
        if (err instanceof BudgetExceeded) {
          stopped = 'this call ran out of time or requests before it';
          row.settings_not_read = stopped;
        } else if (err instanceof UpstreamError && err.status === 404) row.settings_not_read = 'PostHog answered 404 (deleted since the list?)';
        else row.settings_not_read = clip(err instanceof Error ? err.message : String(err), 160);
      }
    }
  };
  await Promise.all(Array.from({ length: SETTINGS_CONCURRENCY }, worker));
  return out;
}

function recordingSettingsOf(p: Project, id: number): Partial<ProjectRow> {
  if (p.id !== id) return { settings_not_read: `PostHog answered with project ${p.id}, not ${id}` };
  const found: Partial<ProjectRow> = {};
  if (typeof p.session_recording_opt_in === 'boolean') found.recording = p.session_recording_opt_in ? 'on' : 'off';
  // Served as a decimal string ("0.50"); null records every session, said as 1 (all sessions).
  const served = p.session_recording_sample_rate;
  const rate = served === null ? 1 : served === undefined ? NaN : Number(served);
  if (Number.isFinite(rate) && rate >= 0 && rate <= 1) found.sample_rate = rate;
  if (p.is_pending_deletion === true) found.pending_deletion = true;
  if (found.recording === undefined) found.settings_not_read = 'its record has no session_recording_opt_in';
  return found;
}
