// HTTP transport with per-user keys, through an outbound proxy: each user's calls, the summary's
// blocks included, go through the proxy (not one connection around it), each with that user's
// key; neither key nor the proxy's password is shown.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIG_RECORDING_ID, DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { startForwardProxy, startTlsFront, TEST_CERT, type ForwardProxy, type TlsFront } from './support/network.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const P = String(DEMO.mainProjectId);
const USERS = ['phx_attack2_user_one_0123456789abcdef', 'phx_attack2_user_two_fedcba9876543210'];
const PASSWORD = 'httpModeProxyPassw0rd';

describe('HTTP transport, per-user keys, through a proxy', () => {
  let sandbox: Sandbox;
  let front: TlsFront;
  let proxy: ForwardProxy;
  let child: ReturnType<typeof spawn>;
  let url = '';
  let stderr = '';

  beforeAll(async () => {
    sandbox = await startSandbox({ acceptAnyKey: true, bigRecording: { copies: 5 } });
    front = await startTlsFront(sandbox.url);
    proxy = await startForwardProxy();
    const withAuth = proxy.url.replace('http://', `http://team:${PASSWORD}@`);
    // No server key: each user's own (the per-user-keys mode under test).
    child = spawn(process.execPath, [CLI, '--transport', 'http', '--port', '0'], {
      env: { PATH: process.env.PATH ?? '', POSTHOG_HOST: front.url, NODE_EXTRA_CA_CERTS: TEST_CERT, HTTPS_PROXY: withAuth },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    for (let i = 0; i < 500 && !/Streamable HTTP at (http:\S+\/mcp)/.test(stderr); i++) await new Promise((r) => setTimeout(r, 10));
    url = /Streamable HTTP at (http:\S+\/mcp)/.exec(stderr)![1]!;
    expect(stderr).toMatch(/per-user keys/);
  });
  afterAll(async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('close', r));
    await proxy.close();
    await front.close();
    await sandbox.close();
  });

  const connect = async (key: string) => {
    const c = new Client({ name: 'http-proxy-test', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    return c;
  };
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

  it("each user's calls go through the proxy with that user's key; no key and no password on stderr", async () => {
    const [one, two] = await Promise.all(USERS.map(connect));
    const [a, b] = (await Promise.all([
      one!.callTool({ name: 'session-recording-summary', arguments: { project_id: P, id: BIG_RECORDING_ID } }),
      two!.callTool({ name: 'projects-list', arguments: {} }),
    ])) as CallToolResult[];
    expect(a!.isError, text(a!)).toBeFalsy();
    expect(b!.isError, text(b!)).toBeFalsy();
    expect(proxy.tunnels.length).toBeGreaterThan(0);
    expect(front.connections).toBe(proxy.tunnels.length);
    expect(front.sent.every((q) => q.by === 'undici')).toBe(true);
    for (const key of USERS) expect(sandbox.requests.some((q) => q.authorization === `Bearer ${key}`)).toBe(true);
    expect(sandbox.requests.filter((q) => q.path.includes('/snapshots')).every((q) => q.authorization === `Bearer ${USERS[0]}`)).toBe(true);

    // The refusal of a tunnel is tested in attack2-proxy-hostile.test.ts (this pool's tunnels stay open).
    const all = JSON.stringify([a, b]) + stderr;
    for (const key of USERS) expect(all).not.toContain(key);
    expect(all).not.toContain(PASSWORD);
    await one!.close();
    await two!.close();
  });
});
