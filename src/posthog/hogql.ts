// When PostHog's query API (docs/posthog-api.md, "The query API") answers what its internal replay endpoints
// no longer answer for a personal API key, and the dates such a query is bounded by. The query
// itself is sent by operations/query.ts, and built in hogql-queries.ts, the one place allowed to
// write HogQL.

import { UpstreamError, UserInputError } from '../errors.js';

/** Whom an endpoint refused: the upstream (its base URL) and the key (a hash, PostHogClient.keyIdentity). */
export interface Asker {
  readonly baseUrl: string;
  readonly keyIdentity: string;
}

/** Which documented endpoints an upstream (its base URL) refuses every key or lacks, for the process's life. */
const unavailable = new Map<string, Set<string>>();
const MAX_UPSTREAMS = 64;
/** Which it refused one key (by host and key hash), for the process's life; the least recently added forgotten first. */
const refusedKey = new Map<string, Set<string>>();
const MAX_KEYS = 10_000;

function remember(map: Map<string, Set<string>>, at: string, endpoint: string, max: number): void {
  let endpoints = map.get(at);
  if (!endpoints) {
    if (map.size >= max) map.delete(map.keys().next().value!);
    endpoints = new Set();
    map.set(at, endpoints);
  }
  endpoints.add(endpoint);
}

const keyAt = (asker: Asker) => `${asker.baseUrl}\n${asker.keyIdentity}`;

/**
 * Remembered per upstream base URL when the refusal is the host's (it refuses every personal API
 * key, or lacks the endpoint: isRefusedForEveryKey), so a client and its per-user withApiKey()
 * copies share it; otherwise per host and key, so one key's 403 (a missing scope) never moves
 * another user's calls to the query API, which their key may not be allowed to use.
 */
export const endpointMemory = {
  isUnavailable(asker: Asker, endpoint: string): boolean {
    return (unavailable.get(asker.baseUrl)?.has(endpoint) ?? false) || (refusedKey.get(keyAt(asker))?.has(endpoint) ?? false);
  },
  markUnavailable(asker: Asker, endpoint: string, forEveryKey = true): void {
    // A server talks to one upstream; the bound only keeps a long test run from growing this.
    if (forEveryKey) remember(unavailable, asker.baseUrl, endpoint, MAX_UPSTREAMS);
    else remember(refusedKey, keyAt(asker), endpoint, MAX_KEYS);
  },
  /** Forget an upstream (a test's sandbox is closed, and its port may serve another next). */
  forget(baseUrl: string): void {
    unavailable.delete(baseUrl);
    for (const at of [...refusedKey.keys()]) if (at.startsWith(`${baseUrl}\n`)) refusedKey.delete(at);
  },
};

/**
 * Whether a refusal is the host's, whoever asks: the endpoint is gone (404/405), or PostHog says
 * it "does not support personal API key access" (today no personal key passes there, see
 * docs/tools.md). Any other 403 is about the key that got it.
 */
export function isRefusedForEveryKey(error: UpstreamError): boolean {
  return error.status === 404 || error.status === 405 || (error.status === 403 && /does not support personal api key access/i.test(error.detail ?? ''));
}

/**
 * Whether a documented endpoint's error means "not for you here" (403: PostHog refuses personal
 * API keys there; 404/405: removed) so that the query API should answer instead.
 */
export function isEndpointUnavailable(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && (error.status === 403 || error.status === 404 || error.status === 405);
}

/**
 * Calls the documented endpoint unless this upstream is known not to serve it, and falls back to
 * the query API when it refuses or lacks it. The endpoint is remembered as unavailable only once
 * the query has answered: a 404 for an unknown project fails both ways and proves nothing.
 */
export async function withQueryFallback<T>(
  asker: Asker,
  endpoint: string,
  documented: () => Promise<T>,
  viaQuery: () => Promise<T>,
): Promise<{ result: T; via: 'endpoint' | 'query' }> {
  let refusal: UpstreamError | undefined;
  if (!endpointMemory.isUnavailable(asker, endpoint)) {
    try {
      return { result: await documented(), via: 'endpoint' };
    } catch (error) {
      if (!isEndpointUnavailable(error)) throw error;
      refusal = error;
    }
  }
  const result = await viaQuery();
  if (refusal) endpointMemory.markUnavailable(asker, endpoint, isRefusedForEveryKey(refusal));
  return { result, via: 'query' };
}

/** What to tell the agent when the query API itself refused. */
export function explainQueryError(error: UpstreamError): string | undefined {
  if (!/\/query\/?$/.test(error.path)) return undefined;
  if (error.status === 403) {
    const scope = !error.detail || /scope/i.test(error.detail);
    return scope
      ? 'This PostHog answers this only through its query API, and the key lacks the query:read scope: add query:read to the personal API key (PostHog → Settings → Personal API keys), then retry.'
      : 'This PostHog answers this only through its query API, which refused the key for this project (see PostHog\'s message); check the key may access the project.';
  }
  if (error.status === 404 && /project/i.test(error.detail ?? '')) return undefined;
  if (error.status === 404 || error.status === 405) {
    return 'This PostHog neither serves the documented endpoint to a personal API key nor has the query API (POST /api/projects/{id}/query/); it is too old or not PostHog.';
  }
  if (error.status === 400) return 'PostHog could not run the query it was sent (see its message); this is a bug in posthog-replay-mcp, please report it.';
  return undefined;
}

/**
 * The dates resolveDate() reads, for input schemas: checked before any request, so a date the
 * query path could not bound with is refused up front rather than after the endpoint's refusal.
 */
export const DATE_PATTERN = /^(-\d{1,5}[sMhdwmy]|\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?)$/;

/** Where PostHog's recordings list starts when no date_from is given (docs/posthog-api.md, "Recordings list"): the tools that count or match over the same period start there too. */
export const RECORDINGS_DEFAULT_FROM = '-3d';

const UNIT_MS: Record<string, number> = { s: 1_000, M: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/**
 * A PostHog date string (relative `-30d`, `-24h`, `-2w`, `-3m`, `-1y`, or an ISO date or
 * datetime, UTC unless it says otherwise) as a time, for the query's date bound.
 */
export function resolveDate(value: string, nowMs: number): Date {
  const relative = /^-(\d{1,5})([sMhdwmy])$/.exec(value.trim());
  if (relative) {
    const n = Number(relative[1]);
    const unit = relative[2]!;
    const date = new Date(nowMs);
    if (unit in UNIT_MS) date.setTime(nowMs - n * UNIT_MS[unit]!);
    else if (unit === 'm') date.setUTCMonth(date.getUTCMonth() - n);
    else date.setUTCFullYear(date.getUTCFullYear() - n);
    return date;
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const ms = Date.parse(`${value}T00:00:00Z`);
    if (!Number.isNaN(ms)) return new Date(ms);
  }
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(value)) {
    const text = value.replace(' ', 'T');
    const ms = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`);
    if (!Number.isNaN(ms)) return new Date(ms);
  }
  throw new UserInputError(`date_from "${value}" is not a date this server can bound a query with: use a relative date such as -30d, -24h, -2w, -3m, -1y, or an ISO date such as 2025-06-01.`);
}
