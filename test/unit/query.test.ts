import { describe, expect, it } from 'vitest';
import { apiPath, encodeJsonQuery, encodePlainQuery } from '../../src/posthog/query.js';
import { normalizePage } from '../../src/posthog/pagination.js';
import { parseErrorBody, retryAfterSeconds } from '../../src/posthog/failure.js';

describe('query encoding', () => {
  it('JSON-encodes arrays and quotes strings that would parse as JSON (PostHog json.loads every value)', () => {
    const query = new URLSearchParams(encodeJsonQuery({ session_ids: ['a', 'b'], date_from: '-7d', date_to: '2024', limit: 5, skip: undefined }).slice(1));
    expect(query.get('session_ids')).toBe('["a","b"]');
    expect(query.get('date_from')).toBe('-7d');
    expect(query.get('date_to')).toBe('"2024"');
    expect(query.get('limit')).toBe('5');
    expect(query.has('skip')).toBe(false);
  });

  it('sends plain values for DRF endpoints and nothing for an empty query', () => {
    expect(encodePlainQuery({ limit: 10, search: 'shop' })).toBe('?limit=10&search=shop');
    expect(encodePlainQuery({})).toBe('');
  });

  it('builds paths from safe segments only', () => {
    expect(apiPath('projects', '@current', 'session_recordings', 'abc-1_2')).toBe('/api/projects/@current/session_recordings/abc-1_2/');
    expect(() => apiPath('projects', '..')).toThrow(RangeError);
    expect(() => apiPath('projects', '1/../../x')).toThrow(RangeError);
    expect(() => apiPath('projects', '')).toThrow(RangeError);
  });
});

describe('pagination', () => {
  const items = (n: number, from = 1) => Array.from({ length: n }, (_, i) => ({ id: from + i }));

  it('reads the recordings envelope {results, has_next}', () => {
    expect(normalizePage({ results: items(2), has_next: true, version: 4 }, 10, 'x')).toEqual({ results: items(2), has_more: true, next_offset: 12 });
    expect(normalizePage({ results: items(1), has_next: false }, 10, 'x')).toEqual({ results: items(1), has_more: false, next_offset: null });
  });

  it('reads the DRF envelope and takes next_offset from the next URL', () => {
    const page = normalizePage({ count: 7, next: 'https://us.posthog.com/api/projects/?limit=3&offset=6', previous: null, results: items(3) }, 3, 'x');
    expect(page).toEqual({ results: items(3), has_more: true, next_offset: 6, count: 7 });
    expect(normalizePage({ count: 7, next: null, previous: 'p', results: items(1, 7) }, 6, 'x')).toEqual({ results: items(1, 7), has_more: false, next_offset: null, count: 7 });
  });

  it('ends at an empty page even if upstream claims more, and drops items that are not objects', () => {
    expect(normalizePage({ results: [], has_next: true }, 40, 'x')).toEqual({ results: [], has_more: false, next_offset: null });
    const page = normalizePage({ results: [null, { id: 1 }, 3, [4]], has_next: true }, 0, 'x');
    expect(page.results).toEqual([{ id: 1 }]);
    expect(page.next_offset).toBe(4);
  });

  it('rejects a body without results', () => {
    expect(() => normalizePage({ detail: 'x' }, 0, 'recordings list')).toThrow(/no "results" list/);
  });
});

describe('error bodies', () => {
  it('reads the {type, code, detail, attr} envelope', () => {
    expect(parseErrorBody('{"type":"validation_error","code":"invalid_choice","detail":"\\"Mars/Olympus\\" is not a valid choice.","attr":"timezone"}')).toEqual({
      type: 'validation_error',
      code: 'invalid_choice',
      detail: '"Mars/Olympus" is not a valid choice.',
      attr: 'timezone',
    });
  });

  it('reads the {error, message} form and plain text', () => {
    expect(parseErrorBody('{"error":"recording_deleted","message":"gone"}')).toMatchObject({ detail: 'recording_deleted: gone', code: 'recording_deleted' });
    expect(parseErrorBody('{"error":"An internal server error occurred. Please try again later."}').detail).toMatch(/internal server error/);
    expect(parseErrorBody('<html><body><h1>502 Bad Gateway</h1></body></html>').detail).toBe('502 Bad Gateway');
    expect(parseErrorBody('')).toEqual({});
  });

  it('finds the retry wait in Retry-After or in PostHog\'s throttle detail', () => {
    expect(retryAfterSeconds('7', undefined)).toBe(7);
    expect(retryAfterSeconds(undefined, 'Request was throttled. Expected available in 23 seconds.')).toBe(23);
    expect(retryAfterSeconds(undefined, 'nothing')).toBeUndefined();
    expect(retryAfterSeconds(new Date(Date.now() + 5_000).toUTCString(), undefined)).toBeGreaterThanOrEqual(4);
  });
});
