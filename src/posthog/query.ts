/** Query-string and path helpers shaped by how PostHog reads requests (docs/posthog-api.md, "Recordings list"). */

export type QueryValue = string | number | boolean | readonly unknown[] | Record<string, unknown> | null | undefined;
export type Query = Record<string, QueryValue>;

/**
 * PostHog's recordings endpoints run every query value through json.loads and keep the raw string
 * only when that fails. So arrays and objects go as JSON, and a string that would parse as JSON
 * (e.g. "2024") is quoted so that it stays a string.
 */
export function encodeJsonQuery(query: Query): string {
  return encode(query, (value) => {
    if (typeof value === 'string') return looksLikeJson(value) ? JSON.stringify(value) : value;
    if (typeof value === 'object') return JSON.stringify(value);
    return String(value);
  });
}

/** Plain DRF endpoints (projects) read values as they come. */
export function encodePlainQuery(query: Query): string {
  return encode(query, (value) => (typeof value === 'object' ? JSON.stringify(value) : String(value)));
}

function encode(query: Query, toText: (value: Exclude<QueryValue, null | undefined>) => string): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.append(key, toText(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function looksLikeJson(value: string): boolean {
  try {
    JSON.parse(value);
    return true;
  } catch {
    return false;
  }
}

const SAFE_SEGMENT = /^[A-Za-z0-9_@.-]+$/;

/**
 * Builds `/api/a/b/…/` from segments. Ids are validated by the tools' schemas first; this is the
 * last line of defence against a segment that would change the path (`..`, `/`, `?`).
 */
export function apiPath(...segments: Array<string | number>): string {
  const parts = segments.map((segment) => {
    const text = String(segment);
    if (!text || text === '.' || text === '..' || !SAFE_SEGMENT.test(text)) {
      throw new RangeError(`Refusing to build an API path with the segment ${JSON.stringify(text).slice(0, 80)}`);
    }
    // '@' is a legal path character and PostHog routes '@current' literally.
    return encodeURIComponent(text).replace(/%40/g, '@');
  });
  return `/api/${parts.join('/')}/`;
}
