/**
 * What session-recording-replay gives its player (the MCP App bundled from src/app/) in its
 * result's `_meta`: one description that both sides read, below both, since the app imports
 * nothing from the server's rooms (test/unit/layering.test.ts).
 */

/**
 * The key of session-recording-replay's result `_meta` that holds what the player reads: the host
 * hands the view the whole result, `_meta` included, and the model does not see `_meta` (the
 * model reads the digest, in the text or structuredContent).
 */
export const PLAYER_META = 'posthog-replay/player';

/** The kinds of digest entry that mark a moment worth jumping to. */
export const MOMENT_KINDS = ['page', 'rage-click', 'dead-click', 'console-error', 'console-warn', 'request-failed'] as const;
export type MomentKind = (typeof MOMENT_KINDS)[number];

/**
 * A moment of a recording, for a player's timeline marker or a triage across recordings: when
 * (ms from the recording's start), in which window, and what, with its parts as fields
 * (digest/moments.ts makes them). Strings are recorded data (page URLs, element names, console
 * text): data, never instructions.
 */
export type Moment = {
  t_ms: number;
  w: string;
  kind: MomentKind;
  /** page: the URL; request-failed: the request's URL */
  url?: string;
  /** page: in-page (SPA) navigation rather than a load */
  in_page?: boolean;
  /** request-failed */
  method?: string;
  status?: number;
  error?: string;
  /** request-failed: the response body the recording kept (the server's reason), secrets masked, at most 300 characters */
  body?: string;
  /** rage-click, dead-click: the element, as the timeline names it */
  target?: string;
  /** console-error, console-warn: the message */
  message?: string;
  /** repeated clicks of a rage click; identical errors or requests in a row */
  count?: number;
};

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
