/**
 * The recording player (an MCP App). The host renders it for a session-recording-replay result:
 * it reads the digest from the result, fetches the recording's events through the app-only tool
 * session-recording-replay-events (via the host's bridge: nothing is fetched from the network),
 * starts playing as soon as the shown window has a full snapshot, and keeps loading while it plays.
 */
import type { Replayer } from 'rrweb';
import { applyDocumentTheme, applyHostFonts, applyHostStyleVariables, HostBridge, type HostContext } from './bridge.js';
import { latestBefore, PLAYER_META, RecordingModel, type Marker, type ReplayDigest, type RrwebEvent, type WindowTrack } from './model.js';

/** Named moments of the view's start (performance marks), read by bench/player.mjs. */
const mark = (name: string) => performance.mark(`player:${name}`);
mark('script');

const EVENTS_TOOL = 'session-recording-replay-events';
/** The first page is small so the first frame comes fast; later pages are large so there are few calls. */
const FIRST_PAGE_BYTES = 300_000;
const PAGE_BYTES = 4_000_000;
const SPEEDS = [0.5, 1, 2, 4, 8];
/** rrweb's event type and incremental source numbers */
const INCREMENTAL_SNAPSHOT = 3;
const MUTATION = 0;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ui = {
  root: $('player'),
  stage: $('stage'),
  screen: $('screen'),
  status: $('status'),
  play: $<HTMLButtonElement>('play'),
  speed: $<HTMLSelectElement>('speed'),
  skip: $<HTMLInputElement>('skip'),
  windows: $<HTMLSelectElement>('windows'),
  scrubber: $<HTMLInputElement>('scrubber'),
  markers: $('markers'),
  time: $('time'),
  url: $('url'),
  console: $('console'),
  requests: $('requests'),
  link: $<HTMLAnchorElement>('posthog-link'),
  note: $('note'),
};

let model: RecordingModel | undefined;
let shown: WindowTrack | undefined;
let replayer: Replayer | undefined;
let playing = false;
/** The replayer ran out of loaded events while more were coming: resume when they arrive. */
let starved = false;
let loaded = false;
let dragging = false;
/** The call named where to start: the first frame waits for the result, which says where that is. */
let holdForDigest = false;

/**
 * Opened from a watch link (/watch/<token>/, served by the server itself, not framed by a host):
 * the data and the events come from the page's own origin, under its own path.
 */
const watchBase = window.parent === window && /^\/watch\/[\w.-]+\/?$/.test(location.pathname) ? location.pathname.replace(/\/?$/, '/') : undefined;

