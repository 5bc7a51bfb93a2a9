import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DigestCache } from '../src/cache/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PostHogClient } from '../src/posthog/client.js';
import { DEMO, startSandbox } from '../src/sandbox/index.js';
import { serverFactory } from '../src/server.js';
import { serveHttp } from '../src/transports/http.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

// Issue 10: what the server does when whatever answers for PostHog misbehaves. The upstream is
// the sandbox's hostile mode (src/sandbox/hostile.ts), over real HTTP.

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;

describe('bounded bodies', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ client: { timeoutMs: 10_000, maxResponseBytes: 1024 * 1024 } });
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('an endless JSON answer is cut at the cap and refused, long before the timeout', async () => {
    h.sandbox.setHostile({ kind: 'endless' });
    const r = await h.call('projects-list', { limit: 5 });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/longer than this server reads \(1 MiB, POSTHOG_MAX_RESPONSE_BYTES\)/);
  });

  it('a list far larger than the cap is refused, not returned whole', async () => {
    h.sandbox.setHostile({ kind: 'oversized', items: 50_000 });
    const r = await h.call('projects-list', { limit: 5 });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/POSTHOG_MAX_RESPONSE_BYTES/);
    expect(JSON.stringify(r).length).toBeLessThan(2_000);
  });

  it('a page longer than asked for is trimmed to the limit, the rest left for the next page', async () => {
    h.sandbox.setHostile({ kind: 'oversized', items: 500 });
    const r = await h.call('projects-list', { limit: 5 });
    expect(r.isError, text(r)).toBeFalsy();
    const page = r.structuredContent as { results: Array<{ id: number }>; has_more: boolean; next_offset: number };
    expect(page.results.map((p) => p.id)).toEqual([1, 2, 3, 4, 5]);
    expect(page.has_more).toBe(true);
    expect(page.next_offset).toBe(5);
  });
});

