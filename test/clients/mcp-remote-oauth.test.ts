// A real MCP client from npm signing in to MCP_OAUTH (issue 35): mcp-remote 0.15, the stdio
// bridge people put in Claude Desktop's config to reach a remote server, pinned as a dev
// dependency. It discovers the OAuth server from /oauth/mcp's 401, registers, opens "the
// browser" ($BROWSER: a stand-in that pastes the sandbox key into the consent form), takes the
// code on its own loopback listener and calls tools over /oauth/mcp; the SDK's Client talks to it
// over stdio, as Claude Desktop would.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PostHogClient } from '../../src/posthog/client.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import type { RunningHttp } from '../../src/transports/http.js';
import { serveOAuth, perUserUpstream } from '../support/oauth.js';

const BRIDGE = join(dirname(createRequire(import.meta.url).resolve('mcp-remote/package.json')), 'dist', 'proxy.js');
const BROWSER = fileURLToPath(new URL('./support/stand-in-browser.mjs', import.meta.url));
const SECRET = 'mcp-remote-test-secret-0123456789abcdefghij';

describe('mcp-remote 0.15 signs in to /oauth/mcp and calls tools', { timeout: 90_000 }, () => {
  let sandbox: Sandbox;
  let upstream: PostHogClient;
  let http: RunningHttp;
  let home: string;
  const logs: string[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox();
    upstream = perUserUpstream(sandbox.url);
    http = await serveOAuth(upstream, SECRET, (m) => logs.push(m));
    home = await mkdtemp(join(tmpdir(), 'mcp-remote-home-'));
  });
  afterAll(async () => {
    await http.close();
    await upstream.close();
    await sandbox.close();
    await rm(home, { recursive: true, force: true });
  });

  it('through discovery, registration, the consent form and the token; a second start reuses the stored tokens', async () => {
    const browserLog = join(home, 'browser.log');
    const start = async () => {
      const client = new Client({ name: 'claude-desktop-stand-in', version: '1.0.0' });
      const stderr: string[] = [];
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BRIDGE, http.oauthUrl!, '--allow-http'],
        env: { PATH: process.env.PATH ?? '', HOME: home, BROWSER, STAND_IN_KEY: sandbox.apiKey, STAND_IN_LOG: browserLog },
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
      try {
        await client.connect(transport);
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${stderr.join('').slice(-3000)}`);
      }
      return { client, stderr };
    };

    const first = await start();
    const tools = await first.client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('session-recordings-list');
    sandbox.requests.length = 0;
    const r = (await first.client.callTool({ name: 'projects-list', arguments: { recording_settings: false } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect((r.content[0] as { text: string }).text).toMatch(/^3 projects of 3:/);
    // The call reached PostHog with the key pasted on the consent page.
    expect(sandbox.requests.filter((q) => q.path.startsWith('/api/')).map((q) => q.authorization)).toEqual([`Bearer ${sandbox.apiKey}`]);
    await first.client.close();
    const browsed = await readFile(browserLog, 'utf8');
    expect(browsed).toMatch(/open \/oauth\/authorize\nform 302\ncallback 200/);

    // mcp-remote keeps the tokens under HOME: a second start signs in with no browser.
    const second = await start();
    expect(((await second.client.callTool({ name: 'projects-list', arguments: { recording_settings: false } })) as CallToolResult).isError).toBeFalsy();
    await second.client.close();
    expect((await readFile(browserLog, 'utf8')).match(/^open /gm)).toHaveLength(1);

    // What mcp-remote wrote and what this server logged hold no key.
    expect(first.stderr.join('') + second.stderr.join('') + logs.join('\n')).not.toContain(sandbox.apiKey);
  });
});
