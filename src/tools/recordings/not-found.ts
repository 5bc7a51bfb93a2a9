import type { UpstreamError } from '../../errors.js';

/** What a recording tool says when PostHog has no such recording for the key: which id, where, and where valid ones are listed. */
export const recordingNotFound = (id: string, projectId: string | undefined) =>
  `No recording "${id}" in project ${projectId ?? '(default)'}: it may have expired, been deleted, or belong to another project. Call session-recordings-list (with date_from for older ones) to see valid ids.`;

/** The next step for a recording that is not there (404) or was deleted (410), as every tool that reads one says it. */
export function explainRecordingError(error: UpstreamError, id: string, projectId: string | undefined): string | undefined {
  if (error.status === 404) return recordingNotFound(id, projectId);
  if (error.status === 410) return `Recording ${id} was deleted; its snapshot data is gone.`;
  return undefined;
}
