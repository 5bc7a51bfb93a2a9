// Tokens in URLs (a reset link, an OAuth code, a signed request) are masked wherever a recording's
// URLs reach the model: the summary's pages, failed requests and console errors, a link named as a click target,
// session-recording-snapshots' events (unless reveal_input_values), and the list's start URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const ID = 'url-secrets-0001';
const SECRETS = ['RESETTOKEN123', 'LINKCODE77', 'APICODE55', 'ada@example.com', 'CONSOLETOKEN9', 'NETERRTOKEN8'];
const T = Date.parse('2026-11-20T10:00:00Z');
const W = 'window-1';

function recording() {
  const node = (id: number, tagName: string, attributes: Record<string, string>, childNodes: unknown[]) => ({ type: 2, id, tagName, attributes, childNodes });
  const events = [
    { type: 4, timestamp: T, data: { href: 'https://shop.test/reset?token=RESETTOKEN123&lang=en', width: 1200, height: 800 } },
    {
      type: 2,
      timestamp: T + 10,
      data: {
        node: { type: 0, id: 1, childNodes: [node(2, 'html', {}, [node(3, 'body', {}, [node(4, 'a', { href: '/verify?code=LINKCODE77' }, [{ type: 3, id: 5, textContent: 'Verify my account' }])])])] },
        initialOffset: { left: 0, top: 0 },
      },
    },
    { type: 3, timestamp: T + 2_000, data: { source: 2, type: 2, id: 4, x: 10, y: 10 } },
    {
      type: 6,
      timestamp: T + 2_100,
      data: {
        plugin: 'rrweb/network@1',
        payload: {
          requests: [
            { name: 'https://shop.test/api/verify?code=APICODE55&email=ada%40example.com&x=1', method: 'POST', initiatorType: 'fetch', responseStatus: 500, timestamp: T + 2_100 },
            { name: 'https://shop.test/api/session', method: 'GET', initiatorType: 'fetch', responseStatus: 0, error: 'TypeError: Failed to fetch https://shop.test/api/session?access_token=NETERRTOKEN8', timestamp: T + 2_120 },
          ],
        },
      },
    },
    { type: 6, timestamp: T + 2_150, data: { plugin: 'rrweb/console@1', payload: { level: 'error', trace: [], payload: ['"Request failed: GET https://shop.test/api/me?access_token=CONSOLETOKEN9&v=2 (401)"'] } } },
    { type: 5, timestamp: T + 2_200, data: { tag: '$pageview', payload: { href: 'https://shop.test/done?token=RESETTOKEN123', $current_url: 'https://shop.test/done?token=RESETTOKEN123' } } },
  ];
  return { id: ID, lines: events.map((event) => [W, event] as [string, (typeof events)[number]]) };
}

describe('secrets in recorded URLs', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { recordings: [recording()] } });
  });
  afterAll(() => h.close());

  it('the summary shows the page, the link and the failed request with their secret parameters masked', async () => {
    const r = await h.call('session-recording-summary', { project_id: P, id: ID });
    expect(r.isError, text(r)).toBeFalsy();
    const all = JSON.stringify(r);
    for (const secret of SECRETS) expect(all, secret).not.toContain(secret);
    expect(text(r)).toContain('reset?token=***&lang=en');
    expect(text(r)).toContain('/api/verify?code=***&email=***&x=1');
    expect(all).toContain('verify?code=***');
    expect(text(r)).toContain('/api/me?access_token=***&v=2 (401)');
    // A failed request's error words, which may quote its URL.
    expect(text(r)).toContain('session?access_token=***');
  });

  it('session-recording-snapshots masks them by default, and returns them with reveal_input_values', async () => {
    const masked = await h.call('session-recording-snapshots', { project_id: P, id: ID, max_events: 500 });
    expect(masked.isError, text(masked)).toBeFalsy();
    const all = JSON.stringify(masked);
    for (const secret of ['RESETTOKEN123', 'APICODE55', 'ada@example.com']) expect(all, secret).not.toContain(secret);
    expect(JSON.stringify(masked.structuredContent)).toContain('token=***');
    const revealed = await h.call('session-recording-snapshots', { project_id: P, id: ID, max_events: 500, reveal_input_values: true });
    expect(JSON.stringify(revealed.structuredContent)).toContain('RESETTOKEN123');
    expect(JSON.stringify(revealed.structuredContent)).toContain('APICODE55');
  });

  it('the list shows the start URL masked', async () => {
    const r = await h.call('session-recordings-list', { project_id: P, session_ids: [ID], date_from: '-3000d' });
    expect(r.isError, text(r)).toBeFalsy();
    const results = (r.structuredContent as { results: Array<{ id: string; start_url?: string }> }).results;
    const row = results.find((x) => x.id === ID);
    expect(row, JSON.stringify(results).slice(0, 300)).toBeDefined();
    expect(row!.start_url).toBe('https://shop.test/reset?token=***&lang=en');
    expect(JSON.stringify(r)).not.toContain('RESETTOKEN123');
  });
});
