// Snapshots at the moment (issue 44 item 2): session-recording-snapshots reads a window of the
// recording (start_at, end_at: seconds, m:ss or ISO, as the replay takes them) and keeps only the
// kinds asked (`only`). Blocks the listing places outside the window are not fetched; a window past
// the end answers empty and says so; a bad value is refused before any request; the cursor keeps
// the window and kinds. The digest's moment lines say the start_at that opens them.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { demoScripts } from '../src/sandbox/demo/dataset.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;
const REASON = 'Upstream payment provider timed out';

interface Page {
  sources?: Array<{ source: string; start_timestamp: string | null; end_timestamp: string | null }>;
  events: Array<{ type: number; timestamp: number; data?: Record<string, unknown> }>;
  window?: { start_at?: string; end_at?: string; from?: string; to?: string; only?: string[] };
  past_end?: boolean;
  notes?: string[];
  next_cursor: string | null;
}

const pageOf = (r: CallToolResult) => r.structuredContent as unknown as Page;
const blockRequests = (h: Harness) => apiRequests(h.sandbox).filter((q) => q.query.source !== undefined);
const key = (e: { type: number; timestamp: number }) => `${e.type}:${e.timestamp}`;

/** Every event a call's pages give, the cursor followed (bounded). */
async function readAll(h: Harness, args: Record<string, unknown>): Promise<Page['events']> {
  const events: Page['events'] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const r = await h.call('session-recording-snapshots', { ...args, max_events: 500, ...(cursor ? { cursor } : {}) });
    expect(r.isError, text(r)).toBeFalsy();
    events.push(...pageOf(r).events);
    cursor = pageOf(r).next_cursor;
    if (!cursor) break;
  }
  return events;
}

/** "m:ss" of a number of seconds, as the digest writes it. */
const mss = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

