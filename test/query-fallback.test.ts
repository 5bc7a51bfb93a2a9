// matching-events and properties on a PostHog that refuses or lacks the documented endpoints
// (today's Cloud): the query API answers, the refusal is remembered per upstream, and a key
// without query:read gets an error naming that scope. Against the sandbox over real HTTP.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { PostHogClient } from '../src/posthog/client.js';
import { endpointMemory } from '../src/posthog/hogql.js';
import { DEMO, startSandbox, type RecordedRequest, type SandboxOptions } from '../src/sandbox/index.js';
import { serverFactory } from '../src/server.js';
import { serveHttp } from '../src/transports/http.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;
const MATCHING = `/api/projects/${P}/session_recordings/matching_events/`;
const PROPERTIES = `/api/projects/${P}/session_recordings/properties/`;
const QUERY = `/api/projects/${P}/query/`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(sandbox: SandboxOptions = {}): Promise<Harness> {
  h = await startHarness({ sandbox });
  return h;
}

const at = (requests: RecordedRequest[], path: string) => requests.filter((r) => r.path === path);
const queryBody = (request: RecordedRequest) => JSON.parse(request.body) as { query: { kind: string; query: string; values: Record<string, unknown> } };

describe("today's PostHog: the query API answers", () => {
  it('matching-events falls back once, remembers it, and sends the session id only as a value', async () => {
    const t = await harness();
    const args = { project_id: P, session_id: R.checkoutFailure, events: [{ id: '$exception' }] };
    const first = await t.call('session-recording-matching-events', args);
    expect(first.isError, text(first)).toBeFalsy();
    const second = await t.call('session-recording-matching-events', args);
    expect(second.structuredContent).toEqual(first.structuredContent);

    const requests = apiRequests(t.sandbox);
    expect(at(requests, MATCHING)).toHaveLength(1);
    const queries = at(requests, QUERY);
    expect(queries).toHaveLength(2);
    const { query } = queryBody(queries[0]!);
    expect(query.kind).toBe('HogQLQuery');
    expect(query.values.session_id).toBe(R.checkoutFailure);
    expect(query.values.event_names).toEqual(['$exception']);
    // The input never becomes query text: it travels in `values` only.
    expect(query.query).not.toContain(R.checkoutFailure);
    expect(query.query).not.toContain('$exception');
    expect(query.query).toMatch(/timestamp >= toDateTime\(\{date_from\}\) AND timestamp <= toDateTime\(\{date_to\}\)/);

    // Bounded by the recording's own span (read from its metadata), not an open-ended scan.
    const recording = (await t.call('session-recording-get', { project_id: P, id: R.checkoutFailure })).structuredContent as { recording: { start_time: string } };
    const from = Date.parse(String(query.values.date_from));
    const to = Date.parse(String(query.values.date_to));
    expect(from).toBeLessThanOrEqual(Date.parse(recording.recording.start_time));
    expect(to - from).toBeLessThan(3 * 3_600_000);

    const results = (first.structuredContent as { results: Array<{ uuid: string; timestamp: string }> }).results;
    expect(results).toHaveLength(2);
    expect(results[0]!.timestamp).toMatch(/Z$/);
  });

  it('gives the same matches as the documented endpoint of 2024', async () => {
    const args = { project_id: P, session_id: R.checkoutFailure, events: [{ id: '$pageview' }, { id: '$exception' }], actions: [{ id: DEMO.actions.find((a) => a.event === '$rageclick')!.id }] };
    // The same clock for both, so the demo events (and their uuids) are the same.
    const now = new Date();
    const today = await harness({ now });
    const viaQuery = await today.call('session-recording-matching-events', args);
    await today.close();
    const old = await harness({ api: '2024', now });
    const viaEndpoint = await old.call('session-recording-matching-events', args);
    expect(at(apiRequests(old.sandbox), QUERY)).toHaveLength(0);
    expect(at(apiRequests(old.sandbox), MATCHING)).toHaveLength(1);
    const matches = (r: CallToolResult) => (r.structuredContent as { results: Array<{ uuid: string; timestamp: string }> }).results.map((m) => [m.uuid, Date.parse(m.timestamp)]);
    expect(matches(viaQuery).length).toBeGreaterThan(2);
    expect(matches(viaQuery)).toEqual(matches(viaEndpoint));
  });

  it('properties: the removed endpoint (404) is asked once, the query groups by session, shape unchanged', async () => {
    const t = await harness();
    const args = { project_id: P, session_ids: [R.compressedMobile, R.checkoutFailure, 'no-such-session'] };
    const first = await t.call('session-recording-properties', args);
    expect(first.isError, text(first)).toBeFalsy();
    await t.call('session-recording-properties', args);
    const requests = apiRequests(t.sandbox);
    expect(at(requests, PROPERTIES)).toHaveLength(1);
    expect(at(requests, QUERY)).toHaveLength(2);
    const { query } = queryBody(at(requests, QUERY)[0]!);
    expect(query.values.session_ids).toEqual(args.session_ids);
    expect(query.query).not.toContain(R.compressedMobile);
    const results = (first.structuredContent as { results: Array<{ id: string; properties: Record<string, unknown> }> }).results;
    expect(results.map((r) => r.id)).toEqual([R.compressedMobile, R.checkoutFailure]);
    expect(results[0]!.properties).toEqual({
      $os: 'iOS',
      $browser: 'Mobile Safari',
      $device_type: 'Mobile',
      $current_url: 'https://shop.example.com/collections/sale',
      $host: 'shop.example.com',
      $pathname: '/collections/sale',
      $geoip_country_code: 'NG',
      $geoip_country_name: 'Nigeria',
    });
    expect(text(first)).toMatch(/No properties for: no-such-session/);
  });

  it('a 2024 PostHog with a scoped key (403 on the internal endpoint) is answered through the query API too', async () => {
    const t = await harness({ api: '2024', scopes: ['*'] });
    const r = await t.call('session-recording-matching-events', { project_id: P, session_id: R.checkoutFailure, events: [{ id: '$exception' }] });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { results: unknown[] }).results).toHaveLength(2);
    expect(at(apiRequests(t.sandbox), QUERY)).toHaveLength(1);
  });

  it('a key without query:read gets an error naming that scope, and nothing is remembered', async () => {
    const t = await harness({ scopes: ['session_recording:read', 'project:read'] });
    const r = await t.call('session-recording-matching-events', { project_id: P, session_id: R.checkoutFailure, events: [{ id: '$exception' }] });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/403/);
    expect(text(r)).toMatch(/query:read/);
    expect(text(r)).not.toMatch(/needs the session_recording:read scope/);
    const p = await t.call('session-recording-properties', { project_id: P, session_ids: [R.checkoutFailure] });
    expect(p.isError).toBe(true);
    expect(text(p)).toMatch(/query:read/);
    // The endpoint was not marked unavailable: the next call asks it again.
    await t.call('session-recording-matching-events', { project_id: P, session_id: R.checkoutFailure, events: [{ id: '$exception' }] });
    expect(at(apiRequests(t.sandbox), MATCHING)).toHaveLength(2);
  });

  it('an unknown project fails both ways and is not taken as proof the endpoint is gone', async () => {
    const t = await harness();
    const r = await t.call('session-recording-matching-events', { project_id: '999', session_id: R.checkoutFailure, events: [{ id: '$exception' }] });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Project not found/);
    const ok = await t.call('session-recording-matching-events', { project_id: P, session_id: R.checkoutFailure, events: [{ id: '$exception' }] });
    expect(ok.isError, text(ok)).toBeFalsy();
    expect(at(apiRequests(t.sandbox), MATCHING)).toHaveLength(1);
  });

  it('an unknown action id is named as such, either way', async () => {
    for (const api of ['today', '2024'] as const) {
      const t = await harness({ api });
      const r = await t.call('session-recording-matching-events', { project_id: P, session_id: R.checkoutFailure, actions: [{ id: 99 }] });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/400/);
      expect(text(r)).toMatch(/action id in actions \(99\) does not exist/);
      await t.close();
      h = undefined;
    }
  });

  it('a date_from the query could not be bounded with is refused before any request', async () => {
    const t = await harness();
    const r = await t.call('session-recording-properties', { project_id: P, session_ids: [R.checkoutFailure], date_from: 'yesterday' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/date_from/);
    expect(apiRequests(t.sandbox)).toHaveLength(0);
  });

  it('per-event property filters are not offered (the query path does not translate them): refused before any request, naming the field', async () => {
    const t = await harness();
    const r = await t.call('session-recording-matching-events', {
      project_id: P,
      session_id: R.checkoutFailure,
      events: [{ id: '$pageview', properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }] }],
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/events\.0: unrecognized field "properties"/);
    expect(apiRequests(t.sandbox)).toHaveLength(0);
    const listed = (await t.client.listTools()).tools.find((tool) => tool.name === 'session-recording-matching-events')!;
    expect(JSON.stringify(listed.inputSchema)).not.toContain('"properties":{"description"');
  });

  it('the memory is per upstream and shared by every per-user key of an HTTP server', async () => {
    const sandbox = await startSandbox({ acceptAnyKey: true });
    const upstream = new PostHogClient({ baseUrl: sandbox.url, timeoutMs: 5_000 });
    const http = await serveHttp({ host: '127.0.0.1', port: 0, client: upstream, createServer: serverFactory({ settings: { readOnly: true, toolsets: ['recordings'], defaultProjectId: undefined }, log: () => {} }), log: () => {} });
    const clients: Client[] = [];
    try {
      for (const key of ['phx_alice_key_000000000000', 'phx_bob_key_1111111111111']) {
        const client = new Client({ name: 'fallback-test', version: '1' });
        await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
        clients.push(client);
        const r = (await client.callTool({ name: 'session-recording-matching-events', arguments: { project_id: P, session_id: R.checkoutFailure, events: [{ id: '$exception' }] } })) as CallToolResult;
        expect(r.isError, text(r)).toBeFalsy();
      }
      const matching = at(apiRequests(sandbox), MATCHING);
      expect(matching).toHaveLength(1);
      expect(matching[0]!.authorization).toBe('Bearer phx_alice_key_000000000000');
      const queries = at(apiRequests(sandbox), QUERY);
      expect(queries.map((q) => q.authorization)).toEqual(['Bearer phx_alice_key_000000000000', 'Bearer phx_bob_key_1111111111111']);
    } finally {
      for (const client of clients) await client.close();
      await http.close();
      await upstream.close();
      await sandbox.close();
      endpointMemory.forget(sandbox.url);
    }
  });

  it("one key's other 403 (a missing scope) is remembered for that key only: another user still gets the documented endpoint", async () => {
    // PostHog of 2024, where the documented endpoint answers a key without scopes.
    const sandbox = await startSandbox({ acceptAnyKey: true, api: '2024' });
    const upstream = new PostHogClient({ baseUrl: sandbox.url, timeoutMs: 5_000 });
    const http = await serveHttp({ host: '127.0.0.1', port: 0, client: upstream, createServer: serverFactory({ settings: { readOnly: true, toolsets: ['recordings'], defaultProjectId: undefined }, log: () => {} }), log: () => {} });
    const alice = 'phx_alice_scoped_key_00000000';
    const bob = 'phx_bob_legacy_key_111111111';
    const clients = new Map<string, Client>();
    const args = { project_id: P, session_id: R.checkoutFailure, events: [{ id: '$exception' }] };
    const callAs = async (key: string) => {
      let client = clients.get(key);
      if (!client) {
        client = new Client({ name: 'fallback-test', version: '1' });
        await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
        clients.set(key, client);
      }
      const r = (await client.callTool({ name: 'session-recording-matching-events', arguments: args })) as CallToolResult;
      expect(r.isError, text(r)).toBeFalsy();
    };
    try {
      // Alice's key is refused the endpoint (a scope it lacks), not every key.
      sandbox.injectFault({ path: MATCHING, status: 403, body: { type: 'authentication_error', code: 'permission_denied', detail: 'You do not have permission to perform this action.', attr: null } });
      await callAs(alice);
      await callAs(alice);
      await callAs(bob);
      const matching = at(apiRequests(sandbox), MATCHING).map((r) => r.authorization);
      // Alice asked it once and then went straight to the query; Bob was still sent to the endpoint.
      expect(matching).toEqual([`Bearer ${alice}`, `Bearer ${bob}`]);
      expect(at(apiRequests(sandbox), QUERY).map((r) => r.authorization)).toEqual([`Bearer ${alice}`, `Bearer ${alice}`]);
    } finally {
      for (const client of clients.values()) await client.close();
      await http.close();
      await upstream.close();
      await sandbox.close();
      endpointMemory.forget(sandbox.url);
    }
  });
});
