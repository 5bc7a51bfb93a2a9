import { HOUR_MS, MINUTE_MS, PLAN_RATES, type Rate } from '../replay-rates.js';

/**
 * What a 429 from PostHog's replay throttle teaches about a key's budget (the `auto` setting;
 * docs/throttling.md). PostHog never says its budget; it says when the window reopens
 * ("Expected available in N seconds", N rounded up). With the times of the requests of ours it
 * counted (those it did not refuse), that is enough to infer a window and a count:
 *
 * - If the window holds k of our requests, the oldest of them sent at o, it reopens when o leaves
 *   it: o + W = t + N, so W = t + N − o (t: when the 429 came). That guess is consistent only if the
 *   next older request of ours lies outside the window: it was sent at or before t − W = o − N.
 * - Of the consistent guesses, one whose window is within 5% of PostHog's minute or hour is
 *   taken (and then is exactly a minute or an hour); else the longest.
 * - If none is consistent (another client spends the same key, or our history is gone), the
 *   window is a minute when N is at most 60, else an hour, and k is what we sent in it.
 * - A minute budget equal to a plan's (12, 60 or 100 a minute) brings that plan's hourly budget
 *   with it (60, 300 or 400 an hour), so the hour is paced before PostHog has to say so.
 *
 * k counts only our requests: when other clients share the key, the budget learned is our share
 * of it, lower than PostHog's, which errs on the side of fewer 429s; each later 429 learns again
 * and replaces the estimate for that window.
 */

/** Sends within this of the boundary still count as consistent (N is rounded up to a second; latency). */
const TOLERANCE_MS = 1_500;
/** A learned window this close to PostHog's minute or hour is that window. */
const SNAP = 0.05;
/** Learned rates hold this long after the last 429 that taught them: PostHog's longest window. */
export const LEARNED_FOR_MS = HOUR_MS;
/** Back-off for a 429 that names no wait (ClickHouse at capacity): 2, 4, 8 … up to 60 s. */
const BACKOFF_BASE_MS = 2_000;
const BACKOFF_MAX_MS = 60_000;
/** Capacity answers further apart than this start the back-off over. */
const BACKOFF_RESET_MS = 120_000;

/**
 * One window and count, from the send times PostHog counted (ascending, all at or before `at`),
 * when the 429 came (`at`) and the wait it named. Undefined when none of ours was counted.
 */
export function inferRate(sends: readonly number[], at: number, waitMs: number): Rate | undefined {
  const desc = sends.filter((t) => t <= at).sort((a, b) => b - a);
  if (desc.length === 0) return undefined;
  const candidates: Rate[] = [];
  for (let k = 1; k <= desc.length; k++) {
    const oldest = desc[k - 1]!;
    const windowMs = at + waitMs - oldest;
    if (windowMs <= 0 || windowMs > HOUR_MS * (1 + SNAP)) continue;
    const older = desc[k];
    if (older === undefined || older <= oldest - waitMs + TOLERANCE_MS) candidates.push({ count: k, windowMs });
  }
  const planned = candidates.filter((c) => nearPlanWindow(c.windowMs) !== undefined);
  const chosen = planned.length > 0 ? planned[planned.length - 1] : candidates[candidates.length - 1];
  if (chosen) return { count: chosen.count, windowMs: nearPlanWindow(chosen.windowMs) ?? Math.ceil(chosen.windowMs) };
  const windowMs = waitMs <= MINUTE_MS ? MINUTE_MS : HOUR_MS;
  const count = desc.filter((t) => t > at - windowMs).length;
  return count > 0 ? { count, windowMs } : undefined;
}

function nearPlanWindow(ms: number): number | undefined {
  for (const window of [MINUTE_MS, HOUR_MS]) if (Math.abs(ms - window) <= window * SNAP) return window;
  return undefined;
}

/** The rates to pace by once `learned` is known: a plan's minute budget brings its hour. */
export function withPlanHour(rates: Rate[]): Rate[] {
  const minute = rates.find((r) => r.windowMs === MINUTE_MS);
  if (!minute || rates.some((r) => r.windowMs === HOUR_MS)) return rates;
  const plan = Object.values(PLAN_RATES).find((p) => p[0]?.count === minute.count);
  const hour = plan?.find((r) => r.windowMs === HOUR_MS);
  return hour ? [...rates, { ...hour }] : rates;
}

/**
 * What is known of one key. Times are this process's monotonic clock (performance.now(), ms), never
 * the wall clock; between replicas they travel as durations (encodeShared / decodeShared).
 */
export interface KeyLimits {
  /** Rates learned from 429s, at most one per window. */
  rates: Rate[];
  /** When the last 429 (or capacity answer) came; the newer of two copies wins. */
  learnedAt: number;
  /** Nothing goes before this. */
  blockedUntil: number;
  /** After this, the learned rates no longer apply. */
  expiresAt: number;
}

interface KeyState extends KeyLimits {
  strikes: number;
  lastStrikeAt: number;
}

const MAX_KEYS = 2_000;

/** The learned limits of every key this process has met (bounded; the least recently used forgotten). */
export class LearnedLimits {
  private readonly keys = new Map<string, KeyState>();

  /** The rates to pace this key by now ([] when none was learned or they expired). */
  rates(key: string, now = performance.now()): Rate[] {
    const state = this.keys.get(key);
    return state && state.expiresAt > now ? state.rates : [];
  }