describe('no false success', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ client: { timeoutMs: 5_000, backoffMs: 5 } });
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  const odd = [
    { name: '302 to a login page', mode: { kind: 'redirect' as const }, says: /redirect \(302\) to https:\/\/sso\.example\.invalid\/login: POSTHOG_HOST may point at a login\/SSO page/ },
    { name: '304', mode: { kind: 'no-content' as const, status: 304 as const }, says: /304 Not Modified/ },
    { name: 'a 200 HTML page', mode: { kind: 'html' as const }, says: /HTML page, not JSON/ },
  ];

  for (const { name, mode, says } of odd) {
    it(`deletes answered with ${name} are not reported as done`, async () => {
      h.sandbox.setHostile({ ...mode, method: 'DELETE' });
      for (const [tool, args] of [
        ['project-delete', { id: DEMO.mainProjectId }],
        ['session-recording-delete', { project_id: P, id: R.checkoutFailure }],
      ] as const) {
        const r = await h.call(tool, args);
        expect(r.isError, `${tool}: ${text(r)}`).toBe(true);
        expect(text(r)).toMatch(says);
        expect(text(r)).not.toMatch(/^Deleted/);
      }
    });
  }

  it('204 is success for a DELETE (PostHog\'s real answer) but never where JSON belongs', async () => {
    h.sandbox.setHostile({ kind: 'no-content', status: 204, method: 'DELETE' });
    const deleted = await h.call('session-recording-delete', { project_id: P, id: R.checkoutFailure });
    expect(deleted.isError, text(deleted)).toBeFalsy();

    h.sandbox.setHostile({ kind: 'no-content', status: 204 });
    for (const [tool, args] of [
      ['project-get', { id: DEMO.mainProjectId }],
      ['session-recording-get', { project_id: P, id: R.checkoutFailure }],
      ['project-create', { name: 'never made' }],
      ['project-update', { id: DEMO.mainProjectId, name: 'never renamed' }],
      ['projects-list', {}],
      ['session-recordings-list', { project_id: P }],
      ['session-recording-snapshots', { project_id: P, id: R.checkoutFailure }],
    ] as const) {
      const r = await h.call(tool, args);
      expect(r.isError, `${tool}: ${text(r)}`).toBe(true);
      expect(text(r), tool).toMatch(/204 No Content where it always sends a JSON answer/);
    }
  });

  for (const { name, mode, says } of odd) {
    it(`reads and writes answered with ${name} are errors that say what happened`, async () => {
      h.sandbox.setHostile(mode);
      for (const [tool, args] of [
        ['project-get', { id: DEMO.mainProjectId }],
        ['project-create', { name: 'never made' }],
        ['project-update', { id: DEMO.mainProjectId, name: 'never renamed' }],
        ['session-recording-snapshots', { project_id: P, id: R.checkoutFailure }],
        ['session-recording-summary', { project_id: P, id: R.checkoutFailure }],
      ] as const) {
        const r = await h.call(tool, args);
        expect(r.isError, `${tool}: ${text(r)}`).toBe(true);
        expect(text(r), tool).toMatch(says);
      }
    });
  }

  it('a 200 with an empty body, an HTML page sent as JSON, or JSON that is no object is not success', async () => {
    const path = `/api/projects/${DEMO.mainProjectId}`;
    for (const [body, says] of [
      ['', /empty body where it always sends JSON/],
      ['<!DOCTYPE html><html><body>Sign in</body></html>', /HTML page, not JSON/],
      ['[1, 2]', /JSON that is not an object \(a list\)/],
      ['null', /JSON that is not an object \(null\)/],
    ] as const) {
      h.sandbox.injectFault({ path, status: 200, headers: { 'content-type': 'application/json' }, body, times: 2 });
      const r = await h.call('project-update', { id: DEMO.mainProjectId, name: 'never renamed' });
      expect(r.isError, `${body}: ${text(r)}`).toBe(true);
      expect(text(r)).toMatch(says);
      h.sandbox.clearFaults();
    }
  });

  it('wrong types in every field of every answer: each tool answers, none with "Internal error"', async () => {
    h.sandbox.setHostile({ kind: 'wrong-types' });
    for (const [tool, args] of [
      ['projects-list', {}],
      ['project-get', { id: DEMO.mainProjectId }],
      ['project-update', { id: DEMO.mainProjectId, name: 'x' }],
      ['session-recordings-list', { project_id: P }],
      ['session-recording-get', { project_id: P, id: R.checkoutFailure }],
      ['session-recording-snapshots', { project_id: P, id: R.checkoutFailure }],
      ['session-recording-summary', { project_id: P, id: R.checkoutFailure }],
      ['session-recording-reproduce', { project_id: P, id: R.checkoutFailure }],
    ] as const) {
      const r = await h.call(tool, args);
      expect(text(r), tool).not.toMatch(/Internal error/);
    }
  });

  it('a snapshot listing without a sources list is not "0 sources"', async () => {
    h.sandbox.injectFault({ path: `/api/projects/${P}/session_recordings/${R.checkoutFailure}/snapshots`, status: 200, body: { detail: 'ok' } });
    const r = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/no "sources" list/);
  });

  it('a Retry-After of 400 digits is not "Infinity seconds"', async () => {
    h.sandbox.injectFault({ path: '/api/projects', status: 503, times: 10, headers: { 'retry-after': '9'.repeat(400) } });
    const r = await h.call('projects-list', {});
    expect(r.isError).toBe(true);
    expect(text(r)).not.toMatch(/Infinity|e\+/);
    expect(text(r)).toMatch(/retry shortly/);
  });
});

/** Every way the key could still be read from a text: plain, unescaped, URL-decoded, entity-decoded, base64-decoded. */
function leaks(output: string, key: string): string[] {
  const views = [output];
  const unescaped = output
    .replace(/\\\\?u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    .replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCharCode(Number(d)));
  views.push(unescaped);
  for (const run of unescaped.match(/[A-Za-z0-9+/]{12,}={0,2}/g) ?? []) {
    for (let shift = 0; shift < 4; shift++) views.push(Buffer.from(run.slice(shift), 'base64').toString('latin1'));
  }
  const found: string[] = [];
  for (let i = 0; i + 8 <= key.length; i++) {
    const window = key.slice(i, i + 8);
    if (views.some((v) => v.includes(window))) found.push(window);
  }
  return found;
}

