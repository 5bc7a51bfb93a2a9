/**
 * Pacing of PostHog's replay throttle (posthog-api-facts.md §6, §10): recordings list and
 * snapshots requests share per-key budgets, counted by PostHog per hash of the personal API key
 * in sliding windows (DRF's SimpleRateThrottle: a request passes when fewer than N were made in
 * the last window). The client keeps the same count per key and holds a request back until it
 * would pass, so it does not provoke 429s; a 429 that comes anyway teaches it when PostHog's
 * window reopens ("Expected available in N seconds").
 */

export interface Rate {
  count: number;
  windowMs: number;
}

export const PLAN_RATES: Record<string, Rate[]> = {
  free: [
    { count: 12, windowMs: 60_000 },
    { count: 60, windowMs: 3_600_000 },
  ],
  paid: [
    { count: 60, windowMs: 60_000 },
    { count: 300, windowMs: 3_600_000 },
  ],
  enterprise: [
    { count: 100, windowMs: 60_000 },
    { count: 400, windowMs: 3_600_000 },
  ],
  off: [],
};

const UNITS: Record<string, number> = { s: 1_000, sec: 1_000, m: 60_000, min: 60_000, h: 3_600_000, hour: 3_600_000, d: 86_400_000, day: 86_400_000 };

/** "free" | "paid" | "enterprise" | "off" | a list like "12/min,60/h" (also "5/10s"). Undefined when unreadable. */
export function parseRates(text: string): Rate[] | undefined {
  const plan = PLAN_RATES[text.trim().toLowerCase()];
  if (plan) return plan.map((r) => ({ ...r }));
  const rates: Rate[] = [];
  for (const part of text.split(',')) {
    const match = /^\s*(\d{1,6})\s*\/\s*(\d{1,6})?\s*([a-z]+)\s*$/i.exec(part);
    const unit = match ? UNITS[match[3]!.toLowerCase()] : undefined;
    if (!match || unit === undefined || Number(match[1]) < 1) return undefined;
    rates.push({ count: Number(match[1]), windowMs: Number(match[2] ?? 1) * unit });
  }
  return rates.length > 0 ? rates : undefined;
}

export function describeRates(rates: readonly Rate[]): string {
  return rates.map((r) => `${r.count}/${r.windowMs % 3_600_000 === 0 ? `${r.windowMs / 3_600_000 === 1 ? '' : r.windowMs / 3_600_000}h` : r.windowMs % 60_000 === 0 ? `${r.windowMs / 60_000 === 1 ? '' : r.windowMs / 60_000}min` : `${r.windowMs / 1000}s`}`).join(', ');
}

/** GETs of the recordings list and of a recording's snapshots (listing and content). */
export function isReplayThrottled(method: string, path: string): boolean {
  if (method !== 'GET') return false;
  const pathname = path.split('?')[0]!.replace(/\/+$/, '');
  return /\/session_recordings$/.test(pathname) || /\/session_recordings\/[^/]+\/snapshots$/.test(pathname);
}

interface KeyState {
  /** Send times (ms), oldest first, including reserved future slots. */
  sent: number[];
  blockedUntil: number;
}

/** Keys remembered at once; the least recently used is forgotten first. */
const MAX_KEYS = 10_000;

export class ReplayPacer {
  private readonly keys = new Map<string, KeyState>();
  private readonly longestMs: number;

  constructor(readonly rates: readonly Rate[]) {
    this.longestMs = Math.max(0, ...rates.map((r) => r.windowMs));
  }

  /**
   * When a request for this key may go. If the wait is at most `maxWaitMs`, the slot is
   * reserved at that time (so concurrent calls do not all take it) and the wait returned;
   * otherwise nothing is reserved and the (longer) wait is returned.
   */
  reserve(key: string, maxWaitMs: number, now = Date.now()): { waitMs: number; reserved: boolean; slot: number } {
    const state = this.state(key, now);
    const at = this.earliest(state, now);
    const waitMs = Math.max(0, at - now);
    if (waitMs > maxWaitMs) return { waitMs, reserved: false, slot: at };
    state.sent.push(at);
    state.sent.sort((a, b) => a - b);
    return { waitMs, reserved: true, slot: at };
  }

  /**
   * PostHog counts a request when it arrives, which is after we send it: once its answer is
   * here, the reserved time becomes the answer's time, a bound PostHog's count cannot be later than.
   */
  settle(key: string, slot: number, answeredAt = Date.now()): void {
    const sent = this.keys.get(key)?.sent;
    const index = sent?.indexOf(slot) ?? -1;
    if (!sent || index === -1) return;
    sent[index] = Math.max(slot, answeredAt);
    sent.sort((a, b) => a - b);
  }

  /** PostHog said when its window reopens: nothing goes before then. */
  blockUntil(key: string, untilMs: number, now = Date.now()): void {
    const state = this.state(key, now);
    state.blockedUntil = Math.max(state.blockedUntil, untilMs);
  }

  private earliest(state: KeyState, now: number): number {
    let at = Math.max(now, state.blockedUntil);
    // Each rate: if `count` sends already fall in the window ending at `at`, move past the oldest of them.
    for (let guard = 0; guard < 4; guard++) {
      let moved = false;
      for (const rate of this.rates) {
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

  private state(key: string, now: number): KeyState {
    let state = this.keys.get(key);
    if (state) {
      this.keys.delete(key);
    } else {
      state = { sent: [], blockedUntil: 0 };
      if (this.keys.size >= MAX_KEYS) this.keys.delete(this.keys.keys().next().value!);
    }
    this.keys.set(key, state);
    const horizon = now - this.longestMs;
    if (state.sent.length > 0 && state.sent[0]! <= horizon) state.sent = state.sent.filter((t) => t > horizon);
    return state;
  }
}
