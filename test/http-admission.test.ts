import { request as httpRequest } from 'node:http';
import { connect as connectSocket, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { PostHogClient } from '../src/posthog/client.js';
import { DEMO, startSandbox } from '../src/sandbox/index.js';
import { serverFactory } from '../src/server.js';
import { serveHttp } from '../src/transports/http.js';

// Issue 33, finding 1: in HTTP mode with per-user keys, anyone who can connect could take every
// call slot without a PostHog key (a made-up Bearer string counted as a user, and a call took its
// slot before its body was read). Now the body is read first, and keys PostHog has not accepted
// yet share a bounded part of the slots. Everything at the server's defaults.

const settings = { readOnly: false, toolsets: ['recordings' as const, 'projects' as const], defaultProjectId: undefined };

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function connect(url: string, bearer: string): Promise<Client> {
  const client = new Client({ name: 'admission-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  return client;
}

/** A socket that sends a POST's headers (promising a body) and then nothing; `answered` turns true if the server says anything. */
function idleRequest(url: URL, bearer: string): { socket: Socket; answered: () => boolean } {
  let answered = false;
  const socket = connectSocket(Number(url.port), url.hostname);
  socket.on('data', () => (answered = true));
  socket.on('error', () => {});
  socket.write(
    `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${bearer}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n`,
  );
  return { socket, answered: () => answered };
}

/** One raw tools/call, resolving with its status once answered. */
function rawCall(url: string, bearer: string, id: number, name: string, args: Record<string, unknown>): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

describe('HTTP mode with per-user keys: no slot for a caller who has sent nothing', () => {
  it("200 sockets with made-up keys that send headers and no body: a real user's initialize and tools/list are answered while they all still wait", async () => {
    const sandbox = await startSandbox({ acceptAnyKey: true });
    const upstream = new PostHogClient({ baseUrl: sandbox.url, timeoutMs: 20_000 });
    const http = await serveHttp({ host: '127.0.0.1', port: 0, client: upstream, createServer: serverFactory({ settings }), log: () => {} });
    const url = new URL(http.url);
    const idle = Array.from({ length: 200 }, (_, i) => idleRequest(url, `phx_made_up_${i}_${'x'.repeat(20)}`));
    let user: Client | undefined;
    try {
      // Every idle request has reached the server (as a body being read, or, before the fix, a call running or waiting).
      const seen = () => http.inFlight + http.queued + (http.receiving ?? 0);
      for (let i = 0; i < 500 && seen() < idle.length; i++) await pause(10);
      expect(seen()).toBe(idle.length);

      user = await connect(http.url, 'phx_real_user_key_0000000000');
      const { tools } = await user.listTools();
      expect(tools.map((t) => t.name)).toContain('session-recordings-list');
      // Answered while every idle socket was still waiting for its body (none got its 408 yet).
      expect(idle.filter((r) => r.answered())).toHaveLength(0);
      expect(idle.every((r) => !r.socket.destroyed)).toBe(true);
      // They hold no call slot.
      expect(http.inFlight).toBe(0);
      expect(http.queued).toBe(0);
    } finally {
      for (const r of idle) r.socket.destroy();
      await user?.close();
      await http.close();
      await upstream.close();
      await sandbox.close();
    }
  }, 90_000);

  it('calls with keys PostHog has not accepted take at most a quarter of the slots: a known user is served at once while 66 of them hang upstream', async () => {
    // Only the sandbox's own key is accepted; made-up keys get PostHog's 401, after a long wait.
    const sandbox = await startSandbox();
    const upstream = new PostHogClient({ baseUrl: sandbox.url, timeoutMs: 20_000 });
    const http = await serveHttp({ host: '127.0.0.1', port: 0, client: upstream, createServer: serverFactory({ settings }), log: () => {} });
    const known = await connect(http.url, sandbox.apiKey);
    let made: Array<Promise<number>> = [];
    try {
      // The known user has been served by PostHog once: its key is accepted.
      const first = (await known.callTool({ name: 'projects-list', arguments: {} })) as CallToolResult;
      expect(first.isError).toBeFalsy();
      // The made-up keys' calls hang upstream for a while, then get 401.
      sandbox.injectFault({ path: `/api/projects/${DEMO.mainProjectId + 999}`, delayMs: 2_000, times: Infinity });
      const order: string[] = [];
      made = Array.from({ length: 66 }, (_, i) => rawCall(http.url, `phx_made_up_${i}_${'y'.repeat(20)}`, i + 1, 'project-get', { id: DEMO.mainProjectId + 999 }).then((s) => (order.push('made-up'), s)));
      for (let i = 0; i < 500 && http.inFlight + http.queued < made.length; i++) await pause(10);
      expect(http.inFlight + http.queued).toBe(made.length);
      const running = http.inFlight;
      const answer = (await known.callTool({ name: 'projects-list', arguments: {} })) as CallToolResult;
      order.push('known');
      expect(answer.isError).toBeFalsy();
      // The known user's call did not wait for any of them.
      expect(order[0]).toBe('known');
      // A quarter of MCP_MAX_CONCURRENCY (64) ran; the rest waited in their part of the line.
      expect(running).toBe(16);
      // The first made-up calls are answered (PostHog's 401, as a tool error) before the server stops.
      for (let i = 0; i < 1_000 && order.length < 2; i++) await pause(10);
      expect(order).toContain('made-up');
    } finally {
      await known.close();
      await http.close();
      await Promise.all(made);
      await upstream.close();
      await sandbox.close();
    }
  }, 90_000);
});
