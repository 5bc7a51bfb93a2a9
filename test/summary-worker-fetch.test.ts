import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIG_RECORDING_ID, DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';

// In the built server the digest worker sends the block requests and reads their bodies itself
// (src/posthog/remote-fetch.ts); the main thread still admits each request and reads its status,
// headers and any error answer. The other tests run the digest in-thread from the sources, where
// the main thread reads the bodies: these drive dist/cli.js over stdio against the sandbox, with
// the failures the main thread must still see through the worker.
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const P = String(DEMO.mainProjectId);
const SNAPSHOTS = `/api/projects/${P}/session_recordings/${BIG_RECORDING_ID}/snapshots`;
/** 60 copies, one to a block: 60 blocks, three requests (0-20, 21-41, 42-59). */
const COPIES = 60;

type Summary = { counts: { events: number }; notes?: string[]; partial?: { reason: string; retry_after_seconds?: number; not_read?: string } };

describe('session-recording-summary in the built server: the worker fetches, the main thread decides', () => {
  let sandbox: Sandbox;
  let client: Client | undefined;
  let eventsPerCopy = 0;

  beforeAll(async () => {
    sandbox = await startSandbox({ bigRecording: { copies: COPIES } });
    const c = await connect({});
    const one = await summary(c, DEMO.recordingIds.recordedCheckout);
    eventsPerCopy = (one.structuredContent as Summary).counts.events;
    await c.close();
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    sandbox.reset();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  /** The built server at the defaults (key and host), plus `env` where a test is about a setting. */
  async function connect(env: Record<string, string>): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI],
      env: { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: sandbox.apiKey, POSTHOG_HOST: sandbox.url, ...env },
      stderr: 'ignore',
    });
    const c = new Client({ name: 'worker-fetch-test', version: '1' });
    await c.connect(transport);
    return c;
  }
  const summary = async (c: Client, id: string) => (await c.callTool({ name: 'session-recording-summary', arguments: { project_id: P, id } })) as CallToolResult;
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
  const blockRequests = (start?: string) =>
    sandbox.requests.filter((q) => q.path.replace(/\/$/, '') === SNAPSHOTS && q.query.source === 'blob_v2' && (start === undefined || q.query.start_blob_key === start));

  it('reads every block through the worker, each request once', async () => {
    client = await connect({});
    const r = await summary(client, BIG_RECORDING_ID);
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as Summary).counts.events).toBe(COPIES * eventsPerCopy);
    expect((r.structuredContent as Summary).partial).toBeUndefined();
    expect(blockRequests().map((q) => q.query.start_blob_key)).toEqual(['0', '21', '42']);
  });

  it("PostHog's 502 recording_blocks_unavailable: the main thread reads the error body the worker got, does not retry, and the rest is read", async () => {
    const body = { type: 'server_error', code: 'recording_blocks_unavailable', detail: 'Could not load any of the requested blocks.', attr: null };
    sandbox.injectFault({ path: SNAPSHOTS, query: { source: 'blob_v2', start_blob_key: '0' }, status: 502, body, times: 10 });
    client = await connect({});
    const r = await summary(client, BIG_RECORDING_ID);
    expect(r.isError, text(r)).toBeFalsy();
    // The code is in the body, not the status: only a body read back from the worker stops the retries.
    expect(blockRequests('0')).toHaveLength(1);
    expect((r.structuredContent as Summary).notes?.join(' ')).toMatch(/Blocks 0-20 could not be read \(HTTP 502\)/);
    expect((r.structuredContent as Summary).counts.events).toBe((COPIES - 21) * eventsPerCopy);
  });

  it("PostHog's 429 with a Retry-After past what a call waits: the main thread learns it, and the summary is partial with when to continue", async () => {
    sandbox.injectFault({ path: SNAPSHOTS, query: { source: 'blob_v2', start_blob_key: '21' }, status: 429, headers: { 'retry-after': '3600' }, times: 10 });
    client = await connect({});
    const r = await summary(client, BIG_RECORDING_ID);
    expect(r.isError, text(r)).toBeFalsy();
    const partial = (r.structuredContent as Summary).partial;
    expect(partial?.reason).toBe('throttle');
    expect(partial?.retry_after_seconds).toBeGreaterThan(3000);
    expect(partial?.not_read).toMatch(/^2 of 3 parts \(Blocks 21-41, Blocks 42-59\)$/);
    // What was read before the 429 is in the digest; the window stays shut for the later block.
    expect((r.structuredContent as Summary).counts.events).toBe(21 * eventsPerCopy);
    expect(blockRequests('42')).toHaveLength(0);
  });

  it('a connection reset before the answer: the request is sent again, and the summary is whole', async () => {
    sandbox.injectFault({ path: SNAPSHOTS, query: { source: 'blob_v2', start_blob_key: '21' }, reset: true, times: 1 });
    client = await connect({});
    const r = await summary(client, BIG_RECORDING_ID);
    expect(r.isError, text(r)).toBeFalsy();
    expect(blockRequests('21')).toHaveLength(2);
    expect((r.structuredContent as Summary).counts.events).toBe(COPIES * eventsPerCopy);
    expect((r.structuredContent as Summary).partial).toBeUndefined();
  });

  it('bodies that stall after their headers: the deadline ends them, and the stall breaker stops the call after two', async () => {
    sandbox.setHostile({ kind: 'many-sources', count: 30, stall: true });
    // POSTHOG_TIMEOUT_MS: the test is about the request timeout (the default is 30 s).
    client = await connect({ POSTHOG_TIMEOUT_MS: '1000' });
    const r = await summary(client, DEMO.recordingIds.checkoutFailure);
    expect(r.isError, text(r)).toBeFalsy();
    const stalled = sandbox.requests.filter((q) => q.query.blob_key !== undefined);
    expect(stalled).toHaveLength(2);
    const partial = (r.structuredContent as Summary).partial;
    expect(partial?.reason).toBe('stalled');
    expect(partial?.not_read).toMatch(/^30 of 30 parts/);
  });
});

