import { readFile } from 'node:fs/promises';
import type { Moment } from '../../digest/model.js';

/**
 * The recording player: an MCP App (the MCP Apps extension, `io.modelcontextprotocol/ui`), one
 * self-contained HTML document that `npm run build` bundles from src/app/ into dist/app/.
 * The constants are the extension's own values, written here rather than imported from
 * @modelcontextprotocol/ext-apps/server, which costs ~40 ms to load at every start-up (a unit
 * test checks they match the library's).
 */
export const PLAYER_URI = 'ui://posthog-replay/player.html';
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * The key of session-recording-replay's result `_meta` that holds what the player reads: the host
 * hands the view the whole result, `_meta` included, and the model does not see `_meta` (the
 * model reads the digest, in the text or structuredContent).
 */
export const PLAYER_META = 'posthog-replay/player';

/**
 * What the player reads of a replay result. Times are ms from the recording's first event.
 * Moments are the digest's, over the whole recording read (not cut to a text budget).
 */
export interface PlayerData {
  project_id: string;
  id: string;
  start_time: string | null;
  duration_ms: number;
  start_at_ms: number;
  posthog_url: string | null;
  windows: Array<{ w: string; window_id: string | null }>;
  moments: Moment[];
  /** Reading stopped short: the moments cover the first `digest_covers_ms` only. */
  partial?: { digest_covers_ms: number };
}

/**
 * The player fetches nothing: its code, styles and the recording's events all come inline or
 * through the host's bridge. Empty lists tell the host to allow no outside origin at all.
 */
export const PLAYER_CSP = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

export interface AppResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  /** `_meta` of the resource and of its content (csp, prefersBorder) */
  meta: Record<string, unknown>;
  read: () => Promise<string>;
}

export const playerResource: AppResource = {
  uri: PLAYER_URI,
  name: 'session-recording-player',
  title: 'Session recording player',
  description: 'Plays a PostHog session recording (rrweb) with the digest\'s moments on the timeline; shown by hosts for session-recording-replay.',
  mimeType: APP_MIME_TYPE,
  meta: { ui: { csp: PLAYER_CSP, prefersBorder: true } },
  read: () => (html ??= loadHtml()),
};

let html: Promise<string> | undefined;

/** dist/app/player.html; from source (tests), the built copy under dist/. */
async function loadHtml(): Promise<string> {
  const candidates = [new URL('../../app/player.html', import.meta.url), new URL('../../../dist/app/player.html', import.meta.url)];
  for (const file of candidates) {
    try {
      return await readFile(file, 'utf8');
    } catch {
      // next candidate
    }
  }
  html = undefined;
  throw new Error('The player (dist/app/player.html) was not built: run npm run build.');
}
