import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { DEMO } from '../src/sandbox/index.js';
import { demoScripts } from '../src/sandbox/demo/dataset.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;

/** The structured view: the text's facts, its timeline and page entries as the text's lines. */
interface Summary {
  duration: string;
  windows: number;
  window_ids?: Record<string, string>;
  pages?: string[];
  timeline?: string[];
  counts: Record<string, number>;
  cut?: string;
  notes?: string[];
}

/** A page entry's URL as the text shows it (the first whole, the others as their path). */
const pageUrl = (line: string) => JSON.parse(/^\S+(?: w\d+)? ("(?:[^"\\]|\\.)*")/.exec(line)![1]!) as string;

/**
 * What was finally typed into each text field of a demo recording: the digest must show none of
 * it. (The email field holds the person's own email, which the digest does show as the person,
 * from the recording's metadata; it is left out of this check.)
 */
function typedValues(id: string): string[] {
  const byField = new Map<number, string>();
  const script = demoScripts().get(id)!;
  for (const { event } of script.events) {
    const data = event.data as { source?: number; id?: number; text?: unknown } | undefined;
    if (event.type === 3 && data?.source === 5 && typeof data.text === 'string' && typeof data.id === 'number') byField.set(data.id, data.text);
  }
  const email = String(script.seed.person?.properties.email ?? '');
  return [...byField.values()].filter((v) => v.length >= 4 && v !== email);
}

