import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, type SandboxApi } from '../src/sandbox/index.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

// Every project tool against both PostHogs the sandbox imitates: today's Cloud and 2024's API.
describe.each<SandboxApi>(['today', '2024'])('project tools against the sandbox (%s PostHog)', (api) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { api } });
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('projects-list lists the demo projects with next_offset paging over the DRF envelope', async () => {
    const r = await h.call('projects-list', { limit: 2 });
    expect(r.isError).toBeFalsy();
    const page = r.structuredContent as { results: Array<{ id: number; name: string }>; has_more: boolean; next_offset: number; count: number };
    expect(page.results.map((p) => p.id)).toEqual(DEMO.projects.slice(0, 2).map((p) => p.id));
    expect(page).toMatchObject({ has_more: true, next_offset: 2, count: DEMO.projects.length });
    const rest = await h.call('projects-list', { limit: 2, offset: 2 });
    expect((rest.structuredContent as { results: unknown[]; has_more: boolean; next_offset: null }).has_more).toBe(false);
    expect(text(r)).toContain(DEMO.projects[0]!.name);
  });

  it('projects-list reads the has_next envelope too', async () => {
    const alt = await startHarness({ sandbox: { api, projectsEnvelope: 'has_next' } });
    try {
      const r = await alt.call('projects-list', { limit: 1 });
      expect(r.structuredContent).toMatchObject({ has_more: true, next_offset: 1 });
      expect(r.structuredContent).not.toHaveProperty('count');
    } finally {
      await alt.close();
    }
  });

  it('project-get trims settings objects from the text unless asked; the structured view is the whole project either way, never its secrets', async () => {
    const r = await h.call('project-get', { id: DEMO.mainProjectId });
    expect(r.isError).toBeFalsy();
    const project = (r.structuredContent as { project: Record<string, unknown> }).project;
    expect(project).toMatchObject({ id: DEMO.mainProjectId, name: DEMO.projects[0]!.name, timezone: DEMO.projects[0]!.timezone });
    expect(project).toHaveProperty('has_completed_onboarding_for');
    expect(text(r)).toMatch(/^Left out \(include_settings=true adds them\): .*has_completed_onboarding_for/m);
    const full = await h.call('project-get', { id: DEMO.mainProjectId, include_settings: true });
    const fullProject = (full.structuredContent as { project: Record<string, unknown> }).project;
    expect(fullProject).toEqual(project);
    expect(text(full)).toContain('has_completed_onboarding_for={');
    expect(fullProject).not.toHaveProperty('secret_api_token');
    expect(fullProject).not.toHaveProperty('live_events_token');
    expect(text(r).length).toBeLessThan(text(full).length);
  });

  it('project-get text states every switch as on or off, every other scalar setting and the public token', async () => {
    const r = await h.call('project-get', { id: DEMO.mainProjectId });
    const project = (r.structuredContent as { project: Record<string, unknown> }).project;
    const lines = text(r).split('\n');
    expect(lines[0]).toContain(`Project ${DEMO.mainProjectId} "${DEMO.projects[0]!.name}"`);
    expect(lines[0]).toContain(DEMO.projects[0]!.timezone);
    const on = lines.find((l) => l.startsWith('on: '))!.slice(4).split(' ');
    const off = lines.find((l) => l.startsWith('off: '))!.slice(5).split(' ');
    // The text groups PostHog's switches, which the structured view holds as booleans (docs/design.md, "Both views").
    // (is_demo and ingested_event are said in the heading: "demo", "no events yet".)
    const switches = Object.entries(project).filter(([key, value]) => typeof value === 'boolean' && !['is_demo', 'ingested_event'].includes(key));
    expect(switches.filter(([, value]) => value).map(([key]) => key).sort()).toEqual([...on].sort());
    expect(switches.filter(([, value]) => !value).map(([key]) => key).sort()).toEqual([...off].sort());
    expect(on).toContain('session_recording_opt_in');
    // A setting's string is quoted, as every string a project's members chose (docs/design.md, "Recorded text is data").
    expect(text(r)).toContain('session_recording_retention_period="30d"');
    expect(project.session_recording_retention_period).toBe('30d');
    const token = DEMO.projects[0]!.apiToken;
    expect(token).toMatch(/^phc_/);
    // The public token (what the snippet sends events with) is in both views, as it is.
    expect(text(r)).toContain(`public token ${token}`);
    expect(project.api_token).toBe(token);
  });

  it('project-create sends only the given fields and returns the new project', async () => {
    const r = await h.call('project-create', { name: 'Checkout experiments', timezone: 'Europe/Berlin', session_recording_opt_in: true });
    expect(r.isError, text(r)).toBeFalsy();
    const project = (r.structuredContent as { project: { id: number; name: string; timezone: string } }).project;
    expect(project).toMatchObject({ name: 'Checkout experiments', timezone: 'Europe/Berlin' });
    const post = apiRequests(h.sandbox).find((q) => q.method === 'POST')!;
    expect(JSON.parse(post.body)).toEqual({ name: 'Checkout experiments', timezone: 'Europe/Berlin', session_recording_opt_in: true });
    const got = await h.call('project-get', { id: project.id });
    expect((got.structuredContent as { project: { name: string } }).project.name).toBe('Checkout experiments');
  });

  it('project-create with a duplicate name explains the 409 and is not retried', async () => {
    const r = await h.call('project-create', { name: DEMO.projects[0]!.name.toUpperCase() });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/409/);
    expect(text(r)).toMatch(/already exists/);
    expect(apiRequests(h.sandbox).filter((q) => q.method === 'POST')).toHaveLength(1);
  });

  it('project-update PATCHes only the given fields and reports them', async () => {
    const r = await h.call('project-update', { id: DEMO.marketingProjectId, timezone: 'Asia/Tokyo', anonymize_ips: true });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { updated_fields: string[] }).updated_fields.sort()).toEqual(['anonymize_ips', 'timezone']);
    expect(r.structuredContent).toMatchObject({ project: { id: DEMO.marketingProjectId, timezone: 'Asia/Tokyo', anonymize_ips: true } });
    const patch = apiRequests(h.sandbox).find((q) => q.method === 'PATCH')!;
    expect(patch.path).toBe(`/api/projects/${DEMO.marketingProjectId}/`);
    expect(JSON.parse(patch.body)).toEqual({ timezone: 'Asia/Tokyo', anonymize_ips: true });
  });

  it('project-delete reads, deletes, names what it deleted; a second delete deletes nothing', async () => {
    const r = await h.call('project-delete', { id: DEMO.emptyProjectId });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ deleted: true, id: DEMO.emptyProjectId, project: { id: DEMO.emptyProjectId, name: DEMO.projects[2]!.name } });
    expect(text(r)).toContain(DEMO.projects[2]!.name);
    const again = await h.call('project-delete', { id: DEMO.emptyProjectId });
    expect(again.isError).toBe(true);
    if (api === 'today') {
      // Deletion runs in the background: the project is marked, and PostHog refuses a second delete.
      const got = await h.call('project-get', { id: DEMO.emptyProjectId });
      expect((got.structuredContent as { project: { is_pending_deletion: boolean } }).project.is_pending_deletion).toBe(true);
      expect(text(got)).toMatch(/^on: .*is_pending_deletion/m);
      expect(text(again)).toMatch(/already being deleted/);
      // Read, seen pending, not deleted again.
      expect(apiRequests(h.sandbox).filter((q) => q.method === 'DELETE')).toHaveLength(1);
    } else {
      const list = await h.call('projects-list', {});
      expect((list.structuredContent as { results: Array<{ id: number }> }).results.map((p) => p.id)).not.toContain(DEMO.emptyProjectId);
      expect(text(again)).toMatch(/projects-list/);
      expect(text(again)).toMatch(/Nothing was deleted/);
    }
  });

  it('writes the filter settings as arrays, as PostHog requires, and sends them as given', async () => {
    const filters = [{ key: '$host', operator: 'not_regex', value: 'localhost', type: 'event' }];
    const rules = [{ regex: '^/orders/[0-9]+$', alias: '/orders/<id>' }];
    const r = await h.call('project-update', { id: DEMO.marketingProjectId, test_account_filters: filters, path_cleaning_filters: rules, data_attributes: ['data-attr', 'data-testid'] });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ not_applied: [] });
    expect((r.structuredContent as { updated_fields: string[] }).updated_fields.sort()).toEqual(['data_attributes', 'path_cleaning_filters', 'test_account_filters']);
    const patch = apiRequests(h.sandbox).find((q) => q.method === 'PATCH')!;
    expect(JSON.parse(patch.body)).toEqual({ test_account_filters: filters, path_cleaning_filters: rules, data_attributes: ['data-attr', 'data-testid'] });
    const got = await h.call('project-get', { id: DEMO.marketingProjectId, include_settings: true });
    expect((got.structuredContent as { project: Record<string, unknown> }).project).toMatchObject({ test_account_filters: filters, path_cleaning_filters: rules, data_attributes: ['data-attr', 'data-testid'] });
  });

  it('an object for test_account_filters: refused by today\'s PostHog with its message, taken by 2024\'s', async () => {
    const r = await h.call('project-update', { id: DEMO.marketingProjectId, test_account_filters: { key: '$host', value: 'localhost' } });
    if (api === 'today') {
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/400/);
      expect(text(r)).toMatch(/Must provide an array of valid property filters\./);
      expect(text(r)).toMatch(/\[field: test_account_filters\]/);
    } else {
      expect(r.isError, text(r)).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ updated_fields: ['test_account_filters'], not_applied: [] });
    }
  });

  it('names slack_incoming_webhook when PostHog ignores it (today) instead of reporting it updated', async () => {
    const hook = 'https://hooks.slack.com/services/T000/B000/XXXX';
    const r = await h.call('project-update', { id: DEMO.marketingProjectId, slack_incoming_webhook: hook, anonymize_ips: true });
    expect(r.isError, text(r)).toBeFalsy();
    if (api === 'today') {
      expect(r.structuredContent).toMatchObject({ updated_fields: ['anonymize_ips'], not_applied: ['slack_incoming_webhook'] });
      expect(text(r)).toMatch(/PostHog did not apply: slack_incoming_webhook \(ignored/);
      expect(text(r)).toMatch(/^Updated anonymize_ips of project|\nUpdated anonymize_ips of project/);
      expect(text(r)).not.toMatch(/Updated [^\n]*slack_incoming_webhook/);
      const only = await h.call('project-update', { id: DEMO.marketingProjectId, slack_incoming_webhook: hook });
      expect(only.structuredContent).toMatchObject({ updated_fields: [], not_applied: ['slack_incoming_webhook'] });
      expect(text(only)).toMatch(/Nothing updated in project/);
      const created = await h.call('project-create', { name: 'Alerts', slack_incoming_webhook: hook });
      expect(created.isError, text(created)).toBeFalsy();
      expect(created.structuredContent).toMatchObject({ created: true, not_applied: ['slack_incoming_webhook'] });
    } else {
      expect((r.structuredContent as { updated_fields: string[] }).updated_fields.sort()).toEqual(['anonymize_ips', 'slack_incoming_webhook']);
      expect(r.structuredContent).toMatchObject({ not_applied: [] });
      expect(text(r)).not.toMatch(/did not apply/);
    }
  });
});