describe('session-recording-snapshots at the moment', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it("from the digest's start_at, ONE call with a window and only network gives Olivia's failing checkout first, with its body, fetching fewer blocks", async () => {
    const summary = await h.call('session-recording-summary', { project_id: P, id: R.checkoutFailure });
    const line = (summary.structuredContent as { timeline: string[] }).timeline.find((l) => /request failed POST .*\/api\/checkout.* → 500/.test(l))!;
    expect(text(summary).split('\n')).toContain(line);
    const startAt = /start_at "(\d+:\d\d)"/.exec(line)![1]!;
    expect(line.startsWith(startAt)).toBe(true);
    const [m, s] = startAt.split(':').map(Number);
    h.sandbox.reset();

    const r = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, start_at: startAt, end_at: mss(m! * 60 + s! + 10), only: ['network'] });
    expect(r.isError, text(r)).toBeFalsy();
    const page = pageOf(r);
    const first = page.events[0]!;
    const request = (first.data!.payload as { requests: Array<Record<string, unknown>> }).requests[0]!;
    expect(request).toMatchObject({ method: 'POST', responseStatus: 500 });
    expect(String(request.name)).toMatch(/\/api\/checkout$/);
    expect(String(request.responseBody)).toContain(REASON);
    // Every event is a network one, inside the window.
    expect(page.events.every((e) => e.type === 6 && e.data!.plugin === 'rrweb/network@1')).toBe(true);
    const from = Date.parse(page.window!.from!);
    const to = Date.parse(page.window!.to!);
    expect(to - from).toBe(10_000);
    expect(page.events.every((e) => e.timestamp >= from && e.timestamp <= to)).toBe(true);
    // The text's first event line is that request, and says where the window is.
    const lines = text(r).split('\n');
    expect(lines.find((l) => /^\d\d:\d\d:\d\d\.\d{3} /.test(l))).toMatch(/ network: POST ".*\/api\/checkout" → 500/);
    expect(text(r)).toContain(REASON);
    expect(lines).toContain(`Window: start_at "${startAt}" (${page.window!.from}) to end_at "${mss(m! * 60 + s! + 10)}" (${page.window!.to}); only network events.`);
    // Blocks that end before the window are not fetched: fewer requests than reading from the start.
    const windowed = blockRequests(h);
    const skipped = page.sources!.filter((x) => Date.parse(x.end_timestamp!) < from);
    expect(skipped.length).toBeGreaterThan(0);
    expect(windowed.every((q) => Number(q.query.start_blob_key) >= skipped.length)).toBe(true);
    h.sandbox.reset();
    await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, max_events: 500 });
    expect(windowed.length).toBeLessThanOrEqual(blockRequests(h).length);
    expect(windowed.map((q) => q.query.start_blob_key)).not.toContain('0');
  });

  it('keeps only the kinds asked: click, input, navigation, console, dom', async () => {
    const kinds: Record<string, (e: Page['events'][number]) => boolean> = {
      click: (e) => e.type === 3 && e.data!.source === 2 && (e.data!.type === 2 || e.data!.type === 4),
      input: (e) => e.type === 3 && e.data!.source === 5,
      navigation: (e) => e.type === 4 || (e.type === 5 && e.data!.tag === '$pageview'),
      console: (e) => e.type === 6 && String(e.data!.plugin).startsWith('rrweb/console'),
      dom: (e) => e.type === 2 || (e.type === 3 && e.data!.source === 0),
    };
    const all = await readAll(h, { project_id: P, id: R.checkoutFailure });
    for (const [kind, is] of Object.entries(kinds)) {
      const events = await readAll(h, { project_id: P, id: R.checkoutFailure, only: [kind] });
      expect(events.length, kind).toBeGreaterThan(0);
      expect(events.every(is), kind).toBe(true);
      // Every event of the kind, and only those (events too large for a page are summarized, not dropped).
      expect(events.map(key), kind).toEqual(all.filter(is).map(key));
    }
  });

  it('pages inside the window with the cursor alone, which remembers window and kinds; other values beside it are refused', async () => {
    const args = { project_id: P, id: R.checkoutFailure, start_at: '0:20', end_at: '1:05', only: ['dom', 'click'] };
    const whole = pageOf(await h.call('session-recording-snapshots', { ...args, max_events: 500 }));
    expect(whole.next_cursor).toBeNull();
    expect(whole.events.length).toBeGreaterThan(6);
    const paged: Page['events'] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await h.call('session-recording-snapshots', cursor ? { project_id: P, id: R.checkoutFailure, cursor, max_events: 3 } : { ...args, max_events: 3 });
      expect(r.isError, text(r)).toBeFalsy();
      const page = pageOf(r);
      expect(page.window).toEqual(whole.window);
      // A page reads on to the next event it would return: no empty last page.
      expect(page.events.length).toBeGreaterThan(0);
      if (!page.next_cursor) expect(text(r)).toMatch(/\nEnd of the window\.$/);
      paged.push(...page.events);
      cursor = page.next_cursor;
      pages++;
    } while (cursor && pages < 100);
    expect(pages).toBeGreaterThan(2);
    expect(paged.map(key)).toEqual(whole.events.map(key));

    // The same values beside the cursor go on; others are refused, with no request.
    const first = pageOf(await h.call('session-recording-snapshots', { ...args, max_events: 3 }));
    const same = await h.call('session-recording-snapshots', { ...args, cursor: first.next_cursor, max_events: 3 });
    expect(same.isError, text(same)).toBeFalsy();
    h.sandbox.reset();
    const other = await h.call('session-recording-snapshots', { ...args, start_at: '0:30', cursor: first.next_cursor });
    expect(other.isError).toBe(true);
    expect(text(other)).toMatch(/cursor continues a page asked with start_at "0:20", end_at "1:05", only \["dom","click"\]/);
    expect(apiRequests(h.sandbox)).toHaveLength(0);
  });

  it('takes ISO times as the replay does: the same window as its clock', async () => {
    const byClock = pageOf(await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, start_at: '0:30', end_at: '0:45', max_events: 500 }));
    const byTime = pageOf(await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, start_at: byClock.window!.from!, end_at: byClock.window!.to!, max_events: 500 }));
    expect(byTime.events.length).toBeGreaterThan(0);
    expect(byTime.events.map(key)).toEqual(byClock.events.map(key));
    // A number is seconds.
    const bySeconds = pageOf(await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, start_at: 30, end_at: 45, max_events: 500 }));
    expect(bySeconds.events.map(key)).toEqual(byClock.events.map(key));
  });

  it('null for start_at, end_at and only is "not given", as hosts that send every field write it', async () => {
    const r = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, start_at: null, end_at: null, only: null, max_events: 5 });
    expect(r.isError, text(r)).toBeFalsy();
    expect(pageOf(r).window).toBeUndefined();
    expect(pageOf(r).events).toHaveLength(5);
  });

  it('a window past the end answers empty and says so in both views, fetching no block', async () => {
    const r = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, start_at: '59:00', only: ['network'] });
    expect(r.isError, text(r)).toBeFalsy();
    const page = pageOf(r);
    expect(page.events).toEqual([]);
    expect(page.past_end).toBe(true);
    expect(page.next_cursor).toBeNull();
    const said = /No events: the window starts after the recording's end \(its last event at \S+, 1:28 from its start\)/;
    expect(page.notes!.join('\n')).toMatch(said);
    expect(text(r)).toMatch(said);
    expect(blockRequests(h).filter((q) => q.query.source === 'blob_v2' && q.query.start_blob_key !== undefined)).toHaveLength(0);
  });

  it('a window on a long-term copy (no block times) counts from its first event', async () => {
    const events = await readAll(h, { project_id: P, id: R.longTermStorage });
    expect(events.length).toBe(demoScripts().get(R.longTermStorage)!.events.length);
    const t0 = events[0]!.timestamp;
    const inWindow = events.filter((e) => e.timestamp >= t0 + 5_000 && e.timestamp <= t0 + 20_000);
    expect(inWindow.length).toBeGreaterThan(0);
    expect(inWindow.length).toBeLessThan(events.length);
    expect(await readAll(h, { project_id: P, id: R.longTermStorage, start_at: '5', end_at: '0:20' })).toEqual(inWindow);
    const past = await h.call('session-recording-snapshots', { project_id: P, id: R.longTermStorage, start_at: '2:00:00' });
    expect(pageOf(past).past_end).toBe(true);
    expect(text(past)).toMatch(/the window starts after the recording's end/);
  });

  it('an end before the start in two forms (a clock and an ISO time) is refused once the start is known, by the listing or the first event', async () => {
    for (const id of [R.checkoutFailure, R.longTermStorage]) {
      const first = pageOf(await h.call('session-recording-snapshots', { project_id: P, id, start_at: '0:00', max_events: 1 }));
      const t0 = Date.parse(first.window!.from!);
      const r = await h.call('session-recording-snapshots', { project_id: P, id, start_at: '0:30', end_at: new Date(t0 + 10_000).toISOString() });
      expect(r.isError, id).toBe(true);
      expect(text(r)).toMatch(/end_at is before start_at/);
      const ok = await h.call('session-recording-snapshots', { project_id: P, id, start_at: '0:05', end_at: new Date(t0 + 10_000).toISOString(), max_events: 500 });
      expect(ok.isError, text(ok)).toBeFalsy();
      expect(pageOf(ok).events.every((e) => e.timestamp >= t0 + 5_000 && e.timestamp <= t0 + 10_000)).toBe(true);
    }
  });

  it.each([
    [{ only: ['video'] }, /only takes any of network, console, navigation, click, input, dom/],
    [{ only: [] }, /only/],
    [{ start_at: 'soon' }, /start_at must be seconds into the recording \("95"\), a digest clock \("1:35"\), or an ISO timestamp/],
    [{ end_at: '1:75' }, /end_at must be seconds into the recording \("95"\), a digest clock \("1:35"\), or an ISO timestamp/],
    [{ start_at: '1:00', end_at: '0:30' }, /end_at is before start_at\. Each is seconds into the recording \("95"\), a digest clock \("1:35"\), or an ISO timestamp/],
    [{ start_at: '2026-11-20T10:15:31Z', end_at: '2026-11-20T10:15:30Z' }, /end_at is before start_at/],
  ])('refuses %j, naming the allowed values, with no upstream request', async (bad, message) => {
    const r = await h.call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, ...bad });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(message);
    expect(apiRequests(h.sandbox)).toHaveLength(0);
  });
});

