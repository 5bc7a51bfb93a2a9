import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, type Harness } from './harness.js';
import { expectInBoth, expectTwoViews, views, type Views } from './support/views.js';

// The raw recording tools' results as both kinds of client hand them to a model (docs/design.md, "Both views"): the text and JSON.stringify(structuredContent) hold the same page of events, the
// same failures and steps, within 1.3× of each other, with the notice that recorded strings are data.

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;

type Event = { window: string | null; type: number; timestamp: number; data?: unknown; omitted?: string };
interface Page {
  event_count: number;
  events: Event[];
  windows?: Record<string, string>;
  next_cursor: string | null;
}
type NetworkRequest = { name?: string; method?: string; responseStatus?: number; duration?: number; responseBody?: string };

/** The event as its text line writes it: the same JSON, without the tab label said before it. */
function asLine(event: Event): string {
  const { window: _tab, ...rest } = event;
  return JSON.stringify(rest);
}

/** Every event of the page is in the text, whole, and the count and the way on are in both views. */
function expectSamePage(v: Views): Page {
  const page = v.data as unknown as Page;
  expect(page.event_count).toBe(page.events.length);
  expect(page.events.length).toBeGreaterThan(0);
  expect(v.text).toContain(`${page.event_count} events on this page`);
  for (const event of page.events) expect(v.text).toContain(asLine(event));
  for (const [label, id] of Object.entries(page.windows ?? {})) expect(v.text).toContain(`${label} = window ${JSON.stringify(id)}`);
  if (page.next_cursor) expectInBoth(v, [page.next_cursor]);
  else expect(v.text).toContain('End of recording.');
  return page;
}

describe('session-recording-snapshots: the text carries the page the structured view holds', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('a first page and the page its cursor continues to: same events, same cursor, within 1.3×, well under 64 KiB', async () => {
    const first = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure });
    const v1 = views(first);
    expectTwoViews(v1, { recorded: true });
    const page1 = expectSamePage(v1);
    expect(page1.next_cursor).toEqual(expect.any(String));
    expect(Buffer.byteLength(JSON.stringify(first))).toBeLessThan(56 * 1024);
    // The sources listing is in both views too.
    const sources = (v1.data as { sources: unknown[] }).sources;
    for (const source of sources) expect(v1.text).toContain(JSON.stringify(source));

    const second = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, cursor: page1.next_cursor });
    const v2 = views(second);
    expectTwoViews(v2, { recorded: true });
    const page2 = expectSamePage(v2);
    expect(page2.events[0]!.timestamp).toBeGreaterThanOrEqual(page1.events.at(-1)!.timestamp);
    expect(Buffer.byteLength(JSON.stringify(second))).toBeLessThan(56 * 1024);
  });

  it("a failed request's method, URL, status, time and response body are readable in both views", async () => {
    let cursor: string | undefined;
    let found: { v: Views; request: NetworkRequest } | undefined;
    for (let i = 0; i < 20 && !found; i++) {
      const r = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, ...(cursor ? { cursor } : {}) });
      const v = views(r);
      const page = v.data as unknown as Page;
      const requests = page.events
        .filter((e) => e.type === 6 && (e.data as { plugin?: string }).plugin === 'rrweb/network@1')
        .flatMap((e) => (e.data as { payload: { requests: NetworkRequest[] } }).payload.requests);
      const failed = requests.find((q) => q.method === 'POST' && q.name?.endsWith('/api/checkout') && q.responseStatus === 500);
      if (failed) found = { v, request: failed };
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    }
    expect(found, 'the failed checkout request').toBeDefined();
    const { v, request } = found!;
    expect(v.text).toContain(`POST "https://shop.example.com/api/checkout" → 500, ${request.duration} ms`);
    expect(request.responseBody).toMatch(/payment_intent_failed/);
    // The body as the event's JSON holds it, whole, in the text's line and in the structured event.
    for (const view of [v.text, v.json]) {
      expect(view).toContain('"responseStatus":500');
      expect(view).toContain(`"responseBody":${JSON.stringify(request.responseBody)}`);
    }
  });

  it('a response body too large for one page is cut to fit, not the request left out', async () => {
    const id = 'big-response';
    const base = `/api/projects/${P}/session_recordings/${id}`;
    const t0 = Date.UTC(2026, 10, 1, 9);
    const body = JSON.stringify({ error: 'validation_failed', detail: 'x'.repeat(30_000) });
    const request = { name: 'https://shop.test/api/orders', method: 'POST', responseStatus: 422, duration: 87, requestBody: '{"sku":"A1"}', responseBody: body };
    const events = [
      { type: 4, timestamp: t0, data: { href: 'https://shop.test/', width: 800, height: 600 } },
      { type: 6, timestamp: t0 + 500, data: { plugin: 'rrweb/network@1', payload: { requests: [request] } } },
    ];
    h.sandbox.injectFault({ path: `${base}/snapshots`, query: { source: 'blob_v2' }, times: Infinity, status: 200, body: events.map((e) => JSON.stringify(['w1', e])).join('\n') });
    h.sandbox.injectFault({ path: `${base}/snapshots`, times: Infinity, status: 200, body: { sources: [{ source: 'blob_v2', blob_key: '0', start_timestamp: null, end_timestamp: null }] } });
    const v = views(await h.call('session-recording-snapshots', { project_id: P, id }));
    const page = v.data as unknown as Page;
    expect(page.events[1]!.omitted).toBeUndefined();
    const shown = (page.events[1]!.data as { payload: { requests: NetworkRequest[] } }).payload.requests[0]!;
    expect(shown.responseStatus).toBe(422);
    expect(shown.responseBody).toMatch(/^\{"error":"validation_failed","detail":"x+… \[\d+ more characters not shown\]$/);
    expectTwoViews(v, { recorded: true });
    expectSamePage(v);
    expect(v.text).toContain('POST "https://shop.test/api/orders" → 422, 87 ms');
    expectInBoth(v, ['validation_failed', 'more characters not shown']);
    // The request body stays masked, as before.
    expect(shown).toMatchObject({ requestBody: '{"sku":"**"}' });
  });
});