// Today's replay settings (docs/posthog-api.md, "Projects"): typed and ranged as the newest serializer
// enforces, refused before any request when out of range, and answered field by field.
describe('replay settings in project-update and project-create', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());
  const main = DEMO.projects.find((p) => p.id === DEMO.mainProjectId)!;

  it('"record half of our users, keep 90 days": sent as given, answered before → after from PostHog', async () => {
    const r = await h.call('project-update', { id: DEMO.mainProjectId, session_recording_sample_rate: 0.5, session_recording_retention_period: '90d' });
    expect(r.isError, text(r)).toBeFalsy();
    const patch = apiRequests(h.sandbox).find((q) => q.method === 'PATCH')!;
    expect(JSON.parse(patch.body)).toEqual({ session_recording_sample_rate: 0.5, session_recording_retention_period: '90d' });
    // The main demo project records everyone ("1.00") and keeps 30 days; PostHog stores the rate as "0.50".
    expect((r.structuredContent as { changes: unknown[] }).changes).toEqual([
      { field: 'session_recording_sample_rate', before: '1.00', after: '0.50', changed: true },
      { field: 'session_recording_retention_period', before: '30d', after: '90d', changed: true },
    ]);
    expect(r.structuredContent).toMatchObject({ not_applied: [] });
    expect(text(r)).toContain('• session_recording_sample_rate: "1.00" → "0.50"');
    expect(text(r)).toContain('• session_recording_retention_period: "30d" → "90d"');
    expect(text(r)).toContain(`Updated session_recording_sample_rate, session_recording_retention_period of project ${main.id}`);
  });

  it('says which fields were already so, and reads the project once before writing it', async () => {
    const r = await h.call('project-update', { id: DEMO.mainProjectId, session_recording_minimum_duration_milliseconds: 2000, week_start_day: 0 });
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toMatch(/session_recording_minimum_duration_milliseconds: 2000 → 2000 \(unchanged\)/);
    expect(text(r)).toContain('• week_start_day: 1 → 0\n');
    // The heading names as updated only what changed: the minimum duration was written, but it was 2000 already.
    expect(text(r)).toContain(`Updated week_start_day of project ${main.id} "${main.name}" (session_recording_minimum_duration_milliseconds already had the value given); before → after:`);
    expect(apiRequests(h.sandbox).map((q) => q.method)).toEqual(['GET', 'PATCH']);
    // Nothing that changed: no "Updated" at all.
    const again = await h.call('project-update', { id: DEMO.mainProjectId, week_start_day: 0 });
    expect(text(again)).toMatch(/^Nothing updated in project \d+ "[^"]*" \(week_start_day already had the value given\); before → after:\n/);
  });

  it('"clear" unsets a setting (null upstream); null itself means "not given" and clears nothing', async () => {
    const r = await h.call('project-update', { id: DEMO.mainProjectId, session_recording_masking_config: 'clear', week_start_day: 'clear', session_recording_sample_rate: null, product_description: null });
    expect(r.isError, text(r)).toBeFalsy();
    expect(JSON.parse(apiRequests(h.sandbox).find((q) => q.method === 'PATCH')!.body)).toEqual({ session_recording_masking_config: null, week_start_day: null });
    expect(text(r)).toMatch(/session_recording_masking_config: \{"maskAllInputs":false,.*\} → \(not set\)/);
    const got = await h.call('project-get', { id: DEMO.mainProjectId });
    expect((got.structuredContent as { project: Record<string, unknown> }).project.session_recording_sample_rate).toBe('1.00');
  });

  it('merges session_replay_config as PostHog does, and does not call the merged value "not applied"', async () => {
    const r = await h.call('project-update', { id: DEMO.mainProjectId, session_replay_config: { record_canvas: true } });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      not_applied: [],
      changes: [{ field: 'session_replay_config', before: { record_canvas: false, ai_config: null }, after: { record_canvas: true, ai_config: null }, changed: true }],
    });
  });

  it('refuses values out of the serializer\'s range before any request, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ session_recording_sample_rate: 1.5 }, /session_recording_sample_rate: .*(<=|at most) ?1/i],
      [{ session_recording_sample_rate: 0.255 }, /session_recording_sample_rate: .*2 decimal places/],
      [{ session_recording_sample_rate: -0.1 }, /session_recording_sample_rate/],
      [{ session_recording_minimum_duration_milliseconds: 30_001 }, /session_recording_minimum_duration_milliseconds/],
      [{ session_recording_minimum_duration_milliseconds: 1.5 }, /session_recording_minimum_duration_milliseconds/],
      [{ session_recording_retention_period: '2y' }, /session_recording_retention_period/],
      [{ week_start_day: 6 }, /week_start_day/],
      [{ session_recording_linked_flag: { key: 'beta' } }, /session_recording_linked_flag/],
      [{ session_recording_network_payload_capture_config: { recordCookies: true } }, /session_recording_network_payload_capture_config/],
      [{ session_recording_masking_config: { maskAllInputs: 'yes' } }, /session_recording_masking_config/],
      [{ session_replay_config: { record_video: true } }, /session_replay_config/],
      [{ product_description: 'x'.repeat(1001) }, /product_description/],
    ];
    for (const [fields, says] of cases) {
      const r = await h.call('project-update', { id: DEMO.mainProjectId, ...fields });
      expect(r.isError, JSON.stringify(fields)).toBe(true);
      expect(text(r), JSON.stringify(fields)).toMatch(/^Invalid arguments for project-update: /);
      expect(text(r), JSON.stringify(fields)).toMatch(says);
      const c = await h.call('project-create', { name: 'Never made', ...fields });
      expect(text(c), JSON.stringify(fields)).toMatch(says);
    }
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('explains PostHog\'s 403 for a retention period the plan does not allow, and nothing changes', async () => {
    const r = await h.call('project-update', { id: DEMO.mainProjectId, session_recording_retention_period: '1y', name: 'Renamed' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/403/);
    expect(text(r)).toMatch(/longest allowable retention period is '90d'/);
    expect(text(r)).toMatch(/Nothing was changed: the organization's plan does not allow keeping recordings 1y; the longest it allows is 90d\. Pick 30d or 90d/);
    const got = await h.call('project-get', { id: DEMO.mainProjectId });
    expect(got.structuredContent).toMatchObject({ project: { name: main.name, session_recording_retention_period: '30d' } });
  });

  it('project-create takes the replay settings and lists them as PostHog stored them', async () => {
    const r = await h.call('project-create', {
      name: 'Replay lab',
      session_recording_opt_in: true,
      session_recording_sample_rate: 0.25,
      session_recording_network_payload_capture_config: { recordHeaders: true, recordBody: false },
      week_start_day: 1,
    });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ not_applied: [], settings: expect.arrayContaining([{ field: 'session_recording_sample_rate', after: '0.25' }]) });
    expect(text(r)).toContain('• session_recording_network_payload_capture_config: {"recordHeaders":true,"recordBody":false}');
  });
});

