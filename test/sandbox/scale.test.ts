// The sandbox at scale (option `scale`): a generated week of ~3,000 recorded sessions, read over
// real HTTP through the query API's HogQL and the replay endpoints, against what was planted
// (scaleTruth, computed from the generated data). The queries are the ones docs/posthog-api.md, "Tables the query API reads"
// sketches for a query-first triage.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_API_KEY, SCALE, scaleTruth, startSandbox, type Sandbox, type SandboxOptions, type ScaleTruth } from '../../src/sandbox/index.js';
import { request } from '../support/sandbox-http.js';

const NOW = new Date('2026-11-20T10:20:00Z');
const open: Sandbox[] = [];

async function sandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await startSandbox({ now: NOW, scale: true, ...options });
  open.push(sb);
  return sb;
}
afterAll(async () => {
  await Promise.all(open.map((sb) => sb.close()));
});

async function hogql(sb: Sandbox, query: string, values: Record<string, unknown> = {}, project: number = SCALE.projectId): Promise<any[][]> {
  const res = await request(sb, 'POST', `/api/projects/${project}/query/`, { query: { kind: 'HogQLQuery', query, values } });
  expect(res.status, `${query}\n${JSON.stringify(res.json)}`).toBe(200);
  return res.json.results;
}

const hogqlError = async (sb: Sandbox, query: string, values: Record<string, unknown> = {}) =>
  request(sb, 'POST', `/api/projects/${SCALE.projectId}/query/`, { query: { kind: 'HogQLQuery', query, values } });

const q = (params: Record<string, unknown>) => '?' + Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&');

const RECORDED = 'SELECT session_id FROM session_replay_events WHERE start_time >= {from}';

let sb: Sandbox;
let truth: ScaleTruth;
let from: string;

beforeAll(async () => {
  sb = await sandbox();
  truth = scaleTruth({ now: NOW });
  from = new Date(truth.weekStartMs).toISOString();
});

