// Issue 31 item 4: a triage with the defaults over a period reads the recordings most likely to
// matter first, says how many it left and how to read them, and a cursor reads exactly the rest.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);

describe('session-recordings-triage picks what matters', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('a default week, query-first: every recording counted, the session with five failed POST /api/orders read as evidence within the replay budget', async () => {
    const listed = await h.call('session-recordings-list', { project_id: P, date_from: '-7d', limit: 100 });
    const week = (listed.structuredContent as { results: Array<{ id: string }> }).results;
    h.sandbox.reset();
    const r = await h.call('session-recordings-triage', { project_id: P, date_from: '-7d', max_chars: 20_000 });
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as { population?: { recordings: number }; read: number; replay_requests?: number };
    expect(data.population?.recordings).toBe(week.length);
    expect(text(r)).toContain(`${week.length} recordings from`);
    const replay = apiRequests(h.sandbox).filter((q) => /\/session_recordings\//.test(q.path));
    expect(replay.length).toBeLessThanOrEqual(12);
    expect(data.replay_requests).toBe(replay.length);
    expect(data.read).toBeGreaterThan(0);
    expect(text(r)).toMatch(/POST "?[^\n]*\/api\/orders"? → 500/);
  });

  // With max_recordings given, the caller asks for more than the evidence: the list's most promising too, and a cursor for the rest.
  it('a week with max_recordings 10: the session with five failed POST /api/orders is read, the rest is said and continued', async () => {
    const listed = await h.call('session-recordings-list', { project_id: P, date_from: '-7d', limit: 100 });
    const week = (listed.structuredContent as { results: Array<{ id: string }> }).results;
    expect(week.length).toBeGreaterThan(10);
    h.sandbox.reset();
    const first = await h.call('session-recordings-triage', { project_id: P, date_from: '-7d', max_chars: 20_000, max_recordings: 10 });
    expect(first.isError, text(first)).toBeFalsy();
    const data = first.structuredContent as { read: number; not_read?: number; next_cursor: string | null; problems: Array<{ signature: string; occurrences?: number }> };
    // One listing request for the evidence (by id), one that chose the rest from the whole week, not its newest ten.
    const listings = apiRequests(h.sandbox).filter((q) => q.path.endsWith('/session_recordings/'));
    expect(listings).toHaveLength(2);
    expect(listings[0]!.query.session_ids).toBeDefined();
    expect(Number(listings[1]!.query.limit)).toBeGreaterThanOrEqual(week.length);
    expect(data.read).toBe(10);
    expect(text(first)).toMatch(/POST "?[^\n]*\/api\/orders"? → 500/);
    expect(JSON.stringify(first.structuredContent)).toContain('/api/orders');
    // What was left is counted in both views, with how to go on.
    const left = week.length - 10;
    expect(data.not_read).toBeGreaterThanOrEqual(left);
    expect(text(first)).toContain(`${left} recordings: not-started`);
    expect(data.next_cursor).toEqual(expect.any(String));
    // The cursor is short (ids packed), so both views keep room within max_chars.
    expect(data.next_cursor!.length).toBeLessThan(40 * left);

    const rest = await h.call('session-recordings-triage', { project_id: P, date_from: '-7d', max_chars: 20_000, cursor: data.next_cursor });
    expect(rest.isError, text(rest)).toBeFalsy();
    const more = rest.structuredContent as { read: number; next_cursor: string | null };
    expect(data.read + more.read).toBe(week.length);
    expect(more.next_cursor).toBeNull();
  });

  it('an order of the caller\'s is kept: the first rows in that order, no wider scan', async () => {
    const r = await h.call('session-recordings-triage', { project_id: P, date_from: '-7d', order: 'start_time', max_recordings: 3 });
    expect(r.isError, text(r)).toBeFalsy();
    const listings = apiRequests(h.sandbox).filter((q) => q.path.endsWith('/session_recordings/'));
    expect(listings[0]!.query.limit).toBe('3');
  });

  it('a cursor of the first form (base64url JSON) is still read', async () => {
    const id = DEMO.recordingIds.checkoutFailure;
    const old = Buffer.from(JSON.stringify({ p: [id] })).toString('base64url');
    const r = await h.call('session-recordings-triage', { project_id: P, date_from: '-30d', cursor: old });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { read: number }).read).toBe(1);
  });
});
