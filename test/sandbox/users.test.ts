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

describe('sandbox: the key owner (users/@me, personal_api_keys/@current)', () => {
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

  it('404s other users and keys, and 401s without a key', async () => {
    expect((await get('/api/users/41872/')).status).toBe(404);
    expect((await get('/api/personal_api_keys/123/')).status).toBe(404);
    expect((await get('/api/users/@me/', {})).status).toBe(401);
  });
});
