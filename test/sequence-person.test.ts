// session-recordings-list's `sequence` and `person` (issue 40 items 2 and 3), through the SDK
// Client against the sandbox at scale: the matching recordings and their count are those the
// generated week holds (scaleTruth, or the generated sessions read directly), and bad input is
// refused before any request.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, SANDBOX_API_KEY, SCALE, scaleTruth, type ScaleTruth } from '../src/sandbox/index.js';
import { scalePopulation, type ScaleSession } from '../src/sandbox/scale/population.js';
import { MAX_SEQUENCE_LISTED } from '../src/tools/recordings/sequence.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

// The sandbox's clock and the server's are the same instant (the query's relative dates are the server's).
const NOW = new Date();
let h: Harness;
let truth: ScaleTruth;
let sessions: ScaleSession[];

beforeAll(async () => {
  h = await startHarness({ sandbox: { scale: true, now: NOW } });
  truth = scaleTruth({ now: NOW });
  sessions = scalePopulation(NOW.getTime()).store.sessions;
});
afterAll(async () => {
  await h?.close();
});

type ListData = {
  results: Array<{ id: string; person?: { uuid?: string } }>;
  count?: number;
  has_more: boolean;
  next_offset: number | null;
  sequence_match?: { unrecorded_sessions: number; unrecorded_reasons: Record<string, number>; partial?: string };
  person_match?: { people: Array<{ uuid: string; email: string | null; name: string | null; distinct_ids: string[] }>; elsewhere?: Array<{ project_id: number; people: Array<{ uuid: string }> }>; unrecorded_sessions?: number; unrecorded_reasons?: Record<string, number> };
  note?: string;
};

const WEEK = { project_id: String(SCALE.projectId), date_from: '-8d' };

/** Every page of a list call (limit 100), its ids together, and the first page's data. */
async function allIds(args: Record<string, unknown>): Promise<{ ids: string[]; first: ListData; firstText: string }> {
  const ids: string[] = [];
  let offset = 0;
  let first: ListData | undefined;
  let firstText = '';
  for (let i = 0; i < 10; i++) {
    const r = await h.call('session-recordings-list', { ...WEEK, ...args, limit: 100, offset });
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as ListData;
    if (!first) {
      first = data;
      firstText = text(r);
    }
    ids.push(...data.results.map((row) => row.id));
    if (!data.has_more) break;
    offset = data.next_offset!;
  }
  return { ids, first: first!, firstText };
}

const times = (s: ScaleSession, event: string, test: (p: Record<string, unknown>) => boolean = () => true) => s.events.filter((e) => e.event === event && test(e.properties)).map((e) => e.timestampMs);