  get(key: string): KeyLimits | undefined {
    const state = this.keys.get(key);
    return state ? { rates: state.rates, learnedAt: state.learnedAt, blockedUntil: state.blockedUntil, expiresAt: state.expiresAt } : undefined;
  }

  /**
   * A 429 that named its wait: block the key until then, and learn a rate from our sends.
   * Returns what is now known, to share.
   */
  throttled(key: string, sends: readonly number[], waitMs: number, now = performance.now()): KeyLimits {
    const state = this.state(key, now);
    state.blockedUntil = Math.max(state.blockedUntil, now + waitMs);
    const rate = inferRate(sends, now, waitMs);
    if (rate) {
      const kept = state.expiresAt > now ? state.rates.filter((r) => Math.abs(r.windowMs - rate.windowMs) > rate.windowMs * 0.1) : [];
      state.rates = withPlanHour([...kept, rate].sort((a, b) => a.windowMs - b.windowMs)).slice(0, 4);
    }
    state.learnedAt = now;
    state.expiresAt = now + LEARNED_FOR_MS;
    return this.get(key)!;
  }

  /** A 429 with no wait named (ClickHouse at capacity): back off, longer each time it repeats. */
  backOff(key: string, now = performance.now()): KeyLimits {
    const state = this.state(key, now);
    state.strikes = now - state.lastStrikeAt > BACKOFF_RESET_MS ? 1 : state.strikes + 1;
    state.lastStrikeAt = now;
    state.blockedUntil = Math.max(state.blockedUntil, now + Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (state.strikes - 1)));
    state.learnedAt = now;
    state.expiresAt = Math.max(state.expiresAt, state.blockedUntil);
    return this.get(key)!;
  }

  /** What another replica learned: taken when newer than ours; its block holds either way. */
  merge(key: string, shared: KeyLimits, now = performance.now()): void {
    const state = this.state(key, now);
    state.blockedUntil = Math.max(state.blockedUntil, shared.blockedUntil);
    if (shared.learnedAt > state.learnedAt) {
      state.rates = shared.rates;
      state.learnedAt = shared.learnedAt;
      state.expiresAt = shared.expiresAt;
    }
  }

  private state(key: string, now: number): KeyState {
    let state = this.keys.get(key);
    if (state) this.keys.delete(key);
    else {
      state = { rates: [], learnedAt: -Infinity, blockedUntil: 0, expiresAt: 0, strikes: 0, lastStrikeAt: -Infinity };
      if (this.keys.size >= MAX_KEYS) this.keys.delete(this.keys.keys().next().value!);
    }
    if (state.expiresAt <= now && state.blockedUntil <= now) {
      state.rates = [];
    }
    this.keys.set(key, state);
    return state;
  }
}

/**
 * What replicas share of a key (through Redis): no instant of any clock, only durations. The
 * entry lives as long as the longer of the block and the learned rates (the store's TTL, counted
 * down by the store itself), and says how long before that end each of the two ends.
 */
interface SharedForm {
  rates: Rate[];
  /** The block ends this long before the entry expires. */
  blockEndsBeforeMs: number;
  /** The learned rates stop applying this long before the entry expires. */
  ratesEndBeforeMs: number;
}

/** The shared form of what is known, with the TTL to store it under; undefined when nothing is left to share. */
export function encodeShared(limits: KeyLimits, now = performance.now()): { text: string; ttlMs: number } | undefined {
  const end = Math.max(limits.expiresAt, limits.blockedUntil);
  const ttlMs = Math.ceil(end - now);
  if (!(ttlMs > 0)) return undefined;
  const shared: SharedForm = { rates: limits.rates, blockEndsBeforeMs: Math.max(0, end - limits.blockedUntil), ratesEndBeforeMs: Math.max(0, end - limits.expiresAt) };
  return { text: JSON.stringify(shared), ttlMs };
}

/**
 * What another replica shared, read back with the entry's remaining TTL, as this process's
 * times; undefined when it is not one. Bounded as this process bounds what it learns itself: no
 * window past PostHog's hour, nothing held past a day (a tampered copy).
 */
export function decodeShared(text: string, ttlMs: number, now = performance.now()): KeyLimits | undefined {
  const finite = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);
  if (!finite(ttlMs) || ttlMs <= 0) return undefined;
  let value: Partial<SharedForm>;
  try {
    value = JSON.parse(text) as Partial<SharedForm>;
  } catch {
    return undefined;
  }
  if (!value || !Array.isArray(value.rates) || !finite(value.blockEndsBeforeMs) || !finite(value.ratesEndBeforeMs)) return undefined;
  const rates = value.rates.filter((r): r is Rate => !!r && Number.isInteger(r.count) && r.count >= 1 && r.count <= 1_000_000 && finite(r.windowMs) && r.windowMs >= 1_000 && r.windowMs <= HOUR_MS * (1 + SNAP)).slice(0, 4);
  const end = now + Math.min(ttlMs, 24 * HOUR_MS);
  const expiresAt = end - Math.max(0, value.ratesEndBeforeMs);
  // Learned an hour before its rates stop applying (LEARNED_FOR_MS), never later than now.
  return { rates, learnedAt: Math.min(now, expiresAt - LEARNED_FOR_MS), blockedUntil: end - Math.max(0, value.blockEndsBeforeMs), expiresAt };
}
