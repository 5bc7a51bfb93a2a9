import { request as httpRequest } from 'node:http';
import { connect as connectSocket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostHogClient } from '../src/posthog/client.js';
import { DEMO, startSandbox, type Sandbox, type SandboxOptions } from '../src/sandbox/index.js';
import { serverFactory } from '../src/server.js';
import { serveHttp, type HttpOptions, type RunningHttp } from '../src/transports/http.js';
import { apiRequests } from './harness.js';

const settings = { readOnly: false, toolsets: ['recordings' as const, 'projects' as const], defaultProjectId: undefined };
const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;
const ALICE = 'phx_alice_key_000000000000';
const BOB = 'phx_bob_key_1111111111111';
const TOKEN = 'team-access-token-0123456789abcdef';

interface Running {
  sandbox: Sandbox;
  http: RunningHttp;
  logs: string[];
  close(): Promise<void>;
}

/** Our HTTP server on 127.0.0.1 with the sandbox as upstream; `serverKey` set = shared-key mode. */
async function start(options: { serverKey?: string; sandbox?: SandboxOptions; http?: Partial<HttpOptions> } = {}): Promise<Running> {
  const sandbox = await startSandbox({ acceptAnyKey: true, ...options.sandbox });
  const upstream = new PostHogClient({ baseUrl: sandbox.url, apiKey: options.serverKey, timeoutMs: 5_000 });
  const logs: string[] = [];
  const log = (message: string) => logs.push(message);
  const http = await serveHttp({ host: '127.0.0.1', port: 0, client: upstream, createServer: serverFactory({ settings, log }), log, ...options.http });
  return {
    sandbox,
    http,
    logs,
    close: async () => {
      await http.close();
      await upstream.close();
      await sandbox.close();
    },
  };
}

