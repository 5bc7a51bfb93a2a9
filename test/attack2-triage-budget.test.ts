// The triage keeps one request of the call's budget back for the uncaught-exceptions query
// (CallBudget.holdBack). Attacked with a small POSTHOG_CALL_MAX_REQUESTS: no call spends more than
// it, each call that read recordings asks the query once, and following the cursor reads every
// recording, and its exceptions, exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';

type Triage = {
  read: number;
  sessions?: Array<{ id: string; exceptions?: number }>;
  unread?: Array<{ id: string; reason: string }>;
  notes?: string[];
  next_cursor: string | null;
  partial?: { reason: string };
};

describe.each([6, 9, 14])('triage: the held-back request under a call budget of %i requests', (MAX) => {
  let whole: Harness;
  let small: Harness;
  beforeAll(async () => {
    whole = await startHarness();
    // The call budget is the setting under test (the default, 100, reads them all in one call).
    small = await startHarness({ callLimits: { maxRequests: MAX, wallClockMs: 60_000, throttleWaitMs: 2_000 } });
  });
  afterAll(async () => {
    await whole.close();
    await small.close();
  });

  it('never more than POSTHOG_CALL_MAX_REQUESTS a call; the cursor reads each recording and its exceptions once, every call reading some', async () => {
    const args = { project_id: String(DEMO.mainProjectId), date_from: '-30d', max_recordings: 50, max_chars: 20_000 };
    const all = (await whole.call('session-recordings-triage', args)).structuredContent as unknown as Triage;
    expect(all.next_cursor).toBeNull();
    expect(all.read).toBeGreaterThan(5);
    const expected = new Map((all.sessions ?? []).map((s) => [s.id, s.exceptions ?? 0]));

    const seen = new Map<string, number>();
    let cursor: string | undefined;
    let calls = 0;
    do {
      small.sandbox.requests.length = 0;
      const r = await small.call('session-recordings-triage', { ...args, ...(cursor ? { cursor } : {}) });
      expect(r.isError, text(r)).toBeFalsy();
      const t = r.structuredContent as unknown as Triage;
      // Progress: a call that read nothing would hand back a cursor to follow for ever.
      expect(t.read, JSON.stringify(t.unread)).toBeGreaterThan(0);
      expect(small.sandbox.requests.length, `call ${calls}`).toBeLessThanOrEqual(MAX);
      const queries = small.sandbox.requests.filter((q) => q.method === 'POST' && /\/query\/?$/.test(q.path)).length;
      // The first call also asks how many recordings the period holds (query-first triage): as few
      // as it reads, they are read whole, as before.
      expect(queries).toBe((t.read > 0 ? 1 : 0) + (calls === 0 ? 1 : 0));
      expect(t.notes ?? [], JSON.stringify(t.notes)).toEqual([]);
      for (const s of t.sessions ?? []) {
        expect(seen.has(s.id), `${s.id} read twice`).toBe(false);
        seen.set(s.id, s.exceptions ?? 0);
      }
      cursor = t.next_cursor ?? undefined;
      calls++;
    } while (cursor && calls < 40);
    expect(cursor).toBeUndefined();
    expect(calls).toBeGreaterThan(1);
    expect(seen).toEqual(expected);
  });
});