describe('the key in disguise', () => {
  const key = 'phx_Disguised0123456789abcdefGHIJKLmnopqrstuv';
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { apiKey: key }, client: { apiKey: key, timeoutMs: 5_000, backoffMs: 5 } });
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  for (const form of ['plain', 'json-escape', 'url', 'base64', 'prefix', 'html-entity'] as const) {
    it(`${form}: neither an error echo nor a 200 body shown as data shows it`, async () => {
      h.sandbox.setHostile({ kind: 'echo-key', form, status: 400 });
      const failed = await h.call('project-get', { id: DEMO.mainProjectId });
      expect(failed.isError).toBe(true);
      expect(leaks(JSON.stringify(failed), key)).toEqual([]);
      expect(text(failed)).toMatch(/\[redacted\]/);

      h.sandbox.setHostile({ kind: 'echo-key', form });
      const shown = await h.call('project-get', { id: DEMO.mainProjectId });
      expect(shown.isError, text(shown)).toBeFalsy();
      expect(leaks(JSON.stringify(shown), key)).toEqual([]);
      expect(JSON.stringify(shown.structuredContent)).toMatch(/\[redacted\]/);
      expect(leaks(h.stderr.join('\n'), key)).toEqual([]);
    });
  }

  it('the key inside snapshot data is removed too', async () => {
    const path = `/api/projects/${P}/session_recordings/${R.checkoutFailure}/snapshots`;
    const event = (i: number, payload: string) => JSON.stringify(['w1', { type: 6, timestamp: 1_700_000_000_000 + i, data: { plugin: 'rrweb/console@1', payload: { level: 'log', payload: [payload] } } }]);
    const escaped = [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const body = [event(0, `token ${key}`), event(1, 'fine'), `["w1",{"type":6,"timestamp":1700000000002,"data":{"plugin":"rrweb/console@1","payload":{"level":"log","payload":["x ${escaped}"]}}}]`].join('\n');
    h.sandbox.injectFault({ path, query: { source: 'blob_v2' }, status: 200, times: 5, headers: { 'content-type': 'application/jsonl' }, body });
    const r = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, max_events: 3 });
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toMatch(/console\.log .*"token \[redacted\]"/);
    expect(leaks(JSON.stringify(r), key)).toEqual([]);
  });
});

describe('the key behind an escape in the player\'s feed', () => {
  const key = 'phx_Escaped0123456789abcdefGHIJKLmnopqrstuvwx';
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { apiKey: key }, client: { apiKey: key, timeoutMs: 5_000, backoffMs: 5 } });
  });
  afterAll(() => h.close());

  it('is redacted in its own event; the page stays JSON and the other events keep their escapes', async () => {
    const path = `/api/projects/${P}/session_recordings/${R.checkoutFailure}/snapshots`;
    const t0 = 1_700_000_000_000;
    // A text holding the key behind a literal \u0070 (as a page may show it), and a URL with %2B.
    const lines = [
      ['w1', { type: 4, timestamp: t0, data: { href: 'https://example.com/a%2Bb?q=1%3D2', width: 800, height: 600 } }],
      ['w1', { type: 6, timestamp: t0 + 1, data: { plugin: 'rrweb/console@1', payload: { level: 'log', payload: [`token \\u0070${key.slice(1)}`] } } }],
    ];
    h.sandbox.injectFault({ path, query: { source: 'blob_v2' }, status: 200, times: Infinity, headers: { 'content-type': 'application/jsonl' }, body: lines.map((l) => JSON.stringify(l)).join('\n') });
    const r = await h.call('session-recording-replay-events', { project_id: P, id: R.checkoutFailure });
    expect(r.isError, text(r)).toBeFalsy();
    expect(leaks(JSON.stringify(r), key)).toEqual([]);
    const events = JSON.parse((r.structuredContent as { events: string }).events) as Array<[string, { data: { href?: string; payload?: { payload: string[] } } }]>;
    expect(events).toHaveLength(2);
    expect(events[0]![1].data.href).toBe('https://example.com/a%2Bb?q=1%3D2');
    expect(events[1]![1].data.payload!.payload[0]).toMatch(/^token .*\[redacted\]/);
  });
});