// Issue 31 item 3: a projects-list row says whether the project records, at what rate, and
// whether it is being deleted. PostHog's list has none of it; each project's own record does,
// read for the first rows of a page only.
describe('projects-list says which projects record', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  type Row = { id: number; recording?: string; sample_rate?: number; pending_deletion?: true; settings_not_read?: string };
  const rowsOf = (r: Awaited<ReturnType<Harness['call']>>) => (r.structuredContent as { results: Row[] }).results;

  it('recording on or off and its sample rate, in both views, with one request per project', async () => {
    const r = await h.call('projects-list');
    expect(r.isError, text(r)).toBeFalsy();
    const [shop, marketing, staging] = rowsOf(r);
    expect(shop).toMatchObject({ id: 1001, recording: 'on', sample_rate: 1 }); // '1.00': every session
    expect(marketing).toMatchObject({ id: 1002, recording: 'on', sample_rate: 0.5 });
    expect(staging).toMatchObject({ id: 1003, recording: 'off' });
    expect(text(r)).toMatch(/^1001 "Acme Shop" .* recording on for all sessions$/m);
    expect(text(r)).toMatch(/^1002 "Acme Marketing Site" .* recording on for 50% of sessions$/m);
    expect(text(r)).toMatch(/^1003 "Staging" .* recording off$/m);
    const paths = apiRequests(h.sandbox).map((q) => q.path).sort();
    expect(paths).toEqual(['/api/projects/', '/api/projects/1001/', '/api/projects/1002/', '/api/projects/1003/']);
  });

  it('recording_settings=false: ids and names in one request, nothing said about recording', async () => {
    const r = await h.call('projects-list', { recording_settings: false });
    expect(rowsOf(r).map((p) => p.id)).toEqual([1001, 1002, 1003]);
    expect(rowsOf(r).some((p) => 'recording' in p)).toBe(false);
    expect(text(r)).not.toMatch(/recording (on|off)/);
    expect(apiRequests(h.sandbox).map((q) => q.path)).toEqual(['/api/projects/']);
  });

  it('a project being deleted is marked so', async () => {
    const del = await h.call('project-delete', { id: 1003 });
    expect(del.isError, text(del)).toBeFalsy();
    const r = await h.call('projects-list');
    expect(rowsOf(r).find((p) => p.id === 1003)).toMatchObject({ pending_deletion: true });
    expect(text(r)).toMatch(/^1003 "Staging" .*PENDING DELETION/m);
    expect(text(r)).not.toMatch(/^1001 .*PENDING DELETION/m);
  });

  it('reads the first 10 rows only, and says how to read the others', async () => {
    for (let i = 0; i < 9; i++) expect((await h.call('project-create', { name: `Extra ${i}` })).isError).toBeFalsy();
    h.sandbox.requests.length = 0;
    const r = await h.call('projects-list');
    const rows = rowsOf(r);
    expect(rows).toHaveLength(12);
    expect(rows.slice(0, 10).every((p) => p.recording !== undefined)).toBe(true);
    expect(rows.slice(10).some((p) => p.recording !== undefined)).toBe(false);
    expect(r.structuredContent).toMatchObject({ settings_read_for: 10 });
    expect(text(r)).toContain('Recording settings read for the first 10 rows; for the other 2, call again with offset=10 limit=10, or project-get.');
    expect(apiRequests(h.sandbox)).toHaveLength(11);
    const rest = await h.call('projects-list', { offset: 10, limit: 10 });
    expect(rowsOf(rest).map((p) => p.recording)).toEqual(['off', 'off']);
  });

  it('a project record that cannot be read leaves that row saying why; the list is still given', async () => {
    h.sandbox.setHostile({ kind: 'html', path: /^\/api\/projects\/1002\/$/ });
    const r = await h.call('projects-list');
    expect(r.isError, text(r)).toBeFalsy();
    const rows = rowsOf(r);
    expect(rows.map((p) => p.id)).toEqual([1001, 1002, 1003]);
    expect(rows[1]).not.toHaveProperty('recording');
    expect(rows[1]!.settings_not_read).toBeTruthy();
    expect(text(r)).toMatch(/^1002 "Acme Marketing Site" .* recording settings not read: .+$/m);
    expect(rows[0]).toMatchObject({ recording: 'on' });
    h.sandbox.setHostile({ kind: 'wrong-types', path: /^\/api\/projects\/1003\/$/ });
    const wrong = await h.call('projects-list');
    expect(rowsOf(wrong)[2]).toMatchObject({ id: 1003, settings_not_read: expect.stringMatching(/not 1003|not a project/) });
    expect(rowsOf(wrong)[2]).not.toHaveProperty('recording');
  });
});

