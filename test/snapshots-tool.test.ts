import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { RECORDED_DATA_NOTICE } from '../src/tools/format.js';
import { demoScripts } from '../src/sandbox/demo/dataset.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;

interface SnapshotPage {
  sources?: Array<{ source: string; blob_key: string | null }>;
  source_count?: number;
  events: Array<{ window: string | null; type: number; timestamp: number; data?: unknown; omitted?: string }>;
  /** each window label of the page → its window id */
  windows?: Record<string, string>;
  skipped_lines: number;
  next_cursor: string | null;
}

/** Reads a whole recording page by page (bounded), checking every page's size. */
async function readRecording(h: Harness, id: string, maxEvents: number) {
  const pages: SnapshotPage[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 500; i++) {
    const r = await h.call('session-recording-snapshots', { project_id: P, id, max_events: maxEvents, ...(cursor ? { cursor } : {}) });
    expect(r.isError, text(r)).toBeFalsy();
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThan(60 * 1024);
    const page = r.structuredContent as unknown as SnapshotPage;
    pages.push(page);
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  // A page labels its windows (w1, w2…) and says which window id each label is.
  return { pages, events: pages.flatMap((p) => p.events.map((e) => ({ ...e, window_id: e.window === null ? null : (p.windows?.[e.window] ?? 'unlabelled') }))) };
}

/** How many rrweb events a demo recording holds. */
const eventCount = (id: string) => demoScripts().get(id)!.events.length;

describe('session-recording-snapshots', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  const readAll = (id: string, maxEvents = 200) => readRecording(h, id, maxEvents);

  it('returns the sources listing and a first page of valid rrweb events with a cursor', async () => {
    const r = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, max_events: 20 });
    expect(r.isError).toBeFalsy();
    const page = r.structuredContent as unknown as SnapshotPage;
    expect(page.sources!.length).toBeGreaterThan(0);
    expect(page.sources!.every((s) => s.source === 'blob_v2')).toBe(true);
    expect(page.events).toHaveLength(20);
    expect(page.events.some((e) => e.type === 4)).toBe(true);
    expect(page.next_cursor).toEqual(expect.any(String));
    expect(text(r)).toContain(RECORDED_DATA_NOTICE);
  });

  it('pages through a recording of more than 21 blocks, at most 21 blocks per request, with no event lost or repeated', async () => {
    const { pages, events } = await readAll(R.longBrowse, 500);
    const blocks = pages[0]!.source_count!;
    expect(blocks).toBeGreaterThan(21);
    for (const req of apiRequests(h.sandbox).filter((q) => q.query.source === 'blob_v2')) {
      expect(Number(req.query.end_blob_key) - Number(req.query.start_blob_key)).toBeLessThanOrEqual(20);
    }
    expect(apiRequests(h.sandbox).some((q) => q.query.source === 'blob_v2' && q.query.start_blob_key === '0' && q.query.end_blob_key === '20')).toBe(true);
    // The same events, read in one go through the sandbox's own blocks, in the same order.
    const expected: string[] = [];
    for (let start = 0; start < blocks; start += 20) {
      const end = Math.min(blocks - 1, start + 19);
      const res = await fetch(`${h.sandbox.url}/api/projects/${P}/session_recordings/${R.longBrowse}/snapshots/?source=blob_v2&start_blob_key=${start}&end_blob_key=${end}`, {
        headers: { authorization: `Bearer ${h.sandbox.apiKey}` },
      });
      for (const line of (await res.text()).split('\n').filter(Boolean)) {
        const [, event] = JSON.parse(line);
        expected.push(`${event.type}:${event.timestamp}`);
      }
    }
    expect(events.map((e) => `${e.type}:${e.timestamp}`)).toEqual(expected);
  });

  it('a small page size continues exactly where the last page stopped', async () => {
    const big = await readAll(R.checkoutFailure, 500);
    h.sandbox.reset();
    const small = await readAll(R.checkoutFailure, 7);
    expect(small.pages.length).toBeGreaterThan(3);
    expect(small.events.map((e) => `${e.type}:${e.timestamp}`)).toEqual(big.events.map((e) => `${e.type}:${e.timestamp}`));
  });

  it('summarizes events too large for a page instead of dropping them silently', async () => {
    const { events } = await readAll(R.checkoutFailure, 500);
    const full = events.filter((e) => e.type === 2);
    expect(full.length).toBeGreaterThan(0);
    for (const e of full) if (!e.data) expect(e.omitted).toMatch(/FullSnapshot of \d+ KB/);
  });

  it('decodes posthog-js compressed events', async () => {
    const { events } = await readAll(R.compressedMobile, 500);
    const mutations = events.filter((e) => e.type === 3 && (e.data as { source?: number })?.source === 0 && !e.omitted);
    expect(mutations.length).toBeGreaterThan(0);
    for (const m of mutations) expect(Array.isArray((m.data as { adds: unknown }).adds)).toBe(true);
    expect(events.some((e) => 'cv' in e)).toBe(false);
  });

  it("today: reads long-term storage, the legacy recording's LTS copy and the ongoing recording's blocks, never asking for realtime or v1 blob", async () => {
    const lts = await readAll(R.longTermStorage);
    expect(lts.pages[0]!.sources!.map((s) => s.source)).toEqual(['blob_v2_lts']);
    expect(lts.events.length).toBeGreaterThan(10);
    const ltsReq = apiRequests(h.sandbox).find((q) => q.query.source === 'blob_v2_lts');
    expect(ltsReq!.query.blob_key).toBe(DEMO.recordings.find((r) => r.name === 'longTermStorage')!.ltsBlobKey);

    h.sandbox.reset();
    const legacy = await readAll(R.legacyBlob);
    expect(legacy.pages[0]!.sources!.map((s) => s.source)).toEqual(['blob_v2_lts']);
    expect(legacy.events.length).toBe(eventCount(R.legacyBlob));
    expect(legacy.events.every((e) => e.window_id === DEMO.recordings.find((r) => r.name === 'legacyBlob')!.windowIds[0])).toBe(true);
    expect(apiRequests(h.sandbox).find((q) => q.query.source === 'blob_v2_lts')!.query.blob_key).toBe(DEMO.recordings.find((r) => r.name === 'legacyBlob')!.ltsBlobKey);

    h.sandbox.reset();
    const ongoing = await readAll(R.ongoing);
    expect(ongoing.pages[0]!.sources!.every((s) => s.source === 'blob_v2')).toBe(true);
    expect(ongoing.events.length).toBeGreaterThan(10);
    // Every event the stored blocks hold, in order, each once.
    const stamps = ongoing.events.map((e) => JSON.stringify(e));
    expect(new Set(stamps).size).toBe(stamps.length);
    const lastBlockEnd = Math.max(...ongoing.pages[0]!.sources!.map((x) => Date.parse((x as unknown as { end_timestamp: string }).end_timestamp)));
    expect(ongoing.events.at(-1)!.timestamp).toBe(lastBlockEnd);
    expect(apiRequests(h.sandbox).some((q) => q.query.source === 'blob_v2')).toBe(true);
  });

  it('today: no snapshot request ever names source=realtime or source=blob', async () => {
    for (const id of [R.ongoing, R.legacyBlob, R.longTermStorage]) await readAll(id);
    const sources = apiRequests(h.sandbox).map((q) => q.query.source).filter(Boolean);
    expect(sources.length).toBeGreaterThan(2);
    expect(sources.filter((s) => s !== 'blob_v2' && s !== 'blob_v2_lts')).toEqual([]);
  });

  it('keeps every page under 64 KiB in bytes, even with multi-byte console text, and loses nothing', async () => {
    const path = new RegExp(`${R.successfulPurchase}/snapshots`);
    h.sandbox.injectFault({ path, times: 1, status: 200, body: { sources: [{ source: 'blob_v2', blob_key: '0', start_timestamp: null, end_timestamp: null }] } });
    const console = (i: number) => JSON.stringify(['w', { type: 6, timestamp: 1_700_000_000_000 + i, data: { plugin: 'rrweb/console@1', payload: { level: 'error', payload: [`"${'支付失败，请重试。'.repeat(60)} #${i}"`], trace: [] } } }]);
    h.sandbox.injectFault({ path, times: Infinity, status: 200, headers: { 'content-type': 'application/jsonl' }, body: Array.from({ length: 120 }, (_, i) => console(i)).join('\n') });
    const { pages, events } = await readAll(R.successfulPurchase, 500);
    expect(pages.length).toBeGreaterThan(2);
    expect(events.map((e) => e.timestamp)).toEqual(Array.from({ length: 120 }, (_, i) => 1_700_000_000_000 + i));
  });

  it('keeps both windows of a two-tab recording apart', async () => {
    const { events } = await readAll(R.twoTabs);
    const windows = new Set(events.map((e) => e.window_id));
    expect(windows).toEqual(new Set(DEMO.recordings.find((r) => r.name === 'twoTabs')!.windowIds));
  });

  it('rejects a cursor from another recording or a forged one, with no upstream request', async () => {
    const first = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, max_events: 5 });
    const cursor = (first.structuredContent as unknown as SnapshotPage).next_cursor!;
    h.sandbox.reset();
    const other = await h.call('session-recording-snapshots', { project_id: P, id: R.successfulPurchase, cursor });
    expect(other.isError).toBe(true);
    expect(text(other)).toMatch(/cursor belongs to recording/);
    const forged = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, cursor: 'bm90IGEgY3Vyc29y' });
    expect(forged.isError).toBe(true);
    expect(text(forged)).toMatch(/cursor is not one this tool returned/);
    expect(apiRequests(h.sandbox)).toHaveLength(0);
  });

  it('counts corrupt lines and still returns the valid events', async () => {
    h.sandbox.injectFault({
      path: new RegExp(`${R.successfulPurchase}/snapshots`),
      times: 1,
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sources: [{ source: 'blob_v2', blob_key: '0', start_timestamp: null, end_timestamp: null }] }),
    });
    h.sandbox.injectFault({
      path: new RegExp(`${R.successfulPurchase}/snapshots`),
      times: 1,
      status: 200,
      headers: { 'content-type': 'application/jsonl' },
      body: `["w",{"type":4,"timestamp":1,"data":{"href":"https://x.test/","width":1,"height":1}}]\n{not json\n[1,2,3]\n["w",{"type":3,"timestamp":2,"data":{"source":2,"type":2,"id":4}}]`,
    });
    const r = await h.call('session-recording-snapshots', { project_id: P, id: R.successfulPurchase });
    expect(r.isError).toBeFalsy();
    const page = r.structuredContent as unknown as SnapshotPage;
    expect(page.events).toHaveLength(2);
    expect(page.skipped_lines).toBe(2);
    expect(page.next_cursor).toBeNull();
  });
});

