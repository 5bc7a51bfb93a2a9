import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIG_RECORDING_ID, DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';

// The built server digests in a worker thread (dist/digest/worker.js); tests that import the
// TypeScript sources run the same feed in-thread. This one drives the built server over stdio.
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

describe('session-recording-summary in the built server (digest worker)', () => {
  let sandbox: Sandbox;
  let client: Client;
  beforeAll(async () => {
    sandbox = await startSandbox({ bigRecording: { copies: 40 } });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI],
      env: { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: sandbox.apiKey, POSTHOG_HOST: sandbox.url },
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
      structuredContent: { counts: Record<string, number>; timeline: Array<{ kind: string; target?: string; count?: number }> };
    };

  it('digests a real recording with posthog-js compression the same way', async () => {
    const r = await summarize(DEMO.recordingIds.recordedCheckout);
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.timeline).toContainEqual(expect.objectContaining({ kind: 'rage-click', target: 'button#place-order "Place order"', count: 4 }));
    expect(r.content[0]!.text).toContain('console error "Payment failed: order service returned 500"');
  });

  it('digests a recording of 40 copies (about 5 MB) and counts every copy', async () => {
    const one = await summarize(DEMO.recordingIds.recordedCheckout);
    const many = await summarize(BIG_RECORDING_ID);
    expect(many.isError).toBeFalsy();
    expect(many.structuredContent.counts.events).toBe(40 * one.structuredContent.counts.events!);
    expect(many.structuredContent.counts.rage_clicks).toBe(40);
    expect(many.content[0]!.text.length).toBeLessThanOrEqual(4000);
  });
});
