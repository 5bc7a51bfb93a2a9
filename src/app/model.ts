import type { Moment, PlayerData } from '../player-data.js';
import { consoleText } from '../posthog/snapshots.js';
import { inertFrames } from './inert-frames.js';

/**
 * What the player knows about a recording, kept apart from the DOM: the digest's moments (from
 * the tool result, which may come after the first events) and, per window, the events as they
 * arrive, with the URL, console lines and failed requests read from them. Times are ms from the
 * recording's first event, as in the digest.
 */

export interface RrwebEvent {
  type: number;
  timestamp: number;
  data?: unknown;
}

export { PLAYER_META } from '../player-data.js';

/** What session-recording-replay's result gives the player (its `_meta[PLAYER_META]`), as the server writes it. */
export type ReplayDigest = PlayerData;

/** Until the tool result is in: no moments, no windows named yet. */
const NO_DIGEST: ReplayDigest = { project_id: '', id: '', start_time: null, duration_ms: 0, start_at_ms: 0, posthog_url: null, windows: [], moments: [] };

/** The digest kinds that become markers on the scrubber. */
export const MARKER_KINDS = new Set(['console-error', 'request-failed', 'rage-click', 'dead-click', 'page']);

export interface Marker {
  t: number;
  window: string | null;
  kind: string;
  label: string;
}

export interface LogLine {
  t: number;
  level: string;
  text: string;
}

export interface FailedRequest {
  t: number;
  /** method (when recorded) and URL */
  request: string;
  /** the HTTP status, or the error */
  status: string;
}

export class WindowTrack {
  readonly events: RrwebEvent[] = [];
  readonly urls: Array<{ t: number; url: string }> = [];
  readonly console: LogLine[] = [];
  readonly failed: FailedRequest[] = [];
  hasFullSnapshot = false;
  /** ids of the recorded frames seen so far (inert-frames.ts) */
  readonly frames = new Set<unknown>();
  constructor(readonly id: string | null, public label: string) {}
}

const FULL_SNAPSHOT = 2;
const META = 4;
const PLUGIN = 6;

export class RecordingModel {
  readonly windows = new Map<string | null, WindowTrack>();
  /** epoch ms of the recording's first event: the digest's start, else the first event seen */
  start: number | null;
  end = 0;
  digest: ReplayDigest = NO_DIGEST;
  hasDigest = false;

  constructor(digest?: ReplayDigest) {
    this.start = null;
    if (digest) this.setDigest(digest);
  }

  /**
   * The tool result's digest, whenever it comes: its start is the recording's, its window labels
   * are the ones its moments name (events already in are re-timed and relabelled to match).
   */
  setDigest(digest: ReplayDigest): void {
    this.digest = digest;
    this.hasDigest = true;
    const start = digest.start_time ? Date.parse(digest.start_time) : Number.NaN;
    if (Number.isFinite(start)) {
      if (this.start !== null && this.start !== start) this.shift(this.start - start);
      this.start = start;
    }
    for (const w of digest.windows) {
      const track = this.windows.get(w.window_id);
      if (track) track.label = w.w;
      else this.windows.set(w.window_id, new WindowTrack(w.window_id, w.w));
    }
    // Windows the digest does not name (it may cover only the start) keep labels of their own.
    const named = new Set(digest.windows.map((w) => w.window_id));
    for (const track of this.windows.values()) if (!named.has(track.id)) track.label = this.freeLabel(track);
  }

  /** Moves the times read off the events by `ms` (the recording's start became known as earlier or later). */
  private shift(ms: number): void {
    for (const track of this.windows.values()) {
      for (const list of [track.urls, track.console, track.failed]) for (const item of list) item.t += ms;
    }
  }

  private freeLabel(track: WindowTrack): string {
    const taken = new Set([...this.windows.values()].filter((w) => w !== track).map((w) => w.label));
    if (!taken.has(track.label)) return track.label;
    let n = 1;
    while (taken.has(`w${n}`)) n++;
    return `w${n}`;
  }

  /** Adds a page of [window id, event] pairs; returns the events added per window, in order. */
  ingest(pairs: Array<[string | null, RrwebEvent]>): Map<WindowTrack, RrwebEvent[]> {
    const added = new Map<WindowTrack, RrwebEvent[]>();
    for (const [windowId, event] of pairs) {
      if (typeof event?.timestamp !== 'number' || typeof event.type !== 'number') continue;
      this.start ??= event.timestamp;
      const track = this.track(windowId);
      inertFrames(event, track.frames);
      track.events.push(event);
      this.end = Math.max(this.end, event.timestamp);
      const t = event.timestamp - this.start;
      if (event.type === FULL_SNAPSHOT) track.hasFullSnapshot = true;
      if (event.type === META) {
        const href = (event.data as { href?: unknown } | undefined)?.href;
        if (typeof href === 'string') track.urls.push({ t, url: href });
      }
      if (event.type === PLUGIN) readPlugin(track, t, event.timestamp, event.data);
      let list = added.get(track);
      if (!list) added.set(track, (list = []));
      list.push(event);
    }
    return added;
  }

