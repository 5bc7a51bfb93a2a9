import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { DEMO } from '../src/sandbox/index.js';
import { LoopbackWatch } from '../src/watch/index.js';
import { startHarness, text, type Harness } from './harness.js';
import { chromiumPresent, headlessContext } from './support/chromium.js';

/**
 * The replay's watch link (issue 43) in a real browser: a client that declares no MCP Apps gets a
 * link to the player on a loopback listener of the server's own; Debian's headless Chromium opens
 * it as a tab of its own (no host, no frame). Every request the page makes is recorded.
 */
const hasChromium = chromiumPresent('watch-browser tests');

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;

interface Link {
  url: string;
  expiresAt: string;
  text: string;
}

describe.skipIf(!hasChromium)('the watch link in headless Chromium (a client without MCP Apps)', { timeout: 90_000 }, () => {
  let h: Harness;
  let watch: LoopbackWatch;
  let context: BrowserContext;
  let chromium: Awaited<ReturnType<typeof headlessContext>>;

  beforeAll(async () => {
    watch = new LoopbackWatch();
    h = await startHarness({ watch });
    chromium = await headlessContext('watch');
    context = chromium.context;
  }, 60_000);

  afterAll(async () => {
    await chromium?.close();
    await h?.close();
  });

  async function linkTo(id: string, args: Record<string, unknown> = {}): Promise<Link> {
    const result = await h.call('session-recording-replay', { project_id: P, id, ...args });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as { watch_url?: string; watch_expires_at?: string };
    expect(data.watch_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/watch\/[\w-]{43}\.[\w-]{22}\/$/);
    return { url: data.watch_url!, expiresAt: data.watch_expires_at!, text: text(result) };
  }

  async function open(url: string): Promise<{ page: Page; requests: string[]; refused: string[] }> {
    const page = await context.newPage();
    const requests: string[] = [];
    const refused: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await page.goto(url);
    await page.waitForSelector('#player[data-ready="true"] .replayer-wrapper iframe', { timeout: 30_000 }).catch(async (e) => {
      throw new Error(`${e}\nplayer status: ${await page.textContent('#status')}`);
    });
    return { page, requests, refused };
  }

  it('gives the link in both views, says when it ends and to hand it to the user; the page plays the recording, seeks to a moment, and asks nothing of any other host', async () => {
    const before = Date.now();
    const link = await linkTo(R.recordedCheckout);
    const expires = Date.parse(link.expiresAt);
    expect(expires - before).toBeGreaterThan(29 * 60_000);
    expect(expires - before).toBeLessThanOrEqual(30 * 60_000 + 5_000);
    expect(link.text).toContain(link.url);
    expect(link.text).toContain(link.expiresAt);
    expect(link.text).toMatch(/If no player appeared in the chat, give the user this link/);

    const { page, requests, refused } = await open(link.url);
    try {
      const replayed = (script: string) => page.evaluate(`(() => { const document = window.document.querySelector('.replayer-wrapper iframe').contentDocument; ${script} })()`);
      await expect.poll(() => replayed('return document.body?.textContent ?? ""'), { timeout: 15_000 }).toContain('Light and wood for calm desks');
      await page.waitForSelector('#player[data-loaded="true"]', { state: 'attached', timeout: 30_000 });
      // It plays: the position moves on.
      if ((await page.getAttribute('#play', 'aria-pressed')) !== 'true') await page.click('#play');
      const t0 = Number(await page.getAttribute('#time', 'data-ms'));
      await expect.poll(async () => Number(await page.getAttribute('#time', 'data-ms')), { timeout: 10_000 }).toBeGreaterThan(t0 + 300);
      await page.click('#play');

      // The digest's moments are on the timeline; the console error's marker seeks to the checkout.
      const marker = page.locator('.marker[data-kind="console-error"]').first();
      const t = Number(await marker.getAttribute('data-t'));
      expect(t).toBeGreaterThan(10_000);
      await marker.click();
      await expect.poll(async () => Math.abs(Number(await page.getAttribute('#time', 'data-ms')) - t), { timeout: 10_000 }).toBeLessThan(250);
      await expect.poll(() => replayed(`return [...document.querySelectorAll('button')].map((b) => b.textContent.trim())`), { timeout: 10_000 }).toContain('Place order');
      expect(await page.textContent('#console')).toContain('Payment failed: order service returned 500');
      // "Open in PostHog" is an ordinary link the browser opens (not followed here).
      expect(await page.getAttribute('#posthog-link', 'href')).toBe(`${h.sandbox.url}/project/${P}/replay/${R.recordedCheckout}?t=0`);

      // Every request: the page and what it loads, under /watch/<token>/ of the listener.
      const outside = requests.filter((url) => !url.startsWith(link.url) && !/^(data|blob|about):/.test(url));
      expect(outside).toEqual([]);
      expect(requests.filter((url) => url.startsWith(`${link.url}events?`)).length).toBeGreaterThan(0);
      expect(refused).toEqual([]);
      // No form of the key in any URL the page asked for.
      expect(requests.join('\n')).not.toContain(h.sandbox.apiKey);
    } finally {
      await page.close();
    }
  });

  it('starts where the call said (start_at), as the in-chat player does', async () => {
    const link = await linkTo(R.recordedCheckout, { start_at: '0:20' });
    const { page } = await open(link.url);
    try {
      const at = Number(await page.getAttribute('#time', 'data-ms'));
      expect(at).toBeGreaterThanOrEqual(19_500);
      expect(at).toBeLessThan(23_000);
    } finally {
      await page.close();
    }
  });
});
