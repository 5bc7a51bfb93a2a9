import { describe, expect, it } from 'vitest';
import { ReplayPacer, describeRates, isReplayThrottled, parseRates } from '../../src/posthog/throttle.js';

describe('replay throttle pacing', () => {
  it('reads plans and rate lists', () => {
    expect(parseRates('free')).toEqual([
      { count: 12, windowMs: 60_000 },
      { count: 60, windowMs: 3_600_000 },
    ]);
    expect(parseRates('off')).toEqual([]);
    expect(parseRates('5/10s, 100/h')).toEqual([
      { count: 5, windowMs: 10_000 },
      { count: 100, windowMs: 3_600_000 },
    ]);
    expect(parseRates('12 per minute')).toBeUndefined();
    expect(parseRates('0/min')).toBeUndefined();
    expect(describeRates(parseRates('free')!)).toBe('12/min, 60/h');
  });

  it('knows which requests PostHog throttles', () => {
    expect(isReplayThrottled('GET', '/api/projects/1/session_recordings/?limit=5')).toBe(true);
    expect(isReplayThrottled('GET', '/api/projects/1/session_recordings/abc/snapshots/?source=blob_v2')).toBe(true);
    expect(isReplayThrottled('GET', '/api/projects/1/session_recordings/abc/')).toBe(false);
    expect(isReplayThrottled('DELETE', '/api/projects/1/session_recordings/abc/snapshots/')).toBe(false);
  });

  it('holds the 13th request of a minute until the first leaves the window, and the 61st of an hour', () => {
    const pacer = new ReplayPacer(parseRates('free')!);
    const t0 = 1_000_000_000;
    for (let i = 0; i < 12; i++) expect(pacer.reserve('k', 0, t0 + i).waitMs).toBe(0);
    const next = pacer.reserve('k', 0, t0 + 100);
    expect(next).toMatchObject({ reserved: false, waitMs: 60_000 - 100 });
    // Another key has its own window.
    expect(pacer.reserve('other', 0, t0 + 100).waitMs).toBe(0);
    const waited = pacer.reserve('k', 120_000, t0 + 100);
    expect(waited).toMatchObject({ reserved: true, waitMs: 59_900 });

    const hourly = new ReplayPacer(parseRates('free')!);
    let t = t0;
    for (let i = 0; i < 60; i++) {
      const slot = hourly.reserve('k', Infinity, t);
      t += slot.waitMs;
    }
    expect(hourly.reserve('k', 0, t).waitMs).toBeGreaterThan(30 * 60_000);
  });

  it("waits out what PostHog said, even with no budget configured", () => {
    const pacer = new ReplayPacer([]);
    pacer.blockUntil('k', 5_000, 1_000);
    expect(pacer.reserve('k', 10_000, 1_000)).toMatchObject({ reserved: true, waitMs: 4_000 });
    expect(pacer.reserve('k', 0, 6_000).waitMs).toBe(0);
  });
});
