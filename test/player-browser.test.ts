import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { BIG_RECORDING_ID, DEMO } from '../src/sandbox/index.js';
import { PLAYER_URI } from '../src/tools/recordings/player.js';
import { startHarness, type Harness } from './harness.js';
import { openAppHost } from './support/app-host.js';
import { chromiumPresent, headlessContext } from './support/chromium.js';

/**
 * The player in a real browser: Debian's headless Chromium (never a downloaded one) loads a test
 * host page that renders session-recording-replay's result the way MCP Apps hosts do (sandboxed
 * iframe, CSP from the resource's declaration, ext-apps' AppBridge), against our server and the
 * sandbox's real recorded checkout. Assertions are made from inside the replayed document.
 */
const hasChromium = chromiumPresent('player-browser tests');

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;


describe.skipIf(!hasChromium)('the player in headless Chromium, in a test MCP Apps host', { timeout: 90_000 }, () => {
  let h: Harness;
  let context: BrowserContext;
  let chromium: Awaited<ReturnType<typeof headlessContext>>;
  let hostScript: string;

  beforeAll(async () => {
    const { build } = await import('esbuild');
    const bundled = await build({ entryPoints: [new URL('./browser/host.js', import.meta.url).pathname], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'error' });
    hostScript = bundled.outputFiles[0]!.text;
    // The test host renders MCP Apps, and says so (as the spec asks): the server knows the player is shown.
    h = await startHarness({ clientCapabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } });
    chromium = await headlessContext('player');
    context = chromium.context;
  }, 60_000);

  afterAll(async () => {
    await chromium?.close();
    await h?.close();
  });

  const openHost = (args: Record<string, unknown>, theme: 'light' | 'dark' = 'light', options: { holdResult?: boolean; ignoreCsp?: boolean } = {}) => openAppHost({ client: h.client, context, hostScript }, args, theme, options);

  /**
   * The player's document and its replayed page. The replayed page is a sandboxed iframe without
   * scripts (rrweb's), so it is read through the DOM from the player's document, its same-origin parent.
   */
  async function frames(page: Page): Promise<{ player: Frame }> {
    const proxy = await (await page.waitForSelector('#sandbox')).contentFrame();
    const player = await (await proxy!.waitForSelector('#view')).contentFrame();
    await player!.waitForSelector('#player[data-ready="true"] .replayer-wrapper iframe', { timeout: 30_000 }).catch(async (e) => {
      throw new Error(`${e}\nplayer status: ${await player!.textContent('#status')}`);
    });
    return { player: player! };
  }

  /** The player's position (ms, from its #time) and the view's clock (ms), read in one go. */
  async function position(player: Frame): Promise<{ ms: number; wall: number }> {
    return (await player.evaluate(`({ ms: Number(document.getElementById('time').dataset.ms), wall: performance.now() })`)) as { ms: number; wall: number };
  }

  const playing = async (player: Frame) => (await player.getAttribute('#play', 'aria-pressed')) === 'true';

  /** Pauses, moves the scrubber to `t` as a user would (its change event), and plays from there. */
  async function playFrom(player: Frame, t: number): Promise<void> {
    if (await playing(player)) await player.click('#play');
    await player.evaluate(`(() => { const s = document.getElementById('scrubber'); s.value = '${t}'; s.dispatchEvent(new Event('change')); })()`);
    await expect.poll(async () => Math.abs((await position(player)).ms - t), { timeout: 10_000 }).toBeLessThan(250);
    await player.click('#play');
    expect(await playing(player)).toBe(true);
  }

  /** Recorded ms per wall-clock ms over about `wallMs` of playing. */
  async function rate(player: Frame, wallMs: number): Promise<number> {
    const a = await position(player);
    await new Promise((resolve) => setTimeout(resolve, wallMs));
    const b = await position(player);
    return (b.ms - a.ms) / (b.wall - a.wall);
  }

  it('plays the recorded checkout: its page renders, the console-error marker seeks to the error, and nothing is fetched from outside', async () => {
    const host = await openHost({ project_id: P, id: R.recordedCheckout });
    try {
      const { player } = await frames(host.page);
      const replayed = (script: string) => player.evaluate(`(() => { const document = window.document.querySelector('.replayer-wrapper iframe').contentDocument; ${script} })()`);
      // The recording starts on the shop's home page, rendered from the snapshot.
      await expect.poll(() => replayed('return document.body?.textContent ?? ""'), { timeout: 15_000 }).toContain('Light and wood for calm desks');
      await player.waitForSelector('#player[data-loaded="true"]', { state: 'attached', timeout: 30_000 });

      // Pause, then jump to the first console error ("Payment failed…" on /checkout).
      if ((await player.getAttribute('#play', 'aria-pressed')) === 'true') await player.click('#play');
      const marker = player.locator('.marker[data-kind="console-error"]').first();
      const t = Number(await marker.getAttribute('data-t'));
      expect(t).toBeGreaterThan(10_000);
      await marker.click();
      await expect.poll(async () => Math.abs(Number(await player.getAttribute('#time', 'data-ms')) - t), { timeout: 10_000 }).toBeLessThan(250);
      expect(await player.getAttribute('#play', 'aria-pressed')).toBe('false');

      // From inside the replayed document: the checkout page with its "Place order" button.
      await expect
        .poll(() => replayed(`return [...document.querySelectorAll('button')].map((b) => b.textContent.trim())`), { timeout: 10_000 })
        .toContain('Place order');
      expect(await player.textContent('#url')).toBe('http://shop.example.test/checkout');
      // The console panel lists the error by then; the failed request too.
      expect(await player.textContent('#console')).toContain('Payment failed: order service returned 500');
      expect(await player.textContent('#requests')).toContain('POST http://shop.example.test/api/orders');

      // "Open in PostHog" asks the host to open PostHog's player at the tool's start (0 s here).
      await player.click('#posthog-link');
      await expect.poll(() => host.page.evaluate('window.__opened')).toEqual([`${h.sandbox.url}/project/${P}/replay/${R.recordedCheckout}?t=0`]);

      // The README's picture: written to docs/ when asked (UPDATE_SCREENSHOT=1), else taken and dropped.
      const picture = await host.page.locator('#sandbox').screenshot();
      expect(picture.length).toBeGreaterThan(10_000);
      if (process.env.UPDATE_SCREENSHOT === '1') {
        await mkdir(new URL('../docs/', import.meta.url), { recursive: true });
        await writeFile(new URL('../docs/replay.png', import.meta.url), picture);
      }

      const outside = host.requests.filter((url) => !host.origins.some((origin) => url.startsWith(`${origin}/`)) && !/^(data|blob|about):/.test(url));
      expect(outside).toEqual([]);
      // …and nothing tried: the CSP (no outside origin) refused nothing.
      expect(host.refused).toEqual([]);
      // The view's own traffic went through the bridge: the host page made the tool calls.
      expect(host.requests.filter((url) => url === `${host.origins[0]}/call`).length).toBeGreaterThan(0);
    } finally {
      await host.close();
    }
  });
  it('shows the first frame from the tool\'s arguments while the host holds the result back, and marks the moments when it comes', async () => {
    const host = await openHost({ project_id: P, id: R.recordedCheckout }, 'light', { holdResult: true });
    try {
      // The view has the arguments only (ui/notifications/tool-input): it loads the events and plays.
      const { player } = await frames(host.page);
      expect(await player.getAttribute('#player', 'data-first-frame-at')).toMatch(/^\d+$/);
      expect(await player.locator('.marker').count()).toBe(0);
      expect(await player.isHidden('#posthog-link')).toBe(true);
      await host.page.evaluate('window.__release()');
      // The result: the digest's moments on the timeline, the link.
      await player.waitForSelector('.marker[data-kind="console-error"]', { state: 'attached', timeout: 15_000 });
      await player.waitForSelector('#posthog-link:not([hidden])', { state: 'attached', timeout: 15_000 });
      expect(await player.isHidden('#note')).toBe(true); // the digest is whole
      // The host tears the view down: it answers (the host waits for that), its replayer gone.
      expect(await host.page.evaluate('window.__bridge.teardownResource({ reason: "test" })')).toEqual({});
      expect(await player.locator('.replayer-wrapper').count()).toBe(0);
    } finally {
      await host.close();
    }
  });

  it('plays a recording whose call gave project_id as a number (the server accepts 12345 as "12345"; the player must too)', async () => {
    // The harness has no default project: a player that dropped the numeric project_id asked for
    // the events without one, failed, and never loaded the recording.
    const host = await openHost({ project_id: Number(P), id: R.recordedCheckout });
    try {
      const { player } = await frames(host.page);
      await player.waitForSelector('#player[data-loaded="true"]', { state: 'attached', timeout: 30_000 });
      expect(await player.textContent('#status')).not.toMatch(/Loading stopped/);
    } finally {
      await host.close();
    }
  });

  it('says when the digest\'s moments cover only the start of the recording (a partial digest)', async () => {
    // A long recording in a sandbox of its own, and a host that renders MCP Apps: the replay reads
    // it for 250 ms only; the player still plays it from its own events.
    const long = await startHarness({ sandbox: { bigRecording: { copies: 300 } }, clientCapabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } });
    const own = h;
    h = long;
    try {
      const host = await openHost({ project_id: P, id: BIG_RECORDING_ID });
      try {
        const { player } = await frames(host.page);
        await player.waitForSelector('#note:not([hidden])', { state: 'attached', timeout: 15_000 });
        expect(await player.textContent('#note')).toMatch(/^Moments are marked for the first \d+:\d\d(:\d\d)? only/);
      } finally {
        await host.close();
      }
    } finally {
      h = own;
      await long.close();
    }
  });

  it('shows one tab at a time with a switch, in the host\'s dark theme, scaled to the host\'s width', async () => {
    const host = await openHost({ project_id: P, id: R.recordedSearchTabs }, 'dark');
    try {
      const { player } = await frames(host.page);
      const replayed = (script: string) => player.evaluate(`(() => { const document = window.document.querySelector('.replayer-wrapper iframe').contentDocument; ${script} })()`);
      await player.waitForSelector('#player[data-loaded="true"]', { state: 'attached', timeout: 30_000 });
      if ((await player.getAttribute('#play', 'aria-pressed')) === 'true') await player.click('#play');

      // The host's theme: the document is dark, its background too.
      expect(await player.getAttribute('html', 'data-theme')).toBe('dark');
      const background = (await player.evaluate('getComputedStyle(document.body).backgroundColor')) as string;
      const [r, g, b] = background.match(/\d+/g)!.map(Number);
      expect(r! + g! + b!).toBeLessThan(200);

      // Two tabs: a switch with both; the first shows the shop, the second its help page.
      expect(await player.isVisible('#windows')).toBe(true);
      expect(await player.locator('#windows option').count()).toBe(2);
      await expect.poll(() => replayed('return document.body?.textContent ?? ""'), { timeout: 15_000 }).toContain('Lumen & Oak');
      await player.selectOption('#windows', 'w2');
      await expect.poll(() => replayed('return document.body?.textContent ?? ""'), { timeout: 15_000 }).toContain('How long does shipping take?');
      expect(await player.textContent('#url')).toBe('http://shop.example.test/help');
      await player.selectOption('#windows', 'w1');
      await expect.poll(() => player.textContent('#url')).not.toBe('http://shop.example.test/help');
      // The failed request's marker belongs to the second tab: clicking it switches there, to that moment.
      const marker = player.locator('.marker[data-kind="request-failed"]').first();
      const t = Number(await marker.getAttribute('data-t'));
      await marker.click();
      await expect.poll(() => player.inputValue('#windows')).toBe('w2');
      await expect.poll(async () => Math.abs(Number(await player.getAttribute('#time', 'data-ms')) - t), { timeout: 10_000 }).toBeLessThan(250);
      // That tab's failed requests up to then: the 503 (recorded without a method, none shown).
      expect(await player.textContent('#requests')).toBe(`${await player.textContent('#requests li .at')}503http://shop.example.test/api/chat/status`);
      // Its console at the end of the recording: the chat widget's warning (logged after the 503).
      await player.focus('#scrubber');
      await player.press('#scrubber', 'End');
      await expect.poll(() => player.textContent('#console')).toContain('Chat widget: live chat is offline');

      // Recorded at 1280 px wide, shown within the 960 px the host offers: scaled, not cropped.
      const fit = (await player.evaluate(`({
        stage: document.getElementById('stage').clientWidth,
        screen: document.getElementById('screen').getBoundingClientRect().width,
        frame: Number(document.querySelector('.replayer-wrapper iframe').getAttribute('width')),
      })`)) as { stage: number; screen: number; frame: number };
      expect(fit.frame).toBeGreaterThan(fit.stage);
      expect(fit.screen).toBeLessThanOrEqual(fit.stage + 1);
      expect(host.requests.filter((url) => !host.origins.some((origin) => url.startsWith(`${origin}/`)) && !/^(data|blob|about):/.test(url))).toEqual([]);
    } finally {
      await host.close();
    }
  });

  it('plays faster at 4× than at 1×, and a change of speed keeps the position and the play/pause state', async () => {
    const host = await openHost({ project_id: P, id: R.recordedCheckout });
    try {
      const { player } = await frames(host.page);
      await player.waitForSelector('#player[data-loaded="true"]', { state: 'attached', timeout: 30_000 });
      // No idle stretch may be skipped while measuring: skipping changes the speed by itself.
      await player.uncheck('#skip');
      expect(await player.inputValue('#speed')).toBe('1');
      await playFrom(player, 2_000);
      const normal = await rate(player, 1_000);

      // 4× while playing: on from where it was, still playing, four times as fast (margins: a loaded machine).
      const before = await position(player);
      await player.selectOption('#speed', '4');
      const after = await position(player);
      expect(after.ms).toBeGreaterThanOrEqual(before.ms);
      expect(after.ms - before.ms).toBeLessThan(4 * (after.wall - before.wall) + 500);
      expect(await playing(player)).toBe(true);
      const fast = await rate(player, 1_000);
      expect(normal).toBeGreaterThan(0.4);
      expect(normal).toBeLessThan(1.6);
      expect(fast / normal).toBeGreaterThan(2.5);
      expect(fast / normal).toBeLessThan(6);
      expect(await playing(player)).toBe(true);

      // Paused, a change of speed neither moves nor starts it; playing again goes on at the new speed.
      await player.click('#play');
      const paused = await position(player);
      await player.selectOption('#speed', '0.5');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await playing(player)).toBe(false);
      expect(Math.abs((await position(player)).ms - paused.ms)).toBeLessThan(50);
      await player.click('#play');
      const slow = await rate(player, 1_000);
      expect(Math.abs((await position(player)).ms - paused.ms)).toBeLessThan(3_000);
      expect(fast / slow).toBeGreaterThan(4);
    } finally {
      await host.close();
    }
  });

  it('skips an idle stretch with skip inactivity on (and plays it at 1× with it off); toggling it keeps the position and the play state', async () => {
    // twoTabs (a sandbox demo story): its first tab, the one shown first, gets no input from 3.5 s to
    // 30.7 s while the user works in the second tab (no events at all there after 3.9 s).
    const id = R.twoTabs;
    // What the player reads of the result: its _meta (the model reads the digest instead).
    const digest = (await h.client.callTool({ name: 'session-recording-replay', arguments: { project_id: P, id } }))._meta?.['posthog-replay/player'] as {
      start_time: string;
      windows: Array<{ w: string; window_id: string | null }>;
    };
    const pairs: Array<[string | null, { type: number; timestamp: number; data?: { source?: number } }]> = [];
    for (let cursor: string | null = null, pages = 0; pages === 0 || (cursor && pages < 20); pages++) {
      const page = (await h.client.callTool({ name: 'session-recording-replay-events', arguments: { project_id: P, id, ...(cursor ? { cursor } : {}) } })).structuredContent as { events: string; next_cursor: string | null };
      pairs.push(...(JSON.parse(page.events) as typeof pairs));
      cursor = page.next_cursor;
    }
    const host = await openHost({ project_id: P, id });
    try {
      const { player } = await frames(host.page);
      await player.waitForSelector('#player[data-loaded="true"]', { state: 'attached', timeout: 30_000 });
      // The longest stretch without input (rrweb's user interactions: mouse, scroll, resize, input) in the tab shown.
      const label = (await player.inputValue('#windows')) || 'w1';
      const shown = digest.windows.find((w) => w.w === label)!.window_id;
      const start = Date.parse(digest.start_time);
      const input = pairs.filter(([w, e]) => w === shown && e.type === 3 && (e.data?.source ?? 0) >= 1 && (e.data?.source ?? 0) <= 5).map(([, e]) => e.timestamp - start);
      let gap = { from: 0, to: 0 };
      for (let i = 1; i < input.length; i++) if (input[i]! - input[i - 1]! > gap.to - gap.from) gap = { from: input[i - 1]!, to: input[i]! };
      expect(gap.to - gap.from).toBeGreaterThan(20_000);
      const from = Math.max(0, gap.from - 1_000);

      // Skip on (the default): past the idle stretch in a fraction of its length.
      expect(await player.isChecked('#skip')).toBe(true);
      await playFrom(player, from);
      const t0 = await position(player);
      await expect.poll(async () => (await position(player)).ms, { timeout: 20_000, interval: 100 }).toBeGreaterThan(gap.to);
      const skipped = await position(player);
      const wall = skipped.wall - t0.wall;
      expect(wall).toBeLessThan((gap.to - gap.from) / 2);
      expect(await playing(player)).toBe(true);

      // Skip off: the same stretch plays at 1×, a fraction of the pace with skip on.
      await player.uncheck('#skip');
      await playFrom(player, from);
      const normal = await rate(player, 2_500);
      const unskipped = await position(player);
      expect(unskipped.ms).toBeLessThan(gap.from + 6_000);
      expect(normal).toBeGreaterThan(0.4);
      expect((skipped.ms - t0.ms) / wall / normal).toBeGreaterThan(2);

      // Turned on in the middle of the stretch, while playing: from where it is, still playing, and past it soon.
      const before = await position(player);
      await player.check('#skip');
      expect((await position(player)).ms).toBeGreaterThanOrEqual(before.ms);
      expect(await playing(player)).toBe(true);
      const on = await position(player);
      expect(gap.to - on.ms).toBeGreaterThan(15_000);
      await expect.poll(async () => (await position(player)).ms, { timeout: 20_000, interval: 100 }).toBeGreaterThan(gap.to);
      expect((await position(player)).wall - on.wall).toBeLessThan((gap.to - on.ms) / 2);

      // Played from the middle of the stretch (a seek there): skipping at once.
      await playFrom(player, gap.from + 3_000);
      expect(await rate(player, 700)).toBeGreaterThan(1.5);
      // A change of speed in the middle of the skip: on from where it is, still playing, still skipping.
      const skipping = await position(player);
      await player.selectOption('#speed', '0.5');
      expect((await position(player)).ms).toBeGreaterThanOrEqual(skipping.ms);
      expect(await playing(player)).toBe(true);
      expect(await rate(player, 700)).toBeGreaterThan(1.5);
      expect((await position(player)).ms).toBeLessThan(gap.to);

      // Turned off there, while playing: on from where it is, at the speed chosen (0.5×).
      const still = await position(player);
      await player.uncheck('#skip');
      expect((await position(player)).ms).toBeGreaterThanOrEqual(still.ms);
      expect(await playing(player)).toBe(true);
      const slow = await rate(player, 1_000);
      expect(slow).toBeGreaterThan(0.2);
      expect(slow).toBeLessThan(0.8);
    } finally {
      await host.close();
    }
  });

  it("in a host that ignores the declared CSP, a recording's outside image is still not fetched: the player's own policy refuses it", async () => {
    // The "outside" server a recorded page points at; it counts what reaches it.
    let hits = 0;
    const outside: Server = createServer((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'image/gif' }).end();
    });
    await new Promise<void>((resolve) => outside.listen(0, '127.0.0.1', resolve));
    const beacon = `http://127.0.0.1:${(outside.address() as AddressInfo).port}/beacon.gif`;
    const id = 'outside-image';
    const base = `/api/projects/${P}/session_recordings/${id}`;
    const t0 = Date.now() - 3_600_000;
    const page = { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: [{ type: 2, id: 3, tagName: 'body', attributes: {}, childNodes: [
      { type: 2, id: 4, tagName: 'p', attributes: {}, childNodes: [{ type: 3, id: 5, textContent: 'Outside image below' }] },
      { type: 2, id: 6, tagName: 'img', attributes: { src: beacon, alt: 'beacon' }, childNodes: [] },
    ] }] }] };
    const events = [
      { type: 4, timestamp: t0, data: { href: 'https://shop.test/', width: 800, height: 600 } },
      { type: 2, timestamp: t0 + 1, data: { node: page, initialOffset: { top: 0, left: 0 } } },
      { type: 3, timestamp: t0 + 2_000, data: { source: 1, positions: [{ x: 1, y: 1, id: 4, timeOffset: 0 }] } },
    ];
    h.sandbox.injectFault({ path: `${base}/snapshots`, query: { source: 'blob_v2' }, times: Infinity, status: 200, body: events.map((e) => JSON.stringify(['w1', e])).join('\n') });
    h.sandbox.injectFault({ path: `${base}/snapshots`, times: Infinity, status: 200, body: { sources: [{ source: 'blob_v2', blob_key: '0', start_timestamp: new Date(t0).toISOString(), end_timestamp: new Date(t0 + 2_000).toISOString() }] } });
    h.sandbox.injectFault({ path: base, times: Infinity, status: 200, body: { id, distinct_id: 'visitor', person: null, start_time: new Date(t0).toISOString(), end_time: new Date(t0 + 2_000).toISOString(), recording_duration: 2, ongoing: false } });
    const host = await openHost({ project_id: P, id }, 'light', { ignoreCsp: true });
    try {
      const { player } = await frames(host.page);
      const replayed = (script: string) => player.evaluate(`(() => { const document = window.document.querySelector('.replayer-wrapper iframe').contentDocument; ${script} })()`);
      // The recorded page is rebuilt, its <img> pointing outside included.
      await expect.poll(() => replayed('return document.querySelector("img")?.getAttribute("src") ?? ""'), { timeout: 15_000 }).toBe(beacon);
      // The browser either fetched it or was refused it: wait for one of the two.
      await expect.poll(() => hits + host.refused.length, { timeout: 15_000 }).toBeGreaterThan(0);
      expect(hits).toBe(0);
      expect(host.refused.join('\n')).toMatch(/img-src/);
    } finally {
      await host.close();
      outside.closeAllConnections();
      await new Promise((resolve) => outside.close(resolve));
      h.sandbox.clearFaults();
    }
  });
});
