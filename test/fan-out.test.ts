import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIG_RECORDING_ID, DEMO } from '../src/sandbox/index.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

// Issue 20 item 4: reading one recording never makes more than 60 upstream requests (a free key's
// hourly replay budget), whatever its listing says; blob_v2 blocks go 21 to a request. The server
// runs at its defaults (POSTHOG_CALL_MAX_REQUESTS 100 included); the sandbox counts the requests.

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;
const snapshotRequests = (h: Harness) => apiRequests(h.sandbox).filter((q) => q.path.includes('/snapshots'));

describe('a 100-block recording', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { bigRecording: { copies: 100 } } });
  });
  afterAll(() => h.close());

  it('is one listing and five block requests of at most 21 blocks', async () => {
    const r = await h.call('session-recording-summary', { project_id: P, id: BIG_RECORDING_ID });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { partial?: unknown }).partial).toBeUndefined();
    const requests = snapshotRequests(h);
    const listings = requests.filter((q) => q.query.source === undefined);
    expect(listings).toHaveLength(1);
    const ranges = requests.filter((q) => q.query.source === 'blob_v2').map((q) => [Number(q.query.start_blob_key), Number(q.query.end_blob_key)]);
    expect(ranges).toEqual([
      [0, 20],
      [21, 41],
      [42, 62],
      [63, 83],
      [84, 99],
    ]);
    // The listing said 100 blocks, and all 100 were read.
    expect(text(r)).not.toMatch(/PARTIAL/);
  });
});

describe('a hostile listing of 3,000 sources', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  for (const form of ['blob', 'blob_v2', 'blob_v2-sparse'] as const) {
    it(`(${form}) costs the snapshots tool at most 60 requests a page, partial with a cursor that goes on from there`, async () => {
      h.sandbox.setHostile({ kind: 'many-sources', count: 3_000, form });
      const r = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure });
      expect(r.isError, text(r)).toBeFalsy();
      expect(apiRequests(h.sandbox)).toHaveLength(60);
      const page = r.structuredContent as { next_cursor: string; partial: { reason: string; message: string; not_read: string } };
      expect(page.partial.reason).toBe('requests');
      expect(page.partial.message).toMatch(/Reading one recording makes at most 60 upstream requests/);
      expect(text(r)).toMatch(/^PARTIAL page: .*at most 60 upstream requests.* Not read yet: .*cursor="/m);
      const readFirst = apiRequests(h.sandbox).filter((q) => q.query.source !== undefined);
      expect(readFirst).toHaveLength(59);

      h.sandbox.requests.length = 0;
      const again = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, cursor: page.next_cursor });
      expect(again.isError, text(again)).toBeFalsy();
      const next = apiRequests(h.sandbox);
      expect(next.length).toBeLessThanOrEqual(60);
      // The second page starts where the first stopped: no part read twice.
      const firstKeys = new Set(readFirst.map((q) => q.query.blob_key ?? q.query.start_blob_key));
      const nextKeys = next.filter((q) => q.query.source !== undefined).map((q) => q.query.blob_key ?? q.query.start_blob_key);
      expect(nextKeys.length).toBeGreaterThan(0);
      expect(nextKeys.filter((k) => firstKeys.has(k))).toEqual([]);
    });
  }

  it('costs the summary at most 60 requests for the recording (metadata and listing included), partial, naming the parts not read', async () => {
    h.sandbox.setHostile({ kind: 'many-sources', count: 3_000 });
    const r = await h.call('session-recording-summary', { project_id: P, id: R.checkoutFailure });
    expect(r.isError, text(r)).toBeFalsy();
    // Besides the recording: one query for the session's $exception events.
    const query = (q: { path: string }) => q.path.endsWith('/query/');
    expect(apiRequests(h.sandbox).filter((q) => !query(q))).toHaveLength(60);
    expect(apiRequests(h.sandbox).filter(query)).toHaveLength(1);
    const partial = (r.structuredContent as { partial: { reason: string; not_read: string } }).partial;
    expect(partial.reason).toBe('requests');
    expect(partial.not_read).toMatch(/^2942 of 3000 parts \(Source blob k58, Source blob k59, .*and 2932 more\)$/);
    expect(text(r)).toMatch(/PARTIAL: Reading one recording makes at most 60 upstream requests.* Not read: 2942 of 3000 parts/);
  });

  it("costs the player's feed at most 60 requests a page", async () => {
    h.sandbox.setHostile({ kind: 'many-sources', count: 3_000 });
    const r = await h.call('session-recording-replay-events', { project_id: P, id: R.checkoutFailure });
    expect(apiRequests(h.sandbox).length).toBeLessThanOrEqual(60);
    // Empty sources give no events: with nothing to play, the page says why it stopped.
    expect(text(r)).toMatch(/at most 60 upstream requests/);
  });

  it('a triage reads each recording within the same bound and still answers', async () => {
    h.sandbox.setHostile({ kind: 'many-sources', count: 3_000 });
    const r = await h.call('session-recordings-triage', { project_id: P, session_ids: [R.checkoutFailure] });
    expect(r.isError, text(r)).toBeFalsy();
    const perRecording = apiRequests(h.sandbox).filter((q) => q.path.includes(`/${R.checkoutFailure}/snapshots`));
    expect(perRecording.length).toBeLessThanOrEqual(60);
  });
});
