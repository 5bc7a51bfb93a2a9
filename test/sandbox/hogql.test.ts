// The sandbox as today's PostHog: internal endpoints refused or gone, scopes enforced, and the
// query API for the HogQL subset our tools send (anything else is PostHog's query error).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, SANDBOX_API_KEY, startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

const MAIN = DEMO.mainProjectId;
const R = DEMO.recordingIds;
const open: Sandbox[] = [];

async function sandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await startSandbox(options);
  open.push(sb);
  return sb;
}
afterAll(async () => {
  await Promise.all(open.map((sb) => sb.close()));
});

async function request(sb: Sandbox, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = { Authorization: `Bearer ${SANDBOX_API_KEY}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(sb.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const hogql = (sb: Sandbox, query: string, values: Record<string, unknown> = {}, project: number = MAIN) =>
  request(sb, 'POST', `/api/projects/${project}/query/`, { query: { kind: 'HogQLQuery', query, values } });

const q = (params: Record<string, unknown>) => '?' + Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(JSON.stringify(v))}`).join('&');

describe("today's internal endpoints", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await sandbox();
  });

  it('refuses matching_events to every personal API key with PostHog\'s exact body', async () => {
    const res = await request(sb, 'GET', `/api/projects/${MAIN}/session_recordings/matching_events/` + q({ session_ids: [R.checkoutFailure], events: [{ id: '$pageview' }] }));
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ type: 'authentication_error', code: 'permission_denied', detail: 'This action does not support personal API key access', attr: null });
    const legacy = await sandbox({ scopes: [] });
    expect((await request(legacy, 'GET', `/api/projects/${MAIN}/session_recordings/matching_events/` + q({ session_ids: [R.checkoutFailure], events: [{ id: '$pageview' }] }))).status).toBe(403);
  });

  it('has no properties endpoint: the path is a recording id that does not exist', async () => {
    const res = await request(sb, 'GET', `/api/projects/${MAIN}/session_recordings/properties/` + q({ session_ids: [R.checkoutFailure] }));
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Recording not found', attr: null });
  });

  it('2024: a scoped key was refused too, a legacy unscoped key was served', async () => {
    const scoped = await sandbox({ api: '2024', scopes: ['*'] });
    const refused = await request(scoped, 'GET', `/api/projects/${MAIN}/session_recordings/properties/` + q({ session_ids: [R.checkoutFailure] }));
    expect(refused.status).toBe(403);
    expect(refused.json.detail).toBe('This action does not support Personal API Key access');
    const legacy = await sandbox({ api: '2024' });
    const served = await request(legacy, 'GET', `/api/projects/${MAIN}/session_recordings/properties/` + q({ session_ids: [R.checkoutFailure] }));
    expect(served.status).toBe(200);
    expect(served.json.results[0].id).toBe(R.checkoutFailure);
    expect((await request(legacy, 'GET', `/api/projects/${MAIN}/session_recordings/?limit=1`)).json.version).toBe(3);
  });

  it('enforces scopes: the query API needs query:read, projects project:read, and reports the key\'s scopes', async () => {
    const narrow = await sandbox({ scopes: ['session_recording:read'] });
    const query = await hogql(narrow, 'SELECT count() FROM events');
    expect(query.status).toBe(403);
    expect(query.json).toEqual({ type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'query:read'", attr: null });
    expect((await request(narrow, 'GET', '/api/projects/')).json.detail).toBe("API key missing required scope 'project:read'");
    expect((await request(narrow, 'GET', `/api/projects/${MAIN}/session_recordings/`)).status).toBe(200);
    expect((await request(narrow, 'DELETE', `/api/projects/${MAIN}/session_recordings/${R.checkoutFailure}/`)).json.detail).toBe("API key missing required scope 'session_recording:write'");
    expect((await request(narrow, 'GET', '/api/personal_api_keys/@current')).json.scopes).toEqual(['session_recording:read']);
    const querying = await sandbox({ scopes: ['query:read'] });
    expect((await hogql(querying, 'SELECT count() FROM events')).status).toBe(200);
  });
});

