import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/errors.js';
import { CallBudget, BudgetExceeded } from '../../src/posthog/budget.js';
import { LearnedLimits, decodeShared, encodeShared, inferRate, withPlanHour } from '../../src/posthog/learned-limits.js';
import { ReplayLimiter, type SharedLimitStore } from '../../src/posthog/replay-limiter.js';
import { describeRates, parseRates, parseReplayPolicy } from '../../src/replay-rates.js';
import { ReplayPacer, isReplayThrottled } from '../../src/posthog/throttle.js';
import { retryAfterSeconds } from '../../src/posthog/failure.js';
import { ConfigurationError, parseCli } from '../../src/config.js';

const FREE = parseRates('free')!;

describe('replay throttle settings', () => {
  it('reads auto, plans and rate lists', () => {
    expect(parseReplayPolicy('auto')).toBe('auto');
    expect(parseReplayPolicy(' AUTO ')).toBe('auto');
    expect(parseRates('free')).toEqual([
      { count: 12, windowMs: 60_000 },
      { count: 60, windowMs: 3_600_000 },
    ]);
    expect(parseReplayPolicy('off')).toEqual([]);
    expect(parseRates('5/10s, 100/h')).toEqual([
      { count: 5, windowMs: 10_000 },
      { count: 100, windowMs: 3_600_000 },
    ]);
    expect(parseRates('12 per minute')).toBeUndefined();
    expect(parseRates('0/min')).toBeUndefined();
    expect(parseRates('5/0s')).toBeUndefined();
    expect(describeRates(FREE)).toBe('12/min, 60/h');
    expect(describeRates([{ count: 12, windowMs: 35_500 }])).toBe('12/35.5s');
  });

  it('defaults to auto with only key and host; refuses what it cannot read, naming the setting', () => {
    const config = (env: Record<string, string>) => {
      const action = parseCli([], { POSTHOG_PERSONAL_API_KEY: 'phx_test_key_0123456789', ...env });
      if (action.kind !== 'run') throw new Error('no config');
      return action.config.upstream;
    };
    expect(config({}).replayRates).toBe('auto');
    expect(config({}).throttleWaitMs).toBe(40_000);
    expect(config({ POSTHOG_REPLAY_RATE_LIMITS: 'paid' }).replayRates).toEqual(parseRates('paid'));
    expect(config({ POSTHOG_REPLAY_RATE_LIMITS: 'off' }).replayRates).toEqual([]);
    expect(() => config({ POSTHOG_REPLAY_RATE_LIMITS: 'fast' })).toThrow(ConfigurationError);
    expect(() => config({ POSTHOG_REPLAY_RATE_LIMITS: 'fast' })).toThrow(/POSTHOG_REPLAY_RATE_LIMITS must be auto, free, paid, enterprise, off/);
  });

  it('knows which requests PostHog throttles', () => {
    expect(isReplayThrottled('GET', '/api/projects/1/session_recordings/?limit=5')).toBe(true);
    expect(isReplayThrottled('GET', '/api/projects/1/session_recordings/abc/snapshots/?source=blob_v2')).toBe(true);
    expect(isReplayThrottled('GET', '/api/projects/1/session_recordings/abc/')).toBe(false);
    expect(isReplayThrottled('DELETE', '/api/projects/1/session_recordings/abc/snapshots/')).toBe(false);
  });

  it('reads the wait from each of PostHog\'s throttle answers, and none from ClickHouse at capacity', () => {
    expect(retryAfterSeconds(undefined, 'Request was throttled. Expected available in 23 seconds.')).toBe(23);
    expect(retryAfterSeconds(undefined, 'Rate limit exceeded. Expected available in 1 second.')).toBe(1);
    expect(retryAfterSeconds(undefined, 'ClickHouse is at capacity. Try again later.')).toBeUndefined();
  });
});

