import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostHogClient } from '../src/posthog/client.js';
import { TIMEZONES } from '../src/posthog/timezones.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { serverFactory } from '../src/server.js';
import { serveHttp, type RunningHttp } from '../src/transports/http.js';

/**
 * Stateless HTTP answers tools/list on a server that never saw the client's initialize: Codex is
 * known there by its User-Agent (MCP_TOOL_SCHEMAS=auto, the default).
 */
describe('MCP_TOOL_SCHEMAS over stateless HTTP', () => {
  let sandbox: Sandbox;
  let upstream: PostHogClient;
  let http: RunningHttp;
  beforeAll(async () => {
    sandbox = await startSandbox({ acceptAnyKey: true });
    upstream = new PostHogClient({ baseUrl: sandbox.url, apiKey: undefined, timeoutMs: 5_000 });
    const settings = { readOnly: false, toolsets: ['recordings' as const, 'projects' as const], defaultProjectId: undefined, toolSchemas: 'auto' as const };
    http = await serveHttp({ host: '127.0.0.1', port: 0, client: upstream, createServer: serverFactory({ settings, log: () => {} }), log: () => {} });
  });
  afterAll(async () => {
    await http.close();
    await upstream.close();
    await sandbox.close();
  });

  async function listAs(name: string, userAgent: string | undefined): Promise<Tool[]> {
    const client = new Client({ name, version: '0.171.0' });
    const headers: Record<string, string> = { authorization: 'Bearer phx_codex_user_0000000000', ...(userAgent ? { 'user-agent': userAgent } : {}) };
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers } }));
    try {
      return (await client.listTools()).tools;
    } finally {
      await client.close();
    }
  }
  const timezone = (tools: Tool[]) => (tools.find((t) => t.name === 'project-update')!.inputSchema.properties as Record<string, { anyOf: Array<{ type?: string; enum?: string[] }> }>).timezone!;

  it('gives a request with User-Agent codex-mcp-client/<version> input schemas under 5,000 bytes, optional fields nullable', async () => {
    const tools = await listAs('codex-mcp-client', 'codex-mcp-client/0.171.0 (Linux; x86_64)');
    for (const tool of tools) expect(Buffer.byteLength(JSON.stringify(tool.inputSchema)), tool.name).toBeLessThan(5_000);
    expect(timezone(tools).anyOf).toEqual([{ type: 'string' }, { type: 'null' }]);
  });

  it('gives another client the whole timezone enum', async () => {
    const tools = await listAs('other-client', 'node');
    expect(timezone(tools).anyOf[0]!.enum).toEqual([...TIMEZONES]);
  });
});
