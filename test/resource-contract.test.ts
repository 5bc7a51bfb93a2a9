// Issue 39, docs/design.md, "Both views": structuredContent is PostHog's resource, typed. A
// project, a project-list row and a recording carry every field PostHog returned under its own
// name and JSON type (docs/posthog-api.md, "Resources"), secrets excepted, with what this server adds
// beside them under names of its own; and every result validates against the outputSchema the
// tool advertises, as a client validating it would check it. Through the SDK Client, against
// the sandbox, whose own answers (read here over HTTP) are what PostHog returned.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';

const P = DEMO.mainProjectId;
const R = DEMO.recordingIds;
const SECRETS = ['secret_api_token', 'secret_api_token_backup', 'live_events_token'];
/** The seed's project list item (docs/posthog-api.md, "Resources"). */
const LIST_ITEM_FIELDS = ['id', 'uuid', 'organization', 'api_token', 'name', 'completed_snippet_onboarding', 'has_completed_onboarding_for', 'ingested_event', 'is_demo', 'timezone', 'access_control'];
const PERSON_FIELDS = ['id', 'name', 'distinct_ids', 'properties', 'created_at', 'uuid'];

type Json = Record<string, unknown>;

describe('structuredContent is PostHog\'s resource, typed', () => {
  let h: Harness;
  let validators: Map<string, ValidateFunction>;
  /** What the sandbox itself answers: PostHog's resource as a client of its API reads it. */
  const upstream = async (path: string): Promise<Json> => {
    const res = await fetch(`${h.sandbox.url}${path}`, { headers: { authorization: `Bearer ${h.sandbox.apiKey}` } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Json;
  };
  /** A call that succeeded, its structured view checked against the tool's advertised outputSchema. */
  const call = async (name: string, args: Json): Promise<{ data: Json; text: string }> => {
    const r = await h.call(name, args);
    expect(r.isError, `${name}: ${text(r)}`).toBeFalsy();
    const validate = validators.get(name)!;
    expect(validate(r.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    return { data: r.structuredContent as Json, text: text(r) };
  };

  beforeAll(async () => {
    h = await startHarness({ readOnly: false });
    const tools: Tool[] = (await h.client.listTools()).tools;
    const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    validators = new Map(tools.map((tool) => [tool.name, ajv.compile(tool.outputSchema ?? {})]));
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('project-get: the project PostHog returned, every field and type, settings objects even without include_settings; no secret', async () => {
    const raw = await upstream(`/api/projects/${P}/`);
    // The check can fail: the sandbox's project carries the secrets, one of them set.
    for (const secret of SECRETS) expect(raw).toHaveProperty(secret);
    expect(raw.live_events_token).toEqual(expect.any(String));
    const { data } = await call('project-get', { id: P, include_settings: false });
    const project = data.project as Json;
    expect(project).toMatchObject({ uuid: raw.uuid, effective_membership_level: 15, anonymize_ips: false, session_recording_opt_in: true });
    expect(typeof project.uuid).toBe('string');
    expect(typeof project.anonymize_ips).toBe('boolean');
    expect(project.test_account_filters).toEqual(raw.test_account_filters);
    expect(project.has_completed_onboarding_for).toEqual(raw.has_completed_onboarding_for);
    expect(project.session_replay_config).toEqual(expect.any(Object));
    for (const secret of SECRETS) expect(project).not.toHaveProperty(secret);
    // Nothing else is left out or renamed.
    expect(project).toEqual(Object.fromEntries(Object.entries(raw).filter(([key]) => !SECRETS.includes(key))));
    for (const renamed of ['on', 'off', 'omitted_fields']) expect(project).not.toHaveProperty(renamed);
    // Beside it, under names of its own: the plan's retention.
    expect(data.retention_allowed).toBe('90d');
  });

  it('projects-list: every field of the seed\'s list item as PostHog sent it, the recording columns beside', async () => {
    const raw = (await upstream('/api/projects/')).results as Json[];
    const { data } = await call('projects-list', {});
    const rows = data.results as Json[];
    expect(rows.map((row) => row.id)).toEqual(raw.map((item) => item.id));
    for (const [i, row] of rows.entries()) {
      for (const field of LIST_ITEM_FIELDS) expect(row, `${row.id as number} ${field}`).toHaveProperty(field, raw[i]![field]);
      expect(typeof row.uuid).toBe('string');
      expect(typeof row.access_control).toBe('boolean');
    }
    expect(rows[0]).toMatchObject({ recording: 'on' });
  });

  it('project-create, project-update and project-delete: the project as PostHog answered, no secret', async () => {
    const created = await call('project-create', { name: 'Contract test', timezone: 'Europe/Berlin', anonymize_ips: true });
    const made = created.data.project as Json;
    expect(made).toMatchObject({ name: 'Contract test', timezone: 'Europe/Berlin', anonymize_ips: true, effective_membership_level: 15 });
    expect(typeof made.uuid).toBe('string');
    for (const secret of SECRETS) expect(made).not.toHaveProperty(secret);
    const id = made.id as number;

    const updated = await call('project-update', { id, anonymize_ips: false, session_recording_sample_rate: 0.25 });
    expect(updated.data.project).toMatchObject({ id, uuid: made.uuid, anonymize_ips: false, session_recording_sample_rate: '0.25' });
    for (const secret of SECRETS) expect(updated.data.project).not.toHaveProperty(secret);
    expect(updated.data.changes).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'anonymize_ips', before: true, after: false })]));

    const deleted = await call('project-delete', { id });
    expect(deleted.data).toMatchObject({ deleted: true, id, project: { id, uuid: made.uuid, name: 'Contract test' } });
    for (const secret of SECRETS) expect(deleted.data.project).not.toHaveProperty(secret);
  });

  it('session-recording-get: the recording PostHog returned, person as its Person object, the person\'s properties cut and said so', async () => {
    const raw = await upstream(`/api/projects/${P}/session_recordings/${R.checkoutFailure}/`);
    const { data, text: said } = await call('session-recording-get', { project_id: String(P), id: R.checkoutFailure });
    const recording = data.recording as Json & { person: Json & { properties: Json } };
    const rawPerson = raw.person as Json & { properties: Json };
    expect(recording).toMatchObject({ ...raw, person: { ...rawPerson, properties: expect.any(Object) } });
    expect(recording).toMatchObject({ start_time: expect.any(String), recording_duration: expect.any(Number), click_count: expect.any(Number), console_error_count: expect.any(Number), start_url: expect.any(String), viewed: expect.any(Boolean) });
    expect(Object.keys(recording.person).sort()).toEqual([...PERSON_FIELDS].sort());
    for (const renamed of ['start', 'duration_s', 'clicks', 'keys', 'console_errors', 'url', 'person_uuid', 'person_properties']) expect(recording).not.toHaveProperty(renamed);
    // The kept properties are PostHog's; how many were left out is said in both views.
    for (const [key, value] of Object.entries(recording.person.properties)) expect(rawPerson.properties[key], key).toEqual(value);
    const leftOut = Object.keys(rawPerson.properties).length - Object.keys(recording.person.properties).length;
    expect(leftOut).toBeGreaterThan(0);
    expect(recording.person_properties_left_out).toBe(leftOut);
    expect(said).toContain(data.person_properties_note as string);
    expect(data.person_properties_note).toContain('include_person_properties=true');

    const whole = await call('session-recording-get', { project_id: String(P), id: R.checkoutFailure, include_person_properties: true });
    expect((whole.data.recording as Json).person).toEqual(rawPerson);
    expect(whole.data.recording).not.toHaveProperty('person_properties_left_out');
  });

  it('session-recordings-list: every row is the recording PostHog returned, person as its Person object', async () => {
    const raw = (await upstream(`/api/projects/${P}/session_recordings/?date_from=-30d&limit=20`)).results as Json[];
    const { data } = await call('session-recordings-list', { project_id: String(P), date_from: '-30d', limit: 20 });
    const rows = data.results as Array<Json & { person: Json }>;
    expect(rows.map((row) => row.id)).toEqual(raw.map((r) => r.id));
    for (const [i, row] of rows.entries()) {
      expect(row).toMatchObject({ ...raw[i], person: { ...(raw[i]!.person as Json), properties: expect.any(Object) } });
      expect(row).toMatchObject({ start_time: expect.any(String), recording_duration: expect.any(Number), click_count: expect.any(Number), console_error_count: expect.any(Number) });
      expect(Object.keys(row.person).sort()).toEqual([...PERSON_FIELDS].sort());
    }
    expect(rows.filter((row) => typeof row.start_url === 'string').length).toBeGreaterThan(5);
    // PostHog's placeholder person (no person for the distinct id) is kept as PostHog sent it.
    expect(rows.some((row) => row.person.id === null && typeof row.person.uuid === 'string')).toBe(true);
  });

  it('session-recording-delete: the recording as read just before, PostHog\'s fields', async () => {
    const raw = await upstream(`/api/projects/${P}/session_recordings/${R.anonymousBounce}/`);
    const { data } = await call('session-recording-delete', { project_id: String(P), id: R.anonymousBounce });
    expect(data.recording).toMatchObject({ ...raw, person: { ...(raw.person as Json), properties: expect.any(Object) } });
  });

  it('an answer with no id is no resource: a clear error for one, a row left out of a list', async () => {
    h.sandbox.injectFault({ path: `/api/projects/${P}`, status: 200, body: { name: 'no id here', uuid: 'u' } });
    const got = await h.call('project-get', { id: P });
    expect(got.isError).toBe(true);
    expect(text(got)).toMatch(/PostHog answered with a project that has no id/);
    h.sandbox.injectFault({ path: `/api/projects/${P}/session_recordings/${R.checkoutFailure}`, status: 200, body: { start_time: '2026-11-01T00:00:00Z' } });
    const rec = await h.call('session-recording-get', { project_id: String(P), id: R.checkoutFailure });
    expect(rec.isError).toBe(true);
    expect(text(rec)).toMatch(/PostHog answered with a recording that has no id/);
    h.sandbox.injectFault({ path: '/api/projects', status: 200, body: { count: 2, next: null, previous: null, results: [{ name: 'no id' }, { id: 7, name: 'Seven', uuid: 'u7', ingested_event: true }] } });
    const { data } = await call('projects-list', { recording_settings: false });
    expect(data.results).toEqual([{ id: 7, name: 'Seven', uuid: 'u7', ingested_event: true }]);
  });

  it('the advertised output schemas type PostHog\'s fields and refuse a wrong type, while taking fields they do not name', () => {
    const validate = validators.get('session-recording-get')!;
    const recording = { id: 'r', start_time: '2026-11-01T00:00:00Z', recording_duration: 5, viewed: false, person: { id: 1, name: 'n', distinct_ids: ['d'], properties: {}, created_at: null, uuid: 'u' }, something_new: { a: 1 } };
    expect(validate({ project_id: '1', recording }), JSON.stringify(validate.errors)).toBe(true);
    for (const wrong of [{ viewed: 'false' }, { recording_duration: '5' }, { click_count: 1.5 }, { person: 'someone@example.com' }, { person: { ...recording.person, distinct_ids: 'd' } }]) {
      expect(validate({ project_id: '1', recording: { ...recording, ...wrong } }), JSON.stringify(wrong)).toBe(false);
    }
    const project = validators.get('project-get')!;
    expect(project({ project: { id: 1, uuid: 'u', anonymize_ips: true, effective_membership_level: 15 } })).toBe(true);
    expect(project({ project: { id: 1, anonymize_ips: 'on' } })).toBe(false);
    expect(project({ project: { id: 1, effective_membership_level: 'admin' } })).toBe(false);
    const rows = validators.get('projects-list')!;
    expect(rows({ results: [{ id: 1, uuid: 'u', access_control: false, recording: 'on' }], has_more: false, next_offset: null })).toBe(true);
    expect(rows({ results: [{ id: 1, access_control: 'no' }], has_more: false, next_offset: null })).toBe(false);
  });
});
