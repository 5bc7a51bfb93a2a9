/** Requests recorded by posthog-js's network plugin (`rrweb/network@1`): which failed, and how. */

import { maskSecretsInBody, maskUrlSecretsInText } from '../../url-secrets.js';
import { clip } from '../../words.js';
import { shownUrl } from './pages.js';

export interface FailedRequest {
  /** the request's own time when recorded, else the event's */
  at: number | undefined;
  method?: string;
  url: string;
  status?: number;
  error?: string;
  /** What the server answered, as the recording kept it: secrets masked, cut to RESPONSE_BODY_MAX. */
  body?: string;
}

/** The most of a failed request's response body a digest keeps: the server's reason, not a page of HTML. */
export const RESPONSE_BODY_MAX = 300;

/** The requests of one network event: how many, and the failed ones. */
export function readRequests(payload: Record<string, unknown>): { total: number; failed: FailedRequest[] } {
  let total = 0;
  const failed: FailedRequest[] = [];
  for (const request of Array.isArray(payload.requests) ? payload.requests : []) {
    if (typeof request !== 'object' || request === null) continue;
    total++;
    const r = request as Record<string, unknown>;
    const status = Number(r.responseStatus ?? r.status);
    // An error's words may carry the request's URL, token and all: masked as the URL is.
    const error = typeof r.error === 'string' && r.error.length > 0 ? clip(maskUrlSecretsInText(r.error.slice(0, 400)), 100) : undefined;
    if (!((Number.isFinite(status) && status >= 400) || r.isFailed === true || error)) continue;
    // Performance-timing entries carry no method: none is made up.
    const method = typeof r.method === 'string' && /^[A-Za-z]{1,10}$/.test(r.method) ? r.method.toUpperCase() : undefined;
    failed.push({
      at: typeof r.timestamp === 'number' && Number.isFinite(r.timestamp) ? r.timestamp : undefined,
      ...(method ? { method } : {}),
      url: shownUrl(String(r.name ?? r.url ?? '?')),
      ...(Number.isFinite(status) && status > 0 && status < 1000 ? { status: Math.trunc(status) } : {}),
      ...(error ? { error } : {}),
      ...bodyOf(r),
    });
  }
  return { total, failed };
}

/** How a failed request's outcome reads in the timeline: the status, else the error, else "failed". */
export function outcomeOf(request: Omit<FailedRequest, 'at'>): string {
  return request.status !== undefined ? String(request.status) : (request.error ?? 'failed');
}

/**
 * A failed request's response body, where posthog-js kept one (payload capture on): its
 * `responseBody`, or `response.body` in rrweb's own plugin's shape; a JSON value as its JSON text.
 * Whitespace runs are one space, so a pretty-printed error reads on one line.
 */
function bodyOf(r: Record<string, unknown>): { body?: string } {
  const response = typeof r.response === 'object' && r.response !== null ? (r.response as Record<string, unknown>).body : undefined;
  const raw = r.responseBody ?? response;
  if (raw === undefined || raw === null) return {};
  let text: string;
  try {
    text = typeof raw === 'string' ? raw : (JSON.stringify(raw) ?? '');
  } catch {
    // Nested too deep to write out (a hostile body): none shown.
    return {};
  }
  const body = clip(maskSecretsInBody(text).replace(/\s+/g, ' ').trim(), RESPONSE_BODY_MAX);
  return body ? { body } : {};
}
