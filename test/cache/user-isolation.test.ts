import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDigestCache } from '../../src/cache/index.js';
import { PostHogClient } from '../../src/posthog/client.js';
import { DEMO, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { serverFactory } from '../../src/server.js';
import { serveHttp, type RunningHttp } from '../../src/transports/http.js';

// Issue 33, finding 3: the digest cache key held the project id as typed, so "@current" was one
// entry for every user: user B was served user A's digest with no block read. Entries are now per
// key (a hash of host and key) and per project number, "@current" resolved first.

const settings = { readOnly: false, toolsets: ['recordings' as const, 'projects' as const], defaultProjectId: undefined };
const ALICE = 'phx_alice_isolation_key_000000';
const BOB = 'phx_bob_isolation_key_11111111';
const R = DEMO.recordingIds;

let sandbox: Sandbox;
let upstream: PostHogClient;
let http: RunningHttp;
const clients: Client[] = [];

beforeEach(async () => {
  sandbox = await startSandbox({ acceptAnyKey: true });
  upstream = new PostHogClient({ baseUrl: sandbox.url, timeoutMs: 20_000 });
  // The CLI's default cache: in memory, 64 MiB, a day.
  const cache = createDigestCache({ target: 'memory', maxMb: 64, ttlMs: 86_400_000 }, () => {});
  http = await serveHttp({ host: '127.0.0.1', port: 0, client: upstream, createServer: serverFactory({ settings, cache }), log: () => {} });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await http.close();
  await upstream.close();
  await sandbox.close();
});

async function connect(bearer: string): Promise<Client> {
  const client = new Client({ name: 'isolation-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  clients.push(client);
  return client;
}

/** Block reads (snapshot requests for a source) made with this key so far. */
const blockReads = (key: string) => sandbox.requests.filter((r) => r.authorization === `Bearer ${key}` && /\/snapshots\/?$/.test(r.path) && r.query.source !== undefined).length;

async function summarize(client: Client, projectId: string, id: string): Promise<CallToolResult> {
  const result = (await client.callTool({ name: 'session-recording-summary', arguments: { project_id: projectId, id } })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content).slice(0, 300)).toBeFalsy();
  return result;
}

describe('the digest cache with per-user keys', () => {
  it('user B is never served user A\'s digest: under "@current", each key\'s digest is made from its own block reads', async () => {
    const alice = await connect(ALICE);
    const bob = await connect(BOB);
    await summarize(alice, '@current', R.checkoutFailure);
    expect(blockReads(ALICE)).toBeGreaterThan(0);
    // Alice's own second call is served from the cache.
    const aliceReads = blockReads(ALICE);
    await summarize(alice, '@current', R.checkoutFailure);
    expect(blockReads(ALICE)).toBe(aliceReads);
    // Bob asks for the same id in his "@current": his digest comes from his own reads.
    await summarize(bob, '@current', R.checkoutFailure);
    expect(blockReads(BOB)).toBeGreaterThan(0);
  });

  it('"@current" is cached as the project it stands for: the same key is served the digest under the project\'s number', async () => {
    const alice = await connect(ALICE);
    await summarize(alice, '@current', R.checkoutFailure);
    const reads = blockReads(ALICE);
    expect(reads).toBeGreaterThan(0);
    await summarize(alice, String(DEMO.mainProjectId), R.checkoutFailure);
    expect(blockReads(ALICE)).toBe(reads);
  });
});