describe('the key inside gzipped recording data', () => {
  // posthog-js gzips full snapshots and mutations (cv "2024-10"): no scan of the bytes on the wire
  // sees into them, and every reader that decompresses them must still show no form of the key.
  const key = 'phx_Gzipped0123456789abcdefGHIJKLmnopqrstuvw';
  const stored: string[] = [];
  /** A real in-process cache that also keeps what it was asked to store, as text. */
  const entries = new Map<string, unknown>();
  const cache: DigestCache = {
    kind: 'memory',
    stats: { hits: 0, misses: 0, stale: 0, errors: 0 },
    async get<T>(k: { recordingId: string }, fingerprint: string): Promise<T | undefined> {
      return entries.get(`${k.recordingId}|${fingerprint}`) as T | undefined;
    },
    async set(k: { recordingId: string }, fingerprint: string, value: unknown): Promise<void> {
      stored.push(JSON.stringify(value));
      entries.set(`${k.recordingId}|${fingerprint}`, JSON.parse(JSON.stringify(value)));
    },
    async close() {},
  };
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { apiKey: key }, client: { apiKey: key, timeoutMs: 5_000, backoffMs: 5 }, cache });
  });
  afterAll(() => h.close());

  it('snapshots, summary, triage and replay show a button labelled with the key as [redacted], and the cache never stores it', async () => {
    const path = `/api/projects/${P}/session_recordings/${R.checkoutFailure}/snapshots`;
    const gz = (value: unknown) => gzipSync(Buffer.from(JSON.stringify(value))).toString('latin1');
    const corrupt = (latin1: string) => {
      const bytes = Buffer.from(latin1, 'latin1');
      bytes[bytes.length - 6]! ^= 0xff; // in the CRC-32 of the gzip trailer
      return bytes.toString('latin1');
    };
    const t0 = 1_700_000_000_000;
    const node = (id: number, tagName: string, childNodes: unknown[]) => ({ type: 2, id, tagName, attributes: {}, childNodes });
    const tree = { type: 0, id: 1, childNodes: [node(2, 'html', [node(3, 'body', [node(4, 'button', [{ type: 3, id: 5, textContent: `Copy ${key}` }]), node(6, 'h1', [{ type: 3, id: 7, textContent: `Token ${key}` }])])])] };
    const lines = [
      ['w1', { type: 4, timestamp: t0, data: { href: 'https://shop.example/settings', width: 800, height: 600 } }],
      ['w1', { type: 2, timestamp: t0 + 1, cv: '2024-10', data: gz({ node: tree, initialOffset: { top: 0, left: 0 } }) }],
      // A mutation whose gzipped texts set the heading to the key again.
      ['w1', { type: 3, timestamp: t0 + 500, cv: '2024-10', data: { source: 0, adds: gz([]), removes: gz([]), texts: gz([{ id: 7, value: `New ${key}` }]), attributes: gz([]) } }],
      // The same with a corrupt checksum: it cannot be read, and its bytes (which still inflate,
      // loosely, to the key) must not be passed on either.
      ['w1', { type: 3, timestamp: t0 + 600, cv: '2024-10', data: { source: 0, adds: gz([]), removes: gz([]), texts: corrupt(gz([{ id: 7, value: `Again ${key}` }])), attributes: gz([]) } }],
      ...[0, 1, 2, 3].map((i) => ['w1', { type: 3, timestamp: t0 + 1_000 + i * 100, data: { source: 2, type: 2, id: 4, x: 5, y: 5 } }]),
    ];
    h.sandbox.injectFault({ path, query: { source: 'blob_v2' }, status: 200, times: Infinity, headers: { 'content-type': 'application/jsonl' }, body: lines.map((l) => JSON.stringify(l)).join('\n') });
    const calls: Array<[string, Record<string, unknown>]> = [
      ['session-recording-snapshots', { project_id: P, id: R.checkoutFailure, max_events: 10 }],
      ['session-recording-summary', { project_id: P, id: R.checkoutFailure }],
      ['session-recordings-triage', { project_id: P, session_ids: [R.checkoutFailure] }],
      ['session-recording-replay', { project_id: P, id: R.checkoutFailure }],
      ['session-recording-reproduce', { project_id: P, id: R.checkoutFailure }],
      // The second summary is served from the cache.
      ['session-recording-summary', { project_id: P, id: R.checkoutFailure }],
    ];
    calls.push(['session-recording-replay-events', { project_id: P, id: R.checkoutFailure }]);
    for (const [tool, args] of calls) {
      const r = await h.call(tool, args);
      expect(r.isError, `${tool}: ${text(r)}`).toBeFalsy();
      expect(leaks(JSON.stringify(r), key), tool).toEqual([]);
      // No gzip stream (magic bytes 1f 8b) is passed on as data.
      expect(JSON.stringify(r).includes('\\u001f\u008b'), tool).toBe(false);
    }
    const summary = await h.call('session-recording-summary', { project_id: P, id: R.checkoutFailure });
    // The rage click is still reported, its label redacted rather than dropped.
    expect(text(summary)).toMatch(/RAGE CLICK button "Copy \[redacted\]"/);
    expect(stored.length).toBeGreaterThan(0);
    for (const entry of stored) expect(leaks(entry, key)).toEqual([]);
    expect(stored.join('\n')).toMatch(/\[redacted\]/);
    expect(leaks(h.stderr.join('\n'), key)).toEqual([]);
  });
});

