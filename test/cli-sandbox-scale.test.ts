// The built CLI's --sandbox-scale: the sandbox's week at scale is there, and with no
// POSTHOG_PROJECT_ID its shop is the recording tools' default project.

import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { SCALE, scaleTruth } from '../src/sandbox/index.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

describe('--sandbox-scale', () => {
  it('serves the generated week, its shop the default project', async () => {
    const started = Date.now();
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--sandbox', '--sandbox-scale'], env: { PATH: process.env.PATH ?? '' }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += d));
    const client = new Client({ name: 'sandbox-scale-test', version: '1' });
    await client.connect(transport);
    try {
      const r = (await client.callTool({ name: 'session-recordings-list', arguments: { date_from: '-7d' } })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      const ids = (r.structuredContent as { results: { id: string }[] }).results.map((x) => x.id);
      expect(ids.length).toBeGreaterThan(0);
      // The week is pinned to the hour of the sandbox's clock: the same seed gives these ids.
      const known = new Set([...scaleTruth({ now: started }).recorded.sessionIds, ...scaleTruth({ now: Date.now() }).recorded.sessionIds]);
      for (const id of ids) expect(known.has(id), id).toBe(true);
      expect(stderr).toContain(`default project ${SCALE.projectId} "${SCALE.projectName}"`);
      expect(stderr).toMatch(/with a week at scale/);
    } finally {
      await client.close();
    }
  });
});
