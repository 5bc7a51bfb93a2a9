import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { apiRequests } from './harness.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const SERVER_KEY = 'phx_cli_http_server_key_0123456789';
const USER_KEY = 'phx_cli_http_user_key_9876543210';

function spawnCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, out, exited };
}

async function until(condition: () => boolean, what: string, out: { stderr: string }): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!condition()) throw new Error(`timed out waiting for ${what}; stderr: ${out.stderr}`);
}

describe('the built CLI over HTTP', () => {
  let holder: Server;
  let heldPort: number;
  beforeAll(async () => {
    // A port we hold on loopback: a CLI that tried to bind 0.0.0.0 on it would fail with
    // EADDRINUSE (exit 1), so exit 2 proves it refused before binding anything.
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    heldPort = (holder.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it('refuses a non-loopback bind with the server key and no access token, before binding, in one line', async () => {
    for (const [args, env] of [
      [['--transport', 'http', '--host', '0.0.0.0', '--port', String(heldPort)], { POSTHOG_PERSONAL_API_KEY: SERVER_KEY }],
      [['--transport', 'http', '--host', '0.0.0.0', '--port', String(heldPort), '--sandbox'], {}],
    ] as const) {
      const { out, exited } = spawnCli([...args], env);
      expect(await exited, out.stderr).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr.trim().split('\n')).toHaveLength(1);
      expect(out.stderr).toMatch(/Refusing to listen on 0\.0\.0\.0 .*MCP_AUTH_TOKEN/);
      expect(out.stderr).not.toContain(SERVER_KEY);
    }
  });

  describe('graceful shutdown', () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await startSandbox({ acceptAnyKey: true });
    });
    afterAll(() => sandbox.close());

    it('on SIGTERM stops accepting, lets a slow call finish with its result, then exits 0', async () => {
      sandbox.injectFault({ path: '/api/projects/', delayMs: 1_500 });
      const { child, out, exited } = spawnCli(['--transport', 'http', '--port', '0'], { POSTHOG_HOST: sandbox.url });
      await until(() => /Streamable HTTP at (\S+)/.test(out.stderr), 'the start-up line', out);
      const url = /Streamable HTTP at (http:\S+\/mcp)/.exec(out.stderr)![1]!;
      expect(out.stderr).toMatch(/per-user keys/);

      const client = new Client({ name: 'sigterm-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${USER_KEY}` } } }));
      const slow = client.callTool({ name: 'projects-list', arguments: {} }) as Promise<CallToolResult>;
      await until(() => apiRequests(sandbox).some((r) => r.path === '/api/projects/'), 'the call to reach the sandbox', out);

      child.kill('SIGTERM');
      await until(() => out.stderr.includes('no longer accepting'), 'the shutdown notice', out);
      expect(out.stderr).toMatch(/letting 1 running request\(s\) finish/);
      // No new connections while the call drains.
      await expect(fetch(url.replace('/mcp', '/healthz'))).rejects.toThrow();

      const result = await slow;
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect((result.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
      expect(await exited).toBe(0);
      expect(out.stderr).toMatch(/all requests finished; stopped\./);
      expect(out.stdout + out.stderr).not.toContain(USER_KEY);
      await client.close();
    });
  });
});