// Issue 32 item 6: project-get says the longest replay retention the organization's plan allows,
// read from the organization's record (one more request); where it cannot be read, why, and the
// project all the same.
describe('project-get and the plan\'s replay retention', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  const project = (r: Awaited<ReturnType<Harness['call']>>) => (r.structuredContent as { project: { id: number; name: string } }).project;

  it('says the cap in both views, with the periods project-update may set, after one request for the organization', async () => {
    const r = await h.call('project-get', { id: DEMO.mainProjectId });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ project: { id: DEMO.mainProjectId, session_recording_retention_period: '30d' }, retention_allowed: '90d' });
    expect(r.structuredContent).not.toHaveProperty('retention_allowed_unknown');
    expect(text(r).split('\n').at(-1)).toBe("Recordings kept 30d; the organization's plan allows up to 90d (session_recording_retention_period: 30d or 90d).");
    expect(apiRequests(h.sandbox).map((q) => `${q.method} ${q.path}`)).toEqual([`GET /api/projects/${DEMO.mainProjectId}/`, `GET /api/organizations/${DEMO.organizationId}/`]);
  });

  it('a key without organization:read: the project, and why the cap is not known', async () => {
    const narrow = await startHarness({ sandbox: { scopes: ['project:read'] } });
    try {
      const r = await narrow.call('project-get', { id: DEMO.mainProjectId });
      expect(r.isError, text(r)).toBeFalsy();
      expect(project(r)).toMatchObject({ id: DEMO.mainProjectId, name: DEMO.projects[0]!.name });
      const why = (r.structuredContent as { retention_allowed_unknown: string }).retention_allowed_unknown;
      expect(why).toMatch(/organization:read/);
      expect(r.structuredContent).not.toHaveProperty('retention_allowed');
      expect(text(r).split('\n').at(-1)).toBe(`The plan's longest replay retention is not known: ${why}.`);
    } finally {
      await narrow.close();
    }
  });

  it('an organization answered with a login page, wrong types or an error leaves project-get working', async () => {
    for (const mode of [{ kind: 'html' }, { kind: 'wrong-types' }, { kind: 'no-content', status: 204 }] as const) {
      h.sandbox.setHostile({ ...mode, path: /^\/api\/organizations\// });
      const r = await h.call('project-get', { id: DEMO.mainProjectId });
      expect(r.isError, `${mode.kind}: ${text(r)}`).toBeFalsy();
      expect(project(r), mode.kind).toMatchObject({ id: DEMO.mainProjectId, name: DEMO.projects[0]!.name });
      expect(r.structuredContent, mode.kind).toMatchObject({ retention_allowed_unknown: expect.any(String) });
      expect(text(r), mode.kind).toMatch(/^The plan's longest replay retention is not known: .+\.$/m);
    }
    h.sandbox.setHostile(undefined);
    h.sandbox.injectFault({ path: `/api/organizations/${DEMO.organizationId}`, status: 500, times: 10 });
    const failed = await h.call('project-get', { id: DEMO.mainProjectId });
    expect(failed.isError, text(failed)).toBeFalsy();
    expect(failed.structuredContent).toMatchObject({ retention_allowed_unknown: 'PostHog answered 500 for the organization' });
  });

  it('a project that names no organization: no request for one, and it says so', async () => {
    h.sandbox.injectFault({ method: 'GET', path: `/api/projects/${DEMO.mainProjectId}`, status: 200, body: { id: DEMO.mainProjectId, name: 'Acme Shop', session_recording_retention_period: '30d' } });
    const r = await h.call('project-get', { id: DEMO.mainProjectId });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ retention_allowed_unknown: expect.stringMatching(/names no organization/) });
    expect(apiRequests(h.sandbox).map((q) => q.path)).toEqual([`/api/projects/${DEMO.mainProjectId}/`]);
  });
});