describe('the generated week', () => {
  it('is a real-sized project: ~3,000 recorded sessions from ~2,200 people, one shop and a help centre with replay off', async () => {
    expect(truth.recorded.sessions).toBeGreaterThan(2_700);
    expect(truth.recorded.sessions).toBeLessThan(3_300);
    expect(truth.recorded.people).toBeGreaterThan(2_000);
    expect(truth.recorded.people).toBeLessThan(2_400);
    const projects = (await request(sb, 'GET', '/api/projects/')).json.results.map((p: { id: number }) => p.id);
    expect(projects).toEqual(expect.arrayContaining([SCALE.projectId, SCALE.replayOffProjectId]));
    const store = (await request(sb, 'GET', `/api/projects/${SCALE.projectId}/`)).json;
    expect(store).toMatchObject({ session_recording_opt_in: true, session_recording_sample_rate: '0.90', session_recording_minimum_duration_milliseconds: 2000 });
    expect((await request(sb, 'GET', `/api/projects/${SCALE.replayOffProjectId}/`)).json.session_recording_opt_in).toBe(false);
  });

  it('the sketch\'s first query: one row per recorded session, with its person', async () => {
    const rows = await hogql(sb, 'SELECT session_id, person_id FROM session_replay_events WHERE start_time >= {from} LIMIT 50000', { from });
    expect(rows).toHaveLength(truth.recorded.sessions);
    expect(new Set(rows.map((r) => r[0]))).toEqual(truth.recorded.sessionIds);
    expect(new Set(rows.map((r) => r[1])).size).toBe(truth.recorded.people);
  });

  it('counts the week\'s exceptions by type and message over every recording: the top problem first, with exact sessions and people', async () => {
    const rows = await hogql(
      sb,
      `SELECT JSONExtractString(properties.$exception_list, 1, 'type') AS type, JSONExtractString(properties.$exception_list, 1, 'value') AS message,
              uniq($session_id) AS sessions, uniq(person_id) AS people, groupUniqArray(5)($session_id) AS examples
       FROM events WHERE event = '$exception' AND timestamp >= {from} AND $session_id IN (${RECORDED})
       GROUP BY type, message ORDER BY sessions DESC LIMIT 50`,
      { from },
    );
    const top = truth.planted.topException;
    expect(rows[0]!.slice(0, 4)).toEqual([top.type, top.message, top.sessions, top.people]);
    expect(rows[0]![4]).toHaveLength(5);
    for (const id of rows[0]![4]) expect(top.sessionIds).toContain(id);
    const payment = truth.planted.failedCheckout.exception;
    expect(rows.find((r) => r[1] === payment.message)?.slice(2, 4)).toEqual([payment.sessions, payment.people]);
    for (const [message, expected] of Object.entries(truth.planted.chunkLoad.messages)) expect(rows.find((r) => r[1] === message)?.slice(2, 4)).toEqual([expected.sessions, expected.people]);
    // Folded over the numbers in the message: one problem.
    const folded = await hogql(
      sb,
      `SELECT replaceRegexpAll(JSONExtractString(properties.$exception_list, 1, 'value'), '[0-9]+', 'N') AS message, uniq($session_id) AS sessions, uniq(person_id) AS people, countIf(properties.$exception_handled = true) AS handled
       FROM events WHERE event = '$exception' AND timestamp >= {from} AND $session_id IN (${RECORDED}) AND properties.$exception_types = {types} GROUP BY message`,
      { from, types: '["ChunkLoadError"]' },
    );
    expect(folded).toEqual([[truth.planted.chunkLoad.folded, truth.planted.chunkLoad.sessions, truth.planted.chunkLoad.people, expect.any(Number)]]);
    expect(folded[0]![3]).toBeGreaterThanOrEqual(truth.planted.chunkLoad.sessions);
  });

  it('expands exception lists with arrayJoin() and buckets sessions by day', async () => {
    const types = await hogql(
      sb,
      `SELECT JSONExtractString(arrayJoin(JSONExtractArrayRaw(properties.$exception_list)), 'type') AS type, uniq($session_id) AS sessions
       FROM events WHERE event = '$exception' AND $session_id IN (${RECORDED}) GROUP BY type ORDER BY sessions DESC`,
      { from },
    );
    expect(types[0]).toEqual([truth.planted.topException.type, truth.planted.topException.sessions]);
    const days = await hogql(sb, "SELECT toStartOfDay(start_time) AS day, count() AS sessions FROM session_replay_events WHERE start_time >= now() - INTERVAL 7 DAY AND session_id != '' GROUP BY day ORDER BY day");
    expect(days.length).toBeGreaterThanOrEqual(7);
    expect(days.every((r) => /T00:00:00\.000Z$/.test(r[0]))).toBe(true);
    expect(days.reduce((n, r) => n + r[1], 0)).toBe(truth.recorded.sessions);
  });

  it('counts rage and dead clicks by element text and page', async () => {
    const rows = await hogql(
      sb,
      `SELECT event, properties.$el_text AS text, properties.$pathname AS page, uniq($session_id) AS sessions, uniq(person_id) AS people, min(timestamp) AS first_seen, max(timestamp) AS last_seen
       FROM events WHERE event IN ('$rageclick', '$dead_click') AND timestamp >= {from} AND $session_id IN (${RECORDED})
       GROUP BY event, text, page ORDER BY sessions DESC LIMIT 50`,
      { from },
    );
    const row = (event: string, text: string, page: string) => rows.find((r) => r[0] === event && r[1] === text && r[2] === page);
    const { deadClicks, promoRageClicks, failedCheckout } = truth.planted;
    expect(row('$dead_click', deadClicks.text, deadClicks.pathname)?.slice(3, 7)).toEqual([deadClicks.sessions, deadClicks.people, new Date(deadClicks.firstSeenMs).toISOString(), new Date(deadClicks.lastSeenMs).toISOString()]);
    expect(row('$rageclick', promoRageClicks.text, promoRageClicks.pathname)?.slice(3, 5)).toEqual([promoRageClicks.sessions, promoRageClicks.people]);
    expect(row('$rageclick', failedCheckout.rageClick.text, failedCheckout.rageClick.pathname)?.slice(3, 5)).toEqual([failedCheckout.rageClick.sessions, failedCheckout.rageClick.people]);
  });

  it('counts console errors per message, raw and with the numbers folded', async () => {
    const raw = await hogql(
      sb,
      `SELECT message, uniq(log_source_id) AS sessions, groupUniqArray(log_source_id) AS ids FROM console_logs_log_entries
       WHERE level = 'error' AND timestamp >= {from} AND log_source_id IN (${RECORDED}) GROUP BY message ORDER BY sessions DESC LIMIT 50`,
      { from },
    );
    expect(raw[0]!.slice(0, 2)).toEqual([truth.planted.topException.consoleMessage, truth.planted.topException.sessions]);
    expect(new Set(raw[0]![2])).toEqual(new Set(truth.planted.topException.sessionIds));
    const folded = await hogql(
      sb,
      `SELECT replaceRegexpAll(message, '[0-9]+', 'N') AS folded, uniq(log_source_id) AS sessions, count() AS lines FROM console_logs_log_entries
       WHERE level = 'error' AND timestamp >= {from} AND log_source_id IN (${RECORDED}) GROUP BY folded ORDER BY sessions DESC`,
      { from },
    );
    const { inventoryTimeouts, failedCheckout } = truth.planted;
    expect(folded.find((r) => r[0] === inventoryTimeouts.folded)?.[1]).toBe(inventoryTimeouts.sessions);
    expect(folded.find((r) => r[0] === failedCheckout.consoleError.folded)?.[1]).toBe(failedCheckout.consoleError.sessions);
    expect(raw.filter((r) => r[0].startsWith('Inventory request')).length).toBeGreaterThan(1);
  });

  it('finds the failed checkout as one chain: request, console error, exception and rage click in one session within seconds', async () => {
    const chain = truth.planted.failedCheckout;
    expect(chain.chain.sessions).toBeGreaterThan(50);
    // Each part keeps its own count: the rage click also happens in slow checkouts that went through.
    expect(chain.rageClick.sessions).toBeGreaterThan(chain.chain.sessions);
    const rows = await hogql(
      sb,
      `SELECT $session_id AS session_id,
              minIf(timestamp, event = '$exception' AND JSONExtractString(properties.$exception_list, 1, 'value') = {message}) AS thrown,
              minIf(timestamp, event = '$rageclick' AND properties.$el_text = 'Place order') AS raged
       FROM events WHERE timestamp >= {from} AND $session_id IN (${RECORDED}) AND event IN ('$exception', '$rageclick')
       GROUP BY session_id HAVING thrown > toDateTime(0) AND raged >= thrown AND dateDiff('second', thrown, raged) <= 10 LIMIT 50000`,
      { from, message: chain.exception.message },
    );
    expect(rows.map((r) => r[0]).sort()).toEqual(chain.chain.sessionIds);
  });

  it('answers the sequence query: started checkout, never ordered after it', async () => {
    const rows = await hogql(
      sb,
      `SELECT $session_id AS session_id FROM events
       WHERE event IN ('checkout_started', 'order_completed') AND timestamp >= {from} AND $session_id IN (${RECORDED})
       GROUP BY session_id
       HAVING countIf(event = 'checkout_started') > 0 AND maxIf(timestamp, event = 'order_completed') < minIf(timestamp, event = 'checkout_started')
       LIMIT 50000`,
      { from },
    );
    expect(rows.map((r) => r[0]).sort()).toEqual(truth.sequence.checkoutWithoutOrder.sessionIds);
  });
});

