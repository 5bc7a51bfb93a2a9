// The built server's digest worker fetches a recording's blocks itself (src/posthog/remote-fetch.ts,
// remote-worker.ts). These drive dist/cli.js over stdio at its defaults against a purpose-built
// upstream on 127.0.0.1 that serves one recording and misbehaves on its block request.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema, type CallToolResult, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const ID = 'hostile-blocks-1';
const KEY = `phx_${'k'.repeat(40)}`;
const T = Date.parse('2026-11-20T10:00:00Z');
/** A page, its full snapshot and a click: a readable start of a block. */
const LINES = [
  ['w1', { type: 4, timestamp: T, data: { href: 'https://shop.test/', width: 800, height: 600 } }],
  ['w1', { type: 2, timestamp: T + 5, data: { node: { type: 0, id: 1, childNodes: [] }, initialOffset: { left: 0, top: 0 } } }],
  ['w1', { type: 3, timestamp: T + 900, data: { source: 2, type: 2, id: 1, x: 1, y: 1 } }],
].map((line) => JSON.stringify(line));

type BlockHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** One recording (metadata, a listing of one block) and `block` answering the block's request. */
async function startUpstream(block: BlockHandler): Promise<{ url: string; server: Server; sockets: Set<Socket>; closed: Promise<void>[]; blockRequests: number }> {
  const sockets = new Set<Socket>();
  const state = { blockRequests: 0 };
  const closed: Promise<void>[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    res.setHeader('content-type', 'application/json');
    if (req.headers.authorization !== `Bearer ${KEY}`) return void res.writeHead(401).end('{"detail":"bad key"}');
    if (/\/session_recordings\/[^/]+\/?$/.test(url.pathname)) {
      return void res.end(JSON.stringify({ id: ID, start_time: '2026-11-20T10:00:00Z', end_time: '2026-11-20T10:00:01Z', recording_duration: 1, ongoing: false, distinct_id: 'd1' }));
    }
    if (url.pathname.includes('/snapshots') && url.searchParams.get('blob_v2') === 'true') {
      return void res.end(JSON.stringify({ sources: [{ source: 'blob_v2', blob_key: '0', start_timestamp: '2026-11-20T10:00:00Z', end_timestamp: '2026-11-20T10:00:01Z' }] }));
    }
    if (url.pathname.includes('/snapshots') && url.searchParams.get('source') === 'blob_v2') {
      state.blockRequests++;
      closed.push(new Promise((resolve) => req.socket.once('close', () => resolve())));
      return void block(req, res);
    }
    if (/\/api\/projects\/?$/.test(url.pathname)) return void res.end(JSON.stringify({ count: 1, next: null, previous: null, results: [{ id: 1, name: 'Shop' }] }));
    res.writeHead(404).end('{"detail":"Not found."}');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    sockets,
    closed,
    get blockRequests() {
      return state.blockRequests;
    },
  };
}

/** 2.5 MB of events (past REPLAY_READ_MIN_BYTES, 2 MB) for a block that then pauses for ever. */
function fillerLines(): string[] {
  const pad = 'x'.repeat(1_000);
  return [...LINES, ...Array.from({ length: 2_500 }, (_, i) => JSON.stringify(['w1', { type: 5, timestamp: T + 1_000 + i, data: { tag: 'filler', payload: { pad } } }]))];
}
const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

