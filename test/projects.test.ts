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

  it('project-get trims settings objects unless asked, and never returns secrets', async () => {
    const r = await h.call('project-get', { id: DEMO.mainProjectId });
    expect(r.isError).toBeFalsy();
    const project = (r.structuredContent as { project: Record<string, unknown> }).project;
    expect(project).toMatchObject({ id: DEMO.mainProjectId, name: DEMO.projects[0]!.name, timezone: DEMO.projects[0]!.timezone });
    expect(project.omitted_fields).toEqual(expect.arrayContaining(['has_completed_onboarding_for']));
    expect(project).not.toHaveProperty('has_completed_onboarding_for');
    const full = await h.call('project-get', { id: DEMO.mainProjectId, include_settings: true });
    const fullProject = (full.structuredContent as { project: Record<string, unknown> }).project;
    expect(fullProject).toHaveProperty('has_completed_onboarding_for');
    expect(fullProject).not.toHaveProperty('secret_api_token');
    expect(fullProject).not.toHaveProperty('live_events_token');
    expect(JSON.stringify(r).length).toBeLessThan(JSON.stringify(full).length);
  });

  it('project-get text states every switch as on or off and every other scalar setting, but not the public token', async () => {
    const r = await h.call('project-get', { id: DEMO.mainProjectId });
    const project = (r.structuredContent as { project: Record<string, unknown> }).project;
    const lines = text(r).split('\n');
    expect(lines[0]).toContain(`Project ${DEMO.mainProjectId} "${DEMO.projects[0]!.name}"`);
    expect(lines[0]).toContain(DEMO.projects[0]!.timezone);
    const on = lines.find((l) => l.startsWith('on: '))!.slice(4).split(' ');
    const off = lines.find((l) => l.startsWith('off: '))!.slice(5).split(' ');
    for (const [key, value] of Object.entries(project)) {
      if (typeof value === 'boolean' && !['is_demo', 'ingested_event'].includes(key)) expect(value ? on : off, key).toContain(key);
    }
    expect(on).toContain('session_recording_opt_in');
    expect(text(r)).toContain('session_recording_retention_period=30d');
    expect(text(r)).not.toContain(String(project.api_token));
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
    expect(r.structuredContent).toMatchObject({ deleted: true, id: DEMO.emptyProjectId, project: { name: DEMO.projects[2]!.name } });
    expect(text(r)).toContain(DEMO.projects[2]!.name);
    const again = await h.call('project-delete', { id: DEMO.emptyProjectId });
    expect(again.isError).toBe(true);
    if (api === 'today') {
      // Deletion runs in the background: the project is marked, and PostHog refuses a second delete.
      const got = await h.call('project-get', { id: DEMO.emptyProjectId });
      expect((got.structuredContent as { project: Record<string, unknown> }).project.is_pending_deletion).toBe(true);
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