describe('pacing by rates', () => {
  it('holds the 13th request of a minute until the first leaves the window, and the 61st of an hour', () => {
    const pacer = new ReplayPacer();
    const t0 = 1_000_000_000;
    for (let i = 0; i < 12; i++) expect(pacer.reserve('k', FREE, 0, t0 + i).waitMs).toBe(0);
    const next = pacer.reserve('k', FREE, 0, t0 + 100);
    expect(next).toMatchObject({ reserved: false, waitMs: 60_000 - 100 });
    // Another key has its own window.
    expect(pacer.reserve('other', FREE, 0, t0 + 100).waitMs).toBe(0);
    const waited = pacer.reserve('k', FREE, 120_000, t0 + 100);
    expect(waited).toMatchObject({ reserved: true, waitMs: 59_900 });

    const hourly = new ReplayPacer();
    let t = t0;
    for (let i = 0; i < 60; i++) {
      const slot = hourly.reserve('k', FREE, Infinity, t);
      t += slot.waitMs;
    }
    expect(hourly.reserve('k', FREE, 0, t).waitMs).toBeGreaterThan(30 * 60_000);
  });

  it('a refused request does not count; an answered one counts from its answer', () => {
    const pacer = new ReplayPacer();
    const rates = [{ count: 1, windowMs: 10_000 }];
    const first = pacer.reserve('k', rates, 0, 0);
    pacer.drop('k', first.slot);
    expect(pacer.reserve('k', rates, 0, 1).waitMs).toBe(0);
    pacer.settle('k', 1, 500);
    expect(pacer.passed('k', 1_000)).toEqual([500]);
    expect(pacer.reserve('k', rates, Infinity, 600).waitMs).toBe(10_000 - 100);
  });

  it('waits out what PostHog said, whatever the rates', () => {
    const pacer = new ReplayPacer();
    pacer.blockUntil('k', 5_000, 1_000);
    expect(pacer.reserve('k', [], 10_000, 1_000)).toMatchObject({ reserved: true, waitMs: 4_000 });
    expect(pacer.reserve('k', [], 0, 6_000).waitMs).toBe(0);
  });
});

