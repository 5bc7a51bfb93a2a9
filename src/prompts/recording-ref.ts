import { parseReplayUrl } from '../tools/input.js';
import { RECORDING_ID_PATTERN } from '../tools/schemas.js';

/** A recording as a person names it: its id, or the PostHog replay URL copied from the browser. */
export interface RecordingRef {
  id: string;
  /** The project the URL names (absent for a bare id). */
  projectId?: string;
}

/**
 * A bare id, or a replay URL in any form the tools take (tools/input.ts: US, EU or self-hosted
 * under a path, `/replay/` or `/recordings/`, a list with `sessionRecordingId`); anything else is
 * an error message naming both accepted forms (docs/design.md, "Recording ids").
 */
export function parseRecordingRef(text: string): RecordingRef | string {
  const value = text.trim();
  if (RECORDING_ID_PATTERN.test(value)) return { id: value };
  if (!/^https?:\/\//i.test(value)) {
    return 'recording must be a recording id (letters, digits, "_" or "-") or a PostHog replay URL like https://us.posthog.com/project/12345/replay/<id>';
  }
  const url = parseReplayUrl(value);
  if (!url || !RECORDING_ID_PATTERN.test(url.id) || (url.project !== undefined && url.project.length > 15)) {
    return 'recording URL must be a PostHog replay link, https://<host>/project/<project id>/replay/<recording id>';
  }
  return url.project !== undefined ? { id: url.id, projectId: url.project } : { id: url.id };
}
