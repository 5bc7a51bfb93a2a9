import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostHogClient } from '../src/posthog/client.js';
import { DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { serverFactory } from '../src/server.js';
import { serveHttp, type RunningHttp } from '../src/transports/http.js';

const settings = { readOnly: false, toolsets: ['recordings' as const, 'projects' as const], defaultProjectId: undefined };

describe('stateless Streamable HTTP at /mcp', () => {
  let sandbox: Sandbox;
  let upstream: PostHogClient;
  let http: RunningHttp;
  beforeAll(async () => {
    sandbox = await startSandbox({ acceptAnyKey: true });
    // No server key: each request's own Bearer key is used for its upstream calls.
    upstream = new PostHogClient({ baseUrl: sandbox.url, timeoutMs: 5_000 });
    http = await serveHttp({ host: '127.0.0.1', port: 0, client: upstream, createServer: serverFactory({ settings }), log: () => {} });
  });
  afterAll(async () => {
    await http.close();
    await upstream.close();
    await sandbox.close();
  });

  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'http-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    return client;
  }

  it('serves the tools with the SDK client, each user\'s key used for that user\'s calls', async () => {
    const alice = await connect('phx_alice_key_000000000000');
    const bob = await connect('phx_bob_key_1111111111111');
    expect((await alice.listTools()).tools).toHaveLength(12);
    const a = await alice.callTool({ name: 'projects-list', arguments: {} });
    const b = await bob.callTool({ name: 'session-recordings-list', arguments: { project_id: DEMO.mainProjectId, limit: 1 } });
    expect(a.isError).toBeFalsy();
    expect(b.isError).toBeFalsy();
    const projectCalls = sandbox.requests.filter((r) => r.path === '/api/projects/');
    const recordingCalls = sandbox.requests.filter((r) => r.path.includes('session_recordings'));
    expect(projectCalls.map((r) => r.authorization)).toEqual(['Bearer phx_alice_key_000000000000']);
    expect(recordingCalls.map((r) => r.authorization)).toEqual(['Bearer phx_bob_key_1111111111111']);
    await alice.close();
    await bob.close();
  });

  it('answers 401 without a key, and /healthz for load balancers', async () => {
    const res = await fetch(http.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/Authorization: Bearer/);
    const health = await fetch(http.url.replace('/mcp', '/healthz'));
    expect(health.status).toBe(200);
  });
});