const app = watchBase === undefined ? new HostBridge({ name: 'posthog-replay-player', version: '1' }) : undefined;
if (app) {
  // The arguments come first (the spec has hosts send them once the view is up, before the result,
  // and some show the view while the tool runs): the events load from them, without waiting for
  // the digest. The result brings the digest's moments, the link and where to start.
  app.ontoolinput = ({ arguments: args }) => {
    mark('tool-input');
    const input = (args ?? {}) as { project_id?: unknown; id?: unknown; start_at?: unknown };
    // As the server reads it: a project number may come as a number (12345) or a string ("12345").
    const project = typeof input.project_id === 'string' ? input.project_id : typeof input.project_id === 'number' ? String(input.project_id) : undefined;
    if (typeof input.id === 'string') load({ project_id: project, id: input.id }, input.start_at !== undefined && input.start_at !== null);
  };
  app.ontoolresult = (result) => {
    mark('tool-result');
    if (result.isError || !result.structuredContent) {
      const text = result.content?.map((c) => (c.type === 'text' ? c.text : '')).join(' ') ?? '';
      setStatus(`The recording could not be read: ${text.slice(0, 300)}`, true);
      // No digest will say where to start: what the events bring plays from the beginning.
      holdForDigest = false;
      startShowing();
      return;
    }
    // What the player reads is in the result's _meta (the model reads the digest, not this).
    const digest = result._meta?.[PLAYER_META] as ReplayDigest | undefined;
    const named = result.structuredContent as { project_id?: unknown; id?: unknown };
    if (digest) load({ project_id: digest.project_id, id: digest.id }, false);
    else if (typeof named.id === 'string') load({ project_id: typeof named.project_id === 'string' ? named.project_id : undefined, id: named.id }, false);
    if (digest) takeDigest(digest);
    else {
      // A host that does not pass _meta on: the recording plays from the start, with no markers.
      holdForDigest = false;
      startShowing();
    }
  };
  app.onhostcontextchanged = applyContext;
  app.ontoolcancelled = ({ reason }) => {
    if (!model) setStatus(`The call was cancelled${reason ? `: ${reason.slice(0, 200)}` : ''}.`, true);
  };
  app.onteardown = () => {
    replayer?.destroy();
  };
  app
    .connect()
    .then(() => {
      mark('connected');
      applyContext(app.getHostContext() ?? {});
    })
    .catch((error: unknown) => setStatus(`Could not connect to the host: ${String(error)}`, true));
} else {
  void (async () => {
    try {
      const digest = (await fetchJson('data')) as ReplayDigest;
      mark('tool-result');
      load({ project_id: digest.project_id, id: digest.id }, true);
      takeDigest(digest);
    } catch (error) {
      setStatus(`The recording could not be opened: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`, true);
    }
  })();
}

/**
 * A watch page's own data (`data`, `events?…`), from beside the page; its error said as the server
 * said it. The server reads a few pages at once for all its links and answers 503 past them: wait, ask again.
 */
