/**
 * PostHog's replay throttle (docs/posthog-api.md, "Throttles"): recordings list and snapshots
 * requests share per-key budgets, counted by PostHog per hash of the personal API key in sliding
 * windows (DRF's SimpleRateThrottle: a request passes when fewer than N passed in the last
 * window; a refused one is not counted). The setting is read by replay-rates.ts (below config.ts);
 * this module keeps, per key, the times of the requests that passed, holding a request back until it would pass under a given
 * list of rates. Which rates apply (configured, or learned from PostHog's 429s) is decided in
 * replay-limiter.ts.
 */

import { HOUR_MS, type Rate } from '../replay-rates.js';

/** GETs of the recordings list and of a recording's snapshots (listing and content). */
export function isReplayThrottled(method: string, path: string): boolean {
  return method === 'GET' && REPLAY_THROTTLED.test(path);
}

/** The path (before any query) ends in /session_recordings or /session_recordings/{id}/snapshots, slashes after it allowed. One test, asked on every request. */
const REPLAY_THROTTLED = /^[^?]*\/session_recordings(?:\/[^/?]+\/snapshots)?\/*(?:\?|$)/;

/**
 * Every time here is the process's monotonic clock (performance.now(), ms): a wall clock stepped
 * back an hour must not hold a key back for an hour.
 */
interface KeyState {
  /** Send times (ms), oldest first, including reserved future slots. */
  sent: number[];
  /** Answered and counted by PostHog (not refused), oldest first: what learning reads. */
  passed: number[];
  blockedUntil: number;
}

/** Keys remembered at once; the least recently used is forgotten first. */
const MAX_KEYS = 2_000;
/**
 * Send times kept per key: enough for the largest count paced by, and for learning (the sends
 * of the last hour, as many as an enterprise hour allows and more). Bounded, whatever the rates.
 */
const MIN_KEPT = 512;
const MAX_KEPT = 20_000;
/** Counted sends kept for learning: an enterprise hour (400) and more. */
const MAX_PASSED = 1_000;
/** How far back sends are kept without rates that need them: PostHog's longest window. */
const KEEP_MS = HOUR_MS;

/**
 * Per key, the times of replay requests that PostHog counted (sent and not refused), and the time
 * before which nothing goes (PostHog said when its window reopens). reserve() takes the rates to
 * pace by at each call, so a key's rates may change as they are learned.
 */
export class ReplayPacer {
  private readonly keys = new Map<string, KeyState>();

  /**
   * When a request for this key may go under `rates`. If the wait is at most `maxWaitMs`, the
   * slot is reserved at that time (so concurrent calls do not all take it) and the wait returned;
   * otherwise nothing is reserved and the (longer) wait is returned.
   */
  reserve(key: string, rates: readonly Rate[], maxWaitMs: number, now = performance.now()): { waitMs: number; reserved: boolean; slot: number } {
    const state = this.state(key, rates, now);
    const at = earliest(state, rates, now);
    const waitMs = Math.max(0, at - now);
    if (waitMs > maxWaitMs) return { waitMs, reserved: false, slot: at };
    insert(state.sent, at);
    const kept = Math.min(MAX_KEPT, Math.max(MIN_KEPT, ...rates.map((r) => r.count + 1)));
    if (state.sent.length > kept) state.sent.splice(0, state.sent.length - kept);
    return { waitMs, reserved: true, slot: at };
  }

  /**
   * PostHog counts a request when it arrives, which is after we send it: once its answer is
   * here, the reserved time becomes the answer's time, a bound PostHog's count cannot be later than.
   */
  settle(key: string, slot: number, answeredAt = performance.now()): void {
    const sent = this.keys.get(key)?.sent;
    const index = sent?.indexOf(slot) ?? -1;
    if (!sent || index === -1) return;
    sent.splice(index, 1);
    insert(sent, Math.max(slot, answeredAt));
    const passed = this.keys.get(key)!.passed;
    insert(passed, Math.max(slot, answeredAt));
    if (passed.length > MAX_PASSED) passed.splice(0, passed.length - MAX_PASSED);
  }

  /** PostHog refused the request (429): it does not count against its window, so neither here. */
  drop(key: string, slot: number): void {
    const sent = this.keys.get(key)?.sent;
    const index = sent?.indexOf(slot) ?? -1;
    if (sent && index !== -1) sent.splice(index, 1);
  }

  /** PostHog said when its window reopens: nothing goes before then. */
  blockUntil(key: string, untilMs: number, now = performance.now()): void {
    const state = this.state(key, [], now);
    state.blockedUntil = Math.max(state.blockedUntil, untilMs);
  }

  blockedUntil(key: string): number {
    return this.keys.get(key)?.blockedUntil ?? 0;
  }

  /** Requests sent or reserved after `since` (those in flight and reserved ahead included). */
  sentSince(key: string, since: number): number {
    return (this.keys.get(key)?.sent ?? []).filter((t) => t > since).length;
  }

  /** Times of the requests PostHog counted, at or before `at`, oldest first (what learning reads). */
  passed(key: string, at = performance.now()): number[] {
    return (this.keys.get(key)?.passed ?? []).filter((t) => t <= at);
  }

  private state(key: string, rates: readonly Rate[], now: number): KeyState {
    let state = this.keys.get(key);
    if (state) {
      this.keys.delete(key);
    } else {
      state = { sent: [], passed: [], blockedUntil: 0 };
      if (this.keys.size >= MAX_KEYS) this.keys.delete(this.keys.keys().next().value!);
    }
    this.keys.set(key, state);
    const horizon = now - Math.max(KEEP_MS, ...rates.map((r) => r.windowMs));
    if (state.sent.length > 0 && state.sent[0]! <= horizon) state.sent = state.sent.filter((t) => t > horizon);
    if (state.passed.length > 0 && state.passed[0]! <= horizon) state.passed = state.passed.filter((t) => t > horizon);
    return state;
  }
}

function insert(sorted: number[], value: number): void {
  let i = sorted.length;
  while (i > 0 && sorted[i - 1]! > value) i--;
  sorted.splice(i, 0, value);
}

function earliest(state: KeyState, rates: readonly Rate[], now: number): number {
  let at = Math.max(now, state.blockedUntil);
  // Each rate: if `count` sends already fall in the window ending at `at`, move past the oldest of them.
  for (let guard = 0; guard < 8; guard++) {
    let moved = false;
    for (const rate of rates) {
      const inWindow = state.sent.filter((t) => t > at - rate.windowMs && t <= at + rate.windowMs);
      // Sends at or before `at` within the window, plus reservations already after `at`.
      if (inWindow.length >= rate.count) {
        const free = inWindow[inWindow.length - rate.count]! + rate.windowMs;
        if (free > at) {
          at = free;
          moved = true;
        }
      }
    }
    if (!moved) break;
  }
  return at;
}
