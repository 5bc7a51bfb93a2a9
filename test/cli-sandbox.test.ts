// A first call that works: `--sandbox` with no POSTHOG_PROJECT_ID makes the demo project the
// recording tools' default, and the start-up banner says which; a configured project wins.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

async function startCli(env: Record<string, string>) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--sandbox'], env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'first-call', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('--sandbox, first call', () => {
  it('lists recordings with no project id: the demo project is the default, and the banner names it', async () => {
    const { client, stderr } = await startCli({});
    try {
      const { tools } = await client.listTools();
      const list = tools.find((t) => t.name === 'session-recordings-list')!;
      expect(list.inputSchema.required ?? []).not.toContain('project_id');
      const r = (await client.callTool({ name: 'session-recordings-list', arguments: {} })) as CallToolResult;
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      const ids = (r.structuredContent as { results: { id: string }[] }).results.map((x) => x.id);
      const mainIds = DEMO.recordings.filter((x) => x.projectId === DEMO.mainProjectId).map((x) => x.id);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.every((id) => mainIds.includes(id))).toBe(true);
      const main = DEMO.projects.find((p) => p.id === DEMO.mainProjectId)!;
      expect(stderr()).toContain(`default project ${main.id} "${main.name}", the sandbox's demo project`);
      // The banner counts the tools this client's model is shown (no MCP Apps: not the player's own).
      expect(stderr()).toMatch(new RegExp(`, ${tools.length} tools \\(and 1 that only the in-chat player calls\\) against`));
      // The name once, as every stderr line starts: not "posthog-replay-mcp: posthog-replay-mcp 0.1.0: …".
      expect(stderr()).toMatch(new RegExp(`^posthog-replay-mcp: version \\d+\\.\\d+\\.\\d+\\S*, ${tools.length} tools `, 'm'));
    } finally {
      await client.close();
    }
  });

  it("shows the demo projects' data as it is: nothing in it looks like the sandbox's key, so nothing is redacted", async () => {
    // The demo key once shared eight characters ("_sandbox") with the projects' tokens, and every
    // project answer read "phc[redacted]AcmeShop…".
    const { client } = await startCli({});
    try {
      for (const project of DEMO.projects) {
        const r = (await client.callTool({ name: 'project-get', arguments: { id: project.id, include_settings: true } })) as CallToolResult;
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
        expect(JSON.stringify(r)).not.toContain('[redacted]');
        expect(JSON.stringify(r.structuredContent)).toContain(project.apiToken);
      }
      const summary = (await client.callTool({ name: 'session-recording-summary', arguments: { id: DEMO.recordingIds.checkoutFailure } })) as CallToolResult;
      expect(JSON.stringify(summary)).not.toContain('[redacted]');
    } finally {
      await client.close();
    }
  });

  it('a configured POSTHOG_PROJECT_ID stays the default', async () => {
    const { client, stderr } = await startCli({ POSTHOG_PROJECT_ID: String(DEMO.marketingProjectId) });
    try {
      const r = (await client.callTool({ name: 'session-recordings-list', arguments: {} })) as CallToolResult;
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      const ids = (r.structuredContent as { results: { id: string }[] }).results.map((x) => x.id);
      const marketingIds = DEMO.recordings.filter((x) => x.projectId === DEMO.marketingProjectId).map((x) => x.id);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.every((id) => marketingIds.includes(id))).toBe(true);
      expect(stderr()).toContain(`default project ${DEMO.marketingProjectId}`);
      expect(stderr()).not.toContain('demo project');
    } finally {
      await client.close();
    }
  });
});