describe('session_replay_events, PostHog\'s lazy view', () => {
  it('gives one row per session when session_id is read, and one for the whole project when it is not', async () => {
    const rows = await hogql(sb, 'SELECT session_id, count() FROM session_replay_events GROUP BY session_id HAVING count() > 1 LIMIT 5');
    expect(rows).toEqual([]);
    expect(await hogql(sb, 'SELECT count() FROM session_replay_events WHERE start_time >= {from}', { from })).toEqual([[1]]);
    const raw = await hogql(sb, 'SELECT count(), uniq(session_id), max(message_count) FROM raw_session_replay_events');
    expect(raw[0]![1]).toBe(truth.recorded.sessions);
    expect(raw[0]![0]).toBeGreaterThan(truth.recorded.sessions);
  });

  it('aggregates the stored rows of a session as PostHog\'s list does', async () => {
    const [several] = await hogql(sb, 'SELECT session_id FROM raw_session_replay_events GROUP BY session_id HAVING count() >= 3 LIMIT 1');
    const id = several![0];
    const view = await hogql(sb, 'SELECT start_time, end_time, first_url, click_count, console_error_count, active_milliseconds, distinct_id FROM session_replay_events WHERE session_id = {id}', { id });
    const merged = await hogql(
      sb,
      'SELECT min(min_first_timestamp), max(max_last_timestamp), argMinMerge(first_url), sum(click_count), sum(console_error_count), sum(active_milliseconds), any(distinct_id) FROM raw_session_replay_events WHERE session_id = {id}',
      { id },
    );
    expect(view).toEqual(merged);
    const recording = (await request(sb, 'GET', `/api/projects/${SCALE.projectId}/session_recordings/${id}/`)).json;
    const [start, end, url, clicks, errors] = view[0]!;
    expect(recording).toMatchObject({ start_url: url, click_count: clicks, console_error_count: errors });
    expect([Date.parse(recording.start_time), Date.parse(recording.end_time)]).toEqual([Date.parse(start), Date.parse(end)]);
    expect(recording.recording_duration).toBe((Date.parse(end) - Date.parse(start)) / 1000);
  });
});

