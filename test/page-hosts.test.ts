// The host of each page where a recording mixes hosts (issue 32): a checkout that goes to a
// payment provider's domain and back. Every page line then names its host (the URL whole), in
// the summary and the replay, in both views; a recording on one host names it once, on its first
// page, as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Digest, PageVisit } from '../src/digest/model.js';
import { renderDigest } from '../src/digest/render.js';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';
import { dom } from './support/rrweb-dom.js';
import { views } from './support/views.js';

const P = String(DEMO.mainProjectId);
const FAILED_CHECKOUT = '0193a1f0-5c2e-7d41-9b8a-4e6f2a1c3d01';
const T = Date.parse('2026-11-20T10:00:00Z');
const W = 'window-1';

type Ev = { type: number; timestamp: number; data: unknown };

/** The shop's cart, the payment provider's page (the card declined there), and back to the cart. */
function payElsewhere(): { id: string; lines: Array<[string, Ev]> } {
  const events: Ev[] = [];
  const visit = (t: number, href: string, build: (d: ReturnType<typeof dom>) => unknown) => {
    events.push({ type: 4, timestamp: T + t, data: { href, width: 1200, height: 800 } });
    events.push({ type: 2, timestamp: T + t + 10, data: { node: build(dom()), initialOffset: { left: 0, top: 0 } } });
  };
  visit(0, 'https://shop.example.com/cart', ({ el, page }) => page(el('h1', {}, 'Your cart'), el('button', { id: 'pay' }, 'Pay')));
  events.push({ type: 3, timestamp: T + 2_000, data: { source: 2, type: 2, id: 4, x: 5, y: 5 } });
  visit(3_000, 'https://pay.example.net/checkout', ({ el, page }) => page(el('h1', {}, 'Pay Acme Outdoor'), el('button', { id: 'confirm' }, 'Confirm')));
  const requests = [{ name: 'https://pay.example.net/api/confirm', method: 'POST', responseStatus: 402, initiatorType: 'fetch', timestamp: T + 8_000 }];
  events.push({ type: 6, timestamp: T + 8_100, data: { plugin: 'rrweb/network@1', payload: { requests } } });
  visit(15_000, 'https://shop.example.com/cart', ({ el, page }) => page(el('h1', {}, 'Your cart'), el('button', { id: 'pay' }, 'Pay')));
  return { id: 'page-hosts-pay-elsewhere', lines: events.map((e) => [W, e]) };
}

describe('pages on more than one host', () => {
  let h: Harness;
  const mixed = payElsewhere();
  beforeAll(async () => {
    h = await startHarness({ sandbox: { recordings: [mixed] } });
  });
  afterAll(() => h.close());

  const pageLines = ['0:00 "https://shop.example.com/cart" title "T"', '0:03 "https://pay.example.net/checkout" title "T"', '0:15 "https://shop.example.com/cart" title "T"'];

  it('the summary names the host of every page, and of the pages on its timeline, in both views', async () => {
    const v = views(await h.call('session-recording-summary', { project_id: P, id: mixed.id }));
    const lines = v.text.split('\n');
    for (const line of pageLines) expect(lines).toContain(`  ${line}`);
    expect(v.data.pages).toEqual(pageLines);
    const timeline = v.data.timeline as string[];
    for (const line of ['0:03 page "https://pay.example.net/checkout" start_at "0:03"', '0:15 page "https://shop.example.com/cart" start_at "0:15"', '0:08 request failed POST "https://pay.example.net/api/confirm" → 402 start_at "0:08"']) {
      expect(lines).toContain(line);
      expect(timeline).toContain(line);
    }
  });

  it('the replay gives the same page lines', async () => {
    const v = views(await h.call('session-recording-replay', { project_id: P, id: mixed.id }));
    expect(v.data.pages).toEqual(pageLines);
    for (const line of pageLines) expect(v.text.split('\n')).toContain(`  ${line}`);
  });

  it('a recording on one host names it once, on its first page', async () => {
    const r = await h.call('session-recording-summary', { project_id: P, id: FAILED_CHECKOUT });
    expect(r.isError, text(r)).toBeFalsy();
    const pages = (r.structuredContent as { pages: string[] }).pages;
    expect(pages[0]).toMatch(/^0:00 "https:\/\/shop\.example\.com\/" /);
    expect(pages.slice(1).length).toBeGreaterThan(2);
    for (const line of pages.slice(1)) expect(line).toMatch(/^\d+:\d\d "\//);
    expect(text(r).match(/shop\.example\.com/g)).toHaveLength(1);
  });
});

describe('which recordings mix hosts (renderDigest)', () => {
  const digestOf = (pages: PageVisit[]): Digest => ({
    start: T,
    end: T + 60_000,
    duration_ms: 60_000,
    active_ms: 10_000,
    timing: { frozen: false, stray: 0 },
    windows: [...new Set(pages.map((p) => p.w))].map((w) => ({ w, window_id: w, pages: pages.filter((p) => p.w === w).length })),
    pages,
    timeline: pages.map((p) => ({ t: p.t, w: p.w, kind: 'page' as const, target: p.url })),
    counts: { events: 10, clicks: 0, rage_clicks: 0, dead_clicks: 0, inputs: 0, scrolls: 0, resizes: 0, page_views: pages.length, mutations: 0, console_errors: 0, console_warnings: 0, console_logs: 0, requests: 0, failed_requests: 0, custom_events: 0 },
    notes: [],
  });
  const pagesOf = (pages: PageVisit[]) => renderDigest(digestOf(pages), { id: 'r', projectId: P }, 4_000).view.pages;

  it.each([
    {
      name: 'a page that is no web address (about:blank) is on no host: the rest still read as paths',
      pages: [
        { t: 0, w: 'w1', url: 'https://shop.example.com/cart' },
        { t: 1_000, w: 'w1', url: 'about:blank' },
        { t: 2_000, w: 'w1', url: 'https://shop.example.com/checkout' },
      ],
      lines: ['0:00 "https://shop.example.com/cart"', '0:01 "about:blank"', '0:02 "/checkout"'],
    },
    {
      name: 'a second tab on another host mixes them: every URL whole',
      pages: [
        { t: 0, w: 'w1', url: 'https://shop.example.com/cart' },
        { t: 1_000, w: 'w2', url: 'https://help.example.org/returns' },
        { t: 2_000, w: 'w1', url: 'https://shop.example.com/checkout' },
      ],
      lines: ['0:00 w1 "https://shop.example.com/cart"', '0:01 w2 "https://help.example.org/returns"', '0:02 w1 "https://shop.example.com/checkout"'],
    },
  ])('$name', ({ pages, lines }) => {
    expect(pagesOf(pages)).toEqual(lines);
  });
});
