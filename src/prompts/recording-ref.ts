import { RECORDING_ID_PATTERN } from '../tools/schemas.js';

/** A recording as a person names it: its id, or the PostHog replay URL copied from the browser. */
export interface RecordingRef {
  id: string;
  /** The project the URL names (absent for a bare id). */
  projectId?: string;
}

const REPLAY_PATH = /^\/project\/(\d{1,15})\/replay\/([^/?#]+)\/?$|^\/replay\/([^/?#]+)\/?$/;

/**
 * `https://<host>/project/<pid>/replay/<id>?t=…` (US, EU or self-hosted) or a bare id; anything
 * else is an error message naming both accepted forms (SPEC §1's rule for recording ids).
 */
export function parseRecordingRef(text: string): RecordingRef | string {
  const value = text.trim();
  if (RECORDING_ID_PATTERN.test(value)) return { id: value };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'recording must be a recording id (letters, digits, "_" or "-") or a PostHog replay URL like https://us.posthog.com/project/12345/replay/<id>';
  }
  const match = (url.protocol === 'https:' || url.protocol === 'http:') && REPLAY_PATH.exec(url.pathname);
  const id = match ? decodeURIComponent(match[2] ?? match[3] ?? '') : '';
  if (!match || !RECORDING_ID_PATTERN.test(id)) {
    return 'recording URL must be a PostHog replay link, https://<host>/project/<project id>/replay/<recording id>';
  }
  return match[1] ? { id, projectId: match[1] } : { id };
}
