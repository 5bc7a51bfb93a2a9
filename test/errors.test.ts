import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const LIST = `/api/projects/${P}/session_recordings`;

describe('upstream failures become actionable tool errors, and the server survives them', () => {
  let h: Harness;
  // Not the CLI's 30 s timeout and its retry backoff: 400 ms and 20 ms, so the timeout and the
  // bounded 502/504 retries below take milliseconds. What they assert (a timeout reported, not
  // retried; retries bounded; PostHog's named wait over this backoff) holds at any figures.
  beforeAll(async () => {
    h = await startHarness({ client: { timeoutMs: 400, backoffMs: 20 } });
    // The sandbox builds its demo recordings on first use, in this process: a build inside a
    // 400 ms timeout would make the first listing here race its own timer.
    await h.call('session-recordings-list', { project_id: P, limit: 1 });
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  const list = () => h.call('session-recordings-list', { project_id: P, limit: 1 });

  it('401: says to check the key, without showing it', async () => {
    const wrong = await startHarness({ client: { apiKey: 'phx_wrong_key_abcdefghijklmnop' } });
    try {
      const r = await wrong.call('projects-list', {});
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/401/);
      expect(text(r)).toMatch(/POSTHOG_PERSONAL_API_KEY/);
      expect(text(r)).toMatch(/authentication_failed|invalid/i);
      expect(JSON.stringify(r)).not.toContain('phx_wrong_key_abcdefghijklmnop');
      expect(wrong.stderr.join('\n')).not.toContain('phx_wrong_key_abcdefghijklmnop');
    } finally {
      await wrong.close();
    }
  });

  it('403: names the scope the key needs', async () => {
    h.sandbox.injectFault({ path: /\/api\/projects\/?$/, status: 403, body: { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'project:read'", attr: null } });
    const r = await h.call('projects-list', {});
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/403/);
    expect(text(r)).toMatch(/project:read/);
  });

  it('429 with a short wait is retried and succeeds', async () => {
    // Its own server: the client learns a replay rate from this 429 (POSTHOG_REPLAY_RATE_LIMITS=auto)
    // and would pace every later listing of the shared one by it, seconds per test. The shared
    // one's short timeout and backoff, so the 1 s PostHog named is seen to win over the backoff.
    const own = await startHarness({ client: { timeoutMs: 400, backoffMs: 20 } });
    try {
      await own.call('session-recordings-list', { project_id: P, limit: 1 });
      own.sandbox.reset();
      own.sandbox.injectFault({ path: LIST, status: 429, body: { type: 'throttled_error', code: 'throttled', detail: 'Request was throttled. Expected available in 1 seconds.', attr: null } });
      const started = Date.now();
      const r = await own.call('session-recordings-list', { project_id: P, limit: 1 });
      expect(r.isError, text(r)).toBeFalsy();
      expect(apiRequests(own.sandbox)).toHaveLength(2);
      // The wait PostHog named (1 s), not the 20 ms backoff this harness would otherwise use.
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    } finally {
      await own.close();
    }
  });

  it('429 with a long wait is not waited out: the error says when to retry', async () => {
    // Its own server: the client remembers PostHog's 45 s for this key, which would hold up the other tests.
    const own = await startHarness({ client: { timeoutMs: 400, backoffMs: 20 } });
    try {
      own.sandbox.injectFault({ path: LIST, times: 5, status: 429, body: { type: 'throttled_error', code: 'throttled', detail: 'Request was throttled. Expected available in 45 seconds.', attr: null } });
      const r = await own.call('session-recordings-list', { project_id: P, limit: 1 });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/retry in about 45 seconds/);
      expect(apiRequests(own.sandbox)).toHaveLength(1);
      // Until then, nothing is sent that PostHog would refuse again.
      const again = await own.call('session-recordings-list', { project_id: P, limit: 1 });
      expect(text(again)).toMatch(/retry in about 4\d seconds/);
      expect(apiRequests(own.sandbox)).toHaveLength(1);
    } finally {
      await own.close();
    }
  });

  it('honours Retry-After on 503', async () => {
    h.sandbox.injectFault({ path: LIST, status: 503, headers: { 'retry-after': '1' } });
    const started = Date.now();
    const r = await list();
    expect(r.isError).toBeFalsy();
    expect(apiRequests(h.sandbox)).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('502/504 and connection resets on GET are retried a bounded number of times', async () => {
    h.sandbox.injectFault({ path: LIST, status: 502 });
    h.sandbox.injectFault({ path: LIST, reset: true });
    h.sandbox.injectFault({ path: LIST, status: 504 });
    const r = await list();
    expect(r.isError, text(r)).toBeFalsy();
    expect(apiRequests(h.sandbox)).toHaveLength(4);

    h.sandbox.reset();
    h.sandbox.injectFault({ path: LIST, status: 502, times: Infinity });
    const failed = await list();
    expect(failed.isError).toBe(true);
    expect(text(failed)).toMatch(/502/);
    expect(apiRequests(h.sandbox)).toHaveLength(4); // the first try and three retries
  });

  it('POST is never retried once it may have reached PostHog', async () => {
    h.sandbox.injectFault({ method: 'POST', path: '/api/projects', status: 503 });
    const r = await h.call('project-create', { name: 'Retry me not' });
    expect(r.isError).toBe(true);
    expect(apiRequests(h.sandbox).filter((q) => q.method === 'POST')).toHaveLength(1);

    h.sandbox.reset();
    h.sandbox.injectFault({ method: 'PATCH', path: `/api/projects/${P}`, reset: true });
    const patch = await h.call('project-update', { id: DEMO.mainProjectId, name: 'x' });
    expect(patch.isError).toBe(true);
    expect(apiRequests(h.sandbox).filter((q) => q.method === 'PATCH')).toHaveLength(1);
  });

  it('a timeout is reported, not retried', async () => {
    h.sandbox.injectFault({ path: LIST, delayMs: 1_500 });
    const r = await list();
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/did not answer .* within 400 ms/);
    expect(apiRequests(h.sandbox)).toHaveLength(1);
  });

  it('500 with PostHog\'s {"error": …} body and a malformed 200 body both become clear errors', async () => {
    h.sandbox.injectFault({ path: LIST, status: 500 });
    const r500 = await list();
    expect(r500.isError).toBe(true);
    expect(text(r500)).toMatch(/500.*internal server error/i);
    h.sandbox.injectFault({ path: LIST, malformed: true });
    const bad = await list();
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/not JSON/);
  });

  it('400 validation errors carry PostHog\'s detail and field', async () => {
    h.sandbox.injectFault({
      method: 'PATCH',
      path: `/api/projects/${P}`,
      status: 400,
      body: { type: 'validation_error', code: 'invalid_input', detail: 'Ensure this field has no more than 200 characters.', attr: 'name' },
    });
    const r = await h.call('project-update', { id: DEMO.mainProjectId, name: 'fine locally' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/no more than 200 characters/);
    expect(text(r)).toMatch(/\[field: name\]/);
  });

  it('redacts a key that a proxy echoes in a long error page, wherever the text would be cut', async () => {
    const key = 'phx_echoed_by_a_proxy_0123456789abcdef';
    // Each page is a 502, retried three times: the short backoff of the shared harness, not 2 s a page.
    const leaky = await startHarness({ sandbox: { apiKey: key }, client: { backoffMs: 20 } });
    try {
      for (const pad of [150, 190, 200, 480]) {
        leaky.sandbox.injectFault({ path: /\/api\/projects\/?$/, status: 502, times: 4, headers: { 'content-type': 'text/html' }, body: `<html><body>${'x'.repeat(pad)} Authorization: Bearer ${key}</body></html>` });
        const r = await leaky.call('projects-list', {});
        expect(r.isError).toBe(true);
        expect(JSON.stringify(r)).not.toContain(key.slice(0, 8));
      }
    } finally {
      await leaky.close();
    }
  });

  it('the server keeps answering after every failure above', async () => {
    for (const fault of [{ reset: true, times: Infinity }, { malformed: true }, { status: 500 }]) {
      h.sandbox.reset();
      h.sandbox.injectFault({ path: LIST, ...fault });
      await list();
    }
    h.sandbox.reset();
    const r = await list();
    expect(r.isError).toBeFalsy();
  });

  it('cancelling a call aborts its upstream request', async () => {
    const slow = await startHarness({ client: { timeoutMs: 10_000 } });
    try {
      slow.sandbox.injectFault({ path: LIST, delayMs: 5_000 });
      const controller = new AbortController();
      const started = Date.now();
      const call = slow.client.callTool({ name: 'session-recordings-list', arguments: { project_id: P } }, undefined, { signal: controller.signal });
      setTimeout(() => controller.abort(), 150);
      await expect(call).rejects.toThrow();
      // The client gave up at once; the upstream socket must be released, not left waiting 5 s.
      await new Promise((r) => setTimeout(r, 200));
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(slow.sandbox.requests.length).toBe(1);
      expect((slow.posthog as unknown as { pool: { ready: { stats: { running: number } } } }).pool.ready.stats.running).toBe(0);
    } finally {
      await slow.close();
    }
  });
});