async function fetchJson(path: string): Promise<unknown> {
  let response = await fetch(`${watchBase}${path}`, { credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer' });
  for (let tries = 1; response.status === 503 && tries < 30; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000 * (Number(response.headers.get('retry-after')) || 2)));
    response = await fetch(`${watchBase}${path}`, { credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer' });
  }
  if (response.status === 404) throw new Error('this link has expired or is not valid (links live 30 minutes, and end when the server stops)');
  const body = (await response.json().catch(() => ({}))) as { error?: unknown };
  if (!response.ok) throw new Error(typeof body.error === 'string' ? body.error : `the server answered ${response.status}`);
  return body;
}

function applyContext(context: HostContext): void {
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
  const dims = context.containerDimensions as { maxWidth?: number; width?: number } | undefined;
  const width = dims?.width ?? dims?.maxWidth;
  ui.root.style.maxWidth = width ? `${width}px` : '';
  fit();
}

/**
 * Starts loading the recording's events (once). With `waitForDigest` (the call named where to
 * start), the first frame waits for the result, which says where that is.
 */
function load(recording: { project_id: string | undefined; id: string }, waitForDigest: boolean): void {
  if (model) return;
  model = new RecordingModel();
  holdForDigest = waitForDigest;
  setStatus('Loading the recording…');
  type Page = { events: Array<[string | null, RrwebEvent]>; next_cursor: string | null };
  const fetchPage = async (cursor: string | null): Promise<Page> => {
    const maxBytes = cursor ? PAGE_BYTES : FIRST_PAGE_BYTES;
    if (!app) {
      const page = (await fetchJson(`events?max_bytes=${maxBytes}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)) as { events: string; next_cursor: string | null };
      return { events: JSON.parse(page.events) as Page['events'], next_cursor: page.next_cursor };
    }
    const result = await app.callServerTool({
      name: EVENTS_TOOL,
      arguments: { ...(recording.project_id ? { project_id: recording.project_id } : {}), id: recording.id, max_bytes: maxBytes, ...(cursor ? { cursor } : {}) },
    });
    if (result.isError) throw new Error((result.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join(' '));
    // One JSON string per page (see the tool): far cheaper for the host to relay than the objects.
    const data = result.structuredContent as { events: string; next_cursor: string | null };
    return { events: JSON.parse(data.events) as Page['events'], next_cursor: data.next_cursor };
  };
  void (async () => {
    try {
      mark('events-asked');
      let page: Page | null = await fetchPage(null);
      mark('events-first-page');
      let first = true;
      while (page) {
        // Ask for the next page before taking this one in: the server reads while the browser replays.
        const next: Promise<Page> | null = page.next_cursor ? fetchPage(page.next_cursor) : null;
        ingest(page.events, first);
        first = false;
        page = next ? await next : null;
      }
      loaded = true;
      ui.root.dataset.loaded = 'true';
      ui.root.dataset.loadedAt = String(Date.now());
      if (!replayer && !holdForDigest) setStatus('This recording has no full snapshot of a page: there is nothing to show.', true);
      else if (replayer) setStatus('');
    } catch (error) {
      setStatus(`Loading stopped: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}. What loaded can be played.`, true);
    }
  })();
}

/** The tool result's digest: moments on the timeline, window names, the link, where to start. */
function takeDigest(digest: ReplayDigest): void {
  if (!model) return;
  model.setDigest(digest);
  holdForDigest = false;
  if (digest.posthog_url) {
    ui.link.href = digest.posthog_url;
    ui.link.hidden = false;
  }
  const covers = digest.partial?.digest_covers_ms;
  ui.note.textContent = covers !== undefined ? `Moments are marked for the first ${clock(covers)} only: the digest was cut short to open the player at once.` : '';
  ui.note.hidden = covers === undefined;
  renderMarkers();
  renderWindows();
  if (!replayer) startShowing();
  else if (loaded) setStatus('');
}

/** Shows the window the recording starts in (or, with the digest, the one at its start_at), once it has a full snapshot. */
function startShowing(): void {
  if (!model || shown || holdForDigest) return;
  // Events came in before the parser reached the replayer's script: once it has run.
  if (!('posthogReplayer' in globalThis) && document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', startShowing, { once: true });
    return;
  }
  const at = model.hasDigest ? model.digest.start_at_ms : 0;
  const candidate = model.hasDigest ? model.windowAt(at) : [...model.windows.values()].find((w) => w.hasFullSnapshot);
  if (candidate?.hasFullSnapshot) show(candidate, at, true);
  else if (loaded && model.hasDigest) setStatus('This recording has no full snapshot of a page: there is nothing to show.', true);
}

function ingest(events: Array<[string | null, RrwebEvent]>, first: boolean): void {
  if (!model) return;
  const added = model.ingest(events);
  if (first || ui.windows.options.length !== model.windows.size) renderWindows();
  if (!shown || !replayer) {
    startShowing();
    return;
  }
  for (const event of added.get(shown) ?? []) replayer.addEvent(event as never);
  if (starved && playing) {
    starved = false;
    playAt(replayer.getCurrentTime());
  }
}

/** rrweb's Replayer, from the document's second script (replayer.ts). */
function replayerClass(): typeof Replayer {
  const loadedClass = (globalThis as { posthogReplayer?: typeof Replayer }).posthogReplayer;
  if (!loadedClass) throw new Error('The replayer script did not load.');
  return loadedClass;
}

/** Plays one window (tab) from global time `t`; one replayer at a time. */
function show(track: WindowTrack, t: number, autoplay: boolean): void {
  if (!model) return;
  replayer?.destroy();
  ui.screen.replaceChildren();
  shown = track;
  ui.windows.value = track.label;
  replayer = new (replayerClass())(track.events as never, {
    root: ui.screen,
    speed: Number(ui.speed.value),
    skipInactive: ui.skip.checked,
    showWarning: false,
    mouseTail: false,
    triggerFocus: false,
    UNSAFE_replayCanvas: false,
  });
  replayer.on('resize', () => fit());
  // When the first page was drawn and when everything had loaded (epoch ms): for the benchmark.
  replayer.on('fullsnapshot-rebuilded', () => {
    if (ui.root.dataset.firstFrameAt === undefined) mark('first-frame');
    ui.root.dataset.firstFrameAt ??= String(Date.now());
  });
  replayer.on('finish', () => {
    if (!loaded) starved = true;
    else setPlaying(false);
  });
  ui.root.dataset.ready = 'true';
  fit();
  seek(t, autoplay);
}

function offsetOf(track: WindowTrack): number {
  return model && model.start !== null && track.events[0] ? track.events[0].timestamp - model.start : 0;
}

/** Global time (ms from the recording's start) now shown. */
function now(): number {
  return replayer && shown ? offsetOf(shown) + replayer.getCurrentTime() : 0;
}

function seek(t: number, play = playing): void {
  if (!replayer || !shown || !model) return;
  const local = Math.max(0, t - offsetOf(shown));
  starved = false;
  if (play) playAt(local);
  else replayer.pause(local);
  setPlaying(play);
  update();
}

function playAt(local: number): void {
  replayer?.play(local);
  decideSkip();
}

/**
 * rrweb decides to skip an idle stretch only when it casts an event, looking ahead from that
 * event. Playing from inside a stretch with no events (a seek, a start there) or turning skip on
 * in one would play the rest of it at normal speed; an empty mutation cast at once (it changes
 * nothing in the page) makes it decide from where the player is.
 */
function decideSkip(): void {
  if (!replayer || !ui.skip.checked) return;
  const { startTime, endTime } = replayer.getMetaData();
  const at = startTime + replayer.getCurrentTime() + 1;
  if (at >= endTime) return;
  replayer.addEvent({ type: INCREMENTAL_SNAPSHOT, timestamp: at, data: { source: MUTATION, texts: [], attributes: [], removes: [], adds: [] } } as never);
}

/**
 * Speed and skip as the controls say, from where the player is, playing or paused as it was.
 * Skip goes off first: that ends a skip under way and rrweb's memory of it (else a new speed would
 * end the skip and none would start again until the next input); then it is decided afresh.
 */
function applySettings(): void {
  if (!replayer) return;
  replayer.setConfig({ skipInactive: false, speed: Number(ui.speed.value) });
  replayer.setConfig({ skipInactive: ui.skip.checked });
  if (playing) decideSkip();
}

function setPlaying(value: boolean): void {
  playing = value;
  ui.play.textContent = value ? 'Pause' : 'Play';
  ui.play.setAttribute('aria-pressed', String(value));
}

ui.play.addEventListener('click', () => {
  if (!replayer) return;
  const t = now();
  seek(playing ? t : t >= model!.duration - 50 ? 0 : t, !playing);
});
// A sandboxed view may not open windows itself: the host opens links (ui/open-link). A watch page
// is a tab of its own: the browser opens them.
ui.link.addEventListener('click', (event) => {
  if (!app) return;
  event.preventDefault();
  if (ui.link.href) void app.openLink({ url: ui.link.href }).catch(() => setStatus(`Open this link yourself: ${ui.link.href}`, true));
});
ui.speed.replaceChildren(...SPEEDS.map((s) => new Option(`${s}×`, String(s), s === 1, s === 1)));
ui.speed.addEventListener('change', applySettings);
ui.skip.addEventListener('change', applySettings);
ui.windows.addEventListener('change', () => {
  const track = model?.byLabel(ui.windows.value);
  if (track?.hasFullSnapshot) show(track, now(), playing);
});
ui.scrubber.addEventListener('input', () => {
  dragging = true;
  ui.time.textContent = `${clock(Number(ui.scrubber.value))} / ${clock(model?.duration ?? 0)}`;
});
ui.scrubber.addEventListener('change', () => {
  dragging = false;
  seek(Number(ui.scrubber.value));
});

function jump(t: number, windowId: string | null | undefined): void {
  if (!model) return;
  const track = windowId === undefined ? shown : model.windows.get(windowId);
  if (track && track !== shown && track.hasFullSnapshot) show(track, t, false);
  else seek(t, false);
}

function renderMarkers(): void {
  if (!model) return;
  const duration = Math.max(1, model.duration);
  ui.markers.replaceChildren(
    ...model.markers().map((marker: Marker) => {
      const button = document.createElement('button');
      button.className = `marker ${marker.kind}`;
      button.dataset.kind = marker.kind;
      button.dataset.t = String(marker.t);
      button.style.left = `${Math.min(100, (marker.t / duration) * 100)}%`;
      button.title = `${clock(marker.t)} ${marker.label}`;
      button.setAttribute('aria-label', button.title);
      button.addEventListener('click', () => jump(marker.t, marker.window));
      return button;
    }),
  );
}

function renderWindows(): void {
  if (!model) return;
  const tracks = [...model.windows.values()];
  ui.windows.replaceChildren(...tracks.map((w) => new Option(`${w.label}${w.urls[0] ? ` ${shortUrl(w.urls[0].url)}` : ''}`, w.label)));
  ui.windows.hidden = tracks.length < 2;
  if (shown) ui.windows.value = shown.label;
}

/** Scales the recorded viewport to the width we have. */
function fit(): void {
  const wrapper = ui.screen.querySelector<HTMLElement>('.replayer-wrapper');
  const frame = wrapper?.querySelector('iframe');
  if (!wrapper || !frame) return;
  const width = Number(frame.getAttribute('width')) || frame.offsetWidth || 1;
  const height = Number(frame.getAttribute('height')) || frame.offsetHeight || 1;
  const scale = Math.min(1, ui.stage.clientWidth / width);
  wrapper.style.transform = `scale(${scale})`;
  wrapper.style.transformOrigin = 'top left';
  ui.screen.style.width = `${width * scale}px`;
  ui.screen.style.height = `${height * scale}px`;
}
new ResizeObserver(() => fit()).observe(ui.stage);

let lastListed = '';
function update(): void {
  if (!model) return;
  const t = now();
  const duration = model.duration;
  ui.scrubber.max = String(duration);
  if (!dragging) {
    ui.scrubber.value = String(Math.round(t));
    ui.scrubber.setAttribute('aria-valuetext', clock(t));
    ui.time.textContent = `${clock(t)} / ${clock(duration)}`;
  }
  ui.time.dataset.ms = String(Math.round(t));
  if (!shown) return;
  ui.url.textContent = latestBefore(shown.urls, t)?.url ?? '';
  const logs = shown.console.filter((line) => line.t <= t);
  const failed = shown.failed.filter((request) => request.t <= t);
  const key = `${shown.label}:${logs.length}:${failed.length}`;
  if (key === lastListed) return;
  lastListed = key;
  ui.console.replaceChildren(...logs.slice(-200).map((line) => row(line.t, `${line.level}`, line.text, `log ${line.level}`)));
  ui.requests.replaceChildren(...failed.slice(-200).map((r) => row(r.t, r.status, r.request, 'log error')));
  $('console-count').textContent = String(logs.length);
  $('requests-count').textContent = String(failed.length);
}

function row(t: number, tag: string, text: string, className: string): HTMLElement {
  const item = document.createElement('li');
  item.className = className;
  const at = document.createElement('button');
  at.className = 'at';
  at.textContent = clock(t);
  at.addEventListener('click', () => jump(t, undefined));
  const label = document.createElement('span');
  label.className = 'tag';
  label.textContent = tag;
  const body = document.createElement('span');
  body.textContent = text; // recorded data: text only, never markup
  item.append(at, label, body);
  return item;
}

function tick(): void {
  update();
  requestAnimationFrame(tick);
}
requestAnimationFrame(tick);

function setStatus(text: string, error = false): void {
  ui.status.textContent = text;
  ui.status.hidden = text === '';
  ui.status.classList.toggle('error', error);
}

function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return (u.pathname + u.search).slice(0, 40);
  } catch {
    return url.slice(0, 40);
  }
}
