import type { UpstreamError } from '../../errors.js';

/**
 * matching_events and properties are internal to PostHog's UI. Today's PostHog refuses every
 * personal API key there (403, whatever its scopes) or no longer has the endpoint (404); the
 * tools then ask the query API instead, so these texts are for what is left: an upstream that
 * failed both ways.
 */
export function explainInternalEndpoint(error: UpstreamError, endpoint: string, instead: string): string | undefined {
  if (error.status === 403) {
    return `PostHog refused ${endpoint} for this key (PostHog does not let personal API keys call this internal endpoint, whatever their scopes). ${instead}`;
  }
  if (error.status === 404 || error.status === 405) {
    return `This PostHog does not serve ${endpoint}, or the project/recording does not exist. ${instead}`;
  }
  return undefined;
}
