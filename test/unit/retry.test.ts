import { describe, expect, it } from 'vitest';
import { UpstreamError, UpstreamUnavailableError } from '../../src/errors.js';
import { BudgetExceeded } from '../../src/posthog/budget.js';
import type { Failure } from '../../src/posthog/failure.js';
import { Retries, stillThrottled } from '../../src/posthog/retry.js';

const settings = { maxRetries: 3, maxRetryWaitMs: 10_000, backoffMs: 100 };
const reset: Failure = { error: new UpstreamUnavailableError('connection', 'reset'), retryable: true, code: 'ECONNRESET' };
const refused: Failure = { error: new UpstreamUnavailableError('connection', 'refused'), retryable: true, code: 'ECONNREFUSED' };
const untrusted: Failure = { error: new UpstreamUnavailableError('connection', 'certificate'), retryable: false, code: 'SELF_SIGNED_CERT_IN_CHAIN' };
const answer = (status: number, over: { retryAfterSeconds?: number; code?: string } = {}) => new UpstreamError({ status, method: 'GET', path: '/api/x', ...over });

describe('Retries', () => {
  it('asks again after a failure that may pass, with a growing backoff, and gives up after maxRetries', () => {
    const r = new Retries(settings);
    const waits = [0, 1, 2].map((attempt) => r.afterFailure(attempt, reset, true)!);
    // 100, 200, 400 ms, each with up to a fifth more as jitter.
    waits.forEach((wait, i) => {
      expect(wait).toBeGreaterThanOrEqual(100 * 2 ** i);
      expect(wait).toBeLessThanOrEqual(120 * 2 ** i);
    });
    expect(r.afterFailure(3, reset, true)).toBeUndefined();
    expect(r.allowanceMs).toBe(10_000 - waits.reduce((a, b) => a + b));
  });

  it('never sends a POST twice, unless it never connected; never asks again what will not pass', () => {
    const r = new Retries(settings);
    expect(r.afterFailure(0, reset, false)).toBeUndefined();
    expect(r.afterFailure(0, refused, false)).toBeTypeOf('number');
    expect(r.afterFailure(0, untrusted, true)).toBeUndefined();
  });

  it("waits the time PostHog named for a throttle or a gateway's failure of a GET, within the allowance", () => {
    const r = new Retries(settings);
    expect(r.afterAnswer(0, answer(429, { retryAfterSeconds: 4 }), true)).toBe(4_000);
    expect(r.afterAnswer(1, answer(503, { retryAfterSeconds: 5 }), true)).toBe(5_000);
    // 9 s waited: another 2 s would pass the 10 s allowance.
    expect(r.afterAnswer(2, answer(503, { retryAfterSeconds: 2 }), true)).toBeUndefined();
    expect(r.allowanceMs).toBe(1_000);
  });

  it('does not ask again for answers that would not change, nor for a POST', () => {
    const r = new Retries(settings);
    expect(r.afterAnswer(0, answer(400), true)).toBeUndefined();
    expect(r.afterAnswer(0, answer(404), true)).toBeUndefined();
    expect(r.afterAnswer(0, answer(502, { code: 'recording_blocks_unavailable' }), true)).toBeUndefined();
    expect(r.afterAnswer(0, answer(503), false)).toBeUndefined();
    expect(r.afterAnswer(0, answer(502), true)).toBeTypeOf('number');
  });

  it('counts a pacing wait against the same allowance', () => {
    const r = new Retries(settings);
    r.waited(9_900);
    expect(r.allowanceMs).toBe(100);
    expect(r.afterAnswer(0, answer(429, { retryAfterSeconds: 1 }), true)).toBeUndefined();
  });

  it('a paced request still refused stops the call with when to continue', () => {
    const stop = stillThrottled(answer(429, { retryAfterSeconds: 42.2 }));
    expect(stop).toBeInstanceOf(BudgetExceeded);
    expect(stop.reason).toBe('throttle');
    expect(stop.message).toMatch(/Retry in about 43 seconds/);
  });
});
