// Failed requests with their reason (issue 44 item 1): a failed request's line in the digest
// carries the response body the recording kept (posthog-js's `responseBody` with payload capture
// on), at most 300 characters, quoted as recorded data, with secrets in it masked as recorded
// URLs' are; the player's moments and the triage carry the same field. Olivia's checkout in the
// sandbox week: POST /api/checkout → 500, its body saying "Upstream payment provider timed out".
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { PLAYER_META, type PlayerData } from '../src/tools/recordings/player.js';
import { startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const CHECKOUT = DEMO.recordingIds.checkoutFailure;
const REASON = 'Upstream payment provider timed out';
const T0 = Date.parse('2026-11-21T10:00:00Z');
const W = 'window-bodies';
const SECRET = 'tok_live_9f8e7d6c5b4a';
const CODE = 'Zq81xYw2';

/** A recording whose sign-in fails twice: a 401 whose body names a token and a link with a code, and a 502 answering a long HTML page. */
function secretBodies() {
  const failed = (at: number, name: string, status: number, responseBody: string) => [W, { type: 6, timestamp: T0 + at, data: { plugin: 'rrweb/network@1', payload: { requests: [{ name, method: 'POST', responseStatus: status, timestamp: T0 + at, initiatorType: 'fetch', entryType: 'resource', responseBody }] } } }];
  const lines = [
    [W, { type: 4, timestamp: T0, data: { href: 'https://app.test/login', width: 1200, height: 800 } }],
    [W, { type: 2, timestamp: T0 + 10, data: { node: { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: [] }] }, initialOffset: { left: 0, top: 0 } } }],
    failed(2_000, 'https://app.test/api/session', 401, JSON.stringify({ error: 'invalid_grant', message: 'Token expired, sign in again', access_token: SECRET, retry: `https://auth.test/retry?code=${CODE}&state=1` })),
    failed(30_000, 'https://app.test/api/profile', 502, `<html><body><h1>502 Bad Gateway</h1>${'<p>upstream connect error</p>'.repeat(40)}</body></html>`),
    [W, { type: 3, timestamp: T0 + 40_000, data: { source: 2, type: 2, id: 2, x: 1, y: 1 } }],
  ] as Array<[string, { type: number; timestamp: number; data: unknown }]>;
  return { id: 'bodies-0001', lines, captured: [] };
}

const timelineOf = (r: CallToolResult) => (r.structuredContent as { timeline: string[] }).timeline;

describe('a failed request says what the server answered', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { recordings: [secretBodies()] } });
  });
  afterAll(() => h.close());

  it("Olivia's checkout: the 500's body in the summary's text and structured view, on the request's line", async () => {
    const r = await h.call('session-recording-summary', { project_id: P, id: CHECKOUT });
    expect(r.isError, text(r)).toBeFalsy();
    const line = timelineOf(r).find((l) => /request failed POST .*\/api\/checkout.* → 500/.test(l));
    expect(line).toBeDefined();
    // Quoted as data: the body is a JSON string literal of what the server sent.
    expect(line).toContain(`body ${JSON.stringify(JSON.stringify({ error: 'payment_intent_failed', message: REASON }))}`);
    expect(text(r).split('\n')).toContain(line);
    // Inside the recorded-data fence, as every recorded string.
    const fenced = text(r).slice(text(r).indexOf('<<recorded-data '), text(r).indexOf('<<end recorded-data '));
    expect(fenced).toContain(REASON);
  });

  it("the player's moment and the triage carry the same body", async () => {
    const replay = await h.call('session-recording-replay', { project_id: P, id: CHECKOUT });
    expect(replay.isError, text(replay)).toBeFalsy();
    const moment = (replay._meta![PLAYER_META] as PlayerData).moments.find((m) => m.kind === 'request-failed' && m.status === 500);
    expect(moment?.body).toBe(JSON.stringify({ error: 'payment_intent_failed', message: REASON }));
    const triage = await h.call('session-recordings-triage', { project_id: P, session_ids: [CHECKOUT], max_chars: 20_000 });
    expect(triage.isError, text(triage)).toBeFalsy();
    expect(JSON.stringify(triage.structuredContent)).toContain(REASON);
    expect(text(triage)).toContain(REASON);
  });

  it('secrets in a body are masked as in URLs, the rest as sent; a long body is cut to 300 characters', async () => {
    const r = await h.call('session-recording-summary', { project_id: P, id: 'bodies-0001' });
    expect(r.isError, text(r)).toBeFalsy();
    const all = `${text(r)}\n${JSON.stringify(r.structuredContent)}`;
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain(CODE);
    const signIn = timelineOf(r).find((l) => l.includes('/api/session'))!;
    expect(signIn).toContain('→ 401 start_at "0:02" body ');
    const body = JSON.parse(signIn.slice(signIn.indexOf(' body ') + 6)) as string;
    expect(JSON.parse(body)).toEqual({ error: 'invalid_grant', message: 'Token expired, sign in again', access_token: '***', retry: 'https://auth.test/retry?code=***&state=1' });
    const gateway = timelineOf(r).find((l) => l.includes('/api/profile'))!;
    const html = JSON.parse(gateway.slice(gateway.indexOf(' body ') + 6)) as string;
    expect(html.startsWith('<html><body><h1>502 Bad Gateway</h1><p>upstream connect error</p>')).toBe(true);
    expect(html.length).toBe(300);
    expect(html.endsWith('…')).toBe(true);
    expect(text(r).split('\n')).toContain(gateway);
  });
});
