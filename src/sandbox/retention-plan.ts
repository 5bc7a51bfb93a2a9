// The demo organization's replay retention: the periods a project may keep recordings for, the
// longest its plan allows, that cap as the organization states it, and the refusal of a longer one.

import { ApiError } from './http.js';

export const RETENTION_PERIODS = ['30d', '90d', '1y', '5y'] as const;
/**
 * The demo organization's plan: paid replay without the extended-retention add-on, so 1y and 5y
 * are refused (403) as PostHog refuses a period beyond the organization's entitlement.
 */
export const LONGEST_RETENTION = '90d';
const RETENTION_DAYS: Record<(typeof RETENTION_PERIODS)[number], number> = { '30d': 30, '90d': 90, '1y': 365, '5y': 1825 };

/**
 * The same cap as the organization states it, in `available_product_features` (users.ts): the
 * entry PostHog reads the longest retention from, in days.
 */
export const RETENTION_FEATURE = {
  key: 'session_replay_data_retention',
  name: 'Recording retention',
  description: 'How long recordings are kept.',
  limit: RETENTION_DAYS[LONGEST_RETENTION],
  unit: 'days',
  note: null,
} as const;

/**
 * PostHog checks the entitlement in the serializer's update() only (a create stores any valid
 * period), with this PermissionDenied.
 */
export function checkRetentionEntitlement(period: unknown): void {
  if (typeof period !== 'string') return;
  if (RETENTION_PERIODS.indexOf(period as (typeof RETENTION_PERIODS)[number]) <= RETENTION_PERIODS.indexOf(LONGEST_RETENTION)) return;
  throw new ApiError(403, {
    type: 'authentication_error',
    code: 'permission_denied',
    detail: `This organization does not have permission to set retention period of length '${period}' - longest allowable retention period is '${LONGEST_RETENTION}'.`,
    attr: null,
  });
}
