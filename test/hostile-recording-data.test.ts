import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, text, type Harness } from './harness.js';

// Recording data no recorder should write, served by the sandbox as a recording's one block:
// impossible timestamps (−1e17, 1e300) and a DOM 10,000 elements deep. Both recording tools must
// answer with a sane result, never "Internal error".

const PROJECT = '1';

/** A full snapshot's line whose <body> holds `depth` nested <div>s, the last with a button in it (built as text: JSON.stringify would overflow). */
function deepSnapshotLine(t: number, depth: number): string {
  let node = `{"type":2,"id":${depth + 10},"tagName":"button","attributes":{},"childNodes":[{"type":3,"id":${depth + 11},"textContent":"Deep button"}]}`;
  const open: string[] = [];
  for (let id = 10; id <= depth + 9; id++) open.push(`{"type":2,"id":${id},"tagName":"div","attributes":{},"childNodes":[`);
  node = open.join('') + node + ']}'.repeat(depth);
  const root = `{"type":0,"id":1,"childNodes":[{"type":2,"id":2,"tagName":"html","attributes":{},"childNodes":[{"type":2,"id":3,"tagName":"body","attributes":{},"childNodes":[${node}]}]}]}`;
  return `["w1",{"type":2,"timestamp":${t},"data":{"node":${root},"initialOffset":{"top":0,"left":0}}}]`;
}

