import { describe, expect, it } from 'vitest';
import { UpstreamUnavailableError } from '../../src/errors.js';
import { BudgetExceeded } from '../../src/posthog/budget.js';
import { StallBreaker, UpstreamStalled, isStall } from '../../src/posthog/stall.js';

function breaker() {
  const clock = { now: 1_000_000 };
  const b = new StallBreaker('https://ph.example', { callLimit: 2, keyLimit: 3, coolOffMs: 30_000, now: () => clock.now });
  return { b, clock };
}

const stopped = (fn: () => void): UpstreamStalled | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof UpstreamStalled) return err;
    throw err;
  }
};

describe('StallBreaker', () => {
  it('stops a call after two timeouts in a row; an answer in between starts the count again', () => {
    const { b } = breaker();
    const call = {};
    b.timedOut('k', call, 2_000);
    b.answered('k', call);
    b.timedOut('k', call, 2_000);
    expect(stopped(() => b.check('k', call, 'GET /a'))).toBeUndefined();
    b.timedOut('k', call, 2_000);
    const err = stopped(() => b.check('k', call, 'GET /b'));
    expect(err).toBeInstanceOf(BudgetExceeded);
    expect(err?.reason).toBe('stalled');
    expect(err?.message).toMatch(/did not answer this call's last 2 requests within 2000 ms each; the call stopped asking it, and GET \/b was not sent/);
    // Another call of the same key is not stopped by this call's count (the key's score is still below 3).
    expect(stopped(() => b.check('k', {}, 'GET /c'))).toBeUndefined();
  });

  it("marks a key's host failing for the cool-off at a score of 3, for that key only, then lets it try again", () => {
    const { b, clock } = breaker();
    // Two calls, each: two answers (metadata, listing) and two stalled blocks.
    for (let i = 0; i < 2; i++) {
      const call = {};
      b.answered('a', call);
      b.answered('a', call);
      b.timedOut('a', call, 2_000);
      b.timedOut('a', call, 2_000);
    }
    expect(b.failing('a')).toBe(true);
    const err = stopped(() => b.check('a', {}, 'GET /api/projects/'));
    expect(err?.message).toMatch(/keeps not answering this key's requests .* leaves it alone for this key for 30 s; GET \/api\/projects\/ was not sent\. Retry in about 30 seconds/);
    expect(err?.retryAfterSeconds).toBe(30);
    expect(stopped(() => b.check('b', {}, 'GET /api/projects/'))).toBeUndefined();

    clock.now += 30_001;
    expect(stopped(() => b.check('a', {}, 'GET /x'))).toBeUndefined();
    // One step below the mark: the next timeout marks it failing again...
    b.timedOut('a', {}, 2_000);
    expect(b.failing('a')).toBe(true);
    clock.now += 30_001;
    // ...and answers bring it down.
    b.answered('a', undefined);
    b.answered('a', undefined);
    b.timedOut('a', undefined, 2_000);
    expect(b.failing('a')).toBe(false);
  });

  it('a timeout now and then among answers never marks the host failing', () => {
    const { b } = breaker();
    for (let i = 0; i < 100; i++) {
      b.timedOut('k', undefined, 2_000);
      b.answered('k', undefined);
      b.answered('k', undefined);
    }
    expect(b.failing('k')).toBe(false);
  });

  it('counts timeouts only: not the call\'s own wall clock, not other failures', () => {
    expect(isStall(new UpstreamUnavailableError('timeout', 'no answer'))).toBe(true);
    expect(isStall(new Error('x'), 'UND_ERR_CONNECT_TIMEOUT')).toBe(true);
    expect(isStall(new BudgetExceeded('time', 'call time up'))).toBe(false);
    expect(isStall(new UpstreamUnavailableError('connection', 'refused'), 'ECONNREFUSED')).toBe(false);
  });
});