describe('the query API (HogQL subset)', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await sandbox();
  });

  it('runs a filtered, ordered select with values, in the project\'s timezone', async () => {
    const res = await hogql(sb, 'SELECT uuid, event, timestamp FROM events WHERE $session_id = {sid} AND event IN {names} ORDER BY timestamp DESC LIMIT 5', {
      sid: R.checkoutFailure,
      names: ['$exception', '$rageclick'],
    });
    expect(res.status).toBe(200);
    expect(res.json.columns).toEqual(['uuid', 'event', 'timestamp']);
    expect(res.json.hasMore).toBe(false);
    expect(res.json.results).toHaveLength(3);
    expect(new Set(res.json.results.map((r: unknown[]) => r[1]))).toEqual(new Set(['$exception', '$rageclick']));
    const times = res.json.results.map((r: unknown[]) => Date.parse(String(r[2])));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // The main demo project is in Europe/London: DRF writes its offset (or Z in winter).
    expect(String(res.json.results[0][2])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)$/);
  });

  it('groups and aggregates, skipping NULLs like ClickHouse, and caps rows with hasMore', async () => {
    const grouped = await hogql(sb, 'SELECT $session_id AS s, count() AS n, argMin(properties.$browser, timestamp) FROM events GROUP BY $session_id ORDER BY n DESC');
    expect(grouped.status).toBe(200);
    expect(grouped.json.columns).toEqual(['s', 'n', 'argMin(properties.$browser, timestamp)']);
    const counts = grouped.json.results.map((r: unknown[]) => r[1] as number);
    expect(counts.length).toBeGreaterThan(1);
    expect([...counts].sort((a, b) => b - a)).toEqual(counts);
    const capped = await hogql(sb, 'SELECT uuid FROM events LIMIT 2');
    expect(capped.json.results).toHaveLength(2);
    expect(capped.json.hasMore).toBe(true);
  });

  it('bounds by time with toDateTime() of ISO values, zone-less dates read as UTC', async () => {
    const all = await hogql(sb, 'SELECT count() FROM events WHERE $session_id = {sid}', { sid: R.checkoutFailure });
    const total = all.json.results[0][0] as number;
    expect(total).toBeGreaterThan(3);
    const bounded = (from: string, to: string) =>
      hogql(sb, 'SELECT count() FROM events WHERE $session_id = {sid} AND timestamp >= toDateTime({from}) AND timestamp <= toDateTime({to})', { sid: R.checkoutFailure, from, to });
    expect((await bounded('2000-01-01', '2999-01-01')).json.results[0][0]).toBe(total);
    expect((await bounded('2000-01-01T00:00:00Z', '2000-01-02T00:00:00+02:00')).json.results[0][0]).toBe(0);
    const times = await hogql(sb, 'SELECT timestamp FROM events WHERE $session_id = {sid} ORDER BY timestamp', { sid: R.checkoutFailure });
    const middle = String(times.json.results[2][0]);
    expect((await bounded(middle, '2999-01-01')).json.results[0][0]).toBe(total - 2);
  });

  it('expands matchesAction() from the action\'s definition', async () => {
    const action = DEMO.actions.find((a) => a.event === '$rageclick')!;
    const res = await hogql(sb, 'SELECT event FROM events WHERE $session_id = {sid} AND matchesAction({a})', { sid: R.checkoutFailure, a: action.id });
    expect(res.json.results).toEqual([['$rageclick']]);
  });

  it('answers what it cannot run with PostHog\'s query-error body, never a made-up result', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['SELECT uuid FROM persons', {}, /Unknown table/],
      ['SELECT nosuchfield FROM events', {}, /Unable to resolve field: nosuchfield/],
      ['SELECT uuid FROM events WHERE sleep(3) = 1', {}, /Unsupported function call 'sleep/],
      ['SELECT uuid FROM events WHERE $session_id = {sid}', {}, /Placeholder \{sid\} is not available/],
      ["SELECT uuid FROM events WHERE event = 'x' UNION ALL SELECT 1", {}, /^mismatched input 'UNION' expecting <EOF>$/],
      ['SELECT uuid FROM events; DROP TABLE events', {}, /^token recognition error at: ';'$/],
      ['select uuid from', {}, /^mismatched input <EOF> expecting/],
      ['SELECT event, uuid FROM events GROUP BY event', {}, /not part of the GROUP BY/],
      ['SELECT uuid FROM events WHERE matchesAction(event)', {}, /constant arguments/],
      ['SELECT uuid FROM events WHERE matchesAction({a})', { a: 99 }, /^Could not find cohort with ID 99$/],
      ["SELECT uuid FROM events WHERE matchesAction('Nope')", {}, /^Could not find an action with the name 'Nope'$/],
    ];
    for (const [query, values, detail] of cases) {
      const res = await hogql(sb, query, values);
      expect(res.status, query).toBe(400);
      expect(res.json, query).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr: null });
      expect(res.json.detail, query).toMatch(detail);
    }
    const kind = await request(sb, 'POST', `/api/projects/${MAIN}/query/`, { query: { kind: 'EventsQuery', select: ['*'] } });
    expect(kind.status).toBe(400);
    const unknownProject = await hogql(sb, 'SELECT uuid FROM events', {}, 999);
    expect(unknownProject.status).toBe(404);
    expect((await request(sb, 'GET', `/api/projects/${MAIN}/query/`)).status).toBe(405);
  });
});
