// A line longer than 1 MB, or one whose compressed fields inflate past that, is parsed and
// prepared away from the main thread (src/tools/recordings/event-output.ts, in a worker in the
// built server, in-thread here): the snapshots page and the player's feed must say of its events
// exactly what they say of the same events one a line.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, text, type Harness } from './harness.js';

const PROJECT = '1';
const T0 = Date.UTC(2026, 10, 1, 9);

type Event = { type: number; timestamp: number; data: unknown };

/** Elements enough to weigh `kb` KB, with a password field and a textarea whose values are typed. */
function snapshot(t: number, kb: number): Event {
  const rows: unknown[] = [
    { type: 2, id: 4, tagName: 'input', attributes: { type: 'password', value: 'hunter2-typed' }, childNodes: [] },
    { type: 2, id: 5, tagName: 'textarea', attributes: {}, childNodes: [{ type: 3, id: 6, textContent: 'my private note' }] },
  ];
  for (let id = 10; rows.length * 110 < kb * 1024; id += 2) rows.push({ type: 2, id, tagName: 'div', attributes: { class: 'row' }, childNodes: [{ type: 3, id: id + 1, textContent: `row ${id}` }] });
  return { type: 2, timestamp: t, data: { node: { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: [{ type: 2, id: 3, tagName: 'body', attributes: {}, childNodes: rows }] }] }, initialOffset: { top: 0, left: 0 } } };
}

/** A page, a snapshot, typing, a request with large bodies, and `filler` small events: over 1 MB in all. */
function events(filler: number): Event[] {
  const network = { plugin: 'rrweb/network@1', payload: { requests: [{ name: 'https://shop.test/api/pay?token=abcdef0123456789abcdef', method: 'POST', responseStatus: 500, requestBody: JSON.stringify({ card: '4242424242424242' }), responseBody: 'x'.repeat(9_000) }] } };
  return [
    { type: 4, timestamp: T0, data: { href: 'https://shop.test/reset?token=abcdef0123456789abcdef', width: 800, height: 600 } },
    snapshot(T0 + 1, 40),
    { type: 3, timestamp: T0 + 500, data: { source: 5, id: 4, text: 'typed-later-secret', isChecked: false } },
    { type: 6, timestamp: T0 + 600, data: network },
    ...Array.from({ length: filler }, (_, i) => ({ type: 5, timestamp: T0 + 1_000 + i, data: { tag: 'filler', payload: { i, pad: 'y'.repeat(400) } } })),
  ];
}

describe('a line too long to parse in the main thread', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  function serve(id: string, body: string): void {
    const base = `/api/projects/${PROJECT}/session_recordings/${id}`;
    h.sandbox.injectFault({ path: `${base}/snapshots`, query: { source: 'blob_v2' }, times: Infinity, status: 200, body });
    h.sandbox.injectFault({ path: `${base}/snapshots`, times: Infinity, status: 200, body: { sources: [{ source: 'blob_v2', blob_key: '0', start_timestamp: null, end_timestamp: null }] } });
    h.sandbox.injectFault({ path: base, times: Infinity, status: 200, body: { id, distinct_id: 'large-lines', person: null } });
  }

  /** The pages of a recording, the events' part of each view. */
  async function pages(id: string, args: Record<string, unknown>): Promise<Array<{ events: unknown; lines: string[]; skipped: unknown }>> {
    const out = [];
    let cursor: string | undefined;
    for (let i = 0; i < 3; i++) {
      const r = await h.call('session-recording-snapshots', { project_id: PROJECT, id, ...args, ...(cursor ? { cursor } : {}) });
      expect(r.isError, text(r)).toBeFalsy();
      const page = r.structuredContent as { events: unknown[]; skipped_lines: number; next_cursor: string | null };
      out.push({ events: page.events, lines: text(r).split('\n').filter((line) => /^\d\d:\d\d:\d\d\.\d{3} /.test(line)), skipped: page.skipped_lines });
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    }
    return out;
  }

  it('gives the same snapshots pages and feed as the same events one a line', async () => {
    const all = events(2_600);
    serve('one-a-line', all.map((e) => JSON.stringify(['w1', e])).join('\n'));
    // Legacy blob form: one line holds every event of a window.
    const packed = JSON.stringify({ window_id: 'w1', data: all });
    expect(packed.length).toBeGreaterThan(1024 * 1024);
    serve('packed', packed);

    for (const args of [{ max_events: 500 }, { max_events: 3 }, { max_events: 500, reveal_input_values: true }]) {
      const plain = await pages('one-a-line', args);
      expect(await pages('packed', args), JSON.stringify(args)).toEqual(plain);
      // Masked and fitted as ever: the request's body cut to fit, typed values and URL tokens hidden.
      const shown = JSON.stringify(plain);
      expect(shown).toContain('more characters not shown');
      if (!('reveal_input_values' in args)) for (const typed of ['hunter2-typed', 'typed-later-secret', '4242424242424242']) expect(shown).not.toContain(typed);
    }
    const feed = async (id: string) => (await h.call('session-recording-replay-events', { project_id: PROJECT, id })).structuredContent as { events: string; count: number };
    const plainFeed = await feed('one-a-line');
    expect(await feed('packed')).toMatchObject({ events: plainFeed.events, count: all.length });
    for (const typed of ['hunter2-typed', 'my private note', 'typed-later-secret', 'abcdef0123456789abcdef']) expect(plainFeed.events).not.toContain(typed);
  });

  it('parses elsewhere a short line whose compressed snapshot inflates past 1 MB, and tells it as the same snapshot uncompressed', async () => {
    const big = snapshot(T0 + 1, 1_500);
    const compressed = { ...big, cv: '2024-10', data: gzipSync(Buffer.from(JSON.stringify(big.data))).toString('latin1') };
    const first = { type: 4, timestamp: T0, data: { href: 'https://shop.test/', width: 800, height: 600 } };
    const line = JSON.stringify(['w1', compressed]);
    expect(line.length).toBeLessThan(200 * 1024);
    serve('inflates', [JSON.stringify(['w1', first]), line].join('\n'));
    serve('inflated', [JSON.stringify(['w1', first]), JSON.stringify(['w1', big])].join('\n'));

    expect(await pages('inflates', { max_events: 10 })).toEqual(await pages('inflated', { max_events: 10 }));
    const [page] = await pages('inflates', { max_events: 10 });
    expect((page!.events as Array<{ omitted?: string }>)[1]!.omitted).toMatch(/^FullSnapshot of 1\d{3} KB left out of this page \(too large\)/);

    const feed = async (id: string) => (await h.call('session-recording-replay-events', { project_id: PROJECT, id })).structuredContent as { events: string; count: number };
    const fed = await feed('inflates');
    expect(fed).toMatchObject({ events: (await feed('inflated')).events, count: 2 });
    expect(fed.events).not.toContain('hunter2-typed');
    expect(fed.events).toContain('"row 10"');
  });
});
