import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Digester } from '../src/digest/digest.js';
import { momentsOf } from '../src/digest/moments.js';
import { DEMO } from '../src/sandbox/index.js';
import { fixture } from '../src/sandbox/demo/recorded.js';
import { PLAYER_META } from '../src/tools/recordings/player.js';
import { startHarness, text, type Harness } from './harness.js';

// The digest's moments: what the replay player marks on its timeline, given to it in the replay
// result's _meta (the model reads the digest's text lines instead), over the whole recording read
// whatever the digest's text budget cuts.

interface Moment {
  t_ms: number;
  w: string;
  kind: string;
  url?: string;
  in_page?: boolean;
  method?: string;
  status?: number;
  target?: string;
  message?: string;
  count?: number;
}

describe('moments', () => {
  it('gives each moment its time, window, kind and parts as fields', () => {
    const T0 = Date.UTC(2026, 10, 1, 9);
    const d = new Digester();
    const push = (t: number, type: number, data: unknown) => d.push('tab', { type, timestamp: T0 + t, data });
    push(0, 4, { href: 'https://shop.test/cart' });
    push(500, 5, { tag: '$pageview', payload: { href: 'https://shop.test/checkout' } });
    push(1000, 6, { plugin: 'rrweb/network@1', payload: { requests: [{ name: 'https://shop.test/api/orders', method: 'post', responseStatus: 502 }, { name: 'https://cdn.test/x.js', error: 'net::ERR_BLOCKED' }] } });
    push(1100, 6, { plugin: 'rrweb/console@1', payload: { level: 'error', payload: ['"Payment failed"'] } });
    push(1200, 6, { plugin: 'rrweb/console@1', payload: { level: 'warn', payload: ['"Slow"'] } });
    for (const t of [2000, 2200, 2400]) push(t, 3, { source: 2, type: 2, id: 7 });
    push(5000, 3, { source: 2, type: 2, id: 8 });
    push(9000, 3, { source: 1, positions: [] });
    expect(momentsOf(d.finish())).toEqual([
      { t_ms: 0, w: 'w1', kind: 'page', url: 'https://shop.test/cart' },
      { t_ms: 500, w: 'w1', kind: 'page', url: 'https://shop.test/checkout', in_page: true },
      { t_ms: 1000, w: 'w1', kind: 'request-failed', method: 'POST', url: 'https://shop.test/api/orders', status: 502 },
      { t_ms: 1000, w: 'w1', kind: 'request-failed', url: 'https://cdn.test/x.js', error: 'net::ERR_BLOCKED' },
      { t_ms: 1100, w: 'w1', kind: 'console-error', message: 'Payment failed' },
      { t_ms: 1200, w: 'w1', kind: 'console-warn', message: 'Slow' },
      { t_ms: 2000, w: 'w1', kind: 'rage-click', target: 'element 7 (no DOM snapshot seen)', count: 3 },
      { t_ms: 5000, w: 'w1', kind: 'dead-click', target: 'element 8 (no DOM snapshot seen)' },
    ]);
  });

  describe("in session-recording-replay's _meta, for the player", () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness();
    });
    afterAll(() => h.close());

    it('lists every moment of the recorded checkout failure, not in the digest the model reads', async () => {
      const info = fixture('checkout-failure');
      const expected = info.expected as {
        pages: Array<{ url: string; t_ms: number }>;
        failed_requests: Array<{ method: string; url: string; status: number; t_ms: number }>;
        console: Array<{ level: string; text: string }>;
        rage_clicks: Array<{ name: string; clicks: number }>;
        dead_clicks: Array<{ name: string }>;
      };
      const r = await h.call('session-recording-replay', { project_id: String(DEMO.mainProjectId), id: info.session_id });
      expect(r.isError, text(r)).toBeFalsy();
      const { moments } = r._meta![PLAYER_META] as { moments: Moment[] };
      expect(JSON.stringify(r.structuredContent)).not.toContain('"moments"');

      const of = (kind: string) => moments.filter((m) => m.kind === kind);
      const total = (list: Moment[]) => list.reduce((n, m) => n + (m.count ?? 1), 0);
      expect(of('page').map((m) => m.url)).toEqual(expected.pages.map((p) => p.url));
      const requests = of('request-failed');
      expect(total(requests)).toBe(expected.failed_requests.length);
      for (const m of requests) expect(m).toMatchObject({ method: expected.failed_requests[0]!.method, url: expected.failed_requests[0]!.url, status: expected.failed_requests[0]!.status });
      const errors = expected.console.filter((c) => c.level === 'error') as Array<{ level: string; text: string; t_ms: number }>;
      // Times are the recording's own: the first failure and the first error are as far apart as the script says.
      expect(Math.abs(requests[0]!.t_ms - of('console-error')[0]!.t_ms - (expected.failed_requests[0]!.t_ms - errors[0]!.t_ms))).toBeLessThan(50);
      expect(total(of('console-error'))).toBe(errors.length);
      for (const m of of('console-error')) expect(m.message).toBe(errors[0]!.text);
      expect(of('rage-click')).toEqual([expect.objectContaining({ target: expect.stringContaining(JSON.stringify(expected.rage_clicks[0]!.name)), count: expected.rage_clicks[0]!.clicks })]);
      expect(of('dead-click')).toEqual([expect.objectContaining({ target: expect.stringContaining(JSON.stringify(expected.dead_clicks[0]!.name)) })]);
      expect(moments.map((m) => m.t_ms)).toEqual([...moments.map((m) => m.t_ms)].sort((a, b) => a - b));
    });
  });
});
