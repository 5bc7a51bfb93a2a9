import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { apiRequests, startHarness, text, type Harness, type HarnessOptions } from './harness.js';

// Issue 9 item 3: PostHog's per-key replay throttle (facts §10), met by pacing, waiting with
// progress, partial results with when to continue, and no retry of recording_blocks_unavailable.
// The sandbox throttles exactly (src/sandbox/throttle.ts), with short windows to keep tests fast.

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;
const SNAPSHOTS = `/api/projects/${P}/session_recordings/${R.longBrowse}/snapshots`;

const snapshotRequests = (h: Harness) => apiRequests(h.sandbox).filter((q) => q.path.replace(/\/$/, '') === SNAPSHOTS);

async function withHarness(options: HarnessOptions, body: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startHarness(options);
  try {
    await body(h);
  } finally {
    await h.close();
  }
}

async function callWithProgress(h: Harness, name: string, args: Record<string, unknown>): Promise<{ r: CallToolResult; progress: Progress[] }> {
  const progress: Progress[] = [];
  const r = (await h.client.callTool({ name, arguments: args }, undefined, { onprogress: (p) => progress.push(p), timeout: 60_000 })) as CallToolResult;
  return { r, progress };
}

describe('a throttle-aware client', () => {
  it('paces a summary whose block requests exceed the window: it completes, reports progress while waiting, and provokes no 429', async () => {
    const rates = [{ count: 2, windowMs: 1_500 }];
    await withHarness({ sandbox: { replayThrottle: rates }, client: { replayRates: rates } }, async (h) => {
      const { r, progress } = await callWithProgress(h, 'session-recording-summary', { project_id: P, id: R.longBrowse });
      expect(r.isError, text(r)).toBeFalsy();
      expect((r.structuredContent as { partial?: unknown }).partial).toBeUndefined();
      expect((r.structuredContent as { counts: { page_views: number } }).counts.page_views).toBe(24);
      // The listing and two block ranges (0-20, 21-26), each sent once: no 429 was met and retried.
      expect(snapshotRequests(h)).toHaveLength(3);
      expect(progress.length).toBeGreaterThan(0);
      expect(progress[0]!.message).toMatch(/Waiting \d+ s for PostHog's replay rate limit \(2\/1\.5s, POSTHOG_REPLAY_RATE_LIMITS\)/);
    });
  });

  it('learns from a 429 when it was not told the budget: waits what PostHog said, then completes', async () => {
    await withHarness({ sandbox: { replayThrottle: [{ count: 2, windowMs: 2_000 }] } }, async (h) => {
      const { r } = await callWithProgress(h, 'session-recording-summary', { project_id: P, id: R.longBrowse });
      expect(r.isError, text(r)).toBeFalsy();
      expect((r.structuredContent as { counts: { page_views: number } }).counts.page_views).toBe(24);
      // One request refused with "Expected available in 2 seconds", sent again once after the wait.
      expect(snapshotRequests(h)).toHaveLength(4);
    });
  });

  it('a throttle longer than the call may wait gives a partial result with its wait, not an error', async () => {
    const rates = [{ count: 2, windowMs: 60_000 }];
    await withHarness({ sandbox: { replayThrottle: rates }, client: { replayRates: rates }, callLimits: { maxRequests: 100, wallClockMs: 30_000, throttleWaitMs: 1_000 } }, async (h) => {
      const { r } = await callWithProgress(h, 'session-recording-summary', { project_id: P, id: R.longBrowse });
      expect(r.isError, text(r)).toBeFalsy();
      const partial = (r.structuredContent as { partial: { reason: string; retry_after_seconds: number } }).partial;
      expect(partial.reason).toBe('throttle');
      expect(partial.retry_after_seconds).toBeGreaterThan(50);
      expect(text(r)).toMatch(/PARTIAL: .*Call again in about \d+ seconds/s);
      // Nothing was sent that PostHog would have refused.
      expect(snapshotRequests(h)).toHaveLength(2);

      // The snapshots tool stops the same way, with a cursor that continues where it stopped.
      const page = await h.call('session-recording-snapshots', { project_id: P, id: R.longBrowse, max_events: 500 });
      expect(page.isError, text(page)).toBeFalsy();
      const data = page.structuredContent as { events: unknown[]; next_cursor: string; partial: { reason: string; retry_after_seconds: number } };
      expect(data.partial.reason).toBe('throttle');
      expect(data.partial.retry_after_seconds).toBeGreaterThan(50);
      expect(data.next_cursor).toEqual(expect.any(String));
      expect(text(page)).toMatch(/Call again after about \d+ seconds with cursor=/);
    });
  });

  it('never retries a 502 recording_blocks_unavailable: says the blocks are unavailable and reads on', async () => {
    await withHarness({}, async (h) => {
      const body = { type: 'server_error', code: 'recording_blocks_unavailable', detail: 'Could not load any of the requested blocks.', attr: null };
      h.sandbox.injectFault({ path: SNAPSHOTS, query: { source: 'blob_v2', start_blob_key: '0' }, status: 502, body, times: 10 });
      const page = await h.call('session-recording-snapshots', { project_id: P, id: R.longBrowse, max_events: 50 });
      expect(page.isError, text(page)).toBeFalsy();
      expect(text(page)).toMatch(/Blocks 0-20 unavailable: PostHog cannot serve them \(recording_blocks_unavailable\)/);
      expect(snapshotRequests(h).filter((q) => q.query.start_blob_key === '0')).toHaveLength(1);
      expect(snapshotRequests(h).some((q) => q.query.start_blob_key === '21')).toBe(true);

      h.sandbox.reset();
      h.sandbox.injectFault({ path: SNAPSHOTS, query: { source: 'blob_v2', start_blob_key: '0' }, status: 502, body, times: 10 });
      const summary = await h.call('session-recording-summary', { project_id: P, id: R.longBrowse });
      expect(summary.isError, text(summary)).toBeFalsy();
      expect(snapshotRequests(h).filter((q) => q.query.start_blob_key === '0')).toHaveLength(1);
      expect((summary.structuredContent as { notes: string[] }).notes.join(' ')).toMatch(/Blocks 0-20 could not be read \(HTTP 502\)/);
    });
  });

  it('the player\'s feed passes over blocks PostHog cannot serve and plays the rest', async () => {
    await withHarness({}, async (h) => {
      const feed = async () => {
        const all: string[] = [];
        let cursor: string | undefined;
        for (let pages = 0; pages < 100; pages++) {
          const result = await h.call('session-recording-replay-events', { project_id: P, id: R.longBrowse, max_bytes: 200_000, ...(cursor ? { cursor } : {}) });
          expect(result.isError, text(result)).toBeFalsy();
          const page = result.structuredContent as { events: string; next_cursor: string | null };
          all.push(...(JSON.parse(page.events) as unknown[]).map((e) => JSON.stringify(e)));
          if (!page.next_cursor) return all;
          cursor = page.next_cursor;
        }
        throw new Error('the feed did not end within 100 pages');
      };
      const whole = await feed();
      h.sandbox.reset();
      const body = { type: 'server_error', code: 'recording_blocks_unavailable', detail: 'Could not load any of the requested blocks.', attr: null };
      h.sandbox.injectFault({ path: SNAPSHOTS, query: { source: 'blob_v2', start_blob_key: '21' }, status: 502, body, times: 10 });
      const played = await feed();
      expect(snapshotRequests(h).filter((q) => q.query.start_blob_key === '21')).toHaveLength(1);
      // The events of blocks 21-41 are missing; everything before (and after) them is played, in order.
      expect(played.length).toBeGreaterThan(0);
      expect(played.length).toBeLessThan(whole.length);
      const mismatch = played.findIndex((e, i) => e !== whole[i]);
      const cut = mismatch === -1 ? played.length : mismatch;
      expect(cut).toBeGreaterThan(0);
      expect(played.slice(cut)).toEqual(whole.slice(whole.length - (played.length - cut)));

      // What is missing is said; and a recording none of whose blocks can be served is an error,
      // not an empty recording.
      h.sandbox.reset();
      h.sandbox.injectFault({ path: SNAPSHOTS, query: { source: 'blob_v2', start_blob_key: '21' }, status: 502, body, times: 10 });
      const first = await h.call('session-recording-replay-events', { project_id: P, id: R.longBrowse, max_bytes: 16_000_000 });
      expect((first.structuredContent as { notes?: string[] }).notes).toEqual([expect.stringMatching(/^Blocks 21-26 unavailable/)]);
      h.sandbox.reset();
      h.sandbox.injectFault({ path: SNAPSHOTS, query: { source: 'blob_v2' }, status: 502, body, times: 10 });
      const none = await h.call('session-recording-replay-events', { project_id: P, id: R.longBrowse });
      expect(none.isError).toBe(true);
      expect(text(none)).toMatch(/recording_blocks_unavailable/);
    });
  });
});
