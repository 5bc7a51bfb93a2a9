// Project writes as the sandbox's two PostHogs validate them (docs/posthog-api.md, "Projects").

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, SANDBOX_API_KEY, startSandbox, type Sandbox } from '../../src/sandbox/index.js';

let today: Sandbox;
let old: Sandbox;
beforeAll(async () => {
  today = await startSandbox();
  old = await startSandbox({ api: '2024' });
});
afterAll(async () => {
  await today.close();
  await old.close();
});

async function send(sb: Sandbox, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(sb.url + path, {
    method,
    headers: { Authorization: `Bearer ${SANDBOX_API_KEY}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}
const patch = (sb: Sandbox, body: unknown) => send(sb, 'PATCH', `/api/projects/${DEMO.marketingProjectId}/`, body);

describe("today's project serializer", () => {
  it('requires arrays of valid property filters for test_account_filters, with the field as attr', async () => {
    for (const bad of [{ key: '$host' }, 'localhost', [{ value: 'x' }], [{ key: '$host', type: 'nonsense' }], null]) {
      const res = await patch(today, { test_account_filters: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.json.attr).toBe('test_account_filters');
      expect(res.json.type).toBe('validation_error');
      if (bad !== null) expect(res.json.detail).toMatch(/^Must provide an array of valid property filters\. /);
    }
    const ok = await patch(today, { test_account_filters: [{ key: '$host', operator: 'not_regex', value: 'localhost', type: 'event' }, { key: 'email', value: '@example.com', operator: 'icontains' }] });
    expect(ok.status).toBe(200);
    expect(ok.json.test_account_filters).toHaveLength(2);
  });

  it('validates path cleaning rules and the exceptions-to-ignore list as PostHog does', async () => {
    expect((await patch(today, { path_cleaning_filters: { regex: 'a' } })).json).toMatchObject({ detail: 'Must provide a list of path cleaning rules.', attr: 'path_cleaning_filters' });
    expect((await patch(today, { path_cleaning_filters: [{ alias: '/x' }] })).json.detail).toBe('A path cleaning rule needs a regex. Remove the rule or give it one.');
    expect((await patch(today, { path_cleaning_filters: [{ regex: '(', alias: '/x' }] })).json.detail).toMatch(/^Invalid path cleaning regex '\(': /);
    expect((await patch(today, { path_cleaning_filters: {} })).status).toBe(200);
    expect((await patch(today, { autocapture_exceptions_errors_to_ignore: { a: 1 } })).json).toMatchObject({ detail: 'Must provide a list for field: autocapture_exceptions_errors_to_ignore.', attr: null });
    expect((await patch(today, { autocapture_exceptions_errors_to_ignore: ['ResizeObserver loop'] })).status).toBe(200);
  });

  it('drops slack_incoming_webhook (200, not stored, not shown); 2024 keeps it', async () => {
    const hook = 'https://hooks.slack.com/services/T/B/X';
    const res = await patch(today, { slack_incoming_webhook: hook, name: 'Marketing site' });
    expect(res.status).toBe(200);
    expect(res.json).not.toHaveProperty('slack_incoming_webhook');
    expect((await send(today, 'GET', `/api/projects/${DEMO.marketingProjectId}/`)).json).not.toHaveProperty('slack_incoming_webhook');
    const kept = await patch(old, { slack_incoming_webhook: hook });
    expect(kept.json.slack_incoming_webhook).toBe(hook);
    expect((await patch(old, { test_account_filters: { key: '$host' } })).status).toBe(200);
  });

  it('deletes in the background: is_pending_deletion, then 400 on a second delete; 2024 deletes at once', async () => {
    const created = await send(today, 'POST', '/api/projects/', { name: 'Doomed' });
    expect(created.json.is_pending_deletion).toBe(false);
    expect((await send(today, 'DELETE', `/api/projects/${created.json.id}/`)).status).toBe(204);
    expect((await send(today, 'GET', `/api/projects/${created.json.id}/`)).json.is_pending_deletion).toBe(true);
    const again = await send(today, 'DELETE', `/api/projects/${created.json.id}/`);
    expect(again.status).toBe(400);
    expect(again.json).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'This project is already being deleted.', attr: null });
    const gone = await send(old, 'POST', '/api/projects/', { name: 'Doomed' });
    expect((await send(old, 'DELETE', `/api/projects/${gone.json.id}/`)).status).toBe(204);
    expect((await send(old, 'GET', `/api/projects/${gone.json.id}/`)).status).toBe(404);
    expect((await send(old, 'GET', '/api/projects/')).json.results.map((p: { id: number }) => p.id)).not.toContain(gone.json.id);
    expect((await send(old, 'DELETE', `/api/projects/${gone.json.id}/`)).status).toBe(404);
    expect((await send(old, 'GET', `/api/projects/${gone.json.id}/session_recordings/`)).json).toMatchObject({ code: 'not_found', detail: 'Project not found.' });
  });
});

describe("today's replay settings (docs/posthog-api.md, 'Projects')", () => {
  it('enforces the sample rate range and its 2 decimal places, and serves it as a 2-decimal string', async () => {
    expect((await patch(today, { session_recording_sample_rate: 1.5 })).json).toMatchObject({ detail: 'Ensure this value is less than or equal to 1.', attr: 'session_recording_sample_rate' });
    expect((await patch(today, { session_recording_sample_rate: 0.255 })).json).toMatchObject({ detail: 'Ensure that there are no more than 2 decimal places.', attr: 'session_recording_sample_rate' });
    const ok = await patch(today, { session_recording_sample_rate: 0.5 });
    expect(ok.status).toBe(200);
    expect(ok.json.session_recording_sample_rate).toBe('0.50');
  });

  it('keeps the minimum duration within 0..30000 ms and week_start_day to 0 or 1', async () => {
    expect((await patch(today, { session_recording_minimum_duration_milliseconds: 30_001 })).json).toMatchObject({
      detail: 'Ensure this value is less than or equal to 30000.',
      attr: 'session_recording_minimum_duration_milliseconds',
    });
    expect((await patch(today, { week_start_day: 3 })).json).toMatchObject({ code: 'invalid_choice', attr: 'week_start_day' });
    expect((await patch(today, { session_recording_minimum_duration_milliseconds: null, week_start_day: 1 })).json).toMatchObject({
      session_recording_minimum_duration_milliseconds: null,
      week_start_day: 1,
    });
  });

  it('takes only the keys PostHog knows in the capture, masking and linked-flag settings', async () => {
    expect((await patch(today, { session_recording_network_payload_capture_config: { recordBody: true, recordCookies: true } })).json).toMatchObject({
      detail: "Must provide a dictionary with only 'recordHeaders' and/or 'recordBody' keys.",
      attr: 'session_recording_network_payload_capture_config',
    });
    expect((await patch(today, { session_recording_masking_config: { maskAllInputs: 'yes' } })).json.detail).toBe('maskAllInputs must be a boolean.');
    expect((await patch(today, { session_recording_masking_config: { maskEverything: true } })).json.detail).toMatch(/^Must provide a dictionary with only known keys: /);
    expect((await patch(today, { session_recording_linked_flag: { key: 'beta' } })).json.detail).toMatch(/only 'id' and 'key' keys/);
    const ok = await patch(today, { session_recording_linked_flag: { id: 7, key: 'beta', variant: 'test' }, session_recording_masking_config: { maskAllInputs: true } });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ session_recording_linked_flag: { id: 7, key: 'beta', variant: 'test' }, session_recording_masking_config: { maskAllInputs: true } });
  });

  it('merges session_replay_config into the stored one, a level down too, and refuses unknown keys', async () => {
    await patch(today, { session_replay_config: { record_canvas: false, ai_config: { opt_in: true, preferred_events: ['$pageview'] } } });
    const merged = await patch(today, { session_replay_config: { ai_config: { excluded_events: ['$autocapture'] } } });
    expect(merged.json.session_replay_config).toEqual({ record_canvas: false, ai_config: { opt_in: true, preferred_events: ['$pageview'], excluded_events: ['$autocapture'] } });
    expect((await patch(today, { session_replay_config: { record_video: true } })).json.detail).toMatch(/only known keys\. One or more of record_canvas, ai_config/);
  });

  it("refuses a retention period beyond the demo plan's (403, PostHog's words) and leaves the project as it was", async () => {
    const before = (await send(today, 'GET', `/api/projects/${DEMO.marketingProjectId}/`)).json;
    const res = await patch(today, { session_recording_retention_period: '1y', name: 'Renamed with 1y' });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({
      code: 'permission_denied',
      detail: "This organization does not have permission to set retention period of length '1y' - longest allowable retention period is '90d'.",
    });
    const after = (await send(today, 'GET', `/api/projects/${DEMO.marketingProjectId}/`)).json;
    expect(after).toMatchObject({ name: before.name, session_recording_retention_period: before.session_recording_retention_period });
    expect((await patch(today, { session_recording_retention_period: '2y' })).json).toMatchObject({ code: 'invalid_choice', attr: 'session_recording_retention_period' });
    expect((await patch(today, { session_recording_retention_period: '90d' })).json.session_recording_retention_period).toBe('90d');
  });
});
