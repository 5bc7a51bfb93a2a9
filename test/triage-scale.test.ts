// Query-first triage (issue 40 items 1 and 5) against the sandbox at scale, at the defaults and
// the free plan's replay throttle (12 a minute, 60 an hour): one call names the week's top
// problems with the exact sessions and people scaleTruth() planted, a session id for each, and
// how many recordings it looked at; it spends at most 12 list + snapshot requests and 10 queries
// and meets no 429. Without query:read it triages the recordings it reads, as before, and says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_RATES } from '../src/replay-rates.js';
import { planRates, SCALE, scaleTruth, type ScaleTruth } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';

type Counted = { kind: string; signature: string; message?: string; sessions: number; people: number | null; examples: string[]; handled?: boolean; values?: { first: string; last: string }; parts?: Array<{ kind: string; signature: string; message?: string; sessions: number; people: number | null }> };
type Triage = { population?: { recordings: number; people: number; counted_with: string[] }; read: number; problems: Counted[]; notes?: string[]; replay_requests?: number };

const isReplay = (path: string) => /\/session_recordings\//.test(path) && !/\/query\/?$/.test(path);

describe('query-first triage of a week at scale, free plan', () => {
  let h: Harness;
  let truth: ScaleTruth;
  let result: Triage;
  let body: string;
  let requests: Array<{ method: string; path: string }>;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scale: true, replayThrottle: planRates('free') } });
    truth = scaleTruth({ now: Date.now() });
    h.sandbox.requests.length = 0;
    const r = await h.call('session-recordings-triage', { project_id: String(SCALE.projectId), date_from: new Date(truth.weekStartMs).toISOString().slice(0, 19) });
    expect(r.isError, text(r)).toBeFalsy();
    result = r.structuredContent as unknown as Triage;
    body = text(r);
    requests = [...h.sandbox.requests];
  }, 120_000);
  afterAll(async () => {
    await h.close();
  });

  const find = (kind: string, part: string) => result.problems.find((p) => p.kind === kind && p.signature.includes(part));

  it('says how many recordings and people it looked at', () => {
    expect(result.population).toMatchObject({ recordings: truth.recorded.sessions, people: truth.recorded.people });
    expect(body).toContain(`${truth.recorded.sessions} recordings from ${truth.recorded.people} people looked at`);
  });

  it('names the top problems with exact counts and a session id each, most sessions first', () => {
    const p = truth.planted;
    const top = result.problems[0]!;
    expect(top).toMatchObject({ kind: 'exception', handled: false, sessions: p.topException.sessions, people: p.topException.people });
    expect(top.signature).toContain(p.topException.type);
    // The browser's "Uncaught TypeError: …" line is said with the exception, with its own counts, not as a problem of its own.
    expect((top as Counted & { console?: { signature: string; sessions: number } }).console).toMatchObject({ signature: p.topException.consoleMessage, sessions: p.topException.sessions });
    expect(result.problems.filter((q) => q.kind === 'console-error' && q.signature === p.topException.consoleMessage)).toEqual([]);
    const inventory = find('console-error', 'Inventory request N timed out');
    expect(inventory).toMatchObject({ sessions: p.inventoryTimeouts.sessions, people: p.inventoryTimeouts.people });
    // The folded numbers shown as the first and last logged: never a bare N.
    expect(inventory!.message).toMatch(/^Inventory request \d+(…\d+)? timed out after \d+(…\d+)? ms$/);
    expect(body).toContain(`console error "${inventory!.message}"`);
    expect(find('dead-click', p.deadClicks.text)).toMatchObject({ sessions: p.deadClicks.sessions, people: p.deadClicks.people });
    expect(find('exception', 'ChunkLoadError')).toMatchObject({ handled: true, sessions: p.chunkLoad.sessions, people: p.chunkLoad.people });
    expect(find('rage-click', p.promoRageClicks.text)).toMatchObject({ sessions: p.promoRageClicks.sessions, people: p.promoRageClicks.people });
    for (const problem of result.problems) {
      expect(problem.examples.length, problem.signature).toBeGreaterThan(0);
      for (const id of problem.examples) expect(truth.recorded.sessionIds.has(id), id).toBe(true);
    }
    const sessions = result.problems.map((q) => q.sessions);
    expect(sessions).toEqual([...sessions].sort((a, b) => b - a));
    expect(body).toContain(`${p.topException.sessions} sessions, ${p.topException.people} people`);
  });

  it('groups the failed checkout as one problem naming its parts, each with its own counts', () => {
    const fc = truth.planted.failedCheckout;
    const chain = result.problems.find((q) => q.kind === 'chain');
    expect(chain, JSON.stringify(result.problems.map((q) => q.signature))).toBeDefined();
    const part = (kind: string) => chain!.parts!.find((q) => q.kind === kind);
    expect(part('exception')).toMatchObject({ sessions: fc.exception.sessions, people: fc.exception.people });
    expect(part('console-error')).toMatchObject({ sessions: fc.consoleError.sessions, people: fc.consoleError.people });
    expect(part('rage-click')).toMatchObject({ sessions: fc.rageClick.sessions, people: fc.rageClick.people });
    // Only the snapshots show the request and the page's message: the digests of the chain's recordings add them.
    expect(part('request-failed')?.signature).toContain('/api/checkout');
    expect(part('message')?.signature).toContain('couldn');
    expect(chain!.sessions).toBeGreaterThanOrEqual(fc.chain.sessions);
    expect(chain!.sessions).toBeLessThanOrEqual(fc.exception.sessions);
    // Its parts are not problems of their own.
    expect(result.problems.filter((q) => q.kind === 'exception' && q.signature.includes('Payment request failed'))).toEqual([]);
  });

  it('carries the same counts in both views, the structured one at most 1.3× the text', () => {
    for (const p of result.problems as Array<Counted & { occurrences: number }>) {
      const people = p.people === null ? '' : `, ${p.people} ${p.people === 1 ? 'person' : 'people'}`;
      expect(body).toContain(`- ${p.sessions} session${p.sessions === 1 ? '' : 's'}${people}, ${p.occurrences}×, in ${p.examples.join(', ')}: `);
      for (const part of p.parts ?? []) expect(body).toContain((part.message ?? part.signature).slice(0, 60));
      expect(body).toContain(p.examples.join(', '));
    }
    expect(JSON.stringify(result).length / body.length).toBeLessThanOrEqual(1.3);
  });

  it('spends at most 12 list + snapshot requests and 10 queries, and meets no 429', () => {
    const replay = requests.filter((q) => isReplay(q.path));
    const queries = requests.filter((q) => q.method === 'POST' && /\/query\/?$/.test(q.path));
    expect(replay.length).toBeGreaterThan(0);
    expect(replay.length).toBeLessThanOrEqual(12);
    expect(queries.length).toBeLessThanOrEqual(10);
    expect(result.replay_requests).toBe(replay.length);
    expect(result.read).toBeGreaterThan(0);
    expect((result as { partial?: unknown }).partial).toBeUndefined();
    expect(body).not.toMatch(/429|throttl/i);
  });
});

