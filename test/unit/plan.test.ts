// The plan's longest replay retention, read from the organization's available_product_features
// as PostHog reads it (docs/mcp-features.md, "The plan's replay retention"), and the one request
// that fetches it, which answers "not known, because…" rather than failing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PostHogClient } from '../../src/posthog/client.js';
import { operationsOver } from '../../src/posthog/operations/index.js';
import { retentionCapOf } from '../../src/posthog/plan.js';
import { DEMO, startSandbox, type Sandbox } from '../../src/sandbox/index.js';

/** The one request for the organization, through the operation every caller uses. */
const readRetentionCap = (client: PostHogClient, orgId: string, signal?: AbortSignal) => operationsOver(client).projects.retentionCap(orgId, { signal });

const entry = (limit: unknown, unit: unknown) => [{ key: 'session_replay_data_retention', name: 'Recording retention', limit, unit }];

describe('retentionCapOf', () => {
  it.each([
    [30, 'days', '30d'],
    [90, 'day', '90d'],
    [365, 'days', '1y'],
    [1825, 'days', '5y'],
    [1, 'year', '1y'],
    [5, 'years', '5y'],
    [12, 'months', '1y'],
    [60, 'month', '5y'],
    // Not a period of its own: the longest period the entitlement covers.
    [45, 'days', '30d'],
    [6, 'months', '90d'],
    [3, 'months', '90d'],
    [2, 'years', '1y'],
    [10, 'years', '5y'],
    [11, 'months', '90d'],
    // Below the shortest period PostHog still allows 30d.
    [7, 'days', '30d'],
    [0, 'days', '30d'],
    [90, 'DAYS', '90d'],
  ])('%s %s allow up to %s', (limit, unit, longest) => {
    expect(retentionCapOf(entry(limit, unit))).toEqual({ longest });
  });

  it('finds the entry among the plan\'s other features', () => {
    const features = [{ key: 'recordings_playlists', name: 'Saved filters', limit: 5, unit: null }, 'junk', null, ...entry(1, 'year')];
    expect(retentionCapOf(features)).toEqual({ longest: '1y' });
  });

  it.each([
    ['no limit', entry(null, 'days')],
    ['no unit', entry(90, null)],
    ['a unit PostHog does not read', entry(90, 'weeks')],
    ['a limit that is text', entry('90', 'days')],
    ['a limit that is not finite', entry(Infinity, 'days')],
  ])('an entry with %s says so, never a guess', (_, features) => {
    expect(retentionCapOf(features)).toEqual({ unknown: expect.stringMatching(/no limit and unit PostHog reads/) });
  });

  it('says when the plan lists no retention (self-hosted PostHog) or the list is missing', () => {
    expect(retentionCapOf([])).toEqual({ unknown: expect.stringMatching(/lists no replay retention/) });
    expect(retentionCapOf([{ key: 'recordings_playlists', limit: 5 }])).toEqual({ unknown: expect.stringMatching(/self-hosted PostHog may list none/) });
    for (const odd of [undefined, null, {}, 'session_replay_data_retention']) expect(retentionCapOf(odd)).toEqual({ unknown: expect.stringMatching(/no list of its plan's features/) });
  });
});

describe('projects.retentionCap against the sandbox', () => {
  let sandbox: Sandbox;
  let narrow: Sandbox;
  let client: PostHogClient;
  let narrowClient: PostHogClient;
  const options = (s: Sandbox) => ({ baseUrl: s.url, apiKey: s.apiKey, timeoutMs: 2_000, maxRetries: 0 });
  beforeAll(async () => {
    sandbox = await startSandbox();
    narrow = await startSandbox({ scopes: ['project:read'] });
    client = new PostHogClient(options(sandbox));
    narrowClient = new PostHogClient(options(narrow));
  });
  afterAll(async () => {
    await Promise.all([client.close(), narrowClient.close()]);
    await Promise.all([sandbox.close(), narrow.close()]);
  });
  beforeEach(() => sandbox.reset());

  it('reads the demo plan\'s 90d, by the organization\'s id or @current', async () => {
    expect(await readRetentionCap(client, DEMO.organizationId)).toEqual({ longest: '90d' });
    expect(await readRetentionCap(client, '@current')).toEqual({ longest: '90d' });
    expect(sandbox.requests.map((r) => r.path)).toEqual([`/api/organizations/${DEMO.organizationId}/`, '/api/organizations/@current/']);
  });

  it('a key without organization:read, an unknown organization, an error status: not known, and why', async () => {
    expect(await readRetentionCap(narrowClient, DEMO.organizationId)).toEqual({ unknown: expect.stringMatching(/organization:read/) });
    expect(await readRetentionCap(client, '0190a000-0000-7000-8000-000000000001')).toEqual({ unknown: expect.stringMatching(/no such organization .*404/) });
    sandbox.injectFault({ path: `/api/organizations/${DEMO.organizationId}`, status: 500 });
    expect(await readRetentionCap(client, DEMO.organizationId)).toEqual({ unknown: 'PostHog answered 500 for the organization' });
  });

  it('an HTML page, JSON that is no organization, or an id that would change the path: not known, no throw', async () => {
    sandbox.setHostile({ kind: 'html', path: /^\/api\/organizations\// });
    expect(await readRetentionCap(client, DEMO.organizationId)).toEqual({ unknown: expect.stringMatching(/not PostHog's JSON/) });
    sandbox.setHostile({ kind: 'wrong-types', path: /^\/api\/organizations\// });
    expect(await readRetentionCap(client, DEMO.organizationId)).toEqual({ unknown: expect.stringMatching(/lists no replay retention/) });
    sandbox.setHostile(undefined);
    sandbox.injectFault({ path: `/api/organizations/${DEMO.organizationId}`, status: 200, body: '[1, 2]', headers: { 'content-type': 'application/json' } });
    expect(await readRetentionCap(client, DEMO.organizationId)).toEqual({ unknown: expect.stringMatching(/not PostHog's JSON|not an organization/) });
    sandbox.requests.length = 0;
    expect(await readRetentionCap(client, '../projects')).toEqual({ unknown: expect.stringMatching(/organization id/) });
    expect(sandbox.requests).toHaveLength(0);
  });

  it('cancelling throws: the caller was stopped, nothing is to be said', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(readRetentionCap(client, DEMO.organizationId, controller.signal)).rejects.toThrow(/cancelled/);
  });
});