describe('learning the budget from a 429', () => {
  it('a burst of 12 then "available in 59 seconds": the free plan, minute and hour', () => {
    const sends = Array.from({ length: 12 }, (_, i) => 1_000 + i * 50);
    const at = 1_700;
    const rate = inferRate(sends, at, 59_000);
    expect(rate).toEqual({ count: 12, windowMs: 60_000 });
    expect(withPlanHour([rate!])).toEqual(FREE);
  });

  it('a window that is not PostHog\'s minute is learned as it is (no plan hour added)', () => {
    const sends = Array.from({ length: 12 }, (_, i) => 10_000 + i * 20);
    // Sandbox-like: 12 per 35 s; the 13th at 10.3 s after the first is told 35 s (rounded up).
    const rate = inferRate(sends, 10_300, 35_000)!;
    expect(rate.count).toBe(12);
    expect(rate.windowMs).toBeGreaterThanOrEqual(35_000);
    expect(rate.windowMs).toBeLessThan(36_500);
    expect(withPlanHour([rate])).toEqual([rate]);
  });

  it('sends paced over the hour, then a long wait: the hour\'s budget', () => {
    // 60 sends, 12 a minute; the 61st told to wait until the first leaves the hour.
    const sends = Array.from({ length: 60 }, (_, i) => Math.floor(i / 12) * 60_000 + (i % 12) * 100);
    const at = 4 * 60_000 + 2_000;
    const rate = inferRate(sends, at, 3_600_000 - at)!;
    expect(rate).toEqual({ count: 60, windowMs: 3_600_000 });
  });

  it('an earlier burst outside the window is not counted', () => {
    // 5 sends long ago, then 10 in a burst; "available in 60 s" counts the 10.
    const sends = [...Array.from({ length: 5 }, (_, i) => i * 10), ...Array.from({ length: 10 }, (_, i) => 200_000 + i * 10)];
    expect(inferRate(sends, 200_200, 59_900)).toEqual({ count: 10, windowMs: 60_000 });
  });

  it('none of ours counted (another client spent the key): nothing learned but the block', () => {
    expect(inferRate([], 1_000, 30_000)).toBeUndefined();
    const limits = new LearnedLimits();
    const known = limits.throttled('k', [], 30_000, 1_000);
    expect(known).toMatchObject({ rates: [], blockedUntil: 31_000 });
  });

  it('a new 429 for the same window replaces the old estimate; learned rates expire after an hour', () => {
    const limits = new LearnedLimits();
    limits.throttled('k', Array.from({ length: 12 }, (_, i) => i), 59_000, 1_000);
    expect(limits.rates('k', 2_000)).toEqual(FREE);
    // Now only 6 of ours fit in a minute (someone else uses the key too).
    limits.throttled('k', Array.from({ length: 6 }, (_, i) => 100_000 + i), 59_990, 100_010);
    expect(limits.rates('k', 100_020)).toEqual([{ count: 6, windowMs: 60_000 }, { count: 60, windowMs: 3_600_000 }]);
    expect(limits.rates('k', 100_010 + 3_600_001)).toEqual([]);
  });

  it('ClickHouse at capacity (no wait named): backs off 2, 4, 8 s …, and starts over after a quiet while', () => {
    const limits = new LearnedLimits();
    expect(limits.backOff('k', 0).blockedUntil).toBe(2_000);
    expect(limits.backOff('k', 2_000).blockedUntil).toBe(6_000);
    expect(limits.backOff('k', 6_000).blockedUntil).toBe(14_000);
    expect(limits.backOff('k', 500_000).blockedUntil).toBe(502_000);
    expect(limits.rates('k', 500_001)).toEqual([]);
  });

  it('reads shared state defensively', () => {
    expect(decodeShared('not json', 1_000, 0)).toBeUndefined();
    expect(decodeShared('{"rates":"x","blockEndsBeforeMs":0,"ratesEndBeforeMs":0}', 1_000, 0)).toBeUndefined();
    expect(decodeShared('{"rates":[],"blockEndsBeforeMs":0,"ratesEndBeforeMs":0}', 0, 0)).toBeUndefined();
    // Rates that end 500 ms and a block that ends 1 s before the entry's TTL of 3 s runs out.
    expect(decodeShared(JSON.stringify({ rates: [{ count: 12, windowMs: 60_000 }, { count: -1, windowMs: 5 }], blockEndsBeforeMs: 1_000, ratesEndBeforeMs: 500 }), 3_000, 10_000)).toEqual({
      rates: [{ count: 12, windowMs: 60_000 }],
      learnedAt: 12_500 - 3_600_000,
      blockedUntil: 12_000,
      expiresAt: 12_500,
    });
  });

  it('shares durations, not clock readings: what one process encodes, another reads back on its own clock', () => {
    // Learned at 5,000 on this process's clock: blocked 59 s, rates for an hour.
    const limits = new LearnedLimits().throttled('k', [1_000, 2_000, 3_000], 59_000, 5_000);
    const shared = encodeShared(limits, 5_000)!;
    expect(shared.ttlMs).toBe(3_600_000);
    expect(Object.keys(JSON.parse(shared.text) as object).sort()).toEqual(['blockEndsBeforeMs', 'rates', 'ratesEndBeforeMs']);
    // Another process, whose clock reads 9e6, gets the entry 10 s later (TTL counted down by the store).
    const read = decodeShared(shared.text, shared.ttlMs - 10_000, 9e6)!;
    expect(read.blockedUntil).toBe(9e6 + 49_000);
    expect(read.expiresAt).toBe(9e6 + 3_590_000);
    expect(read.rates).toEqual(limits.rates);
  });

  it('bounds shared state as this replica bounds its own: a tampered copy cannot pace a key for ever, nor win every merge', () => {
    const now = 1_000_000;
    const shared = decodeShared(JSON.stringify({ rates: [{ count: 1, windowMs: 86_400_000 }, { count: 2, windowMs: 60_000 }], blockEndsBeforeMs: 0, ratesEndBeforeMs: 0 }), 1e15, now)!;
    // PostHog's longest window is an hour; no 429 teaches a longer one.
    expect(shared.rates).toEqual([{ count: 2, windowMs: 60_000 }]);
    expect(shared.blockedUntil).toBeLessThanOrEqual(now + 24 * 3_600_000);
    expect(shared.expiresAt).toBeLessThanOrEqual(now + 24 * 3_600_000);
    expect(shared.learnedAt).toBeLessThanOrEqual(now);
    // What this replica learns next from its own 429 is newer, and wins the next merge.
    const limits = new LearnedLimits();
    limits.merge('k', shared, now);
    limits.throttled('k', [now - 10_000, now - 5_000, now - 1_000], 50_000, now + 1);
    expect(limits.rates('k', now + 2)).toContainEqual({ count: 3, windowMs: 60_000 });
    limits.merge('k', shared, now + 3);
    expect(limits.rates('k', now + 4)).toContainEqual({ count: 3, windowMs: 60_000 });
  });
});

const throttled = (seconds: number | undefined, detail: string) =>
  new UpstreamError({ status: 429, method: 'GET', path: '/api/projects/1/session_recordings/', detail, retryAfterSeconds: seconds });