describe('the digest worker against a hostile upstream (built server)', { timeout: 60_000 }, () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** dist/cli.js at the defaults (key and host), its stderr kept. */
  async function connect(upstream: string): Promise<{ client: Client; stderr: () => string; logs: LoggingMessageNotification['params'][] }> {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI], env: { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: upstream }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const client = new Client({ name: 'worker-hostile-test', version: '1' });
    const logs: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await client.connect(transport);
    cleanup.push(() => client.close());
    return { client, stderr: () => stderr, logs };
  }

  it('a summary cancelled while the worker reads a block: reported as cancelled (not as a bug of ours), the upstream connection closed, and the next call served', async () => {
    let bodyStarted!: () => void;
    const started = new Promise<void>((resolve) => (bodyStarted = resolve));
    // The head and a few lines, then nothing: the body never ends.
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/jsonl' });
      res.write(`${LINES.join('\n')}\n`, () => bodyStarted());
    });
    cleanup.push(() => {
      for (const socket of upstream.sockets) socket.destroy();
      upstream.server.close();
    });
    const { client, stderr, logs } = await connect(upstream.url);
    const controller = new AbortController();
    const call = client.callTool({ name: 'session-recording-summary', arguments: { project_id: '1', id: ID } }, undefined, { signal: controller.signal });
    await started;
    controller.abort('the user moved on');
    await expect(call).rejects.toThrow('the user moved on');
    // The block request's connection is let go (the worker is stopped, its socket with it).
    await upstream.closed[0];
    // The server says the call failed in the client's log: as a cancellation, at level info.
    for (let i = 0; i < 200 && !logs.some((l) => String(l.data).startsWith('session-recording-summary failed')); i++) await new Promise((r) => setTimeout(r, 25));
    const failure = logs.find((l) => String(l.data).startsWith('session-recording-summary failed'));
    expect(failure, JSON.stringify(logs)).toBeDefined();
    expect(failure!.level, String(failure!.data)).toBe('info');
    expect(String(failure!.data)).not.toMatch(/Internal error/);
    const next = (await client.callTool({ name: 'projects-list', arguments: {} })) as CallToolResult;
    expect(next.isError, JSON.stringify(next.content)).toBeFalsy();
    expect(stderr()).not.toMatch(/unexpected error/);
  });

  it("the replay for a client that shows the player stops reading a block the worker is still reading, once it read enough for long enough, and answers with a partial digest", async () => {
    // 2.5 MB of events at once (past REPLAY_READ_MIN_BYTES, 2 MB), then a body that never ends: read
    // in this thread, the replay stops inside the block after REPLAY_READ_MS; through the worker,
    // whose bytes this thread never sees, it must stop there too, not wait for the request's timeout.
    const lines = fillerLines();
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/jsonl' });
      res.write(`${lines.join('\n')}\n`);
    });
    cleanup.push(() => {
      for (const socket of upstream.sockets) socket.destroy();
      upstream.server.close();
    });
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI], env: { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: upstream.url }, stderr: 'ignore' });
    const client = new Client({ name: 'worker-hostile-replay', version: '1' }, { capabilities: APPS });
    await client.connect(transport);
    cleanup.push(() => client.close());
    const r = (await client.callTool({ name: 'session-recording-replay', arguments: { project_id: '1', id: ID } })) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content).slice(0, 600)).toBeFalsy();
    const data = r.structuredContent as { partial?: { reason: string }; counts: { events: number } };
    expect(data.partial?.reason).toBe('time');
    // What was read is in it: the page, the click and the events before the cut.
    expect(data.counts.events).toBeGreaterThan(LINES.length);
    await upstream.closed[0];
  });
});

describe('the replay digest read in this thread (from the sources, no built worker)', { timeout: 60_000 }, () => {
  it('stops at its bound when the block pauses after enough bytes, instead of waiting for the next chunk until the request times out', async () => {
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/jsonl' });
      res.write(`${fillerLines().join('\n')}\n`);
    });
    // The upstream is this test's own (baseUrl, apiKey): the harness's sandbox is not used.
    const h = await startHarness({ client: { baseUrl: upstream.url, apiKey: KEY }, clientCapabilities: APPS });
    try {
      const r = await h.call('session-recording-replay', { project_id: '1', id: ID });
      expect(r.isError, JSON.stringify(r.content).slice(0, 600)).toBeFalsy();
      const data = r.structuredContent as { partial?: { reason: string }; counts: { events: number } };
      expect(data.partial?.reason).toBe('time');
      expect(data.counts.events).toBeGreaterThan(LINES.length);
      await upstream.closed[0];
      // A cut at the bound is no stall: the next call reads normally (a stalled key would be refused).
      const again = await h.call('session-recording-replay', { project_id: '1', id: ID });
      expect(again.isError, JSON.stringify(again.content).slice(0, 600)).toBeFalsy();
    } finally {
      await h.close();
      for (const socket of upstream.sockets) socket.destroy();
      upstream.server.close();
    }
  });
});
