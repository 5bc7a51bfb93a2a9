// session-recordings-triage's `sequence` (issue 40 item 2) through the SDK Client against the
// sandbox at scale, at the free plan's replay throttle: the recordings triaged are exactly the
// sequence's matches (scaleTruth), every counted problem's sessions and people are those among
// them (counted here from the generated week itself), the evidence read is theirs, within the
// replay budget; the matching sessions without a recording are said apart; bad sequences are
// refused before any request.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldNumbers, planRates, SCALE, scaleTruth, type ScaleTruth } from '../src/sandbox/index.js';
import { scalePopulation, type ScaleSession } from '../src/sandbox/scale/population.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

type Counted = { kind: string; signature: string; sessions: number; people: number | null; occurrences: number; examples: string[] };
type Triage = {
  population?: { recordings: number; people: number; counted_with: string[] };
  sequence_match?: { recordings: number; unrecorded_sessions: number; unrecorded_reasons: Record<string, number> };
  read: number;
  problems: Counted[];
  sessions?: Array<{ id: string }>;
  replay_requests?: number;
  partial?: unknown;
};

const NOW = new Date();
const WEEK = { project_id: String(SCALE.projectId), date_from: '-8d' };
const SEQUENCE = [{ id: 'checkout_started' }, { id: 'order_completed', absent: true }];
const isReplay = (path: string) => /\/session_recordings\//.test(path) && !/\/query\/?$/.test(path);

let h: Harness;
let truth: ScaleTruth;
let matching: ScaleSession[];

beforeAll(async () => {
  h = await startHarness({ sandbox: { scale: true, now: NOW, replayThrottle: planRates('free') } });
  truth = scaleTruth({ now: NOW });
  const ids = new Set(truth.sequence.checkoutWithoutOrder.sessionIds);
  matching = scalePopulation(NOW.getTime()).store.sessions.filter((s) => ids.has(s.id));
});
afterAll(async () => {
  await h?.close();
});

/** The sessions among the matches that have a problem of this signature, and their people, from the generated data. */
function expectedHits(problem: Counted): { sessions: number; people: number } | undefined {
  const has = (s: ScaleSession): boolean => {
    switch (problem.kind) {
      case 'exception':
        return s.events.some((e) => {
          const first = e.event === '$exception' ? (e.properties.$exception_list as Array<{ type: string; value: string }>)[0] : undefined;
          return first !== undefined && `${first.type || 'Error'}: ${foldNumbers(first.value)}` === problem.signature;
        });
      case 'console-error':
        return s.consoleRows.some((c) => c.level === 'error' && foldNumbers(c.message) === problem.signature);
      case 'rage-click':
      case 'dead-click': {
        const event = problem.kind === 'rage-click' ? '$rageclick' : '$dead_click';
        return s.events.some((e) => e.event === event && `${String(e.properties.$pathname ?? '') || '(page unknown)'}: ${String(e.properties.$el_text ?? '') || '(no text)'}` === problem.signature);
      }
      default:
        return false;
    }
  };
  if (problem.kind === 'chain' || problem.signature.length >= 160) return undefined;
  const hit = matching.filter(has);
  return { sessions: hit.length, people: new Set(hit.map((s) => s.person.record.uuid)).size };
}

