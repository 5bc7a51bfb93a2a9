import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, SANDBOX_API_KEY, SANDBOX_TIMEZONES, startSandbox, type Sandbox } from '../../src/sandbox/index.js';

let sb: Sandbox;
const AUTH = { Authorization: `Bearer ${SANDBOX_API_KEY}` };
const MAIN = DEMO.mainProjectId;
const R = DEMO.recordingIds;

interface Res {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function call(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; raw?: string } = {}): Promise<Res> {
  const headers: Record<string, string> = { ...AUTH, ...opts.headers };
  let body: string | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(sb.url + path, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
const get = (path: string, headers?: Record<string, string>) => call('GET', path, headers ? { headers } : {});
const recs = (suffix = '') => `/api/projects/${MAIN}/session_recordings/${suffix}`;
const q = (params: Record<string, unknown>) =>
  '?' + Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&');

beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb.close();
});
beforeEach(() => {
  sb.reset();
});

describe('sandbox basics', () => {
  it('starts quickly on a random local port and closes cleanly', async () => {
    const started = performance.now();
    const other = await startSandbox();
    expect(performance.now() - started).toBeLessThan(150);
    expect(other.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(other.apiKey).toBe(SANDBOX_API_KEY);
    await fetch(`${other.url}/api/projects/`, { headers: AUTH });
    await other.close();
  });

  it('records every request, with the key it carried, before auth', async () => {
    await get('/api/projects/?limit=2', { Authorization: 'Bearer phx_wrong' });
    await call('POST', '/api/projects/', { body: { name: 'Recorded' } });
    expect(sb.requests).toHaveLength(2);
    expect(sb.requests[0]).toMatchObject({ method: 'GET', path: '/api/projects/', query: { limit: '2' }, authorization: 'Bearer phx_wrong' });
    expect(sb.requests[1]).toMatchObject({ method: 'POST', authorization: `Bearer ${SANDBOX_API_KEY}`, body: '{"name":"Recorded"}' });
    expect(sb.requests[1]!.headers['content-type']).toBe('application/json');
  });

  it('answers 401 not_authenticated without credentials, with WWW-Authenticate', async () => {
    for (const headers of [{}, { Authorization: 'Token phx_localDemoKeyNotASecret' }] as Array<Record<string, string>>) {
      const res = await fetch(`${sb.url}/api/projects/`, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null });
      expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${sb.url}/.well-known/oauth-protected-resource"`);
    }
  });

  it('answers 401 authentication_failed for a wrong key', async () => {
    const res = await get('/api/projects/', { Authorization: 'Bearer phx_not_the_key' });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({
      type: 'authentication_error',
      code: 'authentication_failed',
      detail: 'Personal API key found in request Authorization header is invalid.',
      attr: null,
    });
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('accepts any phx_ key only when acceptAnyKey is set', async () => {
    const multi = await startSandbox({ acceptAnyKey: true, apiKey: 'phx_custom' });
    try {
      const ok = await fetch(`${multi.url}/api/projects/`, { headers: { Authorization: 'Bearer phx_someone_else' } });
      const bad = await fetch(`${multi.url}/api/projects/`, { headers: { Authorization: 'Bearer not_a_pak' } });
      expect(ok.status).toBe(200);
      expect(bad.status).toBe(401);
      expect(multi.requests.map((r) => r.authorization)).toEqual(['Bearer phx_someone_else', 'Bearer not_a_pak']);
    } finally {
      await multi.close();
    }
  });

  it('treats the trailing slash as optional, 404s unknown endpoints and 405s wrong methods', async () => {
    expect((await get('/api/projects')).status).toBe(200);
    expect((await get(`/api/projects/${MAIN}/session_recordings/${R.checkoutFailure}`)).status).toBe(200);
    const unknown = await get('/api/nothing_here/');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Endpoint not found.', attr: null });
    const wrong = await call('POST', recs(), { body: {} });
    expect(wrong.status).toBe(405);
    expect(wrong.json).toMatchObject({ type: 'invalid_request', code: 'method_not_allowed', detail: 'Method "POST" not allowed.' });
  });

  it('exports the full timezone list and sets JSON and Server-Timing headers', async () => {
    expect(SANDBOX_TIMEZONES).toHaveLength(439);
    expect(SANDBOX_TIMEZONES).toContain('Europe/London');
    expect(SANDBOX_TIMEZONES.at(-1)).toBe('UTC');
    const res = await get('/api/projects/');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('server-timing')).toMatch(/dur=/);
  });
});

describe('projects', () => {
  it('lists projects with DRF pagination and absolute page URLs', async () => {
    const all = await get('/api/projects/');
    expect(all.json.count).toBe(3);
    expect(all.json.results.map((p: any) => p.id)).toEqual(DEMO.projects.map((p) => p.id));
    expect(Object.keys(all.json.results[0]).sort()).toEqual(
      ['access_control', 'api_token', 'completed_snippet_onboarding', 'has_completed_onboarding_for', 'id', 'ingested_event', 'is_demo', 'name', 'organization', 'timezone', 'uuid'].sort(),
    );
    const page = await get('/api/projects/?limit=1&offset=1');
    expect(page.json.results.map((p: any) => p.id)).toEqual([DEMO.projects[1]!.id]);
    expect(page.json.next).toBe(`${sb.url}/api/projects/?limit=1&offset=2`);
    expect(page.json.previous).toBe(`${sb.url}/api/projects/?limit=1`);
    const search = await get('/api/projects/?search=marketing');
    expect(search.json.results.map((p: any) => p.name)).toEqual(['Acme Marketing Site']);
  });

  it('can answer the projects list with has_next instead', async () => {
    const other = await startSandbox({ projectsEnvelope: 'has_next' });
    try {
      const res = await fetch(`${other.url}/api/projects/?limit=2`, { headers: AUTH });
      const body: any = await res.json();
      expect(Object.keys(body).sort()).toEqual(['has_next', 'results']);
      expect(body.has_next).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('creates a project (201, full object, becomes @current), and default names', async () => {
    const res = await call('POST', '/api/projects/', { body: { name: '  Mobile app  ', timezone: 'Asia/Tokyo', unknown_field: 1 } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      name: 'Mobile app',
      timezone: 'Asia/Tokyo',
      organization: DEMO.organizationId,
      is_pending_deletion: false,
      session_recording_retention_period: '30d',
      anonymize_ips: false,
      capture_console_log_opt_in: true,
      app_urls: [],
      secret_api_token: null,
    });
    expect(res.json.project_id).toBe(res.json.id);
    expect(res.json.api_token).toMatch(/^phc_/);
    expect(Object.keys(res.json).length).toBeGreaterThan(80);
    expect(res.json).not.toHaveProperty('unknown_field');
    expect((await get('/api/projects/@current/')).json.id).toBe(res.json.id);
    const first = await call('POST', '/api/projects/', { body: {} });
    const second = await call('POST', '/api/projects/', {});
    expect([first.json.name, second.json.name]).toEqual(['Default project', 'Default project 2']);
  });

  it('rejects a duplicate name (409), a bad timezone and wrong types (400), and invalid JSON', async () => {
    const dup = await call('POST', '/api/projects/', { body: { name: 'acme SHOP' } });
    expect(dup.status).toBe(409);
    expect(dup.json).toMatchObject({ type: 'server_error', code: 'conflict', attr: 'name' });
    const tz = await call('POST', '/api/projects/', { body: { name: 'Mars base', timezone: 'Mars/Olympus' } });
    expect(tz.status).toBe(400);
    expect(tz.json).toEqual({ type: 'validation_error', code: 'invalid_choice', detail: '"Mars/Olympus" is not a valid choice.', attr: 'timezone' });
    const types = await call('POST', '/api/projects/', { body: { anonymize_ips: 'maybe' } });
    expect(types.json).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Must be a valid boolean.', attr: 'anonymize_ips' });
    const list = await call('POST', '/api/projects/', { body: { app_urls: 'https://x.example.com' } });
    expect(list.json).toMatchObject({ code: 'not_a_list', attr: 'app_urls' });
    const long = await call('POST', '/api/projects/', { body: { name: 'x'.repeat(201) } });
    expect(long.json).toMatchObject({ code: 'max_length', attr: 'name' });
    const parse = await call('POST', '/api/projects/', { raw: '{"name": ', headers: { 'Content-Type': 'application/json' } });
    expect(parse.status).toBe(400);
    expect(parse.json).toMatchObject({ type: 'invalid_request', code: 'parse_error' });
    expect((await get('/api/projects/')).json.count).toBe(3);
  });

  it('patches writable fields, merges modifiers, validates, and bumps updated_at', async () => {
    const before = (await get(`/api/projects/${MAIN}/`)).json;
    const res = await call('PATCH', `/api/projects/${MAIN}/`, { body: { name: 'Acme Shop', timezone: 'Europe/Berlin', modifiers: { a: 1 }, id: 5 } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: MAIN, timezone: 'Europe/Berlin', modifiers: { a: 1 } });
    expect(res.json.updated_at).not.toBe(before.updated_at);
    const merged = await call('PATCH', `/api/projects/${MAIN}/`, { body: { modifiers: { b: 2 } } });
    expect(merged.json.modifiers).toEqual({ a: 1, b: 2 });
    const bad = await call('PATCH', `/api/projects/${MAIN}/`, { body: { week_start_day: 3 } });
    expect(bad.json).toMatchObject({ code: 'invalid_choice', attr: 'week_start_day' });
    const renamed = await call('PATCH', `/api/projects/${MAIN}/`, { body: { name: 'Staging' } });
    expect(renamed.status).toBe(409);
    expect((await get('/api/projects/abc/')).json).toMatchObject({ code: 'not_found', detail: 'Not found.' });
  });
  // Deletion (background today, immediate in 2024): test/sandbox/projects-api.test.ts.
});

describe('session recordings list', () => {
  it('answers PostHog’s {results, has_next, version} with the recording shape', async () => {
    const res = await get(recs());
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['has_next', 'results', 'version']);
    expect(res.json.version).toBe(4);
    const rec = res.json.results.find((r: any) => r.id === R.checkoutFailure);
    expect(Object.keys(rec).sort()).toEqual(
      [
        'active_seconds', 'activity_score', 'click_count', 'console_error_count', 'console_log_count', 'console_warn_count', 'distinct_id',
        'end_time', 'expiry_time', 'external_references', 'has_summary', 'id', 'inactive_seconds', 'keypress_count', 'matches_filters',
        'mouse_activity_count', 'ongoing', 'person', 'recording_duration', 'recording_ttl', 'retention_period_days', 'snapshot_library',
        'snapshot_source', 'start_time', 'start_url', 'summary_outcome', 'viewed', 'viewers',
      ].sort(),
    );
    expect(rec).toMatchObject({ viewed: false, snapshot_source: 'web', start_url: 'https://shop.example.com/', has_summary: false });
    expect(rec.console_error_count).toBeGreaterThanOrEqual(1);
    expect(rec.start_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
    expect(rec.person).toMatchObject({ name: 'olivia.martin@example.com', distinct_ids: ['cus_8842', expect.any(String)] });
    const anon = res.json.results.find((r: any) => r.id === R.anonymousBounce);
    expect(anon.person).toMatchObject({ id: null, name: null, properties: {}, created_at: null, distinct_ids: [anon.distinct_id] });
    expect(anon.person.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.json.results.find((r: any) => r.id === R.ongoing).ongoing).toBe(true);
  });

  it('defaults to the last 3 days, newest first', async () => {
    const res = await get(recs());
    const ids = res.json.results.map((r: any) => r.id);
    expect(ids).not.toContain(R.legacyBlob);
    const starts = res.json.results.map((r: any) => Date.parse(r.start_time));
    expect([...starts].sort((a, b) => b - a)).toEqual(starts);
    const week = await get(recs(q({ date_from: '-7d' })));
    expect(week.json.results.map((r: any) => r.id)).toContain(R.legacyBlob);
  });

  it('pages with limit/offset and has_next; limit 0 means 50', async () => {
    const first = await get(recs('?limit=4'));
    expect(first.json.results).toHaveLength(4);
    expect(first.json.has_next).toBe(true);
    const rest = await get(recs('?limit=50&offset=4'));
    expect(rest.json.has_next).toBe(false);
    const all = await get(recs('?limit=0'));
    expect(all.json.results.map((r: any) => r.id)).toEqual([...first.json.results, ...rest.json.results].map((r: any) => r.id));
  });

  it('can answer with the documented DRF envelope', async () => {
    const other = await startSandbox({ recordingsEnvelope: 'drf' });
    try {
      const res = await fetch(`${other.url}/api/projects/${MAIN}/session_recordings/?limit=3`, { headers: AUTH });
      const body: any = await res.json();
      expect(Object.keys(body).sort()).toEqual(['count', 'next', 'previous', 'results']);
      expect(body.count).toBeGreaterThan(3);
      expect(body.next).toBe(`${other.url}/api/projects/${MAIN}/session_recordings/?limit=3&offset=3`);
      expect(body.previous).toBeNull();
    } finally {
      await other.close();
    }
  });

  it('rejects unknown or mistyped parameters with a pydantic error list', async () => {
    const res = await get(recs('?personal_api_key=x&limit=ten'));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr: null });
    const errors = JSON.parse(res.json.detail);
    expect(errors.map((e: any) => [e.type, e.loc])).toEqual([
      ['int_parsing', ['limit']],
      ['extra_forbidden', ['personal_api_key']],
    ]);
    expect((await get(recs('?session_ids=abc'))).status).toBe(400);
    expect((await get(recs('?order=loudness'))).status).toBe(400);
  });

  it('filters and orders like PostHog', async () => {
    const bySession = await get(recs(q({ session_ids: [R.checkoutFailure, R.searchRageClick] })));
    expect(bySession.json.results.map((r: any) => r.id).sort()).toEqual([R.checkoutFailure, R.searchRageClick].sort());
    const rage = await get(recs(q({ events: [{ id: '$rageclick', type: 'events' }] })));
    expect(rage.json.results.map((r: any) => r.id).sort()).toEqual([R.checkoutFailure, R.searchRageClick].sort());
    const errorsFirst = await get(recs(q({ order: 'console_error_count', limit: 1 })));
    expect(errorsFirst.json.results[0].console_error_count).toBeGreaterThan(0);
    const asc = await get(recs(q({ order: 'duration', order_direction: 'ASC' })));
    const durations = asc.json.results.map((r: any) => r.recording_duration);
    expect([...durations].sort((a, b) => a - b)).toEqual(durations);
    const noTests = await get(recs(q({ filter_test_accounts: true })));
    expect(noTests.json.results.map((r: any) => r.id)).not.toContain(R.internalQa);
    const person = DEMO.recordings.find((r) => r.name === 'checkoutFailure')!.personUuid!;
    const byPerson = await get(recs(q({ person_uuid: person, date_from: '-7d' })));
    expect(byPerson.json.results.map((r: any) => r.id).sort()).toEqual([R.checkoutFailure, R.accountSettings].sort());
  });

  it('404s an unknown project and a non-integer project id; @current works', async () => {
    expect((await get('/api/projects/999999/session_recordings/')).json.detail).toBe('Project not found.');
    expect((await get('/api/projects/abc/session_recordings/')).json.detail).toBe('Project not found.');
    expect((await get('/api/projects/@current/session_recordings/?limit=1')).status).toBe(200);
    const empty = await get(`/api/projects/${DEMO.emptyProjectId}/session_recordings/`);
    expect(empty.json).toEqual({ results: [], has_next: false, version: 4 });
  });
});

describe('a single recording', () => {
  it('gets one recording, and 404s unknown ids and other projects’ ids', async () => {
    const res = await get(recs(`${R.successfulPurchase}/`));
    expect(res.json).toMatchObject({ id: R.successfulPurchase, viewed: true, snapshot_library: 'web' });
    const missing = await get(recs('no-such-recording/'));
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Recording not found', attr: null });
    expect((await get(`/api/projects/${DEMO.marketingProjectId}/session_recordings/${R.checkoutFailure}/`)).status).toBe(404);
  });

  it('deletes for real: gone from list and get, snapshots 410, second delete 404', async () => {
    const del = await call('DELETE', recs(`${R.twoTabs}/`));
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await get(recs(`${R.twoTabs}/`))).status).toBe(404);
    expect((await get(recs())).json.results.map((r: any) => r.id)).not.toContain(R.twoTabs);
    const snaps = await get(recs(`${R.twoTabs}/snapshots/`));
    expect(snaps.status).toBe(410);
    expect(snaps.json).toMatchObject({ error: 'recording_deleted', deleted_by: DEMO.user.email });
    expect(snaps.json.deleted_at).toEqual(expect.any(String));
    expect((await call('DELETE', recs(`${R.twoTabs}/`))).status).toBe(404);
    sb.reset();
    expect((await get(recs(`${R.twoTabs}/`))).status).toBe(200);
  });

  it('marks a recording viewed with PATCH', async () => {
    const bad = await call('PATCH', recs(`${R.checkoutFailure}/`), { body: {} });
    expect(bad.status).toBe(400);
    const ok = await call('PATCH', recs(`${R.checkoutFailure}/`), { body: { viewed: true } });
    expect(ok.json).toEqual({ success: true });
    expect((await get(recs(`${R.checkoutFailure}/`))).json.viewed).toBe(true);
  });
});