describe('without query:read, the triage reads recordings as before and says why', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scale: true, scopes: ['session_recording:read', 'project:read', 'organization:read'] } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers from the recordings read, with the reason in both views', async () => {
    const r = await h.call('session-recordings-triage', { project_id: String(SCALE.projectId), date_from: '-8d', max_recordings: 3 });
    expect(r.isError, text(r)).toBeFalsy();
    const t = r.structuredContent as unknown as Triage;
    expect(t.population).toBeUndefined();
    expect(t.read).toBeGreaterThan(0);
    const note = (t.notes ?? []).find((n) => n.includes('query:read'));
    expect(note).toBeDefined();
    expect(text(r)).toContain(note!);
  });
});

describe("a query PostHog throttles (429: too many queries running) is asked again within the call's bound", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scale: true } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('waits the time PostHog named, then counts as it would have', async () => {
    const truth = scaleTruth({ now: Date.now() });
    h.sandbox.injectFault({ method: 'POST', path: /\/query\/?$/, status: 429, times: 2, headers: { 'retry-after': '1' }, body: { type: 'throttled_error', code: 'throttled', detail: 'Too many queries are running right now — please try again in a moment.', attr: null } });
    const started = performance.now();
    const r = await h.call('session-recordings-triage', { project_id: String(SCALE.projectId), date_from: new Date(truth.weekStartMs).toISOString().slice(0, 19), max_chars: 8_000 });
    expect(r.isError, text(r)).toBeFalsy();
    const t = r.structuredContent as unknown as Triage;
    expect(t.population).toMatchObject({ recordings: truth.recorded.sessions, people: truth.recorded.people });
    expect(t.problems[0]).toMatchObject({ sessions: truth.planted.topException.sessions, people: truth.planted.topException.people });
    expect(t.notes ?? []).toEqual([]);
    // The wait PostHog named was made (the two refused queries ran side by side, each waiting 1 s, or one after the other).
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
    const queries = h.sandbox.requests.filter((q) => q.method === 'POST' && /\/query\/?$/.test(q.path));
    expect(queries.length).toBeLessThanOrEqual(12);
  });
});

