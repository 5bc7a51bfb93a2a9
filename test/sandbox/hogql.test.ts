// The sandbox as today's PostHog: internal endpoints refused or gone, scopes enforced, and the
// query API for the HogQL subset our tools send (anything else is PostHog's query error).

import createHogQLParser from '@posthog/hogql-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parserLoaded } from '../../src/sandbox/hogql-parse.js';
import { DEMO, startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { request } from '../support/sandbox-http.js';

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

const hogql = (sb: Sandbox, query: string, values: Record<string, unknown> = {}, project: number = MAIN) =>
  request(sb, 'POST', `/api/projects/${project}/query/`, { query: { kind: 'HogQLQuery', query, values } });

const q = (params: Record<string, unknown>) => '?' + Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(JSON.stringify(v))}`).join('&');

describe('PostHog\'s parser, loaded on the first query', () => {
  it('costs nothing until a query comes: start-up and other endpoints leave it unloaded', async () => {
    const sb = await sandbox();
    expect((await request(sb, 'GET', `/api/projects/${MAIN}/session_recordings/?limit=1`)).status).toBe(200);
    expect((await request(sb, 'GET', `/api/projects/${MAIN}/`)).status).toBe(200);
    expect(parserLoaded()).toBe(false);
    expect((await hogql(sb, 'SELECT count() FROM events')).status).toBe(200);
    expect(parserLoaded()).toBe(true);
  });
});

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

  it('fills placeholders as constants in the tree: a value is never read as HogQL', async () => {
    const count = async (query: string, values: Record<string, unknown>) => {
      const res = await hogql(sb, query, values);
      expect(res.status, JSON.stringify(values)).toBe(200);
      return res.json.results[0][0] as number;
    };
    const bySession = 'SELECT count(*) FROM events WHERE $session_id = {sid}';
    const real = await count(bySession, { sid: R.checkoutFailure });
    expect(real).toBeGreaterThan(0);
    for (const hostile of [`${R.checkoutFailure}' OR 1 = 1 --`, "' OR '1' = '1", '{sid}', `${R.checkoutFailure}\\`, '\u0000\u202e日本', 'x'.repeat(10_000)]) {
      expect(await count(bySession, { sid: hostile }), hostile.slice(0, 40)).toBe(0);
    }
    // A list value is one constant: IN reads its items, and a NULL matches nothing.
    const names = await count('SELECT count() FROM events WHERE $session_id = {sid} AND event IN {names}', { sid: R.checkoutFailure, names: ['$exception', "$rageclick' OR 1=1"] });
    expect(names).toBeGreaterThan(0);
    expect(names).toBeLessThan(real);
    expect(await count('SELECT count() FROM events WHERE $session_id = {sid}', { sid: null })).toBe(0);
    expect(await count('SELECT count() FROM events WHERE events.$session_id = {sid} AND properties.$nothing_here IS NULL', { sid: R.checkoutFailure })).toBe(real);
    expect(await count('SELECT count() FROM events WHERE $session_id = {sid} AND properties.$nothing_here IS NOT NULL', { sid: R.checkoutFailure })).toBe(0);
  });

  it('2024: the same errors with the code PostHog gave them then', async () => {
    const old = await sandbox({ api: '2024' });
    const syntax = await hogql(old, 'SELECT uuid FROM events; DROP TABLE events');
    expect(syntax.json).toEqual({ type: 'validation_error', code: 'invalid_input', detail: "mismatched input 'DROP' expecting <EOF>", attr: null });
    const query = await hogql(old, 'SELECT nosuchfield FROM events');
    expect(query.json).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Unable to resolve field: nosuchfield', attr: null });
    expect((await hogql(old, 'SELECT count() FROM events WHERE $session_id = {sid}', { sid: R.checkoutFailure })).json.results[0][0]).toBeGreaterThan(0);
  });

  it('answers a syntax error with the message of PostHog\'s own parser, as PostHog\'s API does', async () => {
    const parser = await createHogQLParser();
    const broken = ['SELECT uuid FROM events; DROP TABLE events', 'select uuid from', "SELECT uuid FROM events WHERE event = 'x", 'SELECT uuid FROM events WHERE event = {', 'SELECT ((((1'];
    for (const query of broken) {
      const parsed = JSON.parse(parser.parseSelect(query, true)) as { error?: boolean; type?: string; message?: string };
      expect(parsed.error, query).toBe(true);
      expect(parsed.type, query).toBe('SyntaxError');
      const res = await hogql(sb, query);
      expect(res.status, query).toBe(400);
      // posthog/api/query.py: ValidationError(str(e), e.code_name) for an ExposedHogQLError.
      expect(res.json, query).toEqual({ type: 'validation_error', code: 'hogql_syntax_error', detail: parsed.message, attr: null });
    }
    expect((await hogql(sb, 'SELECT uuid FROM events; DROP TABLE events')).json.detail).toBe("mismatched input 'DROP' expecting <EOF>");
    // What the parser cannot handle at all is an internal error there: PostHog does not catch it.
    const settings = await hogql(sb, 'SELECT uuid FROM events SETTINGS readonly=2');
    expect(settings.status).toBe(500);
    expect(settings.json).toEqual({ type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null });
  });

  it('answers what it cannot run with PostHog\'s query-error body, never a made-up result', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['SELECT uuid FROM nosuchtable', {}, /^Unknown table `nosuchtable`\.$/],
      ['SELECT id FROM sessions', {}, /does not serve `sessions`/],
      ['SELECT uuid FROM persons', {}, /^Unable to resolve field: uuid$/],
      ['SELECT nosuchfield FROM events', {}, /Unable to resolve field: nosuchfield/],
      ['SELECT uuid FROM events WHERE sleep(3) = 1', {}, /Unsupported function call 'sleep/],
      ['SELECT uuid FROM events WHERE $session_id = {sid}', {}, /^Unresolved placeholder: \{sid\}$/],
      ['SELECT uuid FROM events WHERE $session_id = {sid}', { other: 1, more: 'x' }, /^Placeholder \{sid\} is not available in this context\. You can use the following: other, more$/],
      ['SELECT uuid FROM events WHERE $session_id = {1 + 2}', { sid: 'x' }, /^Placeholder expressions are not yet supported$/],
      ['SELECT uuid FROM events WHERE $session_id = {sid}', { sid: { nested: 'object' } }, /^Placeholder \{sid\} has a value that is not/],
      ["SELECT uuid FROM events WHERE event = 'x' UNION ALL SELECT 1", {}, /does not evaluate UNION/],
      ['SELECT uuid FROM events LIMIT 10 OFFSET 5', {}, /^OFFSET is not supported on queries made with a personal API key\./],
      ['SELECT uuid FROM events e', {}, /does not evaluate a table alias/],
      ['SELECT uuid FROM events JOIN persons ON 1 = 1', {}, /does not evaluate JOIN/],
      ['SELECT DISTINCT uuid FROM events', {}, /does not evaluate DISTINCT/],
      ["SELECT uuid FROM events WHERE event LIKE '%x'", {}, /does not evaluate the 'like' comparison/],
      ['SELECT event, uuid FROM events GROUP BY event', {}, /not part of the GROUP BY/],
      ['SELECT uuid FROM events WHERE matchesAction(event)', {}, /constant arguments/],
      ['SELECT uuid FROM events WHERE matchesAction({a})', { a: 99 }, /^Could not find cohort with ID 99$/],
      ["SELECT uuid FROM events WHERE matchesAction('Nope')", {}, /^Could not find an action with the name 'Nope'$/],
    ];
    for (const [query, values, detail] of cases) {
      const res = await hogql(sb, query, values);
      expect(res.status, query).toBe(400);
      expect(res.json, query).toMatchObject({ type: 'validation_error', code: 'hogql_query_error', attr: null });
      expect(res.json.detail, query).toMatch(detail);
    }
    const kind = await request(sb, 'POST', `/api/projects/${MAIN}/query/`, { query: { kind: 'EventsQuery', select: ['*'] } });
    expect(kind.status).toBe(400);
    const unknownProject = await hogql(sb, 'SELECT uuid FROM events', {}, 999);
    expect(unknownProject.status).toBe(404);
    expect((await request(sb, 'GET', `/api/projects/${MAIN}/query/`)).status).toBe(405);
  });
});