describe('sessions with events but no recording', () => {
  it('are absent from session_replay_events and from the replay API, and present in events with what posthog-js marked', async () => {
    const { sampledOut, tooShort, replayOff } = truth.examples;
    const marks = (id: string, project: number = SCALE.projectId) =>
      hogql(
        sb,
        `SELECT groupUniqArray(properties.$recording_status), groupUniqArray(properties.$session_is_sampled), groupUniqArray(properties.$replay_sample_rate),
                groupUniqArray(properties.$session_recording_start_reason), min(timestamp), max(timestamp), count()
         FROM events WHERE $session_id = {id}`,
        { id },
        project,
      );
    for (const [id, project] of [
      [sampledOut, SCALE.projectId],
      [tooShort, SCALE.projectId],
      [replayOff, SCALE.replayOffProjectId],
    ] as const) {
      expect(await hogql(sb, 'SELECT session_id FROM session_replay_events WHERE session_id = {id}', { id }, project)).toEqual([]);
      expect((await request(sb, 'GET', `/api/projects/${project}/session_recordings/${id}/`)).status).toBe(404);
    }
    const [dropped] = await marks(sampledOut);
    expect(new Set(dropped![0])).toEqual(new Set(['lazy_loading', 'disabled']));
    expect(dropped!.slice(1, 4)).toEqual([[`!${sampledOut}`], [0.9], []]);
    const [short] = await marks(tooShort);
    expect(new Set(short![0])).toEqual(new Set(['lazy_loading', 'sampled']));
    expect(short!.slice(1, 4)).toEqual([[tooShort], [0.9], ['sampled']]);
    expect(Date.parse(short![5]) - Date.parse(short![4])).toBeLessThan(truth.minimumDurationMs);
    const [off] = await marks(replayOff, SCALE.replayOffProjectId);
    expect(off!.slice(0, 4)).toEqual([['disabled'], [], [], []]);
  });

  it('number exactly the planted ones', async () => {
    const [[unrecorded]] = (await hogql(sb, `SELECT uniq($session_id) FROM events WHERE timestamp >= {from} AND $session_id NOT IN (${RECORDED})`, { from })) as [[number]];
    expect(unrecorded).toBe(truth.unrecordedByCause.sampled_out + truth.unrecordedByCause.too_short);
    const [[off]] = (await hogql(sb, 'SELECT uniq($session_id) FROM events', {}, SCALE.replayOffProjectId)) as [[number]];
    expect(off).toBe(truth.unrecordedByCause.replay_off);
    expect(truth.unrecordedByCause.too_short).toBeGreaterThan(0);
  });
});