  track(windowId: string | null): WindowTrack {
    let track = this.windows.get(windowId);
    if (!track) {
      track = new WindowTrack(windowId, `w${this.windows.size + 1}`);
      track.label = this.freeLabel(track);
      this.windows.set(windowId, track);
    }
    return track;
  }

  byLabel(label: string): WindowTrack | undefined {
    return [...this.windows.values()].find((w) => w.label === label);
  }

  /** Length of the scrubber: the digest's duration, or what has loaded if that is longer. */
  get duration(): number {
    return Math.max(this.digest.duration_ms, this.start === null ? 0 : this.end - this.start);
  }

  markers(): Marker[] {
    return this.digest.moments
      .filter((moment) => MARKER_KINDS.has(moment.kind))
      .map((moment) => ({
        t: moment.t_ms,
        window: this.byLabel(moment.w)?.id ?? null,
        kind: moment.kind,
        label: [moment.kind.replace('-', ' '), ...momentWords(moment), moment.count && moment.count > 1 ? `×${moment.count}` : ''].filter(Boolean).join(' '),
      }));
  }

  /** The window to show first: the one the user was in at `t` (the last page opened before it). */
  windowAt(t: number): WindowTrack | undefined {
    const pages = this.digest.moments.filter((m) => m.kind === 'page');
    const label = (pages.filter((p) => p.t_ms <= t).at(-1) ?? pages[0])?.w;
    return (label && this.byLabel(label)) || [...this.windows.values()].find((w) => w.hasFullSnapshot);
  }
}

/** A moment's parts as a marker's label says them (recorded strings quoted, as the digest's text does). */
function momentWords(moment: Moment): string[] {
  switch (moment.kind) {
    case 'page':
      return [JSON.stringify(moment.url ?? '')];
    case 'request-failed':
      return [moment.method ?? '', moment.url ?? '', moment.status !== undefined ? String(moment.status) : JSON.stringify(moment.error ?? 'failed'), moment.body ? JSON.stringify(moment.body) : ''];
    case 'console-error':
    case 'console-warn':
      return [JSON.stringify(moment.message ?? '')];
    default:
      return [moment.target ?? ''];
  }
}

/** Last item with t <= now, for the URL bar. */
export function latestBefore<T extends { t: number }>(list: readonly T[], now: number): T | undefined {
  let found: T | undefined;
  for (const item of list) {
    if (item.t > now) break;
    found = item;
  }
  return found;
}

function readPlugin(track: WindowTrack, t: number, eventTime: number, data: unknown): void {
  const { plugin, payload } = (data ?? {}) as { plugin?: unknown; payload?: Record<string, unknown> };
  if (typeof plugin !== 'string' || !payload) return;
  if (plugin.startsWith('rrweb/console')) {
    track.console.push({ t, level: typeof payload.level === 'string' ? payload.level : 'log', text: consoleText(payload.payload).slice(0, 500) });
  } else if (plugin.startsWith('rrweb/network')) {
    // As the digest reads them: failed by status (Chromium's responseStatus first), an error or
    // isFailed; timed at the request's own start (its marker's time); no method made up.
    const requests = Array.isArray(payload.requests) ? payload.requests : [];
    for (const request of requests as Array<Record<string, unknown>>) {
      if (typeof request !== 'object' || request === null) continue;
      const status = Number(request.responseStatus ?? request.status);
      const error = typeof request.error === 'string' ? request.error : '';
      if (!((Number.isFinite(status) && status >= 400) || request.isFailed === true || error)) continue;
      const at = typeof request.timestamp === 'number' && Number.isFinite(request.timestamp) ? t + (request.timestamp - eventTime) : t;
      const method = typeof request.method === 'string' && /^[A-Za-z]{1,10}$/.test(request.method) ? `${request.method.toUpperCase()} ` : '';
      track.failed.push({ t: at, request: `${method}${String(request.name ?? request.url ?? '?').slice(0, 300)}`, status: Number.isFinite(status) && status > 0 ? String(status) : error.slice(0, 60) || 'failed' });
    }
    track.failed.sort((a, b) => a.t - b.t);
  }
}
