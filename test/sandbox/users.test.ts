import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, SANDBOX_API_KEY, startSandbox, type Sandbox } from '../../src/sandbox/index.js';

let sb: Sandbox;
const AUTH = { Authorization: `Bearer ${SANDBOX_API_KEY}` };

async function get(path: string, headers: Record<string, string> = AUTH): Promise<{ status: number; json: any }> {
  const res = await fetch(sb.url + path, { headers });
  return { status: res.status, json: await res.json() };
}

beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

describe('sandbox: the key owner (users/@me, personal_api_keys/@current, the organization)', () => {
  it('answers /api/users/@me/ with the user, the current project as team and the organization', async () => {
    const { status, json } = await get('/api/users/@me/');
    expect(status).toBe(200);
    expect(json).toMatchObject({ email: DEMO.user.email, team: { id: DEMO.mainProjectId, organization: DEMO.organizationId }, organization: { id: DEMO.organizationId, name: DEMO.organizationName } });
    expect(typeof json.distinct_id).toBe('string');
    expect(json.organizations).toEqual([expect.objectContaining({ id: DEMO.organizationId })]);
    expect(json.organization.teams.map((t: { id: number }) => t.id)).toEqual(DEMO.projects.map((p) => p.id));
  });

  it('follows the current project when a new project is created', async () => {
    const created = await fetch(`${sb.url}/api/projects/`, { method: 'POST', headers: { ...AUTH, 'Content-Type': 'application/json' }, body: '{"name":"Fresh"}' });
    const project = (await created.json()) as { id: number };
    expect((await get('/api/users/@me')).json.team.id).toBe(project.id);
  });

  it('answers /api/personal_api_keys/@current with scopes and a masked key, never the key itself', async () => {
    const res = await fetch(`${sb.url}/api/personal_api_keys/@current`, { headers: AUTH });
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(body).not.toContain(SANDBOX_API_KEY);
    expect(JSON.parse(body)).toMatchObject({ scopes: ['*'], scoped_teams: [], scoped_organizations: [], mask_value: `phx_...${SANDBOX_API_KEY.slice(-4)}` });
  });

  it('answers /api/organizations/{id or @current}/ with the plan\'s features: the replay retention cap its project updates enforce', async () => {
    for (const which of [DEMO.organizationId, '@current']) {
      const { status, json } = await get(`/api/organizations/${which}/`);
      expect(status).toBe(200);
      expect(json).toMatchObject({ id: DEMO.organizationId, name: DEMO.organizationName, projects: DEMO.projects.map((p) => ({ id: p.id, name: p.name })) });
      expect(json.available_product_features).toContainEqual(expect.objectContaining({ key: 'session_replay_data_retention', limit: 90, unit: 'days' }));
    }
    // The same cap as the 403 of a longer period states.
    const refused = await fetch(`${sb.url}/api/projects/${DEMO.mainProjectId}/`, { method: 'PATCH', headers: { ...AUTH, 'Content-Type': 'application/json' }, body: '{"session_recording_retention_period":"1y"}' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/longest allowable retention period is '90d'/);
    expect((await get('/api/organizations/0190a000-0000-7000-8000-000000000001/')).status).toBe(404);
  });

  it('asks organization:read for the organization, as PostHog does', async () => {
    const narrow = await startSandbox({ scopes: ['project:read'] });
    try {
      const res = await fetch(`${narrow.url}/api/organizations/@current/`, { headers: AUTH });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toBe("API key missing required scope 'organization:read'");
      const reading = await startSandbox({ scopes: ['organization:read'] });
      try {
        expect((await fetch(`${reading.url}/api/organizations/@current/`, { headers: AUTH })).status).toBe(200);
      } finally {
        await reading.close();
      }
    } finally {
      await narrow.close();
    }
  });

  it('404s other users and keys, and 401s without a key', async () => {
    expect((await get('/api/users/41872/')).status).toBe(404);
    expect((await get('/api/personal_api_keys/123/')).status).toBe(404);
    expect((await get('/api/users/@me/', {})).status).toBe(401);
  });
});