describe('a budget per call', () => {
  it('a listing of 3,000 sources costs at most the request budget, and the cursor goes on from there', async () => {
    const h = await startHarness({ client: { timeoutMs: 5_000 }, callLimits: { maxRequests: 40, wallClockMs: 60_000, throttleWaitMs: 10_000 } });
    try {
      h.sandbox.setHostile({ kind: 'many-sources', count: 3_000 });
      const r = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure });
      expect(r.isError, text(r)).toBeFalsy();
      expect(apiRequests(h.sandbox)).toHaveLength(40);
      const first = r.structuredContent as { next_cursor: string; partial: { reason: string } };
      expect(first.partial.reason).toBe('requests');
      expect(text(r)).toMatch(/POSTHOG_CALL_MAX_REQUESTS.*cursor=/s);
      // Said in words, like the summary's "PARTIAL:" (a type's name had leaked into the text).
      expect(text(r)).toMatch(/^PARTIAL page: /m);
      expect(text(r)).not.toMatch(/PartialStop/);

      h.sandbox.requests.length = 0;
      const again = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, cursor: first.next_cursor });
      expect(again.isError, text(again)).toBeFalsy();
      const asked = apiRequests(h.sandbox).map((q) => q.query.blob_key).filter(Boolean);
      // 39 sources were read by the first call (one request went to the listing); the next starts at the 40th.
      expect(asked[0]).toBe('k39');
    } finally {
      await h.close();
    }
  });

  it('30 stalling sources and a short wall clock: the call ends at its time budget with a partial summary', async () => {
    // A wall clock shorter than two request timeouts (the test is about the wall clock): it, not the stall breaker, ends the call.
    const h = await startHarness({ client: { timeoutMs: 1_000, maxRetries: 0 }, callLimits: { maxRequests: 100, wallClockMs: 1_500, throttleWaitMs: 1_000 } });
    try {
      // The sandbox builds its demo data on first use, in this process: not inside this test's timeout.
      await h.call('session-recording-get', { project_id: P, id: R.checkoutFailure });
      h.sandbox.setHostile({ kind: 'many-sources', count: 30, stall: true });
      const r = await h.call('session-recording-summary', { project_id: P, id: R.checkoutFailure });
      expect(r.isError, text(r)).toBeFalsy();
      const blockRequests = apiRequests(h.sandbox).filter((q) => q.query.blob_key !== undefined);
      expect(blockRequests.length).toBeLessThan(30);
      expect((r.structuredContent as { partial: { reason: string } }).partial.reason).toBe('time');
      expect(text(r)).toMatch(/PARTIAL: .*POSTHOG_CALL_TIMEOUT_MS/);
    } finally {
      await h.close();
    }
  });
});

