import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { UNREADABLE_DATA, consoleText, decompressEvent, eventsFromLine, lines, planUnits, type SnapshotSource } from '../../src/posthog/snapshots.js';

const src = (source: string, blob_key: string | null): SnapshotSource => ({ source, blob_key, start_timestamp: null, end_timestamp: null });
const packed = (value: unknown) => gzipSync(JSON.stringify(value)).toString('latin1');

describe('snapshot sources', () => {
  it('groups blob_v2 blocks into ranges of at most 21 (end − start ≤ 20, PostHog\'s limit for a personal key)', () => {
    const sources = Array.from({ length: 45 }, (_, i) => src('blob_v2', String(i)));
    expect(planUnits(sources)).toEqual([
      { kind: 'blob_v2', start: 0, end: 20 },
      { kind: 'blob_v2', start: 21, end: 41 },
      { kind: 'blob_v2', start: 42, end: 44 },
    ]);
  });

  it('reads LTS alone; legacy blobs only without v2 data; realtime last, after the stored blocks', () => {
    expect(planUnits([src('blob_v2_lts', 'a/b/c')])).toEqual([{ kind: 'blob_v2_lts', key: 'a/b/c' }]);
    expect(planUnits([src('blob', '1-2'), src('blob', '3-4'), src('realtime', null)])).toEqual([
      { kind: 'blob', key: '1-2' },
      { kind: 'blob', key: '3-4' },
      { kind: 'realtime' },
    ]);
    const block = { source: 'blob_v2', blob_key: '0', start_timestamp: '2025-06-02T09:14:03Z', end_timestamp: '2025-06-02T09:15:00.500Z' };
    expect(planUnits([block, src('blob', '1-2'), src('realtime', null)])).toEqual([
      { kind: 'blob_v2', start: 0, end: 0 },
      { kind: 'realtime', after: Date.parse('2025-06-02T09:15:00.500Z') },
    ]);
  });

  it('reads a block listed twice only once', () => {
    expect(planUnits([src('blob_v2', '0'), src('blob_v2', '1'), src('blob_v2', '1'), src('blob', 'a'), src('blob', 'a')])).toEqual([{ kind: 'blob_v2', start: 0, end: 1 }]);
    expect(planUnits([src('blob', 'a'), src('blob', 'a')])).toEqual([{ kind: 'blob', key: 'a' }]);
  });
});

describe('snapshot lines', () => {
  const event = { type: 3, timestamp: 1_700_000_000_000, data: { source: 2, type: 2, id: 5 } };

  it('reads [windowId, event], {window_id, data}, bare events and {snapshots}', () => {
    expect(eventsFromLine(JSON.stringify(['w1', event]))).toEqual([{ windowId: 'w1', event }]);
    expect(eventsFromLine(JSON.stringify({ window_id: 'w2', data: [event, event] }))).toHaveLength(2);
    expect(eventsFromLine(JSON.stringify({ windowId: 'w3', data: [event] }))?.[0]?.windowId).toBe('w3');
    expect(eventsFromLine(JSON.stringify({ ...event, windowId: 'w4' }))?.[0]?.windowId).toBe('w4');
    expect(eventsFromLine(JSON.stringify({ snapshots: [{ ...event, windowId: 'w5' }] }))?.[0]?.windowId).toBe('w5');
  });

  it('returns null for corrupt or foreign lines', () => {
    expect(eventsFromLine('{"type": 3, "timest')).toBeNull();
    expect(eventsFromLine('[1,2,3]')).toBeNull();
    expect(eventsFromLine('"hello"')).toBeNull();
  });

  it('refuses to inflate a compressed field past its bound, and passes none of its bytes on', () => {
    const bomb = { type: 2, timestamp: 1, cv: '2024-10', data: gzipSync(Buffer.from(`"${'a'.repeat(20 * 1024 * 1024)}"`)).toString('latin1') };
    expect(decompressEvent(bomb)).toEqual({ type: 2, timestamp: 1, data: UNREADABLE_DATA });
    // The bound is for the whole event: fields under it one by one cannot add up past it.
    const half = gzipSync(Buffer.from(`"${'a'.repeat(5 * 1024 * 1024)}"`)).toString('latin1');
    const pair = { type: 3, timestamp: 1, cv: '2024-10', data: { source: 0, adds: half, removes: half, texts: [], attributes: [] } };
    const inflated = decompressEvent(pair);
    expect((inflated.data as { adds: unknown }).adds).toHaveLength(5 * 1024 * 1024);
    expect((inflated.data as { removes: unknown }).removes).toEqual([]);
  });

  it('joins console plugin arguments back into text: quoted strings unquoted, other values as recorded', () => {
    expect(consoleText(['"Payment failed:"', '{"status":500}', '"not json'])).toBe('Payment failed: {"status":500} "not json');
    expect(consoleText('plain')).toBe('plain');
    expect(consoleText(undefined)).toBe('');
  });

  it('decompresses posthog-js cv 2024-10 fields', () => {
    const full = { type: 2, timestamp: 1, cv: '2024-10', data: packed({ node: { id: 1 }, initialOffset: { top: 0, left: 0 } }) };
    expect(decompressEvent(full)).toEqual({ type: 2, timestamp: 1, data: { node: { id: 1 }, initialOffset: { top: 0, left: 0 } } });
    const mutation = { type: 3, timestamp: 2, cv: '2024-10', data: { source: 0, adds: packed([{ parentId: 1 }]), removes: packed([]), texts: packed([]), attributes: packed([{ id: 3 }]) } };
    expect(decompressEvent(mutation).data).toEqual({ source: 0, adds: [{ parentId: 1 }], removes: [], texts: [], attributes: [{ id: 3 }] });
    const broken = { type: 2, timestamp: 3, cv: '2024-10', data: 'not gzip' };
    expect(decompressEvent(broken)).toEqual({ type: 2, timestamp: 3, data: UNREADABLE_DATA });
    // A corrupt field (a flipped checksum byte) is dropped; the mutation's readable fields are kept.
    const bad = Buffer.from(packed([{ id: 7, value: 'secret' }]), 'latin1');
    bad[bad.length - 5]! ^= 0xff;
    const partly = { type: 3, timestamp: 4, cv: '2024-10', data: { source: 0, adds: packed([{ parentId: 1 }]), removes: packed([]), texts: bad.toString('latin1'), attributes: packed([]) } };
    expect(decompressEvent(partly)).toEqual({ type: 3, timestamp: 4, data: { source: 0, adds: [{ parentId: 1 }], removes: [], texts: [], attributes: [] } });
  });

  it('splits a chunked stream into whole lines, keeping multi-byte characters intact', async () => {
    const text = `${JSON.stringify(['w', { type: 5, timestamp: 1, data: { tag: 'é✓' } }])}\n\n${JSON.stringify(['w', event])}`;
    const bytes = Buffer.from(text);
    async function* chunks() {
      for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
    }
    const out: string[] = [];
    for await (const line of lines(chunks())) out.push(line);
    expect(out).toHaveLength(2);
    expect(eventsFromLine(out[0]!)?.[0]?.event.data).toEqual({ tag: 'é✓' });
  });
});