describe("after a list call, the triage plans within what is left of the key's minute", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scale: true, replayThrottle: planRates('free') } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('meets no 429, says the budget it had, and how many recordings it digested', async () => {
    const truth = scaleTruth({ now: Date.now() });
    const week = { project_id: String(SCALE.projectId), date_from: new Date(truth.weekStartMs).toISOString().slice(0, 19) };
    h.sandbox.requests.length = 0;
    const listed = await h.call('session-recordings-list', week);
    expect(listed.isError, text(listed)).toBeFalsy();
    const spentByList = h.sandbox.requests.filter((q) => isReplay(q.path)).length;
    expect(spentByList).toBeGreaterThan(0);
    const r = await h.call('session-recordings-triage', week);
    expect(r.isError, text(r)).toBeFalsy();
    const t = r.structuredContent as unknown as Triage & { replay_budget?: number; partial?: unknown };
    const body = text(r);
    // Within the free minute together: the list's requests and the triage's.
    const replay = h.sandbox.requests.filter((q) => isReplay(q.path)).length;
    expect(replay).toBeLessThanOrEqual(12);
    expect(t.replay_budget).toBe(12 - spentByList);
    expect(t.replay_requests).toBe(replay - spentByList);
    // No 429 came: in `auto` the first one would have taught the key a pace.
    expect(h.posthog.pacesReplay).toBe(false);
    expect(t.partial).toBeUndefined();
    expect(body).not.toMatch(/429|throttl/i);
    // The key met no 429, so the window is the budget's own count per minute.
    const note = `Only ${12 - spentByList} of this key's replay requests were left in the current window (the replay budget, counted per minute; earlier calls spent the rest): the evidence was read within them, not the replay budget of 12.`;
    expect(t.notes).toContain(note);
    expect(body).toContain(note);
    expect(t.read).toBeGreaterThan(0);
    expect(body).toContain(`${t.read} recording${t.read === 1 ? '' : 's'} digested for evidence`);
    expect(t.population).toMatchObject({ recordings: truth.recorded.sessions });
  });
});

