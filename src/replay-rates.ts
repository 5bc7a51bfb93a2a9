/**
 * How PostHog's replay throttle is written in a setting (POSTHOG_REPLAY_RATE_LIMITS) and in
 * messages: rates per window, the plans' own pairs (docs/posthog-api.md, "Throttles"), and their
 * reading and writing. Pure, below the settings table (settings.ts) and posthog/: the table
 * reads a value with it, and the pacer (posthog/throttle.ts) paces by what it read.
 */

export interface Rate {
  count: number;
  windowMs: number;
}

/** POSTHOG_REPLAY_RATE_LIMITS: 'auto' (learn from 429s), or rates to pace by up front ([] = off). */
export type ReplayPolicy = 'auto' | Rate[];

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

export const PLAN_RATES: Record<string, Rate[]> = {
  free: [
    { count: 12, windowMs: MINUTE_MS },
    { count: 60, windowMs: HOUR_MS },
  ],
  paid: [
    { count: 60, windowMs: MINUTE_MS },
    { count: 300, windowMs: HOUR_MS },
  ],
  enterprise: [
    { count: 100, windowMs: MINUTE_MS },
    { count: 400, windowMs: HOUR_MS },
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
    if (!match || unit === undefined || Number(match[1]) < 1 || Number(match[2] ?? 1) < 1) return undefined;
    rates.push({ count: Number(match[1]), windowMs: Number(match[2] ?? 1) * unit });
  }
  return rates.length > 0 ? rates : undefined;
}

/** "auto" or anything parseRates reads. */
export function parseReplayPolicy(text: string): ReplayPolicy | undefined {
  return text.trim().toLowerCase() === 'auto' ? 'auto' : parseRates(text);
}

export function describeRates(rates: readonly Rate[]): string {
  return rates.map((r) => `${r.count}/${describeWindow(r.windowMs)}`).join(', ');
}

function describeWindow(ms: number): string {
  if (ms % HOUR_MS === 0) return ms === HOUR_MS ? 'h' : `${ms / HOUR_MS}h`;
  if (ms % MINUTE_MS === 0) return ms === MINUTE_MS ? 'min' : `${ms / MINUTE_MS}min`;
  return `${Math.round(ms / 100) / 10}s`;
}