/** Parses a blob_v2 body: JSONL lines of [windowId, rrwebEvent]. */
function parseJsonl(text: string): Array<[string, any]> {
  expect(text.endsWith('\n')).toBe(false);
  return text.split('\n').map((line) => {
    const parsed = JSON.parse(line);
    expect(Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string').toBe(true);
    expect(typeof parsed[1].type).toBe('number');
    expect(typeof parsed[1].timestamp).toBe('number');
    return parsed as [string, any];
  });
}

async function allBlobV2Events(id: string): Promise<Array<[string, any]>> {
  const sources = (await get(recs(`${id}/snapshots/`))).json.sources.filter((s: any) => s.source === 'blob_v2');
  const out: Array<[string, any]> = [];
  for (let start = 0; start < sources.length; start += 21) {
    const end = Math.min(sources.length - 1, start + 20);
    const res = await get(recs(`${id}/snapshots/?source=blob_v2&start_blob_key=${start}&end_blob_key=${end}`));
    expect(res.status).toBe(200);
    out.push(...parseJsonl(res.text));
  }
  return out;
}

function unpack(field: unknown): any {
  return typeof field === 'string' ? JSON.parse(gunzipSync(Buffer.from(field, 'latin1')).toString('utf8')) : field;
}

describe('snapshots', () => {
  it('lists blob_v2 sources and serves a block range as JSONL', async () => {
    const listing = await get(recs(`${R.checkoutFailure}/snapshots/`));
    const sources = listing.json.sources;
    expect(sources.length).toBeGreaterThan(1);
    expect(sources[0]).toEqual({ source: 'blob_v2', start_timestamp: expect.stringMatching(/Z$/), end_timestamp: expect.stringMatching(/Z$/), blob_key: '0' });
    const res = await get(recs(`${R.checkoutFailure}/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=${sources.length - 1}`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/jsonl');
    const lines = parseJsonl(res.text);
    const types = new Set(lines.map(([, e]) => e.type));
    for (const t of [2, 3, 4, 5, 6]) expect(types.has(t)).toBe(true);
    const first = await get(recs(`${R.checkoutFailure}/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=0`));
    expect(res.text.startsWith(first.text)).toBe(true);
  });

  it('tells the story of the failed checkout in the events', async () => {
    const lines = await allBlobV2Events(R.checkoutFailure);
    const events = lines.map(([, e]) => e);
    const consoleErrors = events.filter((e) => e.type === 6 && e.data.plugin === 'rrweb/console@1' && e.data.payload.level === 'error');
    expect(consoleErrors[0].data.payload.payload[0]).toMatch(/^".*TypeError.*"$/);
    const failed = events.filter((e) => e.type === 6 && e.data.plugin === 'rrweb/network@1').flatMap((e) => e.data.payload.requests).filter((r: any) => r.responseStatus >= 500);
    expect(failed[0]).toMatchObject({ method: 'POST', name: 'https://shop.example.com/api/checkout' });
    const clicks = events.filter((e) => e.type === 3 && e.data.source === 2 && e.data.type === 2);
    const rage = clicks.some((c, i) => i >= 2 && clicks[i - 2].data.id === c.data.id && clicks[i - 1].data.id === c.data.id && c.timestamp - clicks[i - 2].timestamp < 1000);
    expect(rage).toBe(true);
    const meta = events.filter((e) => e.type === 4).map((e) => e.data.href);
    expect(meta).toContain('https://shop.example.com/checkout');
    const rec = (await get(recs(`${R.checkoutFailure}/`))).json;
    expect(rec.click_count).toBe(clicks.length);
    expect(rec.console_error_count).toBe(consoleErrors.length);
  });

  it('rejects bad block requests like PostHog', async () => {
    const base = recs(`${R.longBrowse}/snapshots/?source=blob_v2`);
    expect((await get(`${base}&start_blob_key=0`)).json.detail).toBe('Must provide both start blob key and end blob key');
    expect((await get(`${base}&start_blob_key=0&end_blob_key=a`)).json.detail).toBe('Blob keys must be integers');
    const tooMany = await get(`${base}&start_blob_key=0&end_blob_key=21`);
    expect(tooMany.status).toBe(400);
    expect((await get(`${base}&start_blob_key=0&end_blob_key=20`)).status).toBe(200);
    const out = await get(`${base}&start_blob_key=0&end_blob_key=99`);
    expect(out.status).toBe(400); // span check comes first
    const range = await get(`${base}&start_blob_key=90&end_blob_key=99`);
    expect(range.status).toBe(404);
    expect(range.json.detail).toBe('Block index out of range');
    const invalid = await get(recs(`${R.longBrowse}/snapshots/?source=BLOB_V2`));
    expect(invalid.json.detail).toBe('Invalid source must be one of [blob_v2, blob_v2_ts, None]');
  });

  it('serves decompress=false as length-prefixed snappy blocks', async () => {
    const base = recs(`${R.checkoutFailure}/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=1`);
    const jsonl = (await get(base)).text;
    const res = await fetch(`${sb.url}${base}&decompress=false`, { headers: AUTH });
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    const buf = Buffer.from(await res.arrayBuffer());
    const blocks: string[] = [];
    for (let pos = 0; pos < buf.length; ) {
      const end = pos + 4 + buf.readUInt32BE(pos);
      pos += 4;
      let shift = 0;
      let expected = 0;
      for (let b = 0x80; b & 0x80; shift += 7) expected += ((b = buf[pos++]!) & 0x7f) * 2 ** shift;
      const parts: Buffer[] = [];
      while (pos < end) {
        const tag = buf[pos++]!;
        expect(tag & 3).toBe(0); // literal
        let len = tag >> 2;
        if (len === 60) len = buf[pos++]!;
        else if (len === 61) len = buf.readUInt16LE((pos += 2) - 2);
        parts.push(buf.subarray(pos, pos + len + 1));
        pos += len + 1;
      }
      const block = Buffer.concat(parts);
      expect(block.length).toBe(expected);
      blocks.push(block.toString('utf8'));
    }
    expect(blocks).toHaveLength(2);
    expect(blocks.join('').replace(/\n$/, '')).toBe(jsonl);
  });

  it('has a long recording with more than 21 blocks, readable in pages', async () => {
    const sources = (await get(recs(`${R.longBrowse}/snapshots/`))).json.sources;
    expect(sources.length).toBeGreaterThan(21);
    const lines = await allBlobV2Events(R.longBrowse);
    const stamps = lines.map(([, e]) => e.timestamp);
    expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
    expect(lines.filter(([, e]) => e.type === 3 && e.data.source === 4)).toHaveLength(1); // one viewport resize
  });

  it('serves a recording recorded in two tabs with two window ids', async () => {
    const lines = await allBlobV2Events(R.twoTabs);
    expect(new Set(lines.map(([w]) => w))).toEqual(new Set(DEMO.recordings.find((r) => r.name === 'twoTabs')!.windowIds));
  });

  it('serves posthog-js compressed events (cv 2024-10) that gunzip from latin1', async () => {
    const lines = await allBlobV2Events(R.compressedMobile);
    const compressed = lines.map(([, e]) => e).filter((e) => e.cv === '2024-10');
    const full = compressed.find((e) => e.type === 2);
    expect(typeof full.data).toBe('string');
    const node = unpack(full.data).node;
    expect(node).toMatchObject({ type: 0, id: 1 });
    const mutation = compressed.find((e) => e.type === 3 && e.data.source === 0);
    expect(mutation.data.source).toBe(0);
    expect(Array.isArray(unpack(mutation.data.adds))).toBe(true);
    expect(Array.isArray(unpack(mutation.data.texts))).toBe(true);
    const sheet = compressed.find((e) => e.type === 3 && e.data.source === 8);
    expect(unpack(sheet.data.adds)[0].rule).toContain('@media');
    expect(lines.some(([, e]) => e.type === 3 && e.data.source === 0 && e.cv === undefined)).toBe(true); // small ones stay plain
  });

  it('serves the LTS-only recording from its blob_v2_lts key', async () => {
    const listing = await get(recs(`${R.longTermStorage}/snapshots/`));
    const lts = DEMO.recordings.find((r) => r.name === 'longTermStorage')!.ltsBlobKey!;
    expect(listing.json.sources).toEqual([{ source: 'blob_v2_lts', start_timestamp: null, end_timestamp: null, blob_key: lts }]);
    expect(lts).toBe(`session_recordings_lts/team_id/${MAIN}/session_id/${R.longTermStorage}/data`);
    const res = await get(recs(`${R.longTermStorage}/snapshots/?source=blob_v2_lts&blob_key=${encodeURIComponent(lts)}`));
    expect(res.headers.get('cache-control')).toBe('max-age=86400');
    expect(parseJsonl(res.text)[0]![1].type).toBeTypeOf('number');
    expect((await get(recs(`${R.longTermStorage}/snapshots/?source=blob_v2_lts&blob_key=wrong`))).status).toBe(404);
  });

  it("today: every demo recording's listing has only blob_v2 blocks (keys 0, 1, …) or a single blob_v2_lts file", async () => {
    for (const r of DEMO.recordings) {
      const res = await get(`/api/projects/${r.projectId}/session_recordings/${r.id}/snapshots/`);
      expect(res.status, r.name).toBe(200);
      const sources = res.json.sources as Array<{ source: string; blob_key: string | null; start_timestamp: string | null; end_timestamp: string | null }>;
      expect(sources.length, r.name).toBeGreaterThan(0);
      if (sources[0]!.source === 'blob_v2_lts') {
        expect(sources, r.name).toEqual([{ source: 'blob_v2_lts', start_timestamp: null, end_timestamp: null, blob_key: r.ltsBlobKey }]);
      } else {
        expect(sources, r.name).toEqual(sources.map((_, i) => ({ source: 'blob_v2', start_timestamp: expect.stringMatching(/Z$/), end_timestamp: expect.stringMatching(/Z$/), blob_key: String(i) })));
      }
    }
  });

  it('today: the legacy recording is its long-term copy, holding every event of its v1 files', async () => {
    const lts = DEMO.recordings.find((r) => r.name === 'legacyBlob')!.ltsBlobKey!;
    expect(lts).toBe(`session_recordings_lts/team_id/${MAIN}/session_id/${R.legacyBlob}/data`);
    expect((await get(recs(`${R.legacyBlob}/snapshots/`))).json.sources).toEqual([{ source: 'blob_v2_lts', start_timestamp: null, end_timestamp: null, blob_key: lts }]);
    // The same recording in both APIs, on one clock: today's LTS file against 2024's v1 files.
    const now = new Date();
    const [today, old] = await Promise.all([startSandbox({ now }), startSandbox({ api: '2024', now })]);
    try {
      const snapshots = (box: Sandbox, query: string) => fetch(`${box.url}/api/projects/${MAIN}/session_recordings/${R.legacyBlob}/snapshots/${query}`, { headers: AUTH });
      const res = await snapshots(today, `?source=blob_v2_lts&blob_key=${encodeURIComponent(lts)}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('max-age=86400');
      const events = parseJsonl(await res.text()).map(([w, e]) => `${w}:${e.type}:${e.timestamp}`);
      const files = ((await (await snapshots(old, '')).json()) as { sources: Array<{ source: string; blob_key: string }> }).sources;
      expect(files.every((f) => f.source === 'blob')).toBe(true);
      const v1: string[] = [];
      for (const f of files) {
        for (const line of (await (await snapshots(old, `?source=blob&blob_key=${f.blob_key}`)).text()).split('\n')) {
          const { window_id, data } = JSON.parse(line);
          for (const e of data) v1.push(`${window_id}:${e.type}:${e.timestamp}`);
        }
      }
      expect(events.length).toBeGreaterThan(10);
      expect(events).toEqual(v1);
    } finally {
      await Promise.all([today.close(), old.close()]);
    }
  });

  it('today: the ongoing recording lists only its stored blocks, which end before the recording does', async () => {
    const sources = (await get(recs(`${R.ongoing}/snapshots/`))).json.sources;
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.every((s: any) => s.source === 'blob_v2')).toBe(true);
    const rec = (await get(recs(`${R.ongoing}/`))).json;
    expect(rec.ongoing).toBe(true);
    const lines = await allBlobV2Events(R.ongoing);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.at(-1)![1].timestamp).toBeLessThan(Date.parse(rec.end_time));
  });

  it("today: source=realtime and source=blob are invalid, with PostHog's 400", async () => {
    const sources = (await get(recs(`${R.legacyBlob}/snapshots/`))).json.sources;
    for (const path of [
      `${R.ongoing}/snapshots/?source=realtime`,
      `${R.ongoing}/snapshots/?source=realtime&version=2024-04-30`,
      `${R.legacyBlob}/snapshots/?source=blob&blob_key=${encodeURIComponent(sources[0].blob_key)}`,
      `${R.legacyBlob}/snapshots/?source=blob&blob_key=1747540783283-1747540787122`,
      `${R.checkoutFailure}/snapshots/?source=realtime`,
    ]) {
      const res = await get(recs(path));
      expect(res.status, path).toBe(400);
      expect(res.json, path).toMatchObject({ type: 'validation_error', detail: 'Invalid source must be one of [blob_v2, blob_v2_ts, None]' });
    }
  });

  it('produces rrweb data whose node references all resolve', async () => {
    for (const name of ['checkoutFailure', 'compressedMobile', 'twoTabs', 'searchRageClick'] as const) {
      const lines = await allBlobV2Events(R[name]);
      const nodes = new Map<string, Set<number>>();
      const collect = (set: Set<number>, node: any) => {
        set.add(node.id);
        for (const child of node.childNodes ?? []) collect(set, child);
      };
      for (const [w, e] of lines) {
        if (e.type === 2) {
          const set = new Set<number>();
          collect(set, unpack(e.data).node);
          nodes.set(w, set);
          continue;
        }
        if (e.type !== 3) continue;
        const ids = nodes.get(w)!;
        expect(ids, `${name}: incremental event before a full snapshot`).toBeDefined();
        const d = e.data;
        if (d.source === 0) {
          for (const add of unpack(d.adds)) {
            expect(ids.has(add.parentId)).toBe(true);
            collect(ids, add.node);
          }
          for (const rm of unpack(d.removes)) expect(ids.has(rm.id)).toBe(true);
          for (const t of unpack(d.texts)) expect(ids.has(t.id)).toBe(true);
          for (const a of unpack(d.attributes)) expect(ids.has(a.id)).toBe(true);
          for (const rm of unpack(d.removes)) ids.delete(rm.id);
        } else if (d.source === 2 || d.source === 5 || d.source === 3) {
          expect(ids.has(d.id), `${name}: event references unknown node ${d.id}`).toBe(true);
        }
      }
    }
  });
});

/** Within a describe: `sb` is a sandbox of the 2024 API, and today's again after it. */
function useSandbox2024(): void {
  let today: Sandbox;
  beforeAll(async () => {
    today = sb;
    sb = await startSandbox({ api: '2024' });
  });
  afterAll(async () => {
    await sb.close();
    sb = today;
  });
}

describe('snapshots in the 2024 API: v1 blob files and the realtime tail', () => {
  useSandbox2024();

  it('2024: serves the legacy recording as v1 blob files of {window_id, data}', async () => {
    const sources = (await get(recs(`${R.legacyBlob}/snapshots/`))).json.sources;
    expect(sources[0].source).toBe('blob');
    expect(sources[0].blob_key).toMatch(/^\d{13}-\d{13}$/);
    const res = await get(recs(`${R.legacyBlob}/snapshots/?source=blob&blob_key=${sources[0].blob_key}`));
    expect(res.headers.get('content-type')).toBe('application/json');
    const lines = res.text.split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ window_id: expect.any(String), data: expect.any(Array) });
    expect(lines[0].data[0].timestamp).toBe(Number(sources[0].blob_key.split('-')[0]));
  });

  it('2024: serves the tail of the ongoing recording as realtime', async () => {
    const sources = (await get(recs(`${R.ongoing}/snapshots/`))).json.sources;
    const realtime = sources.at(-1);
    expect(realtime).toEqual({ source: 'realtime', start_timestamp: expect.any(String), end_timestamp: null, blob_key: null });
    const res = await get(recs(`${R.ongoing}/snapshots/?source=realtime`));
    expect(res.json.snapshots.length).toBeGreaterThan(0);
    expect(res.json.snapshots[0]).toMatchObject({ windowId: expect.any(String), type: expect.any(Number) });
    expect(res.json.snapshots[0].timestamp).toBeGreaterThanOrEqual(Date.parse(realtime.start_timestamp));
    const lastBlock = sources.at(-2);
    expect(Date.parse(lastBlock.end_timestamp)).toBeLessThan(res.json.snapshots[0].timestamp);
    const v2 = await get(recs(`${R.ongoing}/snapshots/?source=realtime&version=2024-04-30`));
    expect(JSON.parse(v2.text.split('\n')[0]!)).toMatchObject({ window_id: expect.any(String), data: expect.any(Array) });
  });
});

describe('matching_events and properties (2024 API, legacy unscoped key)', () => {
  const path = recs('matching_events/');
  useSandbox2024();

  it('requires exactly one session id and at least one filter', async () => {
    const none = await get(path + q({ events: [{ id: '$pageview' }] }));
    expect(none.json).toMatchObject({ type: 'validation_error', detail: 'Must specify exactly one session_id' });
    const two = await get(path + q({ session_ids: [R.checkoutFailure, R.ongoing], events: [{ id: '$pageview' }] }));
    expect(two.status).toBe(400);
    const noFilter = await get(path + q({ session_ids: [R.checkoutFailure] }));
    expect(noFilter.json.detail).toBe('Must specify at least one event or action filter, or event properties filter');
  });

  it('returns matching event uuids and timestamps', async () => {
    const res = await get(path + q({ session_ids: [R.checkoutFailure], events: [{ id: '$exception', type: 'events' }] }));
    expect(res.status).toBe(200);
    expect(res.json.results.length).toBe(2);
    expect(res.json.results[0]).toEqual({ uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), timestamp: expect.stringMatching(/\+00:00$/) });
    const rec = (await get(recs(`${R.checkoutFailure}/`))).json;
    const t = Date.parse(res.json.results[0].timestamp);
    expect(t).toBeGreaterThanOrEqual(Date.parse(rec.start_time));
    expect(t).toBeLessThanOrEqual(Date.parse(rec.end_time));
    const action = DEMO.actions.find((a) => a.event === '$rageclick')!;
    const byAction = await get(path + q({ session_ids: [R.checkoutFailure], actions: [{ id: action.id, type: 'actions' }] }));
    expect(byAction.json.results).toHaveLength(1);
  });

  it('answers the 2024 properties action', async () => {
    const res = await get(recs('properties/') + q({ session_ids: [R.checkoutFailure, R.compressedMobile, 'nope'] }));
    expect(res.json.results).toHaveLength(2);
    expect(res.json.results[1]).toEqual({
      id: R.compressedMobile,
      properties: {
        $os: 'iOS',
        $browser: 'Mobile Safari',
        $device_type: 'Mobile',
        $current_url: 'https://shop.example.com/collections/sale',
        $host: 'shop.example.com',
        $pathname: '/collections/sale',
        $geoip_country_code: 'NG',
        $geoip_country_name: 'Nigeria',
      },
    });
  });
});

describe('faults', () => {
  it('answers an injected status with PostHog-like default bodies, for `times` requests', async () => {
    sb.injectFault({ path: '/api/projects', status: 429, times: 2 });
    const a = await get('/api/projects/');
    const b = await get('/api/projects/');
    const c = await get('/api/projects/');
    expect([a.status, b.status, c.status]).toEqual([429, 429, 200]);
    expect(a.json).toEqual({ type: 'throttled_error', code: 'throttled', detail: 'Request was throttled. Expected available in 2 seconds.', attr: null });
    sb.injectFault({ method: 'GET', path: /session_recordings\/?$/, status: 500 });
    const e = await get(recs());
    expect(e.json).toEqual({ error: 'An internal server error occurred. Please try again later.' });
    sb.injectFault({ path: '/api/projects/', status: 503, body: { error: 'ClickHouse over capacity. Please retry' }, headers: { 'Retry-After': '1' } });
    const f = await get('/api/projects');
    expect(f.status).toBe(503);
    expect(f.headers.get('retry-after')).toBe('1');
    expect(f.json).toEqual({ error: 'ClickHouse over capacity. Please retry' });
  });

  it('resets the connection, delays, and sends malformed JSON', async () => {
    sb.injectFault({ path: '/api/projects/', reset: true });
    await expect(fetch(`${sb.url}/api/projects/`, { headers: AUTH })).rejects.toThrow();
    sb.injectFault({ path: '/api/projects/', delayMs: 150 });
    const started = performance.now();
    const slow = await get('/api/projects/');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(slow.status).toBe(200);
    sb.injectFault({ path: '/api/projects/', malformed: true });
    const bad = await get('/api/projects/');
    expect(bad.status).toBe(200);
    expect(() => JSON.parse(bad.text)).toThrow();
    expect((await get('/api/projects/')).status).toBe(200);
    expect(sb.requests.filter((r) => r.path === '/api/projects/')).toHaveLength(4);
  });

  it('lets a fault bring its own body and content type', async () => {
    sb.injectFault({ path: '/api/projects/', status: 502, body: '<html><body>502 Bad Gateway</body></html>', headers: { 'Content-Type': 'text/html' } });
    const res = await get('/api/projects/');
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(res.text).toContain('Bad Gateway');
  });

  it('applies faults in order, Infinity times until cleared', async () => {
    sb.injectFault({ path: '/api/projects', status: 502, times: Infinity });
    sb.injectFault({ path: '/api/projects', status: 504 });
    expect((await get('/api/projects/')).status).toBe(502);
    expect((await get('/api/projects/')).status).toBe(502);
    sb.clearFaults();
    expect((await get('/api/projects/')).status).toBe(200);
  });

  it('reset() restores data and clears requests and faults', async () => {
    await call('POST', '/api/projects/', { body: { name: 'Temp' } });
    await call('DELETE', recs(`${R.checkoutFailure}/`));
    sb.injectFault({ path: '/api/projects/', status: 500, times: Infinity });
    sb.reset();
    expect(sb.requests).toHaveLength(0);
    const projects = await get('/api/projects/');
    expect(projects.status).toBe(200);
    expect(projects.json.count).toBe(3);
    expect((await get('/api/projects/@current/')).json.id).toBe(MAIN);
    expect((await get(recs(`${R.checkoutFailure}/`))).status).toBe(200);
  });
});

describe('demo clock', () => {
  it('places recordings relative to `now`', async () => {
    const now = new Date('2025-06-02T12:00:00Z');
    const other = await startSandbox({ now });
    try {
      const res = await fetch(`${other.url}/api/projects/${MAIN}/session_recordings/${R.checkoutFailure}/`, { headers: AUTH });
      const rec: any = await res.json();
      expect(Date.parse(rec.start_time)).toBe(now.getTime() - (2 * 60 + 14) * 60_000);
      const ongoing: any = await (await fetch(`${other.url}/api/projects/${MAIN}/session_recordings/${R.ongoing}/`, { headers: AUTH })).json();
      expect(Date.parse(ongoing.end_time)).toBe(now.getTime() - 40_000);
    } finally {
      await other.close();
    }
  });
});