describe('people', () => {
  it('keep every distinct id they had, anonymous ones included, and their sessions are found by person', async () => {
    const person = truth.examples.personWithSeveralIds;
    expect(await hogql(sb, 'SELECT id FROM persons WHERE properties.email = {email}', { email: person.email })).toEqual([[person.uuid]]);
    const ids = await hogql(sb, 'SELECT distinct_id FROM person_distinct_ids WHERE person_id = {id}', { id: person.uuid });
    expect(new Set(ids.map((r) => r[0]))).toEqual(new Set(person.distinctIds));
    const sessions = await hogql(sb, 'SELECT session_id FROM session_replay_events WHERE person_id = {id} ORDER BY start_time', { id: person.uuid });
    expect(sessions.map((r) => r[0])).toEqual(person.recordedSessionIds);
    const listed = (await request(sb, 'GET', `/api/projects/${SCALE.projectId}/session_recordings/` + q({ person_uuid: person.uuid, date_from: '-8d' }))).json.results;
    expect(listed.map((r: { id: string }) => r.id).sort()).toEqual([...person.recordedSessionIds].sort());
    const starts = await hogql(sb, 'SELECT groupUniqArray(distinct_id) FROM events WHERE person_id = {id}', { id: person.uuid });
    expect(starts[0]![0].length).toBeGreaterThan(1);
  });

  it('a person of the help centre is not in the shop', async () => {
    const person = truth.examples.personOnlyInReplayOff;
    expect(await hogql(sb, 'SELECT id FROM persons WHERE properties.email = {email}', { email: person.email })).toEqual([]);
    expect(await hogql(sb, 'SELECT id FROM persons WHERE properties.email = {email}', { email: person.email }, person.projectId)).toEqual([[person.uuid]]);
  });
});

describe('the replay API over the generated week', () => {
  it('lists the same sessions, durations and counts as the replay rows', async () => {
    const listed = (await request(sb, 'GET', `/api/projects/${SCALE.projectId}/session_recordings/` + q({ date_from: '-8d', limit: 5000 }))).json;
    expect(listed.has_next).toBe(false);
    const rows = await hogql(sb, "SELECT session_id, dateDiff('second', start_time, end_time), click_count, console_error_count, distinct_id, person_id FROM session_replay_events LIMIT 50000");
    const byId = new Map(rows.map((r) => [r[0], r.slice(1)]));
    expect(listed.results).toHaveLength(byId.size);
    // The person too, anonymous visitors' placeholder included.
    for (const r of listed.results) expect([r.recording_duration, r.click_count, r.console_error_count, r.distinct_id, r.person.uuid]).toEqual(byId.get(r.id));
    expect(listed.results.some((r: { person: { id: number | null } }) => r.person.id === null)).toBe(true);
    expect(listed.results.every((r: { ongoing: boolean }) => r.ongoing === false)).toBe(true);
  });

  it('applies the list\'s filters to the generated sessions', async () => {
    const inventory = truth.planted.inventoryTimeouts;
    const consoleFiltered = (
      await request(
        sb,
        'GET',
        `/api/projects/${SCALE.projectId}/session_recordings/` +
          q({ date_from: '-8d', limit: 5000, console_log_filters: [{ key: 'level', value: ['error'], operator: 'exact', type: 'log_entry' }, { key: 'message', value: 'Inventory request', operator: 'icontains', type: 'log_entry' }] }),
      )
    ).json.results;
    expect(consoleFiltered.map((r: { id: string }) => r.id).sort()).toEqual(inventory.sessionIds);
    const [[checkouts]] = (await hogql(sb, `SELECT uniq($session_id) FROM events WHERE event = 'checkout_started' AND $session_id IN (${RECORDED})`, { from })) as [[number]];
    const eventFiltered = (await request(sb, 'GET', `/api/projects/${SCALE.projectId}/session_recordings/` + q({ date_from: '-8d', limit: 5000, events: [{ id: 'checkout_started', type: 'events' }] }))).json.results;
    expect(eventFiltered).toHaveLength(checkouts);
  });

  it('serves a failed checkout\'s snapshot with the request, the console error, the page\'s message and the clicks', async () => {
    const id = truth.planted.failedCheckout.chain.sessionIds[0]!;
    const sources = (await request(sb, 'GET', `/api/projects/${SCALE.projectId}/session_recordings/${id}/snapshots/`)).json.sources;
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.every((s: { source: string }) => s.source === 'blob_v2')).toBe(true);
    const res = await fetch(`${sb.url}/api/projects/${SCALE.projectId}/session_recordings/${id}/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=${Math.min(20, sources.length - 1)}`, {
      headers: { Authorization: `Bearer ${SANDBOX_API_KEY}` },
    });
    const body = await res.text();
    expect(body).toContain('"responseStatus":500');
    expect(body).toContain('/api/checkout');
    expect(body).toContain("We couldn't process your payment");
    expect(body).toContain('failed with 500 after');
    const events = body.trim().split('\n').map((line) => JSON.parse(line)[1]);
    expect(events.find((e: { type: number }) => e.type === 4).data.href).toMatch(/^https:\/\/shop\.example\.com\//);
    expect(events.filter((e: { type: number }) => e.type === 2).length).toBeGreaterThan(0);
    expect(events.filter((e: { type: number; data: { source?: number; type?: number } }) => e.type === 3 && e.data.source === 2 && e.data.type === 2).length).toBeGreaterThanOrEqual(4);
  });

  it('throttles replay requests as for the demo week', async () => {
    const throttled = await sandbox({ replayThrottle: [{ count: 2, windowMs: 60_000 }] });
    const list = () => request(throttled, 'GET', `/api/projects/${SCALE.projectId}/session_recordings/?limit=1`);
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(429);
  });
});