describe('triage with a sequence', () => {
  let result: Triage;
  let body: string;
  let requests: Array<{ method: string; path: string; query: Record<string, string> }>;
  beforeAll(async () => {
    h.sandbox.requests.length = 0;
    const r = await h.call('session-recordings-triage', { ...WEEK, sequence: SEQUENCE });
    expect(r.isError, text(r)).toBeFalsy();
    result = r.structuredContent as unknown as Triage;
    body = text(r);
    requests = [...h.sandbox.requests];
  }, 120_000);

  it("looks at exactly the sequence's matching recordings, and says so with the unrecorded matches apart, in both views", () => {
    const expected = truth.sequence.checkoutWithoutOrder;
    expect(expected.sessions).toBeGreaterThan(100);
    expect(result.population).toMatchObject({ recordings: expected.sessions, people: new Set(matching.map((s) => s.person.record.uuid)).size });
    expect(result.population!.counted_with).toEqual(['date_from', 'sequence']);
    const unrecorded = expected.allSessions - expected.sessions;
    expect(unrecorded).toBeGreaterThan(0);
    expect(result.sequence_match).toMatchObject({ recordings: expected.sessions, unrecorded_sessions: unrecorded });
    expect(Object.values(result.sequence_match!.unrecorded_reasons).reduce((a, b) => a + b, 0)).toBe(unrecorded);
    expect(body).toContain(`Sequence "checkout_started" → "order_completed" never after: ${expected.sessions} matching recordings in the period; only they are triaged.`);
    expect(body).toContain(`${unrecorded} more matching sessions have events but no recording`);
    expect(body).toContain(`${expected.sessions} recordings from ${result.population!.people} people looked at`);
    expect(body).toContain('Counted with: date_from, sequence.');
  });

  it('counts every problem over those sessions only, as the generated week has them', () => {
    expect(result.problems.length).toBeGreaterThan(0);
    const ids = new Set(truth.sequence.checkoutWithoutOrder.sessionIds);
    let checked = 0;
    for (const problem of result.problems) {
      for (const id of problem.examples) expect(ids.has(id), `${problem.signature}: ${id}`).toBe(true);
      const expected = expectedHits(problem);
      if (!expected) continue;
      expect({ sessions: problem.sessions, people: problem.people }, problem.signature).toEqual(expected);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(3);
    // Fewer than over the whole week: the count is of the matches, not of the period.
    const dead = result.problems.find((p) => p.kind === 'dead-click' && p.signature.includes(truth.planted.deadClicks.text));
    const top = result.problems.find((p) => p.kind === 'exception' && p.signature.startsWith(truth.planted.topException.type));
    // Both are among the matches (the generated week is the same each run): neither check may be skipped.
    expect(dead, 'the planted dead click').toBeDefined();
    expect(top, 'the planted top exception').toBeDefined();
    expect(dead!.sessions).toBeLessThan(truth.planted.deadClicks.sessions);
    expect(top!.sessions).toBeLessThan(truth.planted.topException.sessions);
  });

  it('reads evidence among the matches only, within the replay budget, without a 429', () => {
    const ids = new Set(truth.sequence.checkoutWithoutOrder.sessionIds);
    expect(result.read).toBeGreaterThan(0);
    for (const s of result.sessions ?? []) expect(ids.has(s.id), s.id).toBe(true);
    const replay = requests.filter((q) => isReplay(q.path));
    // The result may leave its sessions out (here it does: the loop above checks none), so the
    // recordings whose blocks were read say which were read: at least one, each a match.
    const readIds = new Set(replay.map((q) => /\/session_recordings\/([^/]+)\/snapshots/.exec(q.path)?.[1]).filter((id) => id !== undefined));
    expect(readIds.size).toBeGreaterThan(0);
    for (const id of readIds) expect(ids.has(id), id).toBe(true);
    expect(replay.length).toBeGreaterThan(0);
    expect(replay.length).toBeLessThanOrEqual(12);
    expect(result.replay_requests).toBe(replay.length);
    const lists = replay.filter((r) => /\/session_recordings\/?$/.test(r.path));
    expect(lists.length).toBeGreaterThan(0);
    for (const q of lists) {
      const listed = JSON.parse(q.query.session_ids ?? '[]') as string[];
      expect(listed.length, q.path).toBeGreaterThan(0);
      for (const id of listed) expect(ids.has(id), id).toBe(true);
    }
    expect(result.partial).toBeUndefined();
    expect(body).not.toMatch(/429|throttl/i);
    expect(JSON.stringify(result).length / body.length).toBeLessThanOrEqual(1.3);
  });
});

it('a sequence nothing went through: no recordings triaged, and that said', async () => {
  // As hosts that cannot send a list of objects send it: JSON text.
  const r = await h.call('session-recordings-triage', { ...WEEK, sequence: JSON.stringify([{ id: 'order_completed' }, { id: 'no_such_event_ever' }]) });
  expect(r.isError, text(r)).toBeFalsy();
  const data = r.structuredContent as unknown as Triage;
  expect(data.population?.recordings).toBe(0);
  expect(data.sequence_match).toMatchObject({ recordings: 0, unrecorded_sessions: 0 });
  expect(data.read).toBe(0);
  expect(data.problems).toEqual([]);
  expect(text(r)).toContain('0 matching recordings in the period; only they are triaged.');
});

it('bad sequences are refused, each naming its problem, before any request', async () => {
  const cases: Array<[unknown, RegExp]> = [
    [[{ id: 'checkout_started' }], /2 to 5 steps/],
    [[{ id: 'checkout_started', absent: true }, { id: 'order_completed' }], /only the last step can be absent/],
    [[{ id: 'checkout_started' }, { id: '' }], /id is the event name/],
    [[{ id: 'checkout_started', properties: [{ type: 'person', key: 'email', operator: 'icontains', value: '@acme' }] }, { id: 'order_completed' }], /person properties hold for the whole recording/],
    [[{ id: '$pageview', properties: [{ type: 'event', key: '$pathname', operator: 'contains', value: '/cart' }] }, { id: 'order_completed' }], /Did you mean "icontains"/],
    ['checkout_started then order_completed', /array/i],
  ];
  h.sandbox.requests.length = 0;
  for (const [sequence, message] of cases) {
    const r = await h.call('session-recordings-triage', { ...WEEK, sequence });
    expect(r.isError, JSON.stringify(sequence)).toBe(true);
    expect(text(r)).toMatch(message);
    expect(text(r)).toContain('sequence');
  }
  const dates = await h.call('session-recordings-triage', { ...WEEK, date_to: 'next tuesday', sequence: SEQUENCE });
  expect(dates.isError).toBe(true);
  expect(apiRequests(h.sandbox)).toEqual([]);
});

describe('with a filter only the list applies', () => {
  let plain: Harness;
  beforeAll(async () => {
    plain = await startHarness({ sandbox: { scale: true, now: NOW } });
  });
  afterAll(async () => {
    await plain?.close();
  });

  it('reads recordings the list chooses among the latest matches only, and says so', async () => {
    const ids = new Set(truth.sequence.checkoutWithoutOrder.sessionIds);
    plain.sandbox.requests.length = 0;
    const r = await plain.call('session-recordings-triage', { ...WEEK, sequence: SEQUENCE, having_predicates: [{ key: 'duration', operator: 'gt', value: 60 }], max_recordings: 3 });
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as unknown as Triage & { notes?: string[] };
    expect(data.population).toBeUndefined();
    expect(data.read).toBeGreaterThan(0);
    for (const s of data.sessions ?? []) expect(ids.has(s.id), s.id).toBe(true);
    // As above: the recordings whose blocks were read are among the matches.
    const readIds = new Set(plain.sandbox.requests.map((q) => /\/session_recordings\/([^/]+)\/snapshots/.exec(q.path)?.[1]).filter((id) => id !== undefined));
    expect(readIds.size).toBeGreaterThan(0);
    for (const id of readIds) expect(ids.has(id), id).toBe(true);
    const lists = plain.sandbox.requests.filter((q) => /\/session_recordings\/?$/.test(q.path));
    expect(lists.length).toBeGreaterThan(0);
    for (const q of lists) {
      const listed = JSON.parse(q.query.session_ids ?? '[]') as string[];
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.length).toBeLessThanOrEqual(100);
      for (const id of listed) expect(ids.has(id), id).toBe(true);
    }
    const note = `The recordings read were chosen among the latest 100 of the ${ids.size} matching recordings.`;
    expect(data.notes).toContain(note);
    expect(text(r)).toContain(note);
    expect(data.sequence_match?.recordings).toBe(ids.size);
  });
});

it('without the query:read scope: the scope a sequence needs said, after one refused query and no replay request', async () => {
  const bare = await startHarness({ sandbox: { scale: true, now: NOW, scopes: ['session_recording:read', 'project:read', 'organization:read'] } });
  try {
    const r = await bare.call('session-recordings-triage', { ...WEEK, sequence: SEQUENCE });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("API key missing required scope 'query:read'");
    expect(apiRequests(bare.sandbox).map((q) => `${q.method} ${q.path}`)).toEqual([`POST /api/projects/${SCALE.projectId}/query/`]);
  } finally {
    await bare.close();
  }
});
