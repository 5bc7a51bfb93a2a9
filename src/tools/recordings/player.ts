import { readPlayerHtml } from '../../watch/player-html.js';

/**
 * The recording player: an MCP App (the MCP Apps extension, `io.modelcontextprotocol/ui`), one
 * self-contained HTML document that `npm run build` bundles from src/app/ into dist/app/.
 * The constants are the extension's own values, written here rather than imported from
 * @modelcontextprotocol/ext-apps/server, which costs ~40 ms to load at every start-up (a unit
 * test checks they match the library's).
 */
export const PLAYER_URI = 'ui://posthog-replay/player.html';
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** What the player reads of a replay result, and under which `_meta` key: shared with the app (player-data.ts). */
export { PLAYER_META, type PlayerData } from '../../player-data.js';

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
  read: readPlayerHtml,
};
