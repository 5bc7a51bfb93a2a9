// The built CLI's --sandbox-api flag: the same tools against the sandbox imitating today's
// PostHog Cloud (default) or the 2024 API, observed through a tool whose answer differs.

import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

async function updateWebhook(args: string[], env: Record<string, string> = {}): Promise<{ result: CallToolResult; stderr: string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, ...args], env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'sandbox-api-test', version: '1' });
  await client.connect(transport);
  try {
    const result = (await client.callTool({ name: 'project-update', arguments: { id: DEMO.marketingProjectId, slack_incoming_webhook: 'https://hooks.slack.com/services/T/B/X' } })) as CallToolResult;
    return { result, stderr };
  } finally {
    await client.close();
  }
}

describe('--sandbox-api', () => {
  it("defaults to today's PostHog (the webhook is ignored and named); 2024 applies it", async () => {
    const today = await updateWebhook(['--sandbox']);
    expect(today.result.structuredContent).toMatchObject({ not_applied: ['slack_incoming_webhook'], updated_fields: [] });
    expect(today.stderr).toMatch(/imitating today's PostHog Cloud/);
    const old = await updateWebhook(['--sandbox', '--sandbox-api', '2024']);
    expect(old.result.structuredContent).toMatchObject({ not_applied: [], updated_fields: ['slack_incoming_webhook'] });
    expect(old.stderr).toMatch(/imitating PostHog's 2024 API/);
    const viaEnv = await updateWebhook(['--sandbox'], { POSTHOG_SANDBOX_API: '2024' });
    expect(viaEnv.result.structuredContent).toMatchObject({ not_applied: [] });
  });
});