describe('sequence', () => {
  it('"checkout_started, never order_completed after it": exactly scaleTruth\'s recordings and count; the sessions without a recording counted apart with their reasons', async () => {
    const expected = truth.sequence.checkoutWithoutOrder;
    const sequence = [{ id: 'checkout_started' }, { id: 'order_completed', absent: true }];
    const r = await h.call('session-recordings-list', { ...WEEK, sequence });
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as ListData;
    expect(data.count).toBe(expected.sessions);
    expect(data.results).toHaveLength(20);
    for (const row of data.results) expect(expected.sessionIds).toContain(row.id);
    // The first page is the latest of them, as the list orders them.
    const starts = data.results.map((row) => Date.parse((row as unknown as { start_time: string }).start_time));
    expect([...starts].sort((a, b) => b - a)).toEqual(starts);
    const unrecorded = expected.allSessions - expected.sessions;
    expect(unrecorded).toBeGreaterThan(0);
    expect(data.sequence_match?.unrecorded_sessions).toBe(unrecorded);
    expect(Object.values(data.sequence_match!.unrecorded_reasons).reduce((a, b) => a + b, 0)).toBe(unrecorded);
    const byCause = new Map(truth.unrecorded.map((u) => [u.sessionId, u.cause]));
    const causes = sessions.filter((s) => byCause.has(s.id) && times(s, 'checkout_started').length > 0 && Math.max(0, ...times(s, 'order_completed')) < Math.min(...times(s, 'checkout_started')));
    const tally: Record<string, number> = {};
    for (const s of causes) tally[byCause.get(s.id)!] = (tally[byCause.get(s.id)!] ?? 0) + 1;
    expect(data.sequence_match!.unrecorded_reasons).toEqual(tally);
    // A row whose person's record says no device or country (an anonymous visitor's) says where
    // the session itself ran (its first page view); the others keep the person's.
    const rows = data.results as Array<{ id: string; session_context?: string; person_context?: string }>;
    const anonymous = rows.filter((row) => row.person_context === undefined);
    expect(anonymous.length).toBeGreaterThan(0);
    for (const row of rows) {
      const s = sessions.find((x) => x.id === row.id)!;
      if (row.person_context !== undefined) {
        expect(row.person_context.split(', ')).toHaveLength(4);
        expect(row.session_context).toBeUndefined();
        continue;
      }
      const view = s.events.filter((e) => e.event === '$pageview' || e.event === '$autocapture').sort((a, b) => a.timestampMs - b.timestampMs)[0]!.properties;
      expect(row.session_context).toBe(['$browser', '$os', '$device_type', '$geoip_country_code'].map((k) => view[k]).filter((v) => typeof v === 'string' && v !== '').join(', '));
      expect(text(r)).toContain(`session's "${row.session_context}"`);
    }
    // Both views carry the numbers.
    const t = text(r);
    expect(t).toContain(`${expected.sessions} matching recordings`);
    expect(t).toContain(`${unrecorded} more matching sessions have events but no recording`);

    const all = await allIds({ sequence });
    expect(new Set(all.ids)).toEqual(new Set(expected.sessionIds));
    expect(all.ids).toHaveLength(expected.sessions);
  });

  it('two present steps: the count exact past the 500 recordings a page is chosen from, the page among the latest 500, and that said', async () => {
    const first = (s: ScaleSession) => Math.min(...times(s, 'checkout_started'));
    const matching = sessions.filter((s) => s.stats && times(s, 'checkout_started').length > 0 && Math.max(0, ...times(s, 'order_completed')) > first(s));
    expect(matching.length).toBeGreaterThan(MAX_SEQUENCE_LISTED);
    const { ids, first: page } = await allIds({ sequence: [{ id: 'checkout_started' }, { id: 'order_completed' }] });
    expect(page.count).toBe(matching.length);
    const latest = [...matching].sort((a, b) => first(b) - first(a)).slice(0, MAX_SEQUENCE_LISTED).map((s) => s.id);
    expect(new Set(ids)).toEqual(new Set(latest));
    expect(page.sequence_match?.partial).toBe(`${matching.length} recorded sessions matched; the page is chosen among the latest ${MAX_SEQUENCE_LISTED}.`);
    // With another filter the list may take some away: the count is then of the 500 read, and said so.
    const filtered = await h.call('session-recordings-list', { ...WEEK, sequence: [{ id: 'checkout_started' }, { id: 'order_completed' }], having_predicates: [{ key: 'duration', operator: 'gt', value: 0 }] });
    const data = filtered.structuredContent as ListData;
    expect(data.count).toBe(MAX_SEQUENCE_LISTED);
    expect(data.sequence_match?.partial).toBe(`${matching.length} recorded sessions matched; the page is chosen among the latest ${MAX_SEQUENCE_LISTED}, and count is of those.`);
    expect(text(filtered)).toContain(data.sequence_match!.partial!);
  });

  it('three steps with a step property, the last absent: a /cart page view, then checkout, then no order', async () => {
    const cart = (s: ScaleSession) => Math.min(...times(s, '$pageview', (p) => p.$pathname === '/cart'));
    const expected = sessions
      .filter((s) => {
        if (!s.stats || times(s, '$pageview', (p) => p.$pathname === '/cart').length === 0) return false;
        const checkout = times(s, 'checkout_started').filter((t) => t > cart(s));
        return checkout.length > 0 && !times(s, 'order_completed').some((t) => t > Math.min(...checkout));
      })
      .map((s) => s.id);
    expect(expected.length).toBeGreaterThan(20);
    const sequence = [{ id: '$pageview', properties: [{ type: 'event', key: '$pathname', operator: 'exact', value: ['/cart'] }] }, { id: 'checkout_started' }, { id: 'order_completed', absent: true }];
    const { ids, first } = await allIds({ sequence });
    expect(first.count).toBe(expected.length);
    expect(new Set(ids)).toEqual(new Set(expected));
    // The same with the page's path matched by icontains and regex: the same sessions.
    const loose = await allIds({ sequence: [{ id: '$pageview', properties: [{ type: 'event', key: '$pathname', operator: 'icontains', value: '/CART' }, { type: 'event', key: '$pathname', operator: 'regex', value: '^/cart$' }] }, sequence[1], sequence[2]] });
    expect(new Set(loose.ids)).toEqual(new Set(expected));
  });

  it('with the list\'s other filters: only the matching recordings those keep, counted', async () => {
    const matching = new Set(truth.sequence.checkoutWithoutOrder.sessionIds);
    // What the list says of each recording without the sequence, read apart.
    const durations = new Map<string, number>();
    for (let offset = 0; ; offset += 100) {
      const r = await h.call('session-recordings-list', { ...WEEK, limit: 100, offset, having_predicates: [{ key: 'duration', operator: 'gt', value: 300 }] });
      const data = r.structuredContent as ListData;
      for (const row of data.results) durations.set(row.id, (row as unknown as { recording_duration: number }).recording_duration);
      if (!data.has_more) break;
    }
    const expected = [...durations.keys()].filter((id) => matching.has(id));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(matching.size);
    const { ids, first } = await allIds({ sequence: [{ id: 'checkout_started' }, { id: 'order_completed', absent: true }], having_predicates: [{ key: 'duration', operator: 'gt', value: 300 }] });
    expect(first.count).toBe(expected.length);
    expect(new Set(ids)).toEqual(new Set(expected));
  });

  it('bad sequences are refused, each naming its problem, before any request', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [[{ id: 'checkout_started' }], /2 to 5 steps/],
      [Array.from({ length: 6 }, () => ({ id: '$pageview' })), /2 to 5 steps/],
      [[{ id: 'checkout_started', absent: true }, { id: 'order_completed' }], /only the last step can be absent/],
      [[{ id: 'checkout_started' }, { id: 'order_completed', absent: 'yes' }], /absent is true or false/],
      [[{ id: 'checkout_started' }, { id: '' }], /id is the event name/],
      [[{ id: 'checkout_started' }, { id: 7 }], /id is the event name/],
      [[{ id: 'checkout_started', properties: [{ type: 'person', key: 'email', operator: 'icontains', value: '@acme' }] }, { id: 'order_completed' }], /person properties hold for the whole recording/],
      [[{ id: 'checkout_started', properties: [{ type: 'cohort', key: 'id', value: 3 }] }, { id: 'order_completed' }], /not matched inside a sequence step/],
      [[{ id: '$pageview', properties: [{ type: 'event', key: 'sent_at', operator: 'is_date_before', value: '2025-01-01' }] }, { id: 'order_completed' }], /is_date_before is not matched inside a sequence step/],
      [[{ id: '$pageview', properties: [{ type: 'event', key: '$pathname', operator: 'contains', value: '/cart' }] }, { id: 'order_completed' }], /Did you mean "icontains"/],
      [[{ id: '$pageview', properties: [{ type: 'event', key: '$pathname', operator: 'icontains', value: ['/cart', '/shop'] }] }, { id: 'order_completed' }], /takes one text inside a sequence step/],
      [[{ id: 'checkout_started', kind: 'x' }, { id: 'order_completed' }], /unrecognized field/],
      ['checkout_started then order_completed', /array/i],
    ];
    h.sandbox.requests.length = 0;
    for (const [sequence, message] of cases) {
      const r = await h.call('session-recordings-list', { ...WEEK, sequence });
      expect(r.isError, JSON.stringify(sequence)).toBe(true);
      expect(text(r)).toMatch(message);
      expect(text(r)).toContain('sequence');
    }
    const both = await h.call('session-recordings-list', { ...WEEK, person: 'someone@example.com', person_uuid: '01a20244-e800-767e-9f73-9133214b7b47' });
    expect(both.isError).toBe(true);
    expect(text(both)).toMatch(/one of person, person_uuid and distinct_ids/);
    expect(apiRequests(h.sandbox)).toEqual([]);
  });
});