describe('with the free plan configured (POSTHOG_REPLAY_RATE_LIMITS=free), the window is the throttle the server paces by', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scale: true, replayThrottle: planRates('free') }, client: { replayRates: PLAN_RATES.free } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('after two list calls, reads within the 10 left and says whose window it is', async () => {
    const truth = scaleTruth({ now: Date.now() });
    const week = { project_id: String(SCALE.projectId), date_from: new Date(truth.weekStartMs).toISOString().slice(0, 19) };
    h.sandbox.requests.length = 0;
    for (let i = 0; i < 2; i++) expect((await h.call('session-recordings-list', { ...week, offset: i * 20 })).isError).toBeFalsy();
    const spent = h.sandbox.requests.filter((q) => isReplay(q.path)).length;
    expect(spent).toBe(2);
    const r = await h.call('session-recordings-triage', week);
    expect(r.isError, text(r)).toBeFalsy();
    const t = r.structuredContent as unknown as Triage & { replay_budget?: number };
    expect(t.replay_budget).toBe(12 - spent);
    expect(h.sandbox.requests.filter((q) => isReplay(q.path)).length).toBeLessThanOrEqual(12);
    expect(t.notes).toContain(`Only ${12 - spent} of this key's replay requests were left in the current window (PostHog's throttle, as known for this key; earlier calls spent the rest): the evidence was read within them, not the replay budget of 12.`);
    expect(text(r)).not.toMatch(/429|throttled/i);
    expect(t.read).toBeGreaterThan(0);
  });
});

describe("a minute already spent by earlier calls leaves the triage its evidence floor", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scale: true } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('after 12 list calls it still digests recordings, within 7 requests, and says why', async () => {
    const truth = scaleTruth({ now: Date.now() });
    const week = { project_id: String(SCALE.projectId), date_from: new Date(truth.weekStartMs).toISOString().slice(0, 19) };
    h.sandbox.requests.length = 0;
    for (let i = 0; i < 12; i++) expect((await h.call('session-recordings-list', { ...week, offset: i * 20 })).isError).toBeFalsy();
    const spent = h.sandbox.requests.filter((q) => isReplay(q.path)).length;
    expect(spent).toBeGreaterThanOrEqual(12);
    const r = await h.call('session-recordings-triage', week);
    expect(r.isError, text(r)).toBeFalsy();
    const t = r.structuredContent as unknown as Triage & { replay_budget?: number };
    expect(t.replay_budget).toBe(7);
    expect(t.replay_requests).toBeLessThanOrEqual(7);
    expect(t.read).toBeGreaterThan(0);
    const note = "Only 0 of this key's replay requests were left in the current window (the replay budget, counted per minute; earlier calls spent the rest): the evidence was read within the 7 a triage always keeps for it, not the replay budget of 12; those reads wait for the window or stop with when to continue.";
    expect(t.notes).toContain(note);
    expect(text(r)).toContain(note);
  });
});

describe("under the free throttle, a minute already spent leaves the counts standing (the CLI's default pacing: auto)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scale: true, replayThrottle: planRates('free') } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('after 12 list calls the triage answers every recording\'s counts, partial, with the evidence in its cursor and when to continue, in both views', async () => {
    const truth = scaleTruth({ now: Date.now() });
    const week = { project_id: String(SCALE.projectId), date_from: new Date(truth.weekStartMs).toISOString().slice(0, 19) };
    for (let i = 0; i < 12; i++) expect((await h.call('session-recordings-list', { ...week, offset: i * 20 })).isError).toBeFalsy();
    const r = await h.call('session-recordings-triage', week);
    expect(r.isError, text(r)).toBeFalsy();
    const t = r.structuredContent as unknown as Triage & { partial?: { reason: string; retry_after_seconds?: number }; next_cursor: string | null };
    // The counts cost no replay request: they are the answer, throttle or not.
    expect(t.population).toMatchObject({ recordings: truth.recorded.sessions });
    expect(t.problems.length).toBeGreaterThan(0);
    expect(text(r)).toContain(`${truth.recorded.sessions} recordings from`);
    // The evidence waits: said partial, with when, and the recordings it wanted in the cursor.
    expect(t.read).toBe(0);
    expect(t.partial?.reason).toBe('throttle');
    expect(t.partial?.retry_after_seconds).toBeGreaterThan(0);
    expect(t.next_cursor).toEqual(expect.any(String));
    expect(text(r)).toContain(t.next_cursor!);
  });
});
