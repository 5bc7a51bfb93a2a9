// Project writes as the sandbox's two PostHogs validate them (posthog-api-facts.md §7).

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