describe('person', () => {
  const several = () => truth.examples.personWithSeveralIds;
  const inWeek = (ids: string[]) => ids.filter((id) => truth.recorded.sessionIds.has(id));

  it('by email (any case): every recording of the person, from every distinct id they had', async () => {
    const p = several();
    expect(p.distinctIds.length).toBeGreaterThan(1);
    const { ids, first, firstText } = await allIds({ person: p.email.toUpperCase() });
    expect(new Set(ids)).toEqual(new Set(inWeek(p.recordedSessionIds)));
    expect(first.person_match?.people).toHaveLength(1);
    expect(first.person_match!.people[0]!.uuid).toBe(p.uuid);
    expect(new Set(first.person_match!.people[0]!.distinct_ids)).toEqual(new Set(p.distinctIds));
    expect(firstText).toContain(p.uuid);
    for (const id of p.distinctIds) expect(firstText).toContain(id);
  });

  it('by name, and by an anonymous distinct id of an identified person: all their sessions', async () => {
    const p = several();
    const anonymous = p.distinctIds.find((id) => id !== p.distinctIds.at(-1))!;
    const byAnon = await allIds({ person: anonymous });
    expect(byAnon.first.person_match!.people.map((x) => x.uuid)).toEqual([p.uuid]);
    expect(new Set(byAnon.ids)).toEqual(new Set(inWeek(p.recordedSessionIds)));
    expect(byAnon.ids.length).toBeGreaterThan(1);
    // A name only one person has; then one that several share: all of theirs, each named.
    const named = new Map<string, Set<ScaleSession['person']>>();
    for (const s of sessions) if (s.person.name) named.set(s.person.name, (named.get(s.person.name) ?? new Set()).add(s.person));
    const recordedOf = (people: Set<ScaleSession['person']>) => sessions.filter((s) => s.stats && people.has(s.person)).map((s) => s.id);
    const unique = [...named].find(([, people]) => people.size === 1 && recordedOf(people).length > 1)!;
    const byName = await allIds({ person: unique[0] });
    expect(new Set(byName.ids)).toEqual(new Set(recordedOf(unique[1])));
    const shared = [...named].find(([, people]) => people.size > 1)!;
    const byShared = await allIds({ person: shared[0] });
    expect(new Set(byShared.first.person_match!.people.map((x) => x.uuid))).toEqual(new Set([...shared[1]].map((x) => x.record.uuid)));
    expect(new Set(byShared.ids)).toEqual(new Set(recordedOf(shared[1])));
    expect(byShared.firstText).toContain(`${shared[1].size} people match`);
  });

  it("says how many of the person's sessions in the period have events but no recording, and why, in both views (one query)", async () => {
    // A person with recordings and sessions that were not recorded, of more than one cause where the week has one.
    const causesOf = (p: ScaleSession['person']) => new Set(sessions.filter((s) => s.person === p && s.cause !== null).map((s) => s.cause));
    const candidates = [...new Set(sessions.filter((s) => s.cause !== null && s.person.email !== null).map((s) => s.person))].filter((p) => sessions.some((s) => s.person === p && s.stats));
    const owner = candidates.sort((a, b) => causesOf(b).size - causesOf(a).size)[0]!;
    const unrecorded = sessions.filter((s) => s.person === owner && s.cause !== null);
    expect(unrecorded.length).toBeGreaterThan(0);
    const tally: Record<string, number> = {};
    for (const s of unrecorded) tally[s.cause!] = (tally[s.cause!] ?? 0) + 1;
    h.sandbox.requests.length = 0;
    const { ids, first, firstText } = await allIds({ person: owner.email! });
    expect(new Set(ids)).toEqual(new Set(sessions.filter((s) => s.person === owner && s.stats).map((s) => s.id)));
    expect(first.person_match?.unrecorded_sessions).toBe(unrecorded.length);
    expect(first.person_match?.unrecorded_reasons).toEqual(tally);
    const n = unrecorded.length;
    expect(firstText).toContain(`${n} session${n === 1 ? ' of this person in the period has' : 's of this person in the period have'} events but no recording (`);
    if (tally.sampled_out) expect(firstText).toContain(`sampled out ${tally.sampled_out}`);
    if (tally.replay_off) expect(firstText).toContain(`replay off ${tally.replay_off}`);
    // One query over the replay table for them, per list call, not one per session.
    const calls = Math.ceil(Math.max(1, ids.length) / 100);
    const replayReads = apiRequests(h.sandbox).filter((q) => q.method === 'POST' && q.path.endsWith('/query/') && q.body.includes('session_replay_events'));
    expect(replayReads).toHaveLength(calls);
  });

  it('in another project the key reads: says which, lists nothing from there', async () => {
    const p = truth.examples.personOnlyInReplayOff;
    h.sandbox.requests.length = 0;
    const r = await h.call('session-recordings-list', { ...WEEK, person: p.email });
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as ListData;
    expect(data.results).toEqual([]);
    expect(data.person_match?.people).toEqual([]);
    expect(data.person_match?.elsewhere?.map((e) => e.project_id)).toEqual([p.projectId]);
    expect(data.person_match!.elsewhere![0]!.people[0]!.uuid).toBe(p.uuid);
    expect(text(r)).toContain(`project ${p.projectId}`);
    expect(text(r)).toContain('call again with that project_id');
    expect(apiRequests(h.sandbox).filter((q) => q.path.includes('session_recordings'))).toEqual([]);
  });

  it('found nowhere: says so, and what to do for an anonymous visitor', async () => {
    const r = await h.call('session-recordings-list', { ...WEEK, person: 'nobody@nowhere.invalid' });
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as ListData;
    expect(data.results).toEqual([]);
    expect(data.person_match).toEqual({ people: [], elsewhere: [] });
    expect(text(r)).toMatch(/^No person "nobody@nowhere\.invalid" \(email, name or distinct id\) in project 2001, nor in the \d+ other projects? this key reads/);
    expect(data.note).toBe(text(r));
  });

  it('with a sequence: that person\'s matching recordings only', async () => {
    const matching = new Set(truth.sequence.checkoutWithoutOrder.sessionIds);
    const owner = sessions.find((s) => matching.has(s.id) && s.person.record.isIdentified && sessions.filter((x) => x.person === s.person && x.stats).length > 1)!;
    const email = owner.person.record.properties.email as string;
    const expected = sessions.filter((s) => s.person === owner.person && matching.has(s.id)).map((s) => s.id);
    const { ids, first } = await allIds({ person: email, sequence: [{ id: 'checkout_started' }, { id: 'order_completed', absent: true }] });
    expect(first.count).toBe(expected.length);
    expect(new Set(ids)).toEqual(new Set(expected));
  });
});