describe('queries it does not run', () => {
  it('refuses OFFSET with a personal key as today\'s PostHog does; the 2024 API ran it', async () => {
    const refused = await hogqlError(sb, 'SELECT session_id FROM session_replay_events ORDER BY session_id LIMIT 10 OFFSET 10');
    expect(refused.status).toBe(400);
    expect(refused.json.detail).toMatch(/^OFFSET is not supported on queries made with a personal API key/);
    const old = await sandbox({ api: '2024' });
    const page = (offset: number) => hogql(old, `SELECT session_id FROM session_replay_events ORDER BY session_id LIMIT 10 OFFSET ${offset}`);
    const [first, second] = [await page(0), await page(10)];
    expect(second).toHaveLength(10);
    expect(second[0]![0] > first[9]![0]).toBe(true);
  });

  it('answers a malformed or unsupported query with PostHog\'s 400 body, never a made-up result', async () => {
    const cases: Array<[string, RegExp]> = [
      ['SELECT session_id FROM session_replay_events WHERE', /./],
      ['SELECT min_first_timestamp FROM session_replay_events', /start_time \/ end_time/],
      ['SELECT first_url FROM raw_session_replay_events LIMIT 1', /aggregate function state: read it with argMinMerge\(first_url\)/],
      ['SELECT quantile(0.5)(size) FROM raw_session_replay_events', /Unsupported function call 'quantile/],
      ['SELECT s.session_id FROM session_replay_events s', /does not evaluate a table alias/],
      ['SELECT event FROM events JOIN persons ON person_id = persons.id', /does not evaluate JOIN/],
      ["SELECT arrayJoin(JSONExtractArrayRaw(properties.$exception_list)), arrayJoin(['a']) FROM events", /more than one arrayJoin/],
      ['SELECT session_id, count() FROM session_replay_events', /not part of the GROUP BY/],
      ['SELECT id FROM sessions', /does not serve `sessions`/],
      ['SELECT session_id FROM session_replay_events WHERE session_id IN (SELECT session_id, distinct_id FROM session_replay_events)', /exactly one column/],
    ];
    for (const [query, detail] of cases) {
      const res = await hogqlError(sb, query);
      expect(res.status, query).toBe(400);
      expect(res.json, query).toMatchObject({ type: 'validation_error', attr: null });
      expect(res.json.detail, query).toMatch(detail);
    }
  });
});

describe('generation', () => {
  it('is deterministic: the same seed gives the same ids, another seed others', async () => {
    const again = await sandbox();
    const ids = (s: Sandbox) => hogql(s, 'SELECT session_id FROM session_replay_events ORDER BY session_id LIMIT 100');
    expect(await ids(again)).toEqual(await ids(sb));
    expect(scaleTruth({ now: NOW.getTime() + 60_000 }).planted).toEqual(truth.planted);
    // Another hour: the same week moved along (the same counts), with ids of its own times.
    const later = scaleTruth({ now: NOW.getTime() + 5 * 3_600_000 });
    const counts = (t: ScaleTruth) => JSON.stringify(t.planted, (key, value) => (key === 'sessionIds' || key.endsWith('SeenMs') ? undefined : value));
    expect(counts(later)).toEqual(counts(truth));
    expect([later.recorded.sessions, later.unrecordedByCause]).toEqual([truth.recorded.sessions, truth.unrecordedByCause]);
    expect(later.planted.topException.sessionIds.filter((id) => truth.recorded.sessionIds.has(id))).toEqual([]);
    const other = await sandbox({ scale: { seed: 7 } });
    const otherIds = (await ids(other)).map((r) => r[0]);
    expect(otherIds.filter((id) => truth.recorded.sessionIds.has(id))).toEqual([]);
    expect(scaleTruth({ now: NOW, seed: 7 }).recorded.sessionIds).toEqual(new Set((await hogql(other, 'SELECT session_id FROM session_replay_events LIMIT 50000')).map((r) => r[0])));
  });

  it('has the counts docs/sandbox.md states for the default seed', () => {
    const docs = readFileSync(new URL('../../docs/sandbox.md', import.meta.url), 'utf8');
    const n = (x: number) => x.toLocaleString('en-US');
    const { planted, sequence, recorded, all, unrecordedByCause } = truth;
    const { failedCheckout: f } = planted;
    const rows: Array<[string, string]> = [
      ['recorded', `${n(all.sessions)} sessions from ${n(all.people)} people, ${n(recorded.sessions)} of them recorded (from ${n(recorded.people)} people)`],
      ['top exception', `| ${planted.topException.sessions} (${planted.topException.allSessions}) | ${planted.topException.people} |`],
      ['chain', `| ${f.chain.sessions} (${f.chain.allSessions}) | ${f.chain.people} |`],
      ['parts', `| ${f.request.sessions} (${f.request.allSessions}) | ${f.request.people} |`],
      ['console part', `| ${f.consoleError.sessions} | ${f.consoleError.people} |`],
      ['rage part', `| ${f.rageClick.sessions} (${f.rageClick.allSessions}) | ${f.rageClick.people} |`],
      ['inventory', `| ${planted.inventoryTimeouts.sessions} | ${planted.inventoryTimeouts.people} |`],
      ['dead clicks', `| ${planted.deadClicks.sessions} (${planted.deadClicks.allSessions}) | ${planted.deadClicks.people} |`],
      ['chunks', `| ${planted.chunkLoad.sessions} (${planted.chunkLoad.allSessions}) | ${planted.chunkLoad.people} |`],
      ['promo', `| ${planted.promoRageClicks.sessions} (${planted.promoRageClicks.allSessions}) | ${planted.promoRageClicks.people} |`],
      ['sequence', `| ${sequence.checkoutWithoutOrder.sessions} (${sequence.checkoutWithoutOrder.allSessions}) | ${sequence.checkoutWithoutOrder.people} |`],
      ['sampled out', `| sampled out (shop) | ${unrecordedByCause.sampled_out} |`],
      ['too short', `| shorter than the minimum duration (shop) | ${unrecordedByCause.too_short} |`],
      ['replay off', `| replay off (help centre) | ${unrecordedByCause.replay_off} |`],
    ];
    for (const [what, text] of rows) expect(docs, what).toContain(text);
  });

  it('leaves the demo week as it is', async () => {
    const plain = await startSandbox({ now: NOW });
    open.push(plain);
    const ids = (await request(plain, 'GET', '/api/projects/')).json.results.map((p: { id: number }) => p.id);
    expect(ids).not.toContain(SCALE.projectId);
    expect((await request(plain, 'GET', `/api/projects/${SCALE.projectId}/session_recordings/`)).status).toBe(404);
  });
});

describe('what the shop at scale can be filtered on', () => {
  it('lists its event names and person properties from every session, recorded or not', async () => {
    const names = (await request(sb, 'GET', `/api/projects/${SCALE.projectId}/event_definitions/?limit=100`)).json.results.map((d: { name: string }) => d.name);
    expect(names).toEqual(expect.arrayContaining(['$pageview', '$pageleave', '$autocapture', '$exception', '$rageclick', '$dead_click', '$identify', 'checkout_started', 'order_completed', 'product_added_to_cart']));
    const person = (await request(sb, 'GET', `/api/projects/${SCALE.projectId}/property_definitions/?type=person&limit=100`)).json.results.map((d: { name: string }) => d.name);
    expect(person).toEqual(expect.arrayContaining(['email', 'name', '$geoip_country_code']));
    const statuses = (await request(sb, 'GET', `/api/projects/${SCALE.projectId}/events/values/?key=$recording_status`)).json.map((v: { name: string }) => v.name);
    expect(new Set(statuses)).toEqual(new Set(['lazy_loading', 'sampled', 'disabled']));
  });
});
