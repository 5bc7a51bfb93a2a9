import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIG_RECORDING_ID, DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { startHarness } from './harness.js';

// The built server digests in a worker thread (dist/digest/worker.js); tests that import the
// TypeScript sources run the same feed in-thread. This one drives the built server over stdio.
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

describe('session-recording-summary in the built server (digest worker)', () => {
  let sandbox: Sandbox;
  let client: Client;
  beforeAll(async () => {
    sandbox = await startSandbox({ bigRecording: { copies: 300 } });
    // At the defaults but for the digest cache: these tests are about the worker digesting, which a
    // cached digest of the same recording would skip.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI],
      env: { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: sandbox.apiKey, POSTHOG_HOST: sandbox.url, MCP_DIGEST_CACHE: 'off' },
      stderr: 'ignore',
    });
    client = new Client({ name: 'worker-test', version: '1' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });

  const summarize = async (id: string) =>
    (await client.callTool({ name: 'session-recording-summary', arguments: { project_id: String(DEMO.mainProjectId), id } })) as {
      isError?: boolean;
      content: Array<{ type: string; text: string }>;
      structuredContent: { counts: Record<string, number>; timeline: string[] };
    };

  it('digests a real recording with posthog-js compression the same way', async () => {
    const r = await summarize(DEMO.recordingIds.recordedCheckout);
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.timeline).toContainEqual(expect.stringMatching(/^(\d+:\d\d) RAGE CLICK button#place-order "Place order" ×4 start_at "\1"$/));
    expect(r.content[0]!.text).toContain('console error "Payment failed: order service returned 500"');
  });

  it('digests a recording of 300 copies (about 36 MB) and counts every copy', async () => {
    const one = await summarize(DEMO.recordingIds.recordedCheckout);
    const many = await summarize(BIG_RECORDING_ID);
    expect(many.isError).toBeFalsy();
    expect(many.structuredContent.counts.events).toBe(300 * one.structuredContent.counts.events!);
    expect(many.structuredContent.counts.rage_clicks).toBe(300);
    expect(many.content[0]!.text.length).toBeLessThanOrEqual(4000);
  });

  it('runs more summaries at once than there are digest slots: the rest wait their turn, none is lost', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => summarize(DEMO.recordingIds.recordedCheckout)));
    for (const r of results) {
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent.counts.rage_clicks).toBe(1);
    }
  });

  it('gives the same digest as the in-thread feed the other tests use, for every demo recording', async () => {
    const local = await startHarness();
    try {
      for (const recording of DEMO.recordings) {
        const args = { project_id: String(recording.projectId), id: recording.id };
        const viaWorker = (await client.callTool({ name: 'session-recording-summary', arguments: args })).structuredContent as Record<string, unknown>;
        const inThread = (await local.call('session-recording-summary', args)).structuredContent as Record<string, unknown>;
        // Two sandboxes started moments apart: the same recordings, shifted in time.
        delete viaWorker.start_time;
        delete inThread.start_time;
        expect(viaWorker, recording.name).toEqual(inThread);
      }
    } finally {
      await local.close();
    }
  });

  it('stops a digest when the call is cancelled and frees its place for the next calls', async () => {
    const blockRequests = () => sandbox.requests.filter((r) => r.query.source === 'blob_v2' && r.path.includes(BIG_RECORDING_ID)).length;
    for (let i = 0; i < 5; i++) {
      const before = blockRequests();
      const controller = new AbortController();
      const call = client.callTool({ name: 'session-recording-summary', arguments: { project_id: String(DEMO.mainProjectId), id: BIG_RECORDING_ID } }, undefined, { signal: controller.signal });
      // Cancel as soon as the digest is reading blocks (bounded wait).
      for (let wait = 0; wait < 500 && blockRequests() === before; wait++) await new Promise((r) => setTimeout(r, 10));
      controller.abort();
      await expect(call).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 200));
      // 300 copies are 15 requests of 20 blocks: a cancelled digest stops asking for more.
      expect(blockRequests() - before).toBeLessThan(15);
    }
    const after = await summarize(DEMO.recordingIds.recordedCheckout);
    expect(after.isError).toBeFalsy();
    expect(after.structuredContent.counts.rage_clicks).toBe(1);
  });
});
