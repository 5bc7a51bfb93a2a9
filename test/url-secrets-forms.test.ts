// Tokens in URLs in the forms real pages carry them: a URL inside another's `next=` (plain, or
// percent-encoded once or twice, as login redirects carry the page asked for) and a password
// written into the URL. Each must be masked wherever the digest, the snapshots tool or the list
// shows the URL, and the rest of the URL must stay readable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const ID = 'url-secrets-forms-0001';
const T = Date.parse('2026-11-20T10:00:00Z');
const W = 'window-1';
const PAGE = 'https://shop.test/login?next=/account/reset?token=PLAINNESTED1&lang=en';
const ENCODED_ONCE = 'https://shop.test/api/session?next=%2Freset%3Ftoken%3DENCODEDONCE2%26lang%3Den';
const ENCODED_TWICE = 'https://shop.test/api/go?u=https%253A%252F%252Fshop.test%252Freset%253Ftoken%253DENCODEDTWICE3';
const USERINFO = 'https://admin:USERINFOPW4@internal.shop.test/api/health';
const PATH_TOKEN = 'https://shop.test/account/reset/PATHTOKEN7abc123def/edit';
const SECRETS = ['PLAINNESTED1', 'ENCODEDONCE2', 'ENCODEDTWICE3', 'USERINFOPW4', 'CONSOLENESTED5', 'PATHTOKEN7abc123def'];

function recording() {
  const failed = (name: string, at: number) => ({ name, method: 'GET', initiatorType: 'fetch', responseStatus: 500, timestamp: at });
  const events = [
    { type: 4, timestamp: T, data: { href: PAGE, width: 1200, height: 800 } },
    {
      type: 2,
      timestamp: T + 10,
      data: { node: { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: [] }] }, initialOffset: { left: 0, top: 0 } },
    },
    {
      type: 6,
      timestamp: T + 2_100,
      data: { plugin: 'rrweb/network@1', payload: { requests: [failed(ENCODED_ONCE, T + 2_100), failed(ENCODED_TWICE, T + 2_110), failed(USERINFO, T + 2_120)] } },
    },
    // A second page: a reset link whose token is a path segment.
    { type: 4, timestamp: T + 2_120, data: { href: PATH_TOKEN, width: 1200, height: 800 } },
    {
      type: 6,
      timestamp: T + 2_150,
      data: { plugin: 'rrweb/console@1', payload: { level: 'error', trace: [], payload: ['"Redirect failed: /login?next=/reset?token=CONSOLENESTED5"'] } },
    },
  ];
  // The first page view as PostHog captured it: session-recording-properties reads its $current_url.
  const captured = [{ event: '$pageview', timestamp: T, properties: { $session_id: ID, $current_url: 'https://shop.test/welcome?invite_token=PROPTOKEN6&ref=mail', $pathname: '/welcome', $host: 'shop.test' } }];
  return { id: ID, lines: events.map((event) => [W, event] as [string, (typeof events)[number]]), captured };
}

describe('secrets in URLs carried inside other URLs, or as a URL password', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { recordings: [recording()] } });
  });
  afterAll(() => h.close());

  it('the summary masks them and keeps the rest of each URL', async () => {
    const r = await h.call('session-recording-summary', { project_id: P, id: ID });
    expect(r.isError, text(r)).toBeFalsy();
    const all = JSON.stringify(r);
    for (const secret of SECRETS) expect(all, secret).not.toContain(secret);
    expect(text(r)).toContain('login?next=/account/reset?token=***&lang=en');
    expect(text(r)).toContain('next=%2Freset%3Ftoken%3D***%26lang%3Den');
    expect(text(r)).toContain('reset%253Ftoken%253D***');
    expect(text(r)).toContain('admin:***@internal.shop.test/api/health');
    expect(text(r)).toContain('/login?next=/reset?token=***');
    expect(all).toContain('/account/reset/***/edit');
  });

  it('session-recording-snapshots masks them in the page and request URLs', async () => {
    const r = await h.call('session-recording-snapshots', { project_id: P, id: ID, max_events: 500 });
    expect(r.isError, text(r)).toBeFalsy();
    const all = JSON.stringify(r);
    for (const secret of ['PLAINNESTED1', 'ENCODEDONCE2', 'ENCODEDTWICE3', 'USERINFOPW4', 'PATHTOKEN7abc123def']) expect(all, secret).not.toContain(secret);
    expect(JSON.stringify(r.structuredContent)).toContain('reset?token=***&lang=en');
  });

  it('the list masks the start URL', async () => {
    const r = await h.call('session-recordings-list', { project_id: P, session_ids: [ID], date_from: '-3000d' });
    expect(r.isError, text(r)).toBeFalsy();
    const row = (r.structuredContent as { results: Array<{ id: string; start_url?: string }> }).results.find((x) => x.id === ID);
    expect(row?.start_url).toBe('https://shop.test/login?next=/account/reset?token=***&lang=en');
  });

  it("session-recording-properties masks the first page view's URL, as the list masks the start URL", async () => {
    const r = await h.call('session-recording-properties', { project_id: P, session_ids: [ID] });
    expect(r.isError, text(r)).toBeFalsy();
    expect(JSON.stringify(r)).not.toContain('PROPTOKEN6');
    expect(text(r)).toContain('welcome?invite_token=***&ref=mail');
  });

  it('session-recording-reproduce leaves a path token out of its gotos', async () => {
    const r = await h.call('session-recording-reproduce', { project_id: P, id: ID });
    expect(r.isError, text(r)).toBeFalsy();
    expect(JSON.stringify(r)).toContain('/account/reset/');
    expect(JSON.stringify(r)).not.toContain('PATHTOKEN7abc123def');
  });
});