describe('session-recording-reproduce: the text shows what the structured view holds', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('every failure (those not asserted too), the asserts, the steps with their selectors, the placeholders and what was left out', async () => {
    const r = await h.call('session-recording-reproduce', { project_id: P, id: R.checkoutFailure });
    const v = views(r);
    expectTwoViews(v, { recorded: true });
    const data = v.data as {
      filename: string;
      code: string;
      steps: Array<{ selector: string | null; action: string }>;
      failures: Array<{ n: number; step: number; says: string }>;
      asserts: Array<{ says: string }>;
      placeholders: Array<{ env: string; default: string }>;
      skipped: string[];
    };
    expect(data.failures.length).toBeGreaterThan(data.asserts.length);
    // The failures the test does not assert are the ones only a failures list can tell about.
    const later = data.failures.filter((f) => f.step !== data.failures[0]!.step);
    expect(later.length).toBeGreaterThan(0);
    for (const f of data.failures) expect(v.text).toContain(`${f.n}. step ${f.step}`);
    expectInBoth(v, [...data.failures.map((f) => f.says), ...data.asserts.map((a) => a.says)]);
    expectInBoth(v, [data.steps.at(-1)!.selector!, data.filename, data.code]);
    for (const step of data.steps) if (step.selector) expectInBoth(v, [step.selector]);
    expectInBoth(v, data.placeholders.flatMap((p) => [p.env, p.default]));
    expectInBoth(v, data.skipped);
  });
});

describe('recorded bidi controls stay escaped in both raw tools\' text', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('a console error holding U+202E is quoted, its controls escaped', async () => {
    const id = 'bidi-console';
    const base = `/api/projects/${P}/session_recordings/${id}`;
    const t0 = Date.UTC(2026, 10, 1, 9);
    const tree = {
      type: 0,
      id: 1,
      childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: [{ type: 2, id: 3, tagName: 'body', attributes: {}, childNodes: [{ type: 2, id: 4, tagName: 'button', attributes: { id: 'pay' }, childNodes: [{ type: 3, id: 5, textContent: 'Pay' }] }] }] }],
    };
    const events = [
      { type: 4, timestamp: t0, data: { href: 'https://shop.test/', width: 800, height: 600 } },
      { type: 2, timestamp: t0 + 1, data: { node: tree, initialOffset: { top: 0, left: 0 } } },
      { type: 3, timestamp: t0 + 1_000, data: { source: 2, type: 2, id: 4, x: 5, y: 5 } },
      { type: 6, timestamp: t0 + 1_200, data: { plugin: 'rrweb/console@1', payload: { level: 'error', payload: ['"Pay \u202efailed\u202c now"'] } } },
    ];
    h.sandbox.injectFault({ path: `${base}/snapshots`, query: { source: 'blob_v2' }, times: Infinity, status: 200, body: events.map((e) => JSON.stringify(['w1', e])).join('\n') });
    h.sandbox.injectFault({ path: `${base}/snapshots`, times: Infinity, status: 200, body: { sources: [{ source: 'blob_v2', blob_key: '0', start_timestamp: null, end_timestamp: null }] } });
    h.sandbox.injectFault({ path: base, times: Infinity, status: 200, body: { id, distinct_id: 'bidi', person: null } });

    const reproduce = views(await h.call('session-recording-reproduce', { project_id: P, id }));
    expect(reproduce.text).toContain('console error "Pay \\u202efailed\\u202c now"');
    expect(reproduce.text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);

    const snapshots = views(await h.call('session-recording-snapshots', { project_id: P, id }));
    expect(snapshots.text).toContain('Pay \\u202efailed\\u202c now');
    expect(snapshots.text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });
});
