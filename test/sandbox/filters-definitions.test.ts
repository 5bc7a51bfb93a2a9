import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, SANDBOX_API_KEY, startSandbox, type Sandbox } from '../../src/sandbox/index.js';

// Issue 31 item 6: the sandbox filters recordings as PostHog does, refuses what it cannot
// evaluate, and serves the definitions a client learns filter names from.
let sb: Sandbox;
const MAIN = DEMO.mainProjectId;
const R = DEMO.recordingIds;

async function get(path: string, key = SANDBOX_API_KEY): Promise<{ status: number; json: any }> {
  const res = await fetch(sb.url + path, { headers: { Authorization: `Bearer ${key}` } });
  return { status: res.status, json: await res.json() };
}
const q = (params: Record<string, unknown>) => '?' + Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&');
const list = (params: Record<string, unknown>) => get(`/api/projects/${MAIN}/session_recordings/${q({ date_from: '-7d', ...params })}`);
const ids = (body: any) => (body.results as Array<{ id: string }>).map((r) => r.id).sort();

beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

describe('recording filters the sandbox cannot evaluate are refused, not ignored', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['a cohort filter', { properties: [{ type: 'cohort', key: 'id', value: 4 }] }, 'properties'],
    ['a group filter', { properties: [{ type: 'group', key: 'plan', operator: 'exact', value: ['pro'], group_type_index: 0 }] }, 'properties'],
    ['a HogQL filter', { properties: [{ type: 'hogql', key: "properties.$browser = 'Chrome'" }] }, 'properties'],
    ['an element filter inside an event entity', { events: [{ id: '$autocapture', properties: [{ type: 'element', key: 'text', operator: 'exact', value: ['Buy'] }] }] }, 'events'],
  ];
  for (const [what, params, attr] of cases) {
    it(`${what}: 400 in PostHog's error shape`, async () => {
      const { status, json } = await list(params);
      expect(status).toBe(400);
      expect(json).toMatchObject({ type: 'validation_error', code: 'unsupported_filter', attr });
      expect(json.detail).toMatch(/cannot evaluate/);
    });
  }
});

describe('console filters combine by operand', () => {
  const errors = { key: 'level', type: 'log_entry', operator: 'exact', value: ['error'] };
  const word = { key: 'message', type: 'log_entry', operator: 'icontains', value: '503' };
  it('AND: one entry is an error and mentions the word', async () => {
    expect(ids((await list({ console_log_filters: [errors, word] })).json)).toEqual([R.searchRageClick]);
  });
  it('OR: one entry is an error or mentions the word', async () => {
    const { json } = await list({ console_log_filters: [errors, word], operand: 'OR' });
    // The search-tabs recording's 503 is a warning: only OR lets it in.
    expect(ids(json)).toEqual([R.checkoutFailure, R.searchRageClick, R.recordedCheckout, R.recordedSearchTabs, R.recordedSdkSignup].sort());
  });
});

describe('event and property definitions', () => {
  it('lists event names seen in the project, paged as DRF pages, with a term search', async () => {
    const all = await get(`/api/projects/${MAIN}/event_definitions/`);
    expect(all.status).toBe(200);
    const names = all.json.results.map((d: any) => d.name);
    expect(names).toEqual(expect.arrayContaining(['$pageview', '$exception', 'order_completed']));
    expect(names).not.toContain('plan_cta_clicked');
    expect(all.json.count).toBe(names.length);
    expect(all.json.results[0]).toMatchObject({ id: expect.any(String), last_seen_at: expect.any(String), is_action: false });

    const first = await get(`/api/projects/${MAIN}/event_definitions/?limit=2`);
    expect(first.json.results).toHaveLength(2);
    expect(first.json.next).toMatch(/limit=2&offset=2$/);
    const second = await get(new URL(first.json.next).pathname + new URL(first.json.next).search);
    expect(second.json.results.map((d: any) => d.name)).toEqual(names.slice(2, 4));

    const search = await get(`/api/projects/${MAIN}/event_definitions/?search=${encodeURIComponent('CART added')}`);
    expect(search.json.results.map((d: any) => d.name)).toEqual(['product_added_to_cart']);
  });

  it('lists property keys by type, with PostHog property types', async () => {
    const person = await get(`/api/projects/${MAIN}/property_definitions/?type=person`);
    const byName = Object.fromEntries(person.json.results.map((d: any) => [d.name, d]));
    expect(byName.email).toMatchObject({ property_type: 'String', is_numerical: false });
    expect(byName.orders_count).toMatchObject({ property_type: 'Numeric', is_numerical: true });
    expect(byName.newsletter).toMatchObject({ property_type: 'Boolean' });
    const event = await get(`/api/projects/${MAIN}/property_definitions/?type=event&search=device`);
    expect(event.json.results.map((d: any) => d.name)).toEqual(['$device_id', '$device_type']);
    const session = await get(`/api/projects/${MAIN}/property_definitions/?type=session`);
    expect(session.json.results.map((d: any) => d.name)).toContain('$entry_current_url');
  });

  it('refuses an unknown property type as DRF does, and asks for the definition scopes', async () => {
    const bad = await get(`/api/projects/${MAIN}/property_definitions/?type=people`);
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ type: 'validation_error', code: 'invalid_choice', attr: 'type' });
    const scoped = await startSandbox({ scopes: ['session_recording:read'] });
    try {
      const res = await fetch(`${scoped.url}/api/projects/${MAIN}/event_definitions/`, { headers: { Authorization: `Bearer ${SANDBOX_API_KEY}` } });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toBe("API key missing required scope 'event_definition:read'");
    } finally {
      await scoped.close();
    }
  });

  it("serves a property's common values", async () => {
    const persons = await get(`/api/projects/${MAIN}/persons/values/?key=$geoip_country_code`);
    expect(persons.json[0]).toEqual({ name: 'GB', count: 2 });
    const events = await get(`/api/projects/${MAIN}/events/values/?key=$device_type`);
    expect(events.json.map((v: any) => v.name).sort()).toEqual(['Desktop', 'Mobile']);
  });
});
