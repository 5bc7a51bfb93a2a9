/**
 * What the organization's plan allows, as PostHog states it in the organization's record
 * (`available_product_features`). Today only the longest replay retention: PostHog refuses a
 * longer `session_recording_retention_period` with a 403, and a caller should know the cap before
 * asking (docs/mcp-features.md, "The plan's replay retention"). The organization is read by
 * operations/projects.ts (retentionCap).
 */

/** The periods PostHog keeps recordings for, shortest first, with their length in days. */
export const RETENTION_PERIODS = ['30d', '90d', '1y', '5y'] as const;
export type RetentionPeriod = (typeof RETENTION_PERIODS)[number];
const PERIOD_DAYS: Record<RetentionPeriod, number> = { '30d': 30, '90d': 90, '1y': 365, '5y': 1825 };

export function isRetentionPeriod(value: unknown): value is RetentionPeriod {
  return typeof value === 'string' && (RETENTION_PERIODS as readonly string[]).includes(value);
}

/** The periods a plan whose longest is `longest` allows, shortest first. */
export function periodsUpTo(longest: RetentionPeriod): RetentionPeriod[] {
  return RETENTION_PERIODS.slice(0, RETENTION_PERIODS.indexOf(longest) + 1);
}

/** The product feature whose limit and unit are the plan's longest replay retention. */
const RETENTION_FEATURE_KEY = 'session_replay_data_retention';

/** The plan's longest replay retention, or why it is not known (never a guess). */
export type RetentionCap = { longest: RetentionPeriod } | { unknown: string };

const NOT_LISTED = 'the organization lists no replay retention in its plan (self-hosted PostHog may list none)';

/**
 * The longest period the plan allows, read from the organization's `available_product_features`
 * as PostHog reads it when it checks a project update: the entry's limit in days (months are a
 * twelfth of 365 days, rounded as Python rounds; years 365 days), then the longest period no
 * longer than that, and 30d below it.
 */
export function retentionCapOf(features: unknown): RetentionCap {
  if (!Array.isArray(features)) return { unknown: "PostHog's answer for the organization has no list of its plan's features" };
  const entry: unknown = features.find((f) => typeof f === 'object' && f !== null && (f as { key?: unknown }).key === RETENTION_FEATURE_KEY);
  if (entry === undefined) return { unknown: NOT_LISTED };
  const { limit, unit } = entry as { limit?: unknown; unit?: unknown };
  const days = typeof limit === 'number' && Number.isFinite(limit) && typeof unit === 'string' ? entitlementDays(limit, unit.toLowerCase()) : undefined;
  if (days === undefined) return { unknown: "the plan's replay retention entry has no limit and unit PostHog reads" };
  const longest = [...RETENTION_PERIODS].reverse().find((period) => PERIOD_DAYS[period] <= days) ?? RETENTION_PERIODS[0];
  return { longest };
}

function entitlementDays(limit: number, unit: string): number | undefined {
  switch (unit) {
    case 'day':
    case 'days':
      return limit;
    case 'month':
    case 'months':
      return roundHalfEven((limit * 365) / 12);
    case 'year':
    case 'years':
      return limit * 365;
    default:
      return undefined;
  }
}

/** Python's round(): a half goes to the even neighbour (6 months are 182 days, not 183). */
function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const fraction = x - floor;
  if (fraction !== 0.5) return Math.round(x);
  return floor % 2 === 0 ? floor : floor + 1;
}