/** Issue 20 item 3: an upstream that stops answering holds a call for about two request timeouts, and then not even that. */
describe('the stall breaker', () => {
  // POSTHOG_TIMEOUT_MS=1000: the test is about the request timeout, so it is set (everything else at
  // the defaults); short, as each of these calls waits it out twice, and the cool-off six times.
  const TIMEOUT_MS = 1_000;
  /** Two request timeouts plus a second, with two more seconds of slack for a loaded machine: a bound, not a speed claim. */
  const BOUND_MS = 2 * TIMEOUT_MS + 1_000 + 2_000;

  it('30 stalling sources: the summary answers after two timeouts, partial, naming the 30 parts not read', async () => {
    const h = await startHarness({ client: { timeoutMs: TIMEOUT_MS } });
    try {
      await h.call('session-recording-get', { project_id: P, id: R.checkoutFailure });
      h.sandbox.setHostile({ kind: 'many-sources', count: 30, stall: true });
      const started = performance.now();
      const r = await h.call('session-recording-summary', { project_id: P, id: R.checkoutFailure });
      const elapsed = performance.now() - started;
      expect(r.isError, text(r)).toBeFalsy();
      expect(elapsed).toBeLessThan(BOUND_MS);
      // Two requests went to the stalled sources; the breaker kept the other 28 from being sent.
      expect(apiRequests(h.sandbox).filter((q) => q.query.blob_key !== undefined)).toHaveLength(2);
      const partial = (r.structuredContent as { partial: { reason: string; not_read: string } }).partial;
      expect(partial.reason).toBe('stalled');
      expect(partial.not_read).toMatch(/^30 of 30 parts \(Source blob k0, Source blob k1, Source blob k2, .*and 20 more\)$/);
      expect(text(r)).toMatch(/PARTIAL: PostHog at http:\/\/127\.0\.0\.1:\d+ did not answer this call's last 2 requests within 1000 ms each.* Not read: 30 of 30 parts/);
    } finally {
      await h.close();
    }
  });

  it('session-recording-replay answers within the same bound, its digest partial', async () => {
    const h = await startHarness({ client: { timeoutMs: TIMEOUT_MS } });
    try {
      await h.call('session-recording-get', { project_id: P, id: R.checkoutFailure });
      h.sandbox.setHostile({ kind: 'many-sources', count: 30, stall: true });
      const started = performance.now();
      const r = await h.call('session-recording-replay', { project_id: P, id: R.checkoutFailure });
      expect(performance.now() - started).toBeLessThan(BOUND_MS);
      expect(r.isError, text(r)).toBeFalsy();
      expect((r.structuredContent as { partial: { reason: string; not_read: string } }).partial).toMatchObject({ reason: 'stalled', not_read: expect.stringMatching(/^30 of 30 parts/) });
    } finally {
      await h.close();
    }
  });

  it('a triage over recordings whose sources all stall answers within the same bound, the recordings named as not read', async () => {
    const h = await startHarness({ client: { timeoutMs: TIMEOUT_MS } });
    try {
      const ids = [R.checkoutFailure, ...Object.values(R).filter((id) => id !== R.checkoutFailure).slice(0, 3)];
      await h.call('session-recording-get', { project_id: P, id: R.checkoutFailure });
      h.sandbox.setHostile({ kind: 'many-sources', count: 30, stall: true });
      const started = performance.now();
      const r = await h.call('session-recordings-triage', { project_id: P, session_ids: ids });
      expect(performance.now() - started).toBeLessThan(BOUND_MS);
      expect(r.isError, text(r)).toBeFalsy();
      const data = r.structuredContent as { read: number; unread: Array<{ id: string }>; partial: { reason: string } };
      expect(data.read).toBe(0);
      expect(data.unread.map((u) => u.id).sort()).toEqual([...ids].sort());
      expect(data.partial.reason).toBe('stalled');
    } finally {
      await h.close();
    }
  });

  it('a stalling source ends a snapshots page after one timeout, partial, with a cursor to the part not read', async () => {
    const h = await startHarness({ client: { timeoutMs: TIMEOUT_MS } });
    try {
      await h.call('session-recording-get', { project_id: P, id: R.checkoutFailure });
      h.sandbox.setHostile({ kind: 'many-sources', count: 30, stall: true });
      const started = performance.now();
      const r = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure });
      expect(performance.now() - started).toBeLessThan(BOUND_MS);
      expect(r.isError, text(r)).toBeFalsy();
      const page = r.structuredContent as { events: unknown[]; next_cursor: string; partial: { reason: string; not_read: string } };
      expect(page.events).toEqual([]);
      expect(page.partial.reason).toBe('stalled');
      expect(page.partial.not_read).toMatch(/^30 part\(s\) from here on \(Source blob k0, /);
      expect(text(r)).toMatch(/^PARTIAL page: PostHog did not answer GET .*within 1000 ms.* Not read yet: 30 part/m);

      // Once the upstream answers again, the cursor reads the part that stalled.
      h.sandbox.setHostile({ kind: 'many-sources', count: 30 });
      h.sandbox.requests.length = 0;
      const again = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, cursor: page.next_cursor });
      expect(again.isError, text(again)).toBeFalsy();
      expect(apiRequests(h.sandbox).map((q) => q.query.blob_key).filter(Boolean)[0]).toBe('k0');
    } finally {
      await h.close();
    }
  });

  it("a key whose host keeps stalling is told so at once for the cool-off; another key's calls to the same host are not held back", async () => {
    const sandbox = await startSandbox({ acceptAnyKey: true });
    const upstream = new PostHogClient({ baseUrl: sandbox.url, timeoutMs: TIMEOUT_MS });
    const http = await serveHttp({ host: '127.0.0.1', port: 0, client: upstream, createServer: serverFactory({ settings: { readOnly: false, toolsets: ['recordings'], defaultProjectId: undefined } }), log: () => {} });
    const A = 'phx_stalled_user_key_000000000000';
    const B = 'phx_healthy_user_key_11111111111';
    const connect = async (key: string) => {
      const client = new Client({ name: 'stall-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      return client;
    };
    const a = await connect(A);
    const b = await connect(B);
    const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
    const sentWith = (key: string) => sandbox.requests.filter((q) => q.path.startsWith('/api/') && q.authorization === `Bearer ${key}`).length;
    try {
      await call(b, 'session-recording-get', { project_id: P, id: R.checkoutFailure });
      // Only key A's snapshot sources stall.
      sandbox.setHostile({ kind: 'many-sources', count: 30, stall: true, key: A });
      // Each summary: the metadata, the listing and the $exception query answer (−0.5 each on the
      // key's stall score), two blocks time out (+1 each) and the call stops asking.
      for (let i = 0; i < 3; i++) {
        const r = await call(a, 'session-recording-summary', { project_id: P, id: R.checkoutFailure });
        expect((r.structuredContent as { partial: { reason: string } }).partial.reason, text(r)).toBe('stalled');
      }
      // Six timeouts against nine answers: the score reaches 3, the host is now failing for key A.
      // Its next call is answered without a single upstream request.
      const before = sentWith(A);
      const refused = await call(a, 'session-recording-get', { project_id: P, id: R.checkoutFailure });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/keeps not answering this key's requests .*leaves it alone for this key for 30 s; GET \/api\/projects\/\d+\/session_recordings\/[\w-]+\/? was not sent\. Retry in about \d+ seconds/);
      expect(sentWith(A)).toBe(before);
      // Key B reads the same recording from the same host, whole.
      const whole = await call(b, 'session-recording-summary', { project_id: P, id: R.checkoutFailure });
      expect(whole.isError, text(whole)).toBeFalsy();
      expect((whole.structuredContent as { partial?: unknown }).partial).toBeUndefined();
      expect(text(whole)).toMatch(/RAGE CLICK/);
      expect(JSON.stringify(refused) + JSON.stringify(whole)).not.toContain(A);
    } finally {
      await a.close();
      await b.close();
      await http.close();
      await upstream.close();
      await sandbox.close();
    }
  });
});
