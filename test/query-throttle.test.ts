// A query PostHog throttles (429: its hourly budget, or too many queries running) is asked again
// by the one query operation every tool's queries go through, after the wait PostHog named and
// within the call's throttle allowance: a tool that is not the triage (the list's `sequence`)
// waits as replay reads do. Against the sandbox at scale on 127.0.0.1, its query endpoint made to
// answer 429 once, or always.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCALE, scaleTruth, type ScaleTruth } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';

const NOW = new Date();
const QUERY = /\/query\/?$/;
const ARGS = { project_id: String(SCALE.projectId), date_from: '-8d', sequence: [{ id: 'checkout_started' }, { id: 'order_completed', absent: true }] };
const BUSY = { type: 'throttled_error', code: 'throttled', detail: 'Too many queries are running right now — please try again in a moment.', attr: null };

let h: Harness;
let truth: ScaleTruth;
/** The queries the call makes when none is throttled (the sequence, and the rows' session context). */
let unthrottled: number;
beforeAll(async () => {
  // A throttle allowance of 2.5 s: two waits of the 1 s PostHog names fit, a third does not.
  h = await startHarness({ sandbox: { scale: true, now: NOW }, callLimits: { maxRequests: 100, wallClockMs: 60_000, throttleWaitMs: 2_500 } });
  truth = scaleTruth({ now: NOW });
  const r = await h.call('session-recordings-list', ARGS);
  expect(r.isError, text(r)).toBeFalsy();
  unthrottled = queries();
});
afterAll(async () => {
  await h?.close();
});

const queries = () => h.sandbox.requests.filter((q) => q.method === 'POST' && QUERY.test(q.path)).length;

describe('the list\'s sequence query, throttled', () => {
  it('429 once: waits the second PostHog named, asks again, and answers as it would have', async () => {
    h.sandbox.requests.length = 0;
    h.sandbox.injectFault({ method: 'POST', path: QUERY, status: 429, times: 1, headers: { 'retry-after': '1' }, body: BUSY });
    const started = performance.now();
    const r = await h.call('session-recordings-list', ARGS);
    const took = performance.now() - started;
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { count?: number }).count).toBe(truth.sequence.checkoutWithoutOrder.sessions);
    expect(text(r)).not.toMatch(/429|rate limit|throttl/i);
    expect(queries()).toBe(unthrottled + 1);
    expect(took).toBeGreaterThanOrEqual(1_000);
  });

  it('429 always: gives up within the call\'s throttle allowance, says when to retry, and claims no recordings', async () => {
    h.sandbox.requests.length = 0;
    h.sandbox.injectFault({ method: 'POST', path: QUERY, status: 429, times: Infinity, headers: { 'retry-after': '1' }, body: BUSY });
    const started = performance.now();
    const r = await h.call('session-recordings-list', ARGS);
    const took = performance.now() - started;
    h.sandbox.clearFaults();
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(text(r)).toContain('Too many queries are running');
    expect(text(r)).toMatch(/rate limiting this key: retry in about 1 seconds/);
    // The first query and two more after 1 s each; a third wait would pass the 2.5 s allowance.
    expect(queries()).toBe(3);
    expect(took).toBeGreaterThanOrEqual(2_000);
    expect(took).toBeLessThan(2_500 + 2_000);
  });

  it('names no wait: asks again after a short backoff (1 s, then 2 s) within the allowance', async () => {
    h.sandbox.requests.length = 0;
    h.sandbox.injectFault({ method: 'POST', path: QUERY, status: 429, times: 2, body: BUSY });
    const started = performance.now();
    const r = await h.call('session-recordings-list', ARGS);
    const took = performance.now() - started;
    h.sandbox.clearFaults();
    // 1 s fits the 2.5 s allowance; 2 s more does not: PostHog's answer, and the advice to wait.
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('PostHog is rate limiting this key');
    expect(queries()).toBe(2);
    expect(took).toBeGreaterThanOrEqual(1_000);
  });
});