describe('session-recording-snapshots at the moment, against the 2024 API (a realtime tail)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { api: '2024' } });
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('asks for the realtime tail only when the window reaches past the stored blocks', async () => {
    const all = await readAll(h, { project_id: P, id: R.ongoing });
    const listing = pageOf(await h.call('session-recording-snapshots', { project_id: P, id: R.ongoing, max_events: 1 })).sources!;
    const stored = listing.filter((x) => x.source === 'blob_v2');
    const lastBlockEnd = Math.max(...stored.map((x) => Date.parse(x.end_timestamp!)));
    const t0 = Math.min(...stored.map((x) => Date.parse(x.start_timestamp!)));
    // Past the listing's slack (a block that near the window is fetched, in case its times are cut to the second).
    const from = lastBlockEnd + 1_500;
    const tail = all.filter((e) => e.timestamp >= from);
    expect(tail.length).toBeGreaterThan(0);

    h.sandbox.reset();
    const after = new Date(from).toISOString();
    expect(await readAll(h, { project_id: P, id: R.ongoing, start_at: after })).toEqual(tail);
    expect(blockRequests(h).map((q) => q.query.source)).toEqual(expect.arrayContaining(['realtime']));
    expect(blockRequests(h).filter((q) => q.query.source === 'blob_v2' && q.query.start_blob_key !== undefined)).toHaveLength(0);

    h.sandbox.reset();
    const early = await readAll(h, { project_id: P, id: R.ongoing, end_at: '0:05' });
    expect(early).toEqual(all.filter((e) => e.timestamp <= t0 + 5_000));
    expect(blockRequests(h).map((q) => q.query.source)).not.toContain('realtime');
  });
});
