// PostHog's per-key replay throttles (docs/posthog-api.md, "Throttles"): recordings list and
// snapshots requests count against sliding windows per hash of the personal API key, as DRF's
// SimpleRateThrottle does; past a window's budget the answer is 429 with PostHog's body and
// no Retry-After. Generous by default (the playground stays pleasant); like a plan when asked,
// for the whole sandbox or per key (the client must learn which, as it must from PostHog).

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

/** PostHog's free plan (newest code, docs/posthog-api.md, "Throttles"). */
export const FREE_PLAN_RATES: ThrottleRate[] = [
  { count: 12, windowMs: 60_000 },
  { count: 60, windowMs: 3_600_000 },
];

/** PostHog's paid plan. */
export const PAID_PLAN_RATES: ThrottleRate[] = [
  { count: 60, windowMs: 60_000 },
  { count: 300, windowMs: 3_600_000 },
];

/** PostHog's enterprise plan. */
export const ENTERPRISE_PLAN_RATES: ThrottleRate[] = [
  { count: 100, windowMs: 60_000 },
  { count: 400, windowMs: 3_600_000 },
];

export type ThrottlePlan = 'free' | 'paid' | 'enterprise' | 'generous' | 'none';

const PLANS: Record<ThrottlePlan, ThrottleRate[]> = { free: FREE_PLAN_RATES, paid: PAID_PLAN_RATES, enterprise: ENTERPRISE_PLAN_RATES, generous: GENEROUS_RATES, none: [] };

/** A replay throttle: a plan by name, or its own windows ([] = none). */
export type ThrottleSetting = ThrottlePlan | ThrottleRate[];

/**
 * A plan's budgets with its windows scaled (0.5: a "minute" of 30 s, an "hour" of 30 min), for
 * tests that must see a window reopen without waiting a real minute.
 */
export function planRates(plan: ThrottlePlan, timeScale = 1): ThrottleRate[] {
  return PLANS[plan].map((r) => ({ count: r.count, windowMs: Math.max(1, Math.round(r.windowMs * timeScale)) }));
}

function ratesOf(setting: ThrottleSetting): ThrottleRate[] {
  return typeof setting === 'string' ? planRates(setting) : setting;
}

/** Route names (router.ts) the replay throttle applies to. */
const THROTTLED_ROUTES = new Set(['session_recordings', 'snapshots']);

export class ReplayThrottle {
  /** Per key hash: request times, newest last. */
  private readonly history = new Map<string, number[]>();

  private readonly rates: ThrottleRate[];
  /** Per API key (as sent after "Bearer "), a throttle of its own. */
  private readonly perKey: Map<string, ThrottleRate[]>;

  constructor(setting: ThrottleSetting, perKey: Record<string, ThrottleSetting> = {}) {
    this.rates = ratesOf(setting);
    this.perKey = new Map(Object.entries(perKey).map(([key, value]) => [key, ratesOf(value)]));
  }

  /** Throws PostHog's 429 when this request would exceed a window; otherwise counts it. */
  check(routeName: string, method: string, authorization: string | undefined, now = Date.now()): void {
    const apiKey = /^Bearer\s+(\S+)/.exec(authorization ?? '')?.[1];
    const rates = (apiKey !== undefined ? this.perKey.get(apiKey) : undefined) ?? this.rates;
    if (!THROTTLED_ROUTES.has(routeName) || (method !== 'GET' && method !== 'HEAD') || rates.length === 0) return;
    const key = createHash('sha256').update(authorization ?? '').digest('hex');
    const longest = Math.max(...rates.map((r) => r.windowMs));
    const times = (this.history.get(key) ?? []).filter((t) => t > now - longest);
    // DRF: each throttle that refuses gives a wait; the answer names the longest.
    let wait: number | undefined;
    for (const rate of rates) {
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