describe('session-recording-snapshots against the 2024 API (v1 blob files, a realtime tail)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { api: '2024' } });
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());
  const readAll = (id: string, maxEvents = 200) => readRecording(h, id, maxEvents);

  it('reads long-term storage, legacy blob and realtime sources', async () => {
    const lts = await readAll(R.longTermStorage);
    expect(lts.pages[0]!.sources!.map((s) => s.source)).toEqual(['blob_v2_lts']);
    expect(lts.events.length).toBeGreaterThan(10);
    const ltsReq = apiRequests(h.sandbox).find((q) => q.query.source === 'blob_v2_lts');
    expect(ltsReq!.query.blob_key).toBe(DEMO.recordings.find((r) => r.name === 'longTermStorage')!.ltsBlobKey);

    const legacy = await readAll(R.legacyBlob);
    expect(legacy.pages[0]!.sources!.every((s) => s.source === 'blob')).toBe(true);
    expect(legacy.events.length).toBeGreaterThan(10);
    expect(legacy.events.every((e) => typeof e.window_id === 'string')).toBe(true);

    h.sandbox.reset();
    const ongoing = await readAll(R.ongoing);
    const sources = apiRequests(h.sandbox).map((q) => q.query.source).filter(Boolean);
    expect(sources).toContain('blob_v2');
    expect(sources).toContain('realtime');
    // The newest events exist only in the realtime source: they must come after the last block.
    const lastBlockEnd = Math.max(...ongoing.pages[0]!.sources!.filter((x) => x.source === 'blob_v2').map((x) => Date.parse((x as unknown as { end_timestamp: string }).end_timestamp)));
    const newer = ongoing.events.filter((e) => e.timestamp > lastBlockEnd);
    expect(newer.length).toBeGreaterThan(0);
    // Nothing the blocks hold is repeated from the realtime source.
    const stamps = ongoing.events.map((e) => JSON.stringify(e));
    expect(new Set(stamps).size).toBe(stamps.length);
  });
});