async function connect(url: string, bearer?: string): Promise<Client> {
  const client = new Client({ name: 'http-test', version: '1' });
  const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Plain HTTP with any headers (fetch will not send a Host of our choosing). */
function raw(url: string, init: { method?: string; path?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  const target = new URL(init.path ?? '/mcp', url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(target, { method: init.method ?? 'POST', headers: init.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Every HTTP-level refusal is a JSON-RPC error object with id null. */
function rpcError(response: RawResponse): { code: number; message: string } {
  const parsed = JSON.parse(response.body) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
  expect(parsed.jsonrpc).toBe('2.0');
  expect(parsed.id).toBeNull();
  return parsed.error;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

describe('stateless Streamable HTTP with per-user keys', () => {
  let s: Running;
  beforeAll(async () => {
    s = await start();
  });
  afterAll(() => s.close());

  it('the SDK Streamable HTTP client calls every tool the server lists, each with valid arguments', async () => {
    const client = await connect(s.http.url, ALICE);
    const listed = (await client.listTools()).tools.map((t) => t.name);
    // Writes last, on items no other call reads afterwards; project-update/delete act on the project just created.
    const calls: [string, (created: number) => Record<string, unknown>][] = [
      ['projects-list', () => ({ limit: 5 })],
      ['project-get', () => ({ id: DEMO.mainProjectId })],
      ['session-recordings-list', () => ({ project_id: P, limit: 3, date_from: '-30d' })],
      ['session-recording-get', () => ({ project_id: P, id: R.checkoutFailure })],
      ['session-recording-snapshots', () => ({ project_id: P, id: R.checkoutFailure, max_events: 10 })],
      ['session-recording-summary', () => ({ project_id: P, id: R.recordedCheckout })],
      ['session-recording-replay', () => ({ project_id: P, id: R.recordedCheckout, start_at: '0:05' })],
      ['session-recording-reproduce', () => ({ project_id: P, id: R.recordedCheckout })],
      ['session-recordings-triage', () => ({ project_id: P, date_from: '-30d', max_recordings: 3 })],
      ['recording-filter-options', () => ({ project_id: P, kind: 'person_properties' })],
      // Stateless HTTP knows no client capabilities: the app-only tool is listed (hosts filter it).
      ['session-recording-replay-events', () => ({ project_id: P, id: R.recordedCheckout })],
      ['session-recording-matching-events', () => ({ project_id: P, session_id: R.checkoutFailure, events: [{ id: '$pageview' }] })],
      ['session-recording-properties', () => ({ project_id: P, session_ids: [R.checkoutFailure, R.successfulPurchase] })],
      ['session-recording-delete', () => ({ project_id: P, id: R.anonymousBounce })],
      ['project-create', () => ({ name: 'Created over HTTP', timezone: 'Europe/Berlin' })],
      ['project-update', (created) => ({ id: created, name: 'Renamed over HTTP' })],
      ['project-delete', (created) => ({ id: created })],
    ];
    expect([...listed].sort()).toEqual(calls.map(([name]) => name).sort());

    let created = 0;
    for (const [name, args] of calls) {
      const result = await call(client, name, args(created));
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      expect(result.structuredContent, name).toBeDefined();
      if (name === 'project-create') created = (result.structuredContent as { project: { id: number } }).project.id;
    }
    expect(created).toBeGreaterThan(0);
    const upstream = apiRequests(s.sandbox);
    expect(upstream.some((r) => r.method === 'DELETE' && r.path === `/api/projects/${created}/`)).toBe(true);
    expect(new Set(upstream.map((r) => r.authorization))).toEqual(new Set([`Bearer ${ALICE}`]));
    await client.close();
  });

  it('two users interleave 1,000 calls; the sandbox sees each key only on that user\'s calls', async () => {
    s.sandbox.reset();
    const users = [
      { name: 'alice', key: ALICE, client: await connect(s.http.url, ALICE) },
      { name: 'bob', key: BOB, client: await connect(s.http.url, BOB) },
    ];
    const perUser = 500;
    // Alternating jobs, 16 in flight at a time: the two users' requests overlap throughout.
    const jobs = Array.from({ length: perUser * 2 }, (_, i) => ({ user: users[i % 2]!, marker: `${users[i % 2]!.name}-${Math.floor(i / 2)}` }));
    let next = 0;
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < jobs.length) {
          const job = jobs[next++]!;
          const result = await call(job.user.client, 'session-recordings-list', { project_id: P, session_ids: [job.marker], limit: 1 });
          if (result.isError) failures.push(`${job.marker}: ${JSON.stringify(result.content)}`);
        }
      }),
    );
    expect(failures).toEqual([]);

    const seen = apiRequests(s.sandbox).filter((r) => r.path === `/api/projects/${P}/session_recordings/`);
    expect(seen).toHaveLength(perUser * 2);
    const markers = new Set<string>();
    for (const request of seen) {
      const marker = (JSON.parse(request.query.session_ids!) as string[])[0]!;
      const owner = users.find((u) => marker.startsWith(`${u.name}-`))!;
      expect(request.authorization, marker).toBe(`Bearer ${owner.key}`);
      markers.add(marker);
    }
    expect(markers.size).toBe(perUser * 2);
    for (const user of users) await user.client.close();
  });

  it('answers 401 without a key, before any upstream request', async () => {
    s.sandbox.reset();
    const res = await raw(s.http.url, { headers: MCP_HEADERS, body: PING });
    expect(res.status).toBe(401);
    const message = rpcError(res).message;
    expect(message).toBe('Unauthorized: /mcp has no sign-in: add the header "Authorization: Bearer phx_…" with your PostHog personal API key to this server\'s entry in your MCP client. The key is used for your requests only.');
    // The same words in the challenge, for clients that show it rather than the body; no
    // resource_metadata, so no client is led into a sign-in.
    expect(res.headers['www-authenticate']).toBe(`Bearer error="invalid_token", error_description="${message.replaceAll('"', "'").replace('…', '...')}"`);
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/mcp/.well-known/oauth-protected-resource', '/register']) {
      expect((await raw(s.http.url, { method: 'GET', path })).status, path).toBe(404);
    }
    expect(apiRequests(s.sandbox)).toHaveLength(0);
  });

  it('tells a caller whose own key PostHog refuses to check that key, not the server\'s environment', async () => {
    const client = await connect(s.http.url, 'not_a_posthog_key');
    const result = await call(client, 'projects-list', {});
    expect(result.isError).toBe(true);
    const message = (result.content[0] as { text: string }).text;
    expect(message).toMatch(/PostHog answered 401/);
    expect(message).toMatch(/Your personal API key \(sent as "Authorization: Bearer …"/);
    expect(message).not.toMatch(/POSTHOG_PERSONAL_API_KEY/);
    expect(message).not.toContain('not_a_posthog_key');
    await client.close();
  });

  it('rejects a rebinding Host and a foreign Origin with 403; accepts the loopback names', async () => {
    const port = new URL(s.http.url).port;
    const auth = { ...MCP_HEADERS, authorization: `Bearer ${ALICE}` };
    const rebound = await raw(s.http.url, { headers: { ...auth, host: `evil.example.com:${port}` }, body: PING });
    expect(rebound.status).toBe(403);
    expect(rpcError(rebound).message).toMatch(/Host "evil\.example\.com:\d+".*DNS-rebinding/);
    const foreignOrigin = await raw(s.http.url, { headers: { ...auth, origin: 'http://evil.example.com' }, body: PING });
    expect(foreignOrigin.status).toBe(403);
    expect(rpcError(foreignOrigin).message).toMatch(/Origin/);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      const ok = await raw(s.http.url, { headers: { ...auth, host, origin: `http://${host}` }, body: PING });
      expect(ok.status, host).toBe(200);
      expect(JSON.parse(ok.body)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    }
    // The health check is for load balancers, which probe by address.
    expect((await raw(s.http.url, { method: 'GET', path: '/healthz', headers: { host: '10.1.2.3' } })).status).toBe(200);
  });

  it('answers GET and DELETE with 405, other paths with 404, bad JSON with 400 and an oversized body with 413', async () => {
    const auth = { ...MCP_HEADERS, authorization: `Bearer ${ALICE}` };
    for (const method of ['GET', 'DELETE']) {
      const res = await raw(s.http.url, { method, headers: auth });
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(rpcError(res).message).toMatch(/POST only/);
    }
    expect(rpcError(await raw(s.http.url, { path: '/other', headers: auth, body: PING })).message).toMatch(/\/mcp/);
    const bad = await raw(s.http.url, { headers: auth, body: '{"jsonrpc": "2.0", "id": 1,' });
    expect(bad.status).toBe(400);
    expect(rpcError(bad).code).toBe(-32700);
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024) } });
    const tooLarge = await raw(s.http.url, { headers: auth, body: big });
    expect(tooLarge.status).toBe(413);
    expect(rpcError(tooLarge).message).toMatch(/at most 1048576 bytes/);
  });

  it('refuses a JSON-RPC batch (100 calls on one concurrency slot) before any upstream request', async () => {
    const before = apiRequests(s.sandbox).length;
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'projects-list', arguments: {} } });
    const batch = await raw(s.http.url, { headers: { ...MCP_HEADERS, authorization: `Bearer ${ALICE}` }, body: JSON.stringify(Array.from({ length: 100 }, (_, i) => call(i + 1))) });
    expect(batch.status).toBe(400);
    expect(rpcError(batch).code).toBe(-32600);
    expect(rpcError(batch).message).toMatch(/batches are not accepted/);
    expect(apiRequests(s.sandbox).length).toBe(before);
  });

  // Protocol 2026-07-28 drops initialize: a dual-era client (Claude Code) first probes with
  // server/discover and falls back to initialize on an answer that is not a 2026-era one. SDK v1
  // serves up to 2025-11-25, so the probe must keep being refused in a way such clients fall back on.
  it('refuses a protocol 2026-07-28 server/discover probe (400, -32000, the versions it serves); an initialize after it works', async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'claude-code', version: '2' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const discover = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } });
    const auth = { ...MCP_HEADERS, authorization: `Bearer ${ALICE}` };
    const before = apiRequests(s.sandbox).length;
    // As the 2026 HTTP transport sends it: the version (and method) also in headers.
    const probe = await raw(s.http.url, { headers: { ...auth, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' }, body: discover });
    expect(probe.status).toBe(400);
    expect(probe.headers['content-type']).toMatch(/^application\/json/);
    const refused = rpcError(probe);
    expect(refused.code).toBe(-32000);
    expect(refused.message).toMatch(/^Bad Request: Unsupported protocol version: 2026-07-28 \(supported versions: 2025-11-25, /);
    // Without the header the method is unknown to a 2025 server: a JSON-RPC "method not found", also a fallback.
    const bare = await raw(s.http.url, { headers: auth, body: discover });
    expect(bare.status).toBe(200);
    expect(JSON.parse(bare.body)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } });
    // The probes asked PostHog nothing.
    expect(apiRequests(s.sandbox).length).toBe(before);
    // The fallback: the SDK client initializes (2025-11-25) on the same server and calls a tool.
    const client = await connect(s.http.url, ALICE);
    try {
      expect(client.getServerVersion()?.name).toBe('posthog-replay-mcp');
      const listed = await call(client, 'projects-list', { limit: 2 });
      expect(listed.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});

describe('stateless Streamable HTTP with the server\'s own key', () => {
  let s: Running;
  const SERVER_KEY = 'phx_server_shared_key_22222222';
  beforeAll(async () => {
    s = await start({ serverKey: SERVER_KEY, http: { authToken: TOKEN } });
  });
  afterAll(() => s.close());

  it('answers 401 to a missing or wrong access token, with no upstream request', async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${SERVER_KEY}`, `Basic ${TOKEN}`]) {
      const res = await raw(s.http.url, { headers: { ...MCP_HEADERS, ...(authorization ? { authorization } : {}) }, body: PING });
      expect(res.status, authorization).toBe(401);
      expect(rpcError(res).message).toMatch(/MCP_AUTH_TOKEN/);
    }
    const client = new Client({ name: 'no-token', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(s.http.url)))).rejects.toThrow(/Unauthorized/);
    expect(apiRequests(s.sandbox)).toHaveLength(0);
  });

  it('serves callers with the token, calling PostHog with the server key only', async () => {
    const client = await connect(s.http.url, TOKEN);
    const result = await call(client, 'projects-list', {});
    expect(result.isError).toBeFalsy();
    await client.close();
    const upstream = apiRequests(s.sandbox);
    expect(upstream.length).toBeGreaterThan(0);
    expect(upstream.every((r) => r.authorization === `Bearer ${SERVER_KEY}`)).toBe(true);
    expect(JSON.stringify(result) + s.logs.join('\n')).not.toContain(SERVER_KEY);
  });
});

describe('HTTP limits and shutdown', () => {
  it('answers 503 with Retry-After at the concurrency cap when nothing may wait, and serves again once a slot frees', async () => {
    // No waiting line (the test is about the refusal; by default the call would wait its turn).
    const s = await start({ http: { maxConcurrency: 1, maxQueuePerUser: 0 } });
    try {
      s.sandbox.injectFault({ path: '/api/projects/', delayMs: 600 });
      const client = await connect(s.http.url, ALICE);
      const slow = call(client, 'projects-list', {});
      await until(() => s.http.inFlight === 1 && apiRequests(s.sandbox).length === 1, 'the slow call upstream');
      const refused = await raw(s.http.url, { headers: { ...MCP_HEADERS, authorization: `Bearer ${BOB}` }, body: PING });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(rpcError(refused).message).toMatch(/no slot is free .*1 run in all \(MCP_MAX_CONCURRENCY\)/);
      expect((await slow).isError).toBeFalsy();
      await until(() => s.http.inFlight === 0, 'the slot to free');
      const served = await raw(s.http.url, { headers: { ...MCP_HEADERS, authorization: `Bearer ${BOB}` }, body: PING });
      expect(served.status).toBe(200);
      await client.close();
    } finally {
      await s.close();
    }
  });

  it('gives a client that trickles its request a bounded time (408), holding no slot meanwhile', async () => {
    const s = await start({ http: { maxConcurrency: 1, maxQueuePerUser: 0, requestTimeoutMs: 300 } });
    try {
      const { host, port } = new URL(s.http.url);
      const socket = connectSocket(Number(port), host.replace(/:\d+$/, ''));
      let answer = '';
      socket.on('data', (d) => (answer += d));
      const closed = new Promise((resolve) => socket.on('close', resolve));
      socket.write(`POST /mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${ALICE}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`);
      await until(() => s.http.receiving === 1, 'the trickling request to be read');
      // Its body is read before it asks for a slot: the one slot stays free for another caller.
      expect(s.http.inFlight).toBe(0);
      expect((await raw(s.http.url, { headers: { ...MCP_HEADERS, authorization: `Bearer ${BOB}` }, body: PING })).status).toBe(200);
      await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(rpcError({ status: 408, headers: {}, body: answer.slice(answer.indexOf('\r\n\r\n') + 4) }).message).toMatch(/did not arrive within 300 ms/);
      expect(s.http.receiving).toBe(0);
      expect(s.logs).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('shutdown waits for a running call within its bound and cuts off one that outlasts it', async () => {
    const s = await start();
    try {
      s.sandbox.injectFault({ path: '/api/projects/', delayMs: 300 });
      s.sandbox.injectFault({ path: `/api/projects/${P}/`, delayMs: 5_000 });
      const client = await connect(s.http.url, ALICE);
      const finishes = call(client, 'projects-list', {});
      const outlasts = call(client, 'project-get', { id: DEMO.mainProjectId }).then(
        () => 'answered',
        () => 'cut off',
      );
      await until(() => apiRequests(s.sandbox).length === 2, 'both calls upstream');
      const { abandoned } = await s.http.shutdown(1_000);
      expect(abandoned).toBe(1);
      expect((await finishes).isError).toBeFalsy();
      expect(await outlasts).toBe('cut off');
      await client.close().catch(() => {});
    } finally {
      await s.close();
    }
  });
});
