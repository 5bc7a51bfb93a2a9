import type { UpstreamError } from '../../errors.js';

/**
 * matching_events and properties are internal to PostHog's UI: scoped personal API keys get 403,
 * and newer PostHog versions removed properties (404). Say so plainly, with what to do instead.
 */
export function explainInternalEndpoint(error: UpstreamError, endpoint: string, instead: string): string | undefined {
  if (error.status === 403) {
    return `PostHog's ${endpoint} endpoint is internal: it refuses personal API keys that have scopes (only legacy unscoped keys may call it). ${instead}`;
  }
  if (error.status === 404 || error.status === 405) {
    return `This PostHog version does not serve ${endpoint} (it is internal and has been changed or removed), or the project/recording does not exist. ${instead}`;
  }
  return undefined;
}
