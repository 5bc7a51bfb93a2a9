import { describe, expect, it } from 'vitest';
import { aggregate, foldMessage, urlPattern, type TriageInput } from '../../src/digest/aggregate.js';
import type { Digest, TimelineItem } from '../../src/digest/digest.js';

const START = Date.parse('2026-11-20T10:00:00Z');

function digest(timeline: TimelineItem[], pages: Digest['pages'] = [{ t: 0, w: 'w1', url: 'https://shop.example.com/checkout' }]): Digest {
  return {
    start: START,
    end: START + 60_000,
    duration_ms: 60_000,
    active_ms: 30_000,
    windows: [{ w: 'w1', window_id: 'a', pages: pages.length }],
    pages,
    timeline,
    counts: {} as Digest['counts'],
    timing: { frozen: false, stray: 0 },
    notes: [],
  };
}

describe('foldMessage', () => {
  it('folds numbers, ids and URLs so one error from many users is one problem', () => {
    const a = foldMessage("TypeError: Cannot read properties of undefined (reading 'total') at https://shop.example.com/static/app.3f9a1c2b.js:12:345");
    const b = foldMessage("TypeError: Cannot read properties of undefined (reading 'total') at https://shop.example.com/static/app.77aa00ff.js:9:1");
    expect(a).toBe(b);
    expect(a).toContain("(reading 'total')");
    expect(foldMessage('Order 12345 failed for user 0196f0aa-1111-7222-8333-444455556666')).toBe(foldMessage('Order 9 failed for user 0196f0aa-2222-7222-8333-444455556666'));
    expect(foldMessage('Payment declined')).not.toBe(foldMessage('Payment failed'));
  });
});

describe('urlPattern', () => {
  it('keeps host and path, folds id segments, drops query and fragment', () => {
    expect(urlPattern('https://api.example.com/orders/12345/items?x=1#y')).toBe('api.example.com/orders/:id/items');
    expect(urlPattern('/api/users/0196f0aa-1111-7222-8333-444455556666/cart')).toBe('/api/users/:id/cart');
    expect(urlPattern('https://shop.example.com/')).toBe('shop.example.com/');
    expect(urlPattern('data:text/html,' + 'x'.repeat(5000))).toBe('data:…');
  });
});

describe('aggregate', () => {
  const inputs: TriageInput[] = [
    {
      id: 's1',
      person: 'p1',
      digest: digest([
        { t: 1_000, w: 'w1', kind: 'click', target: 'button "Pay"' },
        { t: 2_000, w: 'w1', kind: 'request-failed', target: 'POST https://api.example.com/orders/17', detail: '500', request: { method: 'POST', url: 'https://api.example.com/orders/17', status: 500 } },
        { t: 2_100, w: 'w1', kind: 'console-error', detail: 'Order 17 failed', count: 2 },
        { t: 3_000, w: 'w1', kind: 'rage-click', target: 'button "Pay"', count: 4 },
      ]),
    },
    {
      id: 's2',
      person: 'p2',
      digest: digest([
        { t: 5_000, w: 'w1', kind: 'request-failed', target: 'POST https://api.example.com/orders/99', detail: '500' },
        { t: 5_500, w: 'w1', kind: 'console-error', detail: 'Order 99 failed' },
        { t: 9_000, w: 'w1', kind: 'console-warn', detail: 'slow' },
      ]),
    },
    {
      id: 's3',
      person: 'p1',
      digest: digest(
        [
          { t: 500, w: 'w1', kind: 'dead-click', target: 'a "Help"' },
          { t: 7_000, w: 'w1', kind: 'console-error', detail: 'Order 5 failed' },
        ],
        [
          { t: 0, w: 'w1', url: 'https://shop.example.com/products/42' },
          { t: 6_000, w: 'w1', url: 'https://shop.example.com/checkout' },
        ],
      ),
    },
    { id: 's4', person: null, digest: digest([{ t: 100, w: 'w1', kind: 'click', target: 'button "Ok"' }]) },
  ];

  it('ranks problems by sessions hit, counting people, occurrences, first and last seen, with examples', () => {
    const result = aggregate(inputs, { link: (id, s) => `https://ph.example/replay/${id}?t=${s}` });
    const [first, second] = result.problems;
    expect(first).toMatchObject({ kind: 'console-error', signature: 'Order N failed', sessions: 3, people: 2, occurrences: 4 });
    expect(first!.first_seen).toBe(new Date(START + 2_100).toISOString());
    expect(first!.last_seen).toBe(new Date(START + 7_000).toISOString());
    expect(first!.examples).toEqual([
      { session_id: 's1', at_s: 2, link: 'https://ph.example/replay/s1?t=2' },
      { session_id: 's2', at_s: 5, link: 'https://ph.example/replay/s2?t=5' },
      { session_id: 's3', at_s: 7, link: 'https://ph.example/replay/s3?t=7' },
    ]);
    expect(second).toMatchObject({ kind: 'request-failed', signature: 'POST api.example.com/orders/:id → 500', sessions: 2, people: 2, occurrences: 2 });
    const rage = result.problems.find((p) => p.kind === 'rage-click')!;
    expect(rage).toMatchObject({ signature: 'shop.example.com/checkout: button "Pay"', sessions: 1, occurrences: 1 });
    const dead = result.problems.find((p) => p.kind === 'dead-click')!;
    expect(dead.signature).toBe('shop.example.com/products/:id: a "Help"');
    // Plain clicks are not problems.
    expect(result.problems.map((p) => p.kind)).not.toContain('click');
    expect(result.problems).toHaveLength(5);
  });

  it('the sum over problems equals the sum over the single digests', () => {
    const result = aggregate(inputs);
    const problemKinds = new Set(['console-error', 'console-warn', 'request-failed', 'rage-click', 'dead-click']);
    const direct = inputs.flatMap((i) => i.digest.timeline).filter((t) => problemKinds.has(t.kind)).reduce((n, t) => n + (t.kind === 'rage-click' || t.kind === 'dead-click' ? 1 : (t.count ?? 1)), 0);
    expect(result.problems.reduce((n, p) => n + p.occurrences, 0)).toBe(direct);
    expect(result.sessions.reduce((n, s) => n + s.console_errors + s.console_warnings + s.failed_requests + s.rage_clicks + s.dead_clicks, 0)).toBe(direct);
  });

  it('ranks sessions and pages by trouble', () => {
    const result = aggregate(inputs);
    expect(result.sessions.map((s) => s.id)).toEqual(['s1', 's2', 's3', 's4']);
    expect(result.sessions[0]).toMatchObject({ console_errors: 2, failed_requests: 1, rage_clicks: 1, score: 3 * 2 + 3 + 2 });
    expect(result.sessions[3]).toMatchObject({ score: 0 });
    expect(result.pages[0]).toMatchObject({ page: 'shop.example.com/checkout', sessions: 3 });
    expect(result.pages.find((p) => p.page === 'shop.example.com/products/:id')).toMatchObject({ sessions: 1, problems: 1 });
  });

  it('an empty fleet gives empty lists', () => {
    expect(aggregate([])).toEqual({ problems: [], failures: [], pages: [], sessions: [] });
  });
});