describe('session-recording-summary', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  async function summarize(id: string, extra: Record<string, unknown> = {}) {
    const projectId = DEMO.recordings.find((r) => r.id === id)?.projectId ?? DEMO.mainProjectId;
    const r = await h.call('session-recording-summary', { project_id: String(projectId), id, ...extra });
    expect(r.isError, text(r)).toBeFalsy();
    return { r, s: r.structuredContent as unknown as Summary, t: text(r) };
  }

  it('tells the checkout failure: pages, the failed request, the console error, the rage click, fields typed without values', async () => {
    const { r, s, t } = await summarize(R.checkoutFailure);
    expect(s.pages!.map(pageUrl)).toEqual(['https://shop.example.com/', '/products/trail-runner-2', '/', '/cart', '/checkout']);
    expect(s.timeline).toContainEqual(expect.stringMatching(/^1:\d\d(–1:\d\d)? request failed POST "\/api\/checkout" → 500/));
    expect(s.timeline).toContainEqual(expect.stringMatching(/^1:(\d\d) console error ".*Cannot read properties of undefined \(reading 'id'\)" start_at "1:\1"$/));
    expect(s.timeline).toContainEqual(expect.stringMatching(/^1:(\d\d) RAGE CLICK button#place-order "Place order" ×4 start_at "1:\1"$/));
    expect(s.timeline).toContainEqual(expect.stringMatching(/^0:\d\d typed into input\[email\]#email "Email" \(\d+ chars\)$/));
    expect(t).toContain('RAGE CLICK button#place-order "Place order" ×4');
    expect(t.length).toBeLessThanOrEqual(4000);
    const values = typedValues(R.checkoutFailure);
    expect(values.length).toBeGreaterThan(3);
    const everything = JSON.stringify(r);
    for (const value of values) expect(everything).not.toContain(value);
  });

  it('reads every block of a 27-block recording, 21 blocks per request at most (end − start ≤ 20), each block once', async () => {
    const { s } = await summarize(R.longBrowse);
    const ranges = apiRequests(h.sandbox)
      .filter((q) => q.query.source === 'blob_v2')
      .map((q) => [Number(q.query.start_blob_key), Number(q.query.end_blob_key)] as const);
    const blocks = ranges.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i));
    expect(blocks).toEqual(Array.from({ length: 27 }, (_, i) => i));
    for (const [a, b] of ranges) expect(b - a).toBeLessThanOrEqual(20);
    expect(ranges[0]).toEqual([0, 20]);
    expect(s.counts.page_views).toBe(24);
    expect(Number(s.duration.split(':')[0])).toBeGreaterThanOrEqual(19);
  });

  it('digests every storage form today: compressed events, LTS, the legacy recording as LTS, the ongoing one from its blocks, two tabs', async () => {
    const compressed = await summarize(R.compressedMobile);
    expect(compressed.s.counts.clicks).toBeGreaterThan(0);
    expect(compressed.s.timeline!.some((line) => /^\S+ click .*"/.test(line))).toBe(true);
    for (const id of [R.longTermStorage, R.legacyBlob, R.ongoing]) {
      const { s } = await summarize(id);
      expect(s.pages!.length, id).toBeGreaterThan(0);
      // The ongoing one says so, and that its blocks hold less than PostHog lists (issue 32).
      if (id === R.ongoing) expect(s.notes, id).toEqual([expect.stringMatching(/^Still recording: PostHog lists 4:31 and 8 clicks; the blocks so far hold /)]);
      else expect(s.notes, id).toBeUndefined();
    }
    const asked = apiRequests(h.sandbox).map((q) => q.query.source).filter(Boolean);
    expect(asked).toContain('blob_v2_lts');
    expect(asked.filter((source) => source !== 'blob_v2' && source !== 'blob_v2_lts')).toEqual([]);
    const tabs = await summarize(R.twoTabs);
    expect(Object.values(tabs.s.window_ids!)).toEqual(DEMO.recordings.find((r) => r.id === R.twoTabs)!.windowIds);
    expect(tabs.t).toMatch(/^0:\d\d w2 page /m);
  });

  it("today: the legacy recording's digest is the one its 2024 v1 files give", async () => {
    const today = await summarize(R.legacyBlob);
    const lts = DEMO.recordings.find((r) => r.id === R.legacyBlob)!.ltsBlobKey;
    expect(apiRequests(h.sandbox).filter((q) => q.query.source).map((q) => [q.query.source, q.query.blob_key])).toEqual([['blob_v2_lts', lts]]);
    const old = await startHarness({ sandbox: { api: '2024' } });
    try {
      const r = await old.call('session-recording-summary', { project_id: P, id: R.legacyBlob });
      expect(r.isError, text(r)).toBeFalsy();
      expect(apiRequests(old.sandbox).some((q) => q.query.source === 'blob')).toBe(true);
      const s = r.structuredContent as unknown as Summary;
      expect(today.s.timeline!.length).toBeGreaterThan(3);
      expect(today.s.counts).toEqual(s.counts);
      expect(today.s.pages).toEqual(s.pages);
      expect(today.s.timeline).toEqual(s.timeline);
    } finally {
      await old.close();
    }
  });

  it('keeps every result within max_chars', async () => {
    for (const recording of DEMO.recordings) {
      for (const max of [1000, 4000]) {
        const r = await h.call('session-recording-summary', { project_id: String(recording.projectId), id: recording.id, max_chars: max });
        expect(r.isError, `${recording.name}: ${text(r)}`).toBeFalsy();
        expect(text(r).length, recording.name).toBeLessThanOrEqual(max);
        expect(JSON.stringify(r.structuredContent).length, recording.name).toBeLessThanOrEqual(max);
      }
    }
  });

  it('still produces a digest from corrupt, truncated, out-of-order data with unknown events, and says what it skipped', async () => {
    const w = 'win-1';
    const t0 = Date.now() - 60_000;
    const body = [
      JSON.stringify([w, { type: 4, timestamp: t0 + 1000, data: { href: 'https://shop.example.com/broken', width: 800, height: 600 } }]),
      '{"this is": not json',
      JSON.stringify([w, { type: 42, timestamp: t0 + 1100, data: {} }]),
      JSON.stringify([w, { type: 3, timestamp: t0 + 1500, data: { source: 2, type: 2, id: 77, x: 1, y: 1 } }]),
      JSON.stringify([w, { type: 3, timestamp: t0 + 500, data: { source: 3, id: 1, x: 0, y: 200 } }]),
      JSON.stringify([w, { type: 6, timestamp: t0 + 1600, data: { plugin: 'rrweb/console@1', payload: { level: 'error', payload: ['"boom"'] } } }]),
      '["win-1", {"type": 3, "timestamp": ' + (t0 + 1700) + ', "data": {"sour',
    ].join('\n');
    h.sandbox.injectFault({ path: `/api/projects/${P}/session_recordings/${R.checkoutFailure}/snapshots`, query: { source: 'blob_v2' }, status: 200, body });
    const { s, t } = await summarize(R.checkoutFailure);
    expect(s.timeline).toContainEqual(expect.stringMatching(/^0:(\d\d) console error "boom" start_at "0:\1"$/));
    expect(s.timeline!.some((line) => line.includes('element 77 (no DOM snapshot seen)'))).toBe(true);
    const notes = s.notes!.join('\n');
    expect(notes).toMatch(/2 unreadable line\(s\)/);
    expect(notes).toMatch(/unknown rrweb type/);
    expect(notes).toMatch(/out of time order/);
    expect(notes).toMatch(/No full DOM snapshot/);
    expect(t).toMatch(/Note: 2 unreadable line/);
  });

  it('turns a block range that cannot be read into a note, and fails only when nothing could be read', async () => {
    // Each failing request is retried three times, here at a short backoff instead of 2 s a request:
    // this test is about the note; errors.test.ts is about the retries.
    const own = await startHarness({ client: { backoffMs: 20 } });
    try {
      const path = `/api/projects/${P}/session_recordings/${R.longBrowse}/snapshots`;
      own.sandbox.injectFault({ path, query: { source: 'blob_v2', start_blob_key: '21' }, status: 500, body: { error: 'An unexpected error has occurred. Please try again later.' }, times: 10 });
      const first = await own.call('session-recording-summary', { project_id: P, id: R.longBrowse });
      expect(first.isError, text(first)).toBeFalsy();
      const s = first.structuredContent as unknown as Summary;
      expect(s.notes!.join(' ')).toMatch(/Blocks 21-26 could not be read \(HTTP 500\)/);
      expect(s.counts.page_views).toBeGreaterThan(10);

      own.sandbox.reset();
      own.sandbox.injectFault({ path, query: { source: 'blob_v2' }, status: 503, body: { error: 'ClickHouse over capacity. Please retry' }, times: 100 });
      const r = await own.call('session-recording-summary', { project_id: P, id: R.longBrowse });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/503/);
    } finally {
      await own.close();
    }
  });

  it('says which recording was not found, and refuses bad input before any request', async () => {
    const r = await h.call('session-recording-summary', { project_id: P, id: 'no-such-recording' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/No recording "no-such-recording".*session-recordings-list/);

    h.sandbox.reset();
    for (const args of [{ project_id: P, id: '../../x' }, { project_id: P, id: R.checkoutFailure, max_chars: 10 }, { project_id: P, id: R.checkoutFailure, extra: 1 }]) {
      const bad = await h.call('session-recording-summary', args);
      expect(bad.isError, JSON.stringify(args)).toBe(true);
    }
    expect(apiRequests(h.sandbox)).toEqual([]);
  });
});

describe('session-recording-summary against the 2024 API (v1 blob files, a realtime tail)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { api: '2024' } });
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('digests the legacy v1 blob files and the live data with its realtime tail', async () => {
    for (const id of [R.legacyBlob, R.ongoing]) {
      const r = await h.call('session-recording-summary', { project_id: P, id });
      expect(r.isError, text(r)).toBeFalsy();
      const s = r.structuredContent as unknown as Summary;
      expect(s.pages!.length, id).toBeGreaterThan(0);
      // With the realtime tail read, the digest holds what PostHog lists: only "still recording" is said.
      if (id === R.ongoing) expect(s.notes, id).toEqual(['Still recording: PostHog lists the recording as in progress; more may arrive: summarize again later for it.']);
      else expect(s.notes, id).toBeUndefined();
    }
    const asked = apiRequests(h.sandbox).map((q) => q.query.source);
    expect(asked).toContain('blob');
    expect(asked).toContain('realtime');
  });
});

describe('waiting for a digest slot', () => {
  // Every digest slot is held by slow digests, two in a row (each two block requests of 600 ms),
  // so a summary that arrives meanwhile waits about 2.4 s for a slot. It must still read its
  // recording: no request of its own may run into POSTHOG_TIMEOUT_MS (here 1.5 s) while it waits.
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ client: { timeoutMs: 1_500 } });
  });
  afterAll(() => h.close());

  it('a summary queued behind busy digests reads every block', async () => {
    const slots = Math.max(1, Math.min(4, availableParallelism()));
    h.sandbox.injectFault({ path: `/api/projects/${P}/session_recordings/${R.longBrowse}/snapshots`, query: { source: 'blob_v2' }, delayMs: 600, times: Infinity });
    const holders = Array.from({ length: 2 * slots }, () => h.call('session-recording-summary', { project_id: P, id: R.longBrowse }));
    // Let the holders take every slot first.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const queued = await h.call('session-recording-summary', { project_id: P, id: R.checkoutFailure });
    expect(queued.isError, text(queued)).toBeFalsy();
    const notes = (queued.structuredContent as { notes?: string[] }).notes ?? [];
    expect(notes.filter((n) => /could not be read/.test(n))).toEqual([]);
    for (const held of await Promise.all(holders)) expect(held.isError, text(held)).toBeFalsy();
  });
});
