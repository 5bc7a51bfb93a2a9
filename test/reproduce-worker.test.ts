import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { startHarness, type Harness } from './harness.js';

// The built server makes a reproduction in a worker thread (src/tools/recordings/jobs.ts), which
// fetches the recording's blocks itself; tests that import the TypeScript sources make it in the
// calling thread. Both read the same sandbox here: every demo recording must give the same result.
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

describe('session-recording-reproduce in the built server (worker)', { timeout: 60_000 }, () => {
  let sandbox: Sandbox;
  let client: Client;
  let local: Harness;
  beforeAll(async () => {
    sandbox = await startSandbox();
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI], env: { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: sandbox.apiKey, POSTHOG_HOST: sandbox.url }, stderr: 'ignore' });
    client = new Client({ name: 'reproduce-worker-test', version: '1' });
    await client.connect(transport);
    local = await startHarness({ client: { baseUrl: sandbox.url, apiKey: sandbox.apiKey } });
  });
  afterAll(async () => {
    await client?.close();
    await local?.close();
    await sandbox?.close();
  });

  it('gives the same test as the in-thread reproduction, for every demo recording', async () => {
    let made = 0;
    for (const recording of DEMO.recordings) {
      const args = { project_id: String(recording.projectId), id: recording.id };
      const viaWorker = (await client.callTool({ name: 'session-recording-reproduce', arguments: args })) as CallToolResult;
      const inThread = await local.call('session-recording-reproduce', args);
      expect(viaWorker.isError ?? false, recording.name).toBe(inThread.isError ?? false);
      expect(viaWorker.content, recording.name).toEqual(inThread.content);
      expect(viaWorker.structuredContent, recording.name).toEqual(inThread.structuredContent);
      if (!inThread.isError) made++;
    }
    // Most demo recordings make a test (a few have nothing to replay, and say so alike).
    expect(made).toBeGreaterThan(DEMO.recordings.length / 2);
  });
});
