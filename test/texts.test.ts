import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';

const P = DEMO.mainProjectId;
const R = DEMO.recordingIds.checkoutFailure;
/** Written by a recorded site's user: String() and template literals throw on it. */
const HOSTILE = { toString: 'x' };

describe('result and error texts', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('project-get with include_settings shows array settings as JSON, never [object Object]', async () => {
    const filters = [{ key: 'email', value: '@acme.test', operator: 'not_icontains', type: 'person' }];
    h.sandbox.injectFault({ method: 'GET', path: `/api/projects/${P}`, status: 200, body: { id: P, name: 'Acme Shop', test_account_filters: filters, app_urls: ['https://a.test', 'https://b.test'] } });
    const r = await h.call('project-get', { id: P, include_settings: true });
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).not.toContain('[object Object]');
    expect(text(r)).toContain('test_account_filters=[{"key":"email"');
    expect(text(r)).toContain('app_urls="https://a.test","https://b.test"');
  });

  it('ends a 404 text with one full stop, and says which tool lists valid ids', async () => {
    const r = await h.call('project-get', { id: 999_999 });
    expect(r.isError).toBe(true);
    expect(text(r)).not.toMatch(/\.\./);
    expect(text(r)).toMatch(/projects-list/);
  });

  it('does not say "See PostHog\'s message above" when PostHog gave none', async () => {
    h.sandbox.injectFault({ method: 'GET', path: `/api/projects/${P}`, status: 422, body: {} });
    const r = await h.call('project-get', { id: P });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/422/);
    expect(text(r)).not.toMatch(/message above/);
  });

  it('projects-list with a search whose match lies before the offset says so, not "No projects matching"', async () => {
    const name = DEMO.projects[0]!.name;
    const first = await h.call('projects-list', { search: name });
    const count = (first.structuredContent as { count?: number }).count;
    expect(count).toBeGreaterThanOrEqual(1);
    const r = await h.call('projects-list', { search: name, offset: 50 });
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).not.toMatch(/^No projects matching/);
    expect(text(r)).toMatch(new RegExp(`${count} projects? matching "${name}" in all, before this offset\\. Call again with offset=0`));
  });
});

/** A count of one with a plural noun: "1 rage clicks", "1 warnings", "1 errors". */
const ONE_PLURAL = /\b1 (?:[a-z]+ )?(?:clicks|errors|warnings|requests|sessions|recordings|problems|windows|views|events|resizes|people|keys)\b/;

describe('texts read as written by hand', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('says "1 rage click", "1 warning", "1 error": one plural, in triage, summaries and lists', async () => {
    const triage = await h.call('session-recordings-triage', { project_id: String(P), date_from: '-90d', max_recordings: 50, max_chars: 20_000 });
    expect(triage.isError, text(triage)).toBeFalsy();
    const texts = [text(triage)];
    // The demo data has sessions with exactly one of these: the singular is exercised, not assumed.
    expect(text(triage)).toMatch(/\b1 rage click\b/);
    expect(text(triage)).toMatch(/\b1 warning\b/);
    const list = await h.call('session-recordings-list', { project_id: String(P), date_from: '-90d', limit: 100 });
    texts.push(text(list));
    for (const { id } of (list.structuredContent as { results: Array<{ id: string }> }).results) texts.push(text(await h.call('session-recording-summary', { project_id: String(P), id })));
    for (const t of texts) expect(t).not.toMatch(ONE_PLURAL);
  });

  it('gives a recording\'s length in one format, the same in the list and in its summary', async () => {
    const list = await h.call('session-recordings-list', { project_id: String(P), date_from: '-90d', limit: 100 });
    let compared = 0;
    for (const line of text(list).split('\n')) {
      const match = /^([0-9a-f-]{36}) · [^·]+ · (\d+:\d\d(?::\d\d)?) \(/.exec(line);
      if (!match || line.includes('ongoing')) continue;
      const summary = text(await h.call('session-recording-summary', { project_id: String(P), id: match[1] }));
      expect(summary, match[1]).toContain(`: ${match[2]} long,`);
      compared++;
    }
    expect(compared).toBeGreaterThan(5);
  });

  it('answers an unknown tool with one "MCP error -32602:" prefix, not two', async () => {
    const error = await h.client.callTool({ name: 'session-recordings-search', arguments: {} }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/^MCP error -32602: Unknown tool: "session-recordings-search"/);
    expect(error?.message).not.toMatch(/MCP error -32602: MCP error/);
  });
});

describe('hostile values in upstream data read as data, never an Internal error', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('in a person and a recording (list and get)', async () => {
    const recording = {
      id: R,
      distinct_id: HOSTILE,
      start_time: HOSTILE,
      start_url: HOSTILE,
      recording_duration: HOSTILE,
      person: { id: 1, name: HOSTILE, uuid: HOSTILE, distinct_ids: [HOSTILE, 'a'], properties: { email: HOSTILE, nested: { toString: 'y' } } },
      custom_field: HOSTILE,
    };
    h.sandbox.injectFault({ method: 'GET', path: `/api/projects/${P}/session_recordings`, status: 200, body: { results: [recording], has_next: false } });
    const list = await h.call('session-recordings-list', { project_id: String(P), include_person_properties: true });
    expect(text(list)).not.toMatch(/Internal error/);
    expect(list.isError, text(list)).toBeFalsy();
    h.sandbox.injectFault({ method: 'GET', path: `/api/projects/${P}/session_recordings/${R}`, status: 200, body: recording });
    const get = await h.call('session-recording-get', { project_id: String(P), id: R, include_person_properties: true });
    expect(get.isError, text(get)).toBeFalsy();
    expect(text(get)).toContain('{"toString":"x"}');
  });

  it('in a project (list and get, with and without settings)', async () => {
    const project = { id: P, name: HOSTILE, timezone: HOSTILE, created_at: HOSTILE, app_urls: [HOSTILE], product_description: HOSTILE, extra_settings: HOSTILE };
    h.sandbox.injectFault({ method: 'GET', path: '/api/projects', status: 200, body: { count: 1, next: null, previous: null, results: [project] } });
    const list = await h.call('projects-list', {});
    expect(list.isError, text(list)).toBeFalsy();
    for (const include_settings of [false, true]) {
      h.sandbox.injectFault({ method: 'GET', path: `/api/projects/${P}`, status: 200, body: project });
      const get = await h.call('project-get', { id: P, include_settings });
      expect(get.isError, text(get)).toBeFalsy();
    }
  });
});

describe('the working tree', () => {
  it('ignores what `npm pack` leaves behind (*.tgz), as it does the bundle', () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const check = spawnSync('git', ['check-ignore', '--no-index', 'posthog-replay-mcp-0.1.0.tgz', 'posthog-replay-mcp.mcpb'], { cwd: root, encoding: 'utf8' });
    expect(check.stdout.trim().split('\n')).toEqual(['posthog-replay-mcp-0.1.0.tgz', 'posthog-replay-mcp.mcpb']);
  });
});