describe('session-recording-replay in the built server: the bound on its digest counts the bytes the worker read', { timeout: 120_000 }, () => {
  // The replay's digest for a client that shows the player reads for REPLAY_READ_MS (250 ms) and
  // at least REPLAY_READ_MIN_BYTES (2 MB). Through the worker the bytes never pass the main thread:
  // without the worker's count of them the bound never applied and the replay read everything.
  const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
  let sandbox: Sandbox;
  beforeAll(async () => {
    // 300 copies of the recorded checkout, ~35 MB: seconds to read whole here, far past 250 ms.
    sandbox = await startSandbox({ bigRecording: { copies: 300 } });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('answers a client that shows the player with a partial digest, and the summary with the whole one', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI],
      env: { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: sandbox.apiKey, POSTHOG_HOST: sandbox.url },
      stderr: 'ignore',
    });
    const c = new Client({ name: 'worker-fetch-replay-test', version: '1' }, { capabilities: APPS });
    await c.connect(transport);
    try {
      const replay = (await c.callTool({ name: 'session-recording-replay', arguments: { project_id: P, id: BIG_RECORDING_ID } })) as CallToolResult;
      expect(replay.isError, (replay.content[0] as { text: string }).text).toBeFalsy();
      expect((replay.structuredContent as { partial?: { reason: string } }).partial).toMatchObject({ reason: 'time' });
      // What the digest covers, in ms, is the player's (the result's _meta); the model reads it in words.
      const partial = (replay._meta?.['posthog-replay/player'] as { partial?: { digest_covers_ms: number } }).partial;
      expect((replay.content[0] as { text: string }).text).toMatch(/^PARTIAL digest: /);
      const whole = (await c.callTool({ name: 'session-recording-summary', arguments: { project_id: P, id: BIG_RECORDING_ID } })) as CallToolResult;
      expect((whole.structuredContent as { partial?: unknown }).partial).toBeUndefined();
      const wholeMs = (whole.structuredContent as { duration: string }).duration.split(':').reduce((n, part) => n * 60 + Number(part), 0) * 1000;
      expect(partial!.digest_covers_ms).toBeLessThan(wholeMs);
    } finally {
      await c.close();
    }
  });
});
