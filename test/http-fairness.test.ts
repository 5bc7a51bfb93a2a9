import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { PostHogClient } from '../src/posthog/client.js';
import { startSandbox } from '../src/sandbox/index.js';
import { serverFactory } from '../src/server.js';
import { serveHttp } from '../src/transports/http.js';

// Issue 10 item 4: in HTTP mode with per-user keys, one user's slow calls must not hold up
// another's, and a graceful shutdown answers every call it accepted.

const settings = { readOnly: false, toolsets: ['recordings' as const, 'projects' as const], defaultProjectId: undefined };
const SLOW = 'phx_slow_user_key_0000000000000';
const QUICK = 'phx_quick_user_key_111111111111';

async function connect(url: string, bearer: string): Promise<Client> {
  const client = new Client({ name: 'fairness-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  return client;
}

/** One raw tools/call over HTTP: its status and body, or the socket error if there was no answer. */
function rawCall(url: string, bearer: string, id: number): Promise<{ status: number; body: string } | { error: string }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'projects-list', arguments: {} } });
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => resolve({ error: err.message }));
    });
    req.on('error', (err) => resolve({ error: err.message }));
    req.end(body);
  });
}

describe('HTTP mode with per-user keys', () => {
  it("one user's 16 slow calls do not hold up another user's call", async () => {
    const sandbox = await startSandbox({ acceptAnyKey: true });
    // The pool as large as one user's burst, as before the fix: only the per-key share keeps a connection free.
    const upstream = new PostHogClient({ baseUrl: sandbox.url, timeoutMs: 20_000, connections: 16 });
    const http = await serveHttp({ host: '127.0.0.1', port: 0, client: upstream, createServer: serverFactory({ settings }), log: () => {} });
    const slow = await connect(http.url, SLOW);
    const quick = await connect(http.url, QUICK);
    try {
      await quick.callTool({ name: 'projects-list', arguments: {} });
      sandbox.setHostile({ kind: 'slow-key', key: SLOW, delayMs: 2_000 });
      const order: string[] = [];
      const slowCalls = Array.from({ length: 16 }, () => slow.callTool({ name: 'projects-list', arguments: {} }).then(() => order.push('slow')));
      // Let the slow calls reach upstream first (8 at once with the per-key share; all 16 without it).
      for (let i = 0; i < 200 && sandbox.requests.filter((r) => r.authorization === `Bearer ${SLOW}`).length < 8; i++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 300));
      const r = (await quick.callTool({ name: 'projects-list', arguments: {} })) as CallToolResult;
      order.push('quick');
      expect(r.isError).toBeFalsy();
      await Promise.all(slowCalls);
      // The quick user's answer came before any of the slow user's.
      expect(order[0]).toBe('quick');
    } finally {
      await slow.close();
      await quick.close();
      await http.close();
      await upstream.close();
      await sandbox.close();
    }
  });

  it('a user cannot take every slot of the server: past MCP_MAX_CONCURRENCY_PER_USER only that user is refused', async () => {
    const sandbox = await startSandbox({ acceptAnyKey: true });
    const upstream = new PostHogClient({ baseUrl: sandbox.url, timeoutMs: 20_000 });
    const http = await serveHttp({ host: '127.0.0.1', port: 0, client: upstream, createServer: serverFactory({ settings }), log: () => {}, maxConcurrency: 8, maxConcurrencyPerUser: 4 });
    try {
      sandbox.setHostile({ kind: 'slow-key', key: SLOW, delayMs: 1_000 });
      const slowCalls = Array.from({ length: 6 }, (_, i) => rawCall(http.url, SLOW, i + 1));
      await new Promise((r) => setTimeout(r, 300));
      const quick = await rawCall(http.url, QUICK, 99);
      expect(quick).toMatchObject({ status: 200 });
      const statuses = (await Promise.all(slowCalls)).map((r) => ('status' in r ? r.status : 0)).sort();
      expect(statuses).toEqual([200, 200, 200, 200, 503, 503]);
    } finally {
      await http.close();
      await upstream.close();
      await sandbox.close();
    }
  });

  it('a graceful shutdown answers every call it accepted, the unfinished ones with an error body', async () => {
    const sandbox = await startSandbox({ acceptAnyKey: true });
    const upstream = new PostHogClient({ baseUrl: sandbox.url, timeoutMs: 20_000, connections: 4 });
    const http = await serveHttp({ host: '127.0.0.1', port: 0, client: upstream, createServer: serverFactory({ settings }), log: () => {}, maxConcurrencyPerUser: 64 });
    try {
      sandbox.injectFault({ path: '/api/projects', delayMs: 3_000, times: Infinity });
      const calls = Array.from({ length: 24 }, (_, i) => rawCall(http.url, i % 2 ? SLOW : QUICK, i + 1));
      for (let i = 0; i < 200 && http.inFlight < 24; i++) await new Promise((r) => setTimeout(r, 10));
      expect(http.inFlight).toBe(24);
      const { abandoned } = await http.shutdown(200);
      expect(abandoned).toBe(24);
      const answers = await Promise.all(calls);
      for (const [i, answer] of answers.entries()) {
        expect(answer, `call ${i + 1}`).toMatchObject({ status: 503 });
        const body = JSON.parse((answer as { body: string }).body) as { id: number; error: { message: string } };
        expect(body.id).toBe(i + 1);
        expect(body.error.message).toMatch(/shutting down and could not finish this call/);
      }
    } finally {
      await http.close();
      await upstream.close();
      await sandbox.close();
    }
  });
});