describe('on the demo week', () => {
  let demo: Harness;
  beforeAll(async () => {
    demo = await startHarness();
  });
  afterAll(async () => {
    await demo?.close();
  });

  async function hogql(query: string): Promise<unknown[][]> {
    const res = await fetch(`${demo.sandbox.url}/api/projects/${DEMO.mainProjectId}/query/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SANDBOX_API_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: { kind: 'HogQLQuery', query } }),
    });
    return ((await res.json()) as { results: unknown[][] }).results;
  }

  it('a sequence finds the demo\'s checkouts without an order, and the ones with', async () => {
    const rows = await hogql("SELECT $session_id, event, timestamp FROM events WHERE event IN ('checkout_started', 'order_completed') LIMIT 1000");
    const bySession = new Map<string, { started: number[]; ordered: number[] }>();
    for (const [sid, event, at] of rows as Array<[string, string, string]>) {
      const s = bySession.get(sid) ?? { started: [], ordered: [] };
      (event === 'checkout_started' ? s.started : s.ordered).push(Date.parse(at));
      bySession.set(sid, s);
    }
    const recorded = new Set(((await demo.call('session-recordings-list', { project_id: String(DEMO.mainProjectId), date_from: '-30d', limit: 100 })).structuredContent as ListData).results.map((r) => r.id));
    const started = [...bySession].filter(([, s]) => s.started.length > 0);
    const without = started.filter(([, s]) => Math.max(0, ...s.ordered) < Math.min(...s.started)).map(([id]) => id).filter((id) => recorded.has(id));
    const withOrder = started.filter(([, s]) => Math.max(0, ...s.ordered) > Math.min(...s.started)).map(([id]) => id).filter((id) => recorded.has(id));
    expect(without.length).toBeGreaterThan(0);
    expect(withOrder).toContain(DEMO.recordingIds.successfulPurchase);
    for (const [ids, absent] of [[without, true], [withOrder, false]] as const) {
      const r = await demo.call('session-recordings-list', { project_id: String(DEMO.mainProjectId), date_from: '-30d', sequence: [{ id: 'checkout_started' }, { id: 'order_completed', absent }] });
      expect(r.isError, text(r)).toBeFalsy();
      const data = r.structuredContent as ListData;
      expect(data.count).toBe(ids.length);
      expect(new Set(data.results.map((row) => row.id))).toEqual(new Set(ids));
    }
    // As hosts that cannot express a list of objects send it (the listing says "JSON text").
    const asText = await demo.call('session-recordings-list', { project_id: String(DEMO.mainProjectId), date_from: '-30d', sequence: JSON.stringify([{ id: 'checkout_started' }, { id: 'order_completed', absent: true }]) });
    expect(asText.isError, text(asText)).toBeFalsy();
    expect((asText.structuredContent as ListData).count).toBe(without.length);
  });

  it('a person by their anonymous distinct id: the recordings of both their ids', async () => {
    const found = (await hogql("SELECT person_id, groupArray(distinct_id) AS ids FROM person_distinct_ids WHERE person_id IN (SELECT person_id FROM person_distinct_ids WHERE distinct_id = 'cus_8842') GROUP BY person_id")) as Array<[string, string[]]>;
    expect(found).toHaveLength(1);
    const [uuid, ids] = found[0]!;
    expect(ids.length).toBe(2);
    const anonymous = ids.find((id) => id !== 'cus_8842')!;
    const direct = (await demo.call('session-recordings-list', { project_id: String(DEMO.mainProjectId), date_from: '-30d', limit: 100, distinct_ids: ids })).structuredContent as ListData;
    expect(direct.results.length).toBeGreaterThan(0);
    const r = await demo.call('session-recordings-list', { project_id: String(DEMO.mainProjectId), date_from: '-30d', limit: 100, person: anonymous });
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as ListData;
    expect(data.person_match?.people.map((p) => p.uuid)).toEqual([uuid]);
    expect(new Set(data.results.map((row) => row.id))).toEqual(new Set(direct.results.map((row) => row.id)));
    expect(text(r)).toContain('"Olivia Martin"');
  });
});

describe('without the query:read scope', () => {
  it('sequence and person say the scope they need, after one refused query', async () => {
    const bare = await startHarness({ sandbox: { scale: true, now: NOW, scopes: ['session_recording:read', 'project:read', 'organization:read'] } });
    try {
      for (const args of [{ sequence: [{ id: 'checkout_started' }, { id: 'order_completed', absent: true }] }, { person: 'someone@example.com' }]) {
        bare.sandbox.requests.length = 0;
        const r = await bare.call('session-recordings-list', { ...WEEK, ...args });
        expect(r.isError).toBe(true);
        expect(text(r)).toContain("API key missing required scope 'query:read'");
        expect(text(r)).toContain('it needs the query:read scope');
        expect(apiRequests(bare.sandbox).map((q) => `${q.method} ${q.path}`)).toEqual([`POST /api/projects/${SCALE.projectId}/query/`]);
      }
    } finally {
      await bare.close();
    }
  });
});

describe('on the 2024 API', () => {
  it('the same sequence count and person, the older list envelope and a legacy key', async () => {
    const old = await startHarness({ sandbox: { scale: true, now: NOW, api: '2024' } });
    try {
      const r = await old.call('session-recordings-list', { ...WEEK, sequence: [{ id: 'checkout_started' }, { id: 'order_completed', absent: true }] });
      expect(r.isError, text(r)).toBeFalsy();
      expect((r.structuredContent as ListData).count).toBe(truth.sequence.checkoutWithoutOrder.sessions);
      const p = await old.call('session-recordings-list', { ...WEEK, limit: 100, person: truth.examples.personWithSeveralIds.email });
      expect(new Set((p.structuredContent as ListData).results.map((row) => row.id))).toEqual(new Set(truth.examples.personWithSeveralIds.recordedSessionIds.filter((id) => truth.recorded.sessionIds.has(id))));
    } finally {
      await old.close();
    }
  });
});
