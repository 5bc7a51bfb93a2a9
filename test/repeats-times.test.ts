// Repeats at their own times (issue 32 item 4): identical failed requests close together are one
// timeline entry with a count, and it says its first and last time ("1:11–1:14 … ×2"), so a
// retry that came after a click reads after it, in both views. Olivia's failed checkout: POST
// /api/checkout fails at 1:11 and again at 1:14, the rage click on "Place order" is at 1:15.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const CHECKOUT = '0193a1f0-5c2e-7d41-9b8a-4e6f2a1c3d01';
const T0 = Date.parse('2026-11-20T10:00:00Z');
const W = 'window-repeats';

/** A recording whose request fails at 0:05, a click at 0:07, and the same request fails again at 0:09. */
function retryAfterClick() {
  const request = (at: number) => [W, { type: 6, timestamp: T0 + at, data: { plugin: 'rrweb/network@1', payload: { requests: [{ name: 'https://shop.test/api/pay', method: 'POST', responseStatus: 502, timestamp: T0 + at, initiatorType: 'fetch', entryType: 'resource' }] } } }];
  const lines = [
    [W, { type: 4, timestamp: T0, data: { href: 'https://shop.test/pay', width: 1200, height: 800 } }],
    [W, { type: 2, timestamp: T0 + 10, data: { node: { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: [{ type: 2, id: 3, tagName: 'button', attributes: { id: 'pay' }, childNodes: [{ type: 3, id: 4, textContent: 'Pay' }] }] }] }, initialOffset: { left: 0, top: 0 } } }],
    request(5_000),
    [W, { type: 3, timestamp: T0 + 7_000, data: { source: 2, type: 2, id: 3, x: 1, y: 1 } }],
    request(9_000),
    [W, { type: 3, timestamp: T0 + 12_000, data: { source: 2, type: 2, id: 3, x: 1, y: 1 } }],
  ] as Array<[string, { type: number; timestamp: number; data: unknown }]>;
  return { id: 'repeats-0001', lines, captured: [] };
}

describe('repeated requests keep their first and last time', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { recordings: [retryAfterClick()] } });
  });
  afterAll(() => h.close());

  it('a retry after a click: the entry spans 0:05–0:09, in the text and the structured timeline', async () => {
    const r = await h.call('session-recording-summary', { project_id: P, id: 'repeats-0001' });
    expect(r.isError, text(r)).toBeFalsy();
    const timeline = (r.structuredContent as { timeline: string[] }).timeline;
    const failed = timeline.find((l) => l.includes('request failed'))!;
    expect(failed).toMatch(/^0:05–0:09 request failed POST .*\/api\/pay.* → 502 ×2 start_at "0:05"$/);
    expect(text(r).split('\n')).toContain(failed);
    // The click between them keeps its own time (a dead click here: the page did not change).
    expect(timeline.some((l) => /^0:07 (dead )?click .*button#pay/.test(l)), timeline.join('\n')).toBe(true);
  });

  it("Olivia's checkout: the 500s from 1:11 to 1:14, before the rage click at 1:15, in both views", async () => {
    const r = await h.call('session-recording-summary', { project_id: P, id: CHECKOUT });
    const timeline = (r.structuredContent as { timeline: string[] }).timeline;
    // The first answer's body follows the count (issue 44: failed requests with their reason).
    const failed = timeline.find((l) => /request failed POST .*\/api\/checkout.* → 500 ×2 start_at "1:11" body ".*Upstream payment provider timed out.*"$/.test(l))!;
    expect(failed).toMatch(/^1:11–1:14 /);
    expect(text(r).split('\n')).toContain(failed);
    expect(timeline.find((l) => /RAGE CLICK/.test(l))).toMatch(/^1:15 /);
  });
});