describe('hostile recording data', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  function serve(id: string, events: unknown[]): void {
    const base = `/api/projects/${PROJECT}/session_recordings/${id}`;
    const body = events.map((e) => (typeof e === 'string' ? e : JSON.stringify(['w1', e]))).join('\n');
    h.sandbox.injectFault({ path: `${base}/snapshots`, query: { source: 'blob_v2' }, times: Infinity, status: 200, body });
    h.sandbox.injectFault({ path: `${base}/snapshots`, times: Infinity, status: 200, body: { sources: [{ source: 'blob_v2', blob_key: '0', start_timestamp: null, end_timestamp: null }] } });
    h.sandbox.injectFault({ path: base, times: Infinity, status: 200, body: { id, distinct_id: 'hostile', person: null } });
  }

  const T0 = Date.UTC(2026, 10, 1, 9);
  const moves = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ type: 3, timestamp: from + i * 1000, data: { source: 1, positions: [] } }));

  for (const wild of [-1e17, 1e300]) {
    it(`summarizes and lists a recording with an event at timestamp ${wild}`, async () => {
      const id = `wild-${wild > 0 ? 'high' : 'low'}`;
      serve(id, [{ type: 4, timestamp: T0, data: { href: 'https://shop.test/', width: 800, height: 600 } }, ...moves(T0 + 1000, 5), { type: 3, timestamp: wild, data: { source: 2, type: 2, id: 5, x: 1, y: 1 } }, ...moves(T0 + 7000, 3)]);
      const summary = await h.call('session-recording-summary', { project_id: PROJECT, id });
      expect(summary.isError, text(summary)).toBeFalsy();
      const s = summary.structuredContent as { start_time: string; duration: string; counts: { events: number; clicks: number } };
      expect(s).toMatchObject({ start_time: '2026-11-01 09:00:00Z', duration: '0:09', counts: { events: 10, clicks: 1 } });
      expect(text(summary)).toContain('Started 2026-11-01 09:00:00Z.');
      expect(text(summary)).toContain('0:09 long');
      expect(text(summary)).not.toMatch(/e\+\d|Infinity|NaN/);

      const snapshots = await h.call('session-recording-snapshots', { project_id: PROJECT, id });
      expect(snapshots.isError, text(snapshots)).toBeFalsy();
      expect((snapshots.structuredContent as { events: unknown[] }).events).toHaveLength(10);
    });
  }

  it('summarizes and lists a recording whose DOM is 10,000 elements deep', async () => {
    const depth = 10_000;
    serve('deep-dom', [{ type: 4, timestamp: T0, data: { href: 'https://shop.test/', width: 800, height: 600 } }, deepSnapshotLine(T0 + 1, depth), { type: 3, timestamp: T0 + 1000, data: { source: 2, type: 2, id: depth + 11, x: 1, y: 1 } }]);
    const snapshots = await h.call('session-recording-snapshots', { project_id: PROJECT, id: 'deep-dom' });
    expect(snapshots.isError, text(snapshots)).toBeFalsy();
    const events = (snapshots.structuredContent as { events: Array<{ type: number; omitted?: string }> }).events;
    expect(events).toHaveLength(3);
    expect(events[1]!.omitted).toMatch(/nested more than \d+ levels deep/);

    const summary = await h.call('session-recording-summary', { project_id: PROJECT, id: 'deep-dom' });
    expect(summary.isError, text(summary)).toBeFalsy();
    expect(text(summary)).toContain('button "Deep button"');
  });

  it("the player's feed serves a recording whose DOM is 10,000 elements deep: the snapshot cut where JSON could not go, with a note", async () => {
    const depth = 10_000;
    serve('deep-dom-feed', [{ type: 4, timestamp: T0, data: { href: 'https://shop.test/', width: 800, height: 600 } }, deepSnapshotLine(T0 + 1, depth), { type: 3, timestamp: T0 + 1000, data: { source: 2, type: 2, id: depth + 11, x: 1, y: 1 } }]);
    const feed = await h.call('session-recording-replay-events', { project_id: PROJECT, id: 'deep-dom-feed' });
    expect(feed.isError, text(feed)).toBeFalsy();
    const data = feed.structuredContent as { events: string; count: number; notes?: string[] };
    expect(data.count).toBe(3);
    const events = JSON.parse(data.events) as Array<[string, { type: number }]>;
    expect(events.map(([, e]) => e.type)).toEqual([4, 2, 3]);
    expect(data.notes?.join(' ')).toMatch(/1 page snapshot nested more than 500 elements deep/);
  });

  it("the player's feed serves a DOM 400 elements deep whole, for the player to rebuild", async () => {
    const depth = 400;
    serve('deepish-dom-feed', [{ type: 4, timestamp: T0, data: { href: 'https://shop.test/', width: 800, height: 600 } }, deepSnapshotLine(T0 + 1, depth)]);
    const feed = await h.call('session-recording-replay-events', { project_id: PROJECT, id: 'deepish-dom-feed' });
    expect(feed.isError, text(feed)).toBeFalsy();
    const data = feed.structuredContent as { events: string; notes?: string[] };
    expect(data.events).toContain('Deep button');
    expect(data.notes).toBeUndefined();
  });

  it("the player's feed masks what users typed, as the digest and the snapshots tool do", async () => {
    const snapshot = {
      type: 2,
      timestamp: T0 + 1,
      data: {
        node: { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: [{ type: 2, id: 3, tagName: 'body', attributes: {}, childNodes: [
          { type: 2, id: 4, tagName: 'input', attributes: { type: 'password', value: 'hunter2-typed' }, childNodes: [] },
          { type: 2, id: 5, tagName: 'textarea', attributes: {}, childNodes: [{ type: 3, id: 6, textContent: 'my private note' }] },
        ] }] }] },
        initialOffset: { top: 0, left: 0 },
      },
    };
    serve('typed-feed', [
      { type: 4, timestamp: T0, data: { href: 'https://shop.test/reset?token=abcdef0123456789abcdef', width: 800, height: 600 } },
      snapshot,
      { type: 3, timestamp: T0 + 500, data: { source: 5, id: 4, text: 'typed-later-secret', isChecked: false } },
    ]);
    const feed = await h.call('session-recording-replay-events', { project_id: PROJECT, id: 'typed-feed' });
    expect(feed.isError, text(feed)).toBeFalsy();
    const events = (feed.structuredContent as { events: string }).events;
    for (const typed of ['hunter2-typed', 'my private note', 'typed-later-secret', 'abcdef0123456789abcdef']) expect(events).not.toContain(typed);
    expect(events).toContain('*'.repeat('hunter2-typed'.length));
  });

  it("the player's feed carries no connection hint: a link's preconnect and dns-prefetch are dropped, in the snapshot, in added nodes and in attribute changes; its stylesheet kept", async () => {
    const link = (id: number, rel: string) => ({ type: 2, id, tagName: 'link', attributes: { rel, href: 'http://beacon.test/x' }, childNodes: [] });
    const snapshot = {
      type: 2,
      timestamp: T0 + 1,
      data: { node: { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: [{ type: 2, id: 3, tagName: 'head', attributes: {}, childNodes: [link(4, 'preconnect'), link(5, 'DNS-Prefetch stylesheet')] }] }] }, initialOffset: { top: 0, left: 0 } },
    };
    serve('hinted-feed', [
      { type: 4, timestamp: T0, data: { href: 'https://shop.test/', width: 800, height: 600 } },
      snapshot,
      { type: 3, timestamp: T0 + 500, data: { source: 0, texts: [], removes: [], adds: [{ parentId: 3, nextId: null, node: link(6, 'preconnect') }], attributes: [{ id: 5, attributes: { rel: 'dns-prefetch' } }] } },
    ]);
    const feed = await h.call('session-recording-replay-events', { project_id: PROJECT, id: 'hinted-feed' });
    expect(feed.isError, text(feed)).toBeFalsy();
    const events = (feed.structuredContent as { events: string }).events;
    expect(events).not.toMatch(/preconnect|dns-prefetch/i);
    expect(events).toContain('"rel":"stylesheet"');
    expect(events).toContain('http://beacon.test/x');
  });
});
