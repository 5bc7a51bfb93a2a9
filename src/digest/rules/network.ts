/** Requests recorded by posthog-js's network plugin (`rrweb/network@1`): which failed, and how. */

import { maskUrlSecretsInText } from '../../url-secrets.js';
import { clip } from '../../words.js';
import { shownUrl } from './pages.js';

export interface FailedRequest {
  /** the request's own time when recorded, else the event's */
  at: number | undefined;
  method?: string;
  url: string;
  status?: number;
  error?: string;
}

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
    });
  }
  return { total, failed };
}

/** How a failed request's outcome reads in the timeline: the status, else the error, else "failed". */
export function outcomeOf(request: Omit<FailedRequest, 'at'>): string {
  return request.status !== undefined ? String(request.status) : (request.error ?? 'failed');
}
