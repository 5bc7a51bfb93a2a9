// The operations over a real client and the sandbox on 127.0.0.1: each answer read once into its
// typed value, fields in the order PostHog sent them, an unusable answer refused in words an
// agent can act on, an unusable row of a list left out.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamUnavailableError } from '../../src/errors.js';
import { PostHogClient } from '../../src/posthog/client.js';
import { matchingEventsQuery } from '../../src/posthog/hogql-queries.js';
import { operationsOver, type PostHogOperations } from '../../src/posthog/operations/index.js';
import { DEMO, startSandbox, type Sandbox } from '../../src/sandbox/index.js';

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds.checkoutFailure;
const json = { 'content-type': 'application/json' };

describe('operations against the sandbox', () => {
  let sandbox: Sandbox;
  let client: PostHogClient;
  let posthog: PostHogOperations;
  beforeAll(async () => {
    sandbox = await startSandbox();
    // The CLI's defaults (POSTHOG_TIMEOUT_MS 30 s, its retries): every fault here is a 200 answer, so retries never apply.
    client = new PostHogClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey, timeoutMs: 30_000 });
    posthog = operationsOver(client);
  });
  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });
  beforeEach(() => sandbox.reset());

  it('reads a recording with its fields, and its person\'s, in the order PostHog sent them, variant types read as declared', async () => {
    const body = { zeta: 'kept', id: R, click_count: '12', viewed: 'true', person: { uuid: 'p', name: 7, extra: 1 }, start_time: '2026-01-01T00:00:00Z' };
    sandbox.injectFault({ path: `/api/projects/${P}/session_recordings/${R}`, status: 200, body, headers: json });
    const recording = await posthog.recordings.get(P, R);
    expect(Object.keys(recording)).toEqual(['zeta', 'id', 'click_count', 'viewed', 'person', 'start_time']);
    expect(Object.keys(recording.person!)).toEqual(['uuid', 'name', 'extra']);
    expect(recording).toMatchObject({ click_count: 12, viewed: true, person: { name: '7', extra: 1 } });
  });

  it('refuses a project or a recording without an id, saying what to check', async () => {
    sandbox.injectFault({ path: `/api/projects/${P}`, status: 200, body: { name: 'no id' }, headers: json });
    const project = await posthog.projects.get(Number(P)).catch((e: unknown) => e);
    expect(project).toBeInstanceOf(UpstreamUnavailableError);
    expect((project as UpstreamUnavailableError).kind).toBe('malformed');
    expect((project as Error).message).toBe('PostHog answered with a project that has no id (not a project this server can use); check POSTHOG_HOST points at the PostHog app.');
    sandbox.injectFault({ path: `/api/projects/${P}/session_recordings/${R}`, status: 200, body: { id: { toString: 'x' } }, headers: json });
    await expect(posthog.recordings.get(P, R)).rejects.toThrow(/a recording that has no id/);
  });

  it('leaves out a list row without an id, and keeps the page\'s paging', async () => {
    sandbox.injectFault({ path: `/api/projects/${P}/session_recordings`, status: 200, body: { results: [{ id: 'a' }, { start_url: 'no id' }, 'not a row', { id: 'b' }], has_next: true }, headers: json });
    const page = await posthog.recordings.list(P, { limit: 4, offset: 8 });
    expect(page.results.map((r) => r.id)).toEqual(['a', 'b']);
    expect(page).toMatchObject({ has_more: true, next_offset: 12 });
    expect(sandbox.requests.at(-1)!.query).toEqual({ limit: '4', offset: '8' });
  });

  it('reads the snapshot sources listing: every field present, a source with no kind left out; no list is not "0 sources"', async () => {
    const path = `/api/projects/${P}/session_recordings/${R}/snapshots`;
    sandbox.injectFault({ path, status: 200, body: { sources: [{ start_timestamp: 't0', source: 'blob_v2', blob_key: 3 }, { blob_key: '4' }, { source: 'realtime' }] }, headers: json });
    expect(await posthog.snapshots.sources(P, R)).toEqual([
      { source: 'blob_v2', blob_key: '3', start_timestamp: 't0', end_timestamp: null },
      { source: 'realtime', blob_key: null, start_timestamp: null, end_timestamp: null },
    ]);
    expect(sandbox.requests.at(-1)!.query).toEqual({ blob_v2: 'true' });
    sandbox.injectFault({ path, status: 200, body: { detail: 'ok' }, headers: json });
    await expect(posthog.snapshots.sources(P, R)).rejects.toThrow(/no "sources" list/);
  });

  it('refuses a query answer without the columns and rows of a HogQL result', async () => {
    const built = matchingEventsQuery({ sessionId: R, eventNames: ['$pageview'], actionIds: [], from: new Date(0), to: new Date() });
    sandbox.injectFault({ path: `/api/projects/${P}/query`, status: 200, body: { columns: ['uuid', { x: 1 }], results: [] }, headers: json });
    await expect(posthog.query.hogql(P, built)).rejects.toThrow(/without the columns and rows of a HogQL result/);
    const { columns, rows } = await posthog.query.hogql(P, built);
    expect(columns).toContain('uuid');
    expect(rows.length).toBeGreaterThan(0);
    expect(Object.keys(rows[0]!)).toEqual(columns);
  });
});
