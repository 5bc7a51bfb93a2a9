import { UpstreamUnavailableError } from '../errors.js';

export interface Page<T> {
  results: T[];
  has_more: boolean;
  next_offset: number | null;
  count?: number;
}

/**
 * One page shape from both envelopes PostHog serves: DRF's `{count, next, previous, results}`
 * (projects, and the published docs for recordings) and the recordings list's `{results, has_next}`.
 */
export function normalizePage<T>(body: unknown, offset: number, what: string, limit?: number): Page<T> {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { results?: unknown }).results)) {
    throw new UpstreamUnavailableError('malformed', `PostHog's ${what} answer had no "results" list; the host may not be a PostHog app.`);
  }
  const envelope = body as { results: unknown[]; has_next?: unknown; next?: unknown; count?: unknown };
  // Items that are not objects cannot be shown as recordings or projects; leave them out.
  let results = envelope.results.filter((item): item is T => typeof item === 'object' && item !== null && !Array.isArray(item));
  // An upstream that sends more than was asked for gets trimmed to the page asked for; the rest is the next page.
  const overfull = limit !== undefined && envelope.results.length > limit;
  if (overfull) results = envelope.results.slice(0, limit).filter((item): item is T => typeof item === 'object' && item !== null && !Array.isArray(item));
  const next = typeof envelope.next === 'string' && envelope.next ? envelope.next : undefined;
  // An empty page that claims more would send an agent round in circles: treat it as the end.
  const hasMore = results.length > 0 && (overfull || (typeof envelope.has_next === 'boolean' ? envelope.has_next : next !== undefined));
  let nextOffset: number | null = null;
  if (hasMore) nextOffset = overfull ? offset + limit! : (offsetFrom(next) ?? offset + envelope.results.length);
  const page: Page<T> = { results, has_more: hasMore, next_offset: nextOffset };
  if (typeof envelope.count === 'number') page.count = envelope.count;
  return page;
}

function offsetFrom(url: string | undefined): number | undefined {
  if (!url) return undefined;
  try {
    const value = new URL(url, 'http://placeholder').searchParams.get('offset');
    return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
  } catch {
    return undefined;
  }
}
