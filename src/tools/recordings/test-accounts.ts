// What filter_test_accounts took out of a listing's period, said beside the list so the agent need
// not list again without it. Counted with the list itself, the one answer whose meaning of "test
// account" is PostHog's own: the query API could count faster, but would have to turn the
// project's test-account filters into HogQL again and could disagree with the list.

import { z } from 'zod';
import type { Page, PostHogOperations, Recording } from '../../posthog/operations/index.js';

/** Recordings of the period read without the filter at the most (one page of PostHog's list). */
const COUNTED = 100;

export const testAccountsOutput = z
  .looseObject({ left_out: z.number().int(), exact: z.boolean() })
  .optional()
  .describe('How many recordings of the period filter_test_accounts left out; exact false: at least that many, among the latest 100.');

export type TestAccountsLeftOut = { left_out: number; exact: boolean };

/**
 * `params` are the listing's own (dates and other filters, filter_test_accounts among them) and
 * `filtered` its first answer. Where PostHog gives totals (its older envelope), one more request
 * of one row. Otherwise the period's latest 100 read without the filter, and, unless the filtered
 * answer already holds all its recordings, those 100 asked again with it: exact when the period
 * has at most 100 recordings, a floor beyond.
 */
export async function testAccountsLeftOut(
  posthog: PostHogOperations,
  projectId: string,
  params: Record<string, unknown>,
  filtered: { page: Page<Recording>; offset: number },
  signal: AbortSignal,
): Promise<TestAccountsLeftOut> {
  const { filter_test_accounts: _, ...unfiltered } = params;
  if (filtered.page.count !== undefined) {
    const all = await posthog.recordings.list(projectId, { ...unfiltered, limit: 1 }, { signal });
    if (all.count !== undefined) return { left_out: Math.max(0, all.count - filtered.page.count), exact: true };
  }
  const all = await posthog.recordings.list(projectId, { ...unfiltered, limit: COUNTED }, { signal });
  const ids = all.results.map((r) => r.id);
  const whole = filtered.offset === 0 && !filtered.page.has_more;
  const kept = whole && !all.has_more ? filtered.page.results.length : ids.length === 0 ? 0 : (await posthog.recordings.list(projectId, { ...params, session_ids: ids, limit: COUNTED }, { signal })).results.length;
  return { left_out: Math.max(0, ids.length - kept), exact: !all.has_more };
}

export function testAccountsLine(counted: TestAccountsLeftOut): string {
  const n = counted.left_out;
  const what = `${n} recording${n === 1 ? '' : 's'}`;
  return counted.exact ? `filter_test_accounts left out ${what} of the period.` : `filter_test_accounts left out at least ${what}: ${n === 1 ? 'it is' : 'they are'} among the period's latest ${COUNTED}.`;
}