describe('the limiter', () => {
  it('auto: no pacing before a 429; after one, the key is blocked, then paced by what it learned; other keys are not', async () => {
    const limiter = new ReplayLimiter('auto');
    expect(limiter.paces('k')).toBe(false);
    for (let i = 0; i < 12; i++) {
      const a = await limiter.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 0 });
      expect(a.waitedMs).toBe(0);
      limiter.settle('k', a);
    }
    const refused = await limiter.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 0 });
    limiter.throttled('k', refused, throttled(59, 'Request was throttled. Expected available in 59 seconds.'));
    expect(limiter.paces('k')).toBe(true);
    expect(limiter.rates('k')).toEqual(FREE);
    await expect(limiter.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 10_000 })).rejects.toThrow(/learned from its 429 answers: 12\/min, 60\/h.*retry in about (59|60) seconds/);
    expect(limiter.paces('other')).toBe(false);
    expect((await limiter.admit('other', { where: 'GET x', patient: false, retryAllowanceMs: 0 })).waitedMs).toBe(0);
  });

  it('a patient call waits within its allowance, reporting progress; concurrent waits count once', async () => {
    const limiter = new ReplayLimiter('auto');
    const messages: string[] = [];
    const budget = new CallBudget({ maxRequests: 100, wallClockMs: 30_000, throttleWaitMs: 400 }, (m) => messages.push(m));
    limiter.throttled('k', undefined, throttled(0.3, 'Request was throttled. Expected available in 0.3 seconds.'));
    const waits = await Promise.all(Array.from({ length: 3 }, () => limiter.admit('k', { where: 'GET x', patient: true, budget, retryAllowanceMs: 0 })));
    expect(waits.every((w) => w.waitedMs > 0)).toBe(true);
    expect(messages[0]).toMatch(/^Waiting 1 s for PostHog's replay rate limit before GET x/);
    // Three requests waited side by side for the same 0.3 s: the call waited 0.3 s, not 0.9 s.
    expect(budget.throttleWaitedMs).toBeLessThanOrEqual(400);
  });

  it('a fixed policy paces up front and does not learn; off is not active', async () => {
    const fixed = new ReplayLimiter([{ count: 1, windowMs: 60_000 }]);
    expect(fixed.paces('k')).toBe(true);
    fixed.settle('k', await fixed.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 0 }));
    const second = fixed.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 0 });
    await expect(second).rejects.toBeInstanceOf(BudgetExceeded);
    await expect(second).rejects.toThrow(/1\/min, POSTHOG_REPLAY_RATE_LIMITS/);
    expect(new ReplayLimiter([]).active).toBe(false);
  });

  it("room: what a key may still send now, under its known rates, else under the caller's assumed budget; none while blocked", async () => {
    const minute = [{ count: 12, windowMs: 60_000 }];
    const auto = new ReplayLimiter('auto');
    expect(auto.room('k', minute)).toBe(12);
    expect(auto.room('k', [])).toBe(Infinity);
    for (let i = 0; i < 3; i++) auto.settle('k', await auto.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 0 }));
    expect(auto.room('k', minute)).toBe(9);
    expect(auto.room('other', minute)).toBe(12);
    // A request in flight (admitted, not yet answered) counts too.
    await auto.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 0 });
    expect(auto.room('k', minute)).toBe(8);
    // Blocked by PostHog: nothing until then, whatever was assumed.
    auto.throttled('k', undefined, throttled(30, 'Request was throttled. Expected available in 30 seconds.'));
    expect(auto.room('k', minute)).toBe(0);
    // Known rates are used over the assumed ones: 2 a minute, 1 sent.
    const fixed = new ReplayLimiter([{ count: 2, windowMs: 60_000 }]);
    fixed.settle('k', await fixed.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 0 }));
    expect(fixed.room('k', minute)).toBe(1);
    expect(new ReplayLimiter([]).room('k', minute)).toBe(Infinity);
  });

  it('shares what it learned through the store; another replica reads it before its next request', async () => {
    const data = new Map<string, { value: string; ttlMs: number }>();
    const store: SharedLimitStore = { get: async (id) => data.get(id), set: async (id, value, ttlMs) => void data.set(id, { value, ttlMs }) };
    const one = new ReplayLimiter('auto', store);
    const two = new ReplayLimiter('auto', store);
    for (let i = 0; i < 12; i++) one.settle('k', await one.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 0 }));
    await one.throttled('k', undefined, throttled(59, 'Request was throttled. Expected available in 59 seconds.'));
    expect([...data.keys()]).toEqual(['posthog-replay-mcp:throttle:k']);
    await expect(two.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 1_000 })).rejects.toThrow(/retry in about (59|60) seconds/);
    expect(two.rates('k')).toEqual(FREE);
  });
});

describe('slots not used', () => {
  it('a request cancelled while it waits, or never sent, gives its slot back', async () => {
    const limiter = new ReplayLimiter([{ count: 1, windowMs: 60_000 }]);
    const first = await limiter.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 0 });
    limiter.release('k', first);
    const controller = new AbortController();
    limiter.throttled('k', await limiter.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 0 }), throttled(0.2, 'Expected available in 0.2 seconds.'));
    const waiting = limiter.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 5_000, signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toThrow(/cancelled/);
    // Nothing was counted: once the block is over, the next request goes at once.
    await new Promise((r) => setTimeout(r, 250));
    expect((await limiter.admit('k', { where: 'GET x', patient: false, retryAllowanceMs: 0 })).waitedMs).toBe(0);
  });
});
