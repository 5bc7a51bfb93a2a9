// PostHog's per-key replay throttles (posthog-api-facts.md §6, §10): recordings list and
// snapshots requests count against sliding windows per hash of the personal API key, as DRF's
// SimpleRateThrottle does; past a window's budget the answer is 429 with PostHog's body and
// no Retry-After. Generous by default (the playground stays pleasant); exact when a test asks.

import { createHash } from 'node:crypto';
import { ApiError } from './http.js';

export interface ThrottleRate {
  count: number;
  windowMs: number;
}

/** The default: far above what a person at the playground does, so only tests meet it. */
export const GENEROUS_RATES: ThrottleRate[] = [
  { count: 600, windowMs: 60_000 },
  { count: 6_000, windowMs: 3_600_000 },
];

/** PostHog's free plan (newest code, facts §10). */
export const FREE_PLAN_RATES: ThrottleRate[] = [
  { count: 12, windowMs: 60_000 },
  { count: 60, windowMs: 3_600_000 },
];

/** Route names (router.ts) the replay throttle applies to. */
const THROTTLED_ROUTES = new Set(['session_recordings', 'snapshots']);

export class ReplayThrottle {
  /** Per key hash: request times, newest last. */
  private readonly history = new Map<string, number[]>();

  constructor(private readonly rates: readonly ThrottleRate[]) {}

  /** Throws PostHog's 429 when this request would exceed a window; otherwise counts it. */
  check(routeName: string, method: string, authorization: string | undefined, now = Date.now()): void {
    if (!THROTTLED_ROUTES.has(routeName) || (method !== 'GET' && method !== 'HEAD') || this.rates.length === 0) return;
    const key = createHash('sha256').update(authorization ?? '').digest('hex');
    const longest = Math.max(...this.rates.map((r) => r.windowMs));
    const times = (this.history.get(key) ?? []).filter((t) => t > now - longest);
    // DRF: each throttle that refuses gives a wait; the answer names the longest.
    let wait: number | undefined;
    for (const rate of this.rates) {
      const inWindow = times.filter((t) => t > now - rate.windowMs);
      if (inWindow.length >= rate.count) {
        const remaining = rate.windowMs - (now - inWindow[0]!);
        const available = rate.count - inWindow.length + 1;
        const seconds = available > 0 ? remaining / 1000 / available : remaining / 1000;
        wait = Math.max(wait ?? 0, seconds);
      }
    }
    if (wait !== undefined) {
      this.history.set(key, times);
      const n = Math.max(1, Math.ceil(wait));
      throw new ApiError(429, {
        type: 'throttled_error',
        code: 'throttled',
        detail: `Request was throttled. Expected available in ${n} second${n === 1 ? '' : 's'}.`,
        attr: null,
      });
    }
    times.push(now);
    this.history.set(key, times);
  }

  reset(): void {
    this.history.clear();
  }
}
