import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIG_RECORDING_ID, DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { startForwardProxy, startTlsFront, TEST_CERT, type ForwardProxy, type TlsFront } from './support/network.js';

// On company networks every outbound connection goes through a proxy named by HTTPS_PROXY /
// HTTP_PROXY (NO_PROXY for exceptions). The built server, at its defaults plus those variables,
// against the sandbox behind a TLS front, through a CONNECT proxy on loopback.
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const P = String(DEMO.mainProjectId);
const COPIES = 30;
const PASSWORD = 'pr0xyS3cretPassw0rd';

type Summary = { counts: { events: number }; partial?: unknown };

describe('an outbound proxy', () => {
  let sandbox: Sandbox;
  let front: TlsFront;
  let proxy: ForwardProxy;
  let client: Client | undefined;

  beforeAll(async () => {
    sandbox = await startSandbox({ bigRecording: { copies: COPIES } });
    front = await startTlsFront(sandbox.url);
    proxy = await startForwardProxy();
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    sandbox.reset();
    front.reset();
    proxy.reset();
  });
  afterAll(async () => {
    await proxy.close();
    await front.close();
    await sandbox.close();
  });

  /** The built server at the defaults (key and host), the test CA trusted, and the proxy variables given. */
  const env = (extra: Record<string, string>, host = front.url) => ({
    PATH: process.env.PATH ?? '',
    POSTHOG_PERSONAL_API_KEY: sandbox.apiKey,
    POSTHOG_HOST: host,
    NODE_EXTRA_CA_CERTS: TEST_CERT,
    ...extra,
  });
  async function connect(extra: Record<string, string>, host?: string): Promise<Client> {
    const c = new Client({ name: 'proxy-test', version: '1' });
    await c.connect(new StdioClientTransport({ command: process.execPath, args: [CLI], env: env(extra, host), stderr: 'ignore' }));
    return c;
  }
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
  const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as CallToolResult;
  const frontTarget = () => new URL(front.url).host;

  it('HTTPS_PROXY: every connection to PostHog is a tunnel through it, the summary\'s blocks included', async () => {
    client = await connect({ HTTPS_PROXY: proxy.url });
    const listed = await call(client, 'projects-list', {});
    expect(listed.isError, text(listed)).toBeFalsy();
    const r = await call(client, 'session-recording-summary', { project_id: P, id: BIG_RECORDING_ID });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as Summary).partial).toBeUndefined();
    expect((r.structuredContent as Summary).counts.events).toBeGreaterThan(0);
    expect(sandbox.requests.some((q) => q.query.source === 'blob_v2')).toBe(true);
    // Not one connection around the proxy (the digest worker's own client would go direct).
    expect(proxy.tunnels.length).toBeGreaterThan(0);
    expect(proxy.tunnels.every((t) => t.target === frontTarget())).toBe(true);
    expect(front.connections).toBe(proxy.tunnels.length);
    expect(front.sent.every((q) => q.by === 'undici')).toBe(true);
  });

  it('NO_PROXY naming the host: straight to PostHog, the worker fetching its blocks as usual', async () => {
    client = await connect({ HTTPS_PROXY: proxy.url, NO_PROXY: 'example.com, 127.0.0.1' });
    const r = await call(client, 'session-recording-summary', { project_id: P, id: BIG_RECORDING_ID });
    expect(r.isError, text(r)).toBeFalsy();
    expect(proxy.tunnels).toHaveLength(0);
    expect(front.sent.some((q) => q.by === 'node:https')).toBe(true);
  });

  it('HTTP_PROXY for an http:// PostHog, and HTTPS_PROXY left alone for it', async () => {
    client = await connect({ HTTP_PROXY: proxy.url }, sandbox.url);
    const r = await call(client, 'projects-list', {});
    expect(r.isError, text(r)).toBeFalsy();
    expect(proxy.tunnels.map((t) => t.target)).toContain(new URL(sandbox.url).host);
    await client.close();
    proxy.reset();
    client = await connect({ HTTPS_PROXY: proxy.url }, sandbox.url);
    expect((await call(client, 'projects-list', {})).isError).toBeFalsy();
    expect(proxy.tunnels).toHaveLength(0);
  });

  it('credentials in the proxy URL are sent to the proxy and never shown', async () => {
    const withAuth = proxy.url.replace('http://', `http://team:${PASSWORD}@`);
    client = await connect({ HTTPS_PROXY: withAuth });
    expect((await call(client, 'projects-list', {})).isError).toBeFalsy();
    expect(proxy.tunnels[0]?.auth).toBe(`Basic ${Buffer.from(`team:${PASSWORD}`).toString('base64')}`);

    await client.close();
    proxy.reset();
    proxy.refuseWith = 407;
    client = await connect({ HTTPS_PROXY: withAuth });
    const r = await call(client, 'projects-list', {});
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(new RegExp(`the proxy ${proxy.url.replace(/[.:/]/g, '\\$&')} \\(HTTPS_PROXY\\) refused the connection \\(407: it wants credentials`));
    expect(text(r)).not.toContain(PASSWORD);
    expect(text(r)).not.toContain(Buffer.from(`team:${PASSWORD}`).toString('base64'));
    // A refusal is the proxy's answer, not a network hiccup: asked once.
    expect(proxy.tunnels).toHaveLength(1);
  });

  it('doctor names the proxy (without its password) and reaches PostHog through it', async () => {
    const withAuth = proxy.url.replace('http://', `http://team:${PASSWORD}@`);
    let out: string;
    try {
      out = (await promisify(execFile)(process.execPath, [CLI, 'doctor'], { env: env({ HTTPS_PROXY: withAuth }), encoding: 'utf8' })).stdout;
    } catch (error) {
      out = (error as { stdout: string }).stdout;
    }
    expect(out).toMatch(new RegExp(`^PASS {2}proxy: requests to PostHog go through ${proxy.url.replace(/[.:/]/g, '\\$&')} \\(HTTPS_PROXY;`, 'm'));
    expect(out).toMatch(/^PASS {2}host and key: PostHog at https:\/\/127\.0\.0\.1:\d+ accepted the key/m);
    expect(out).not.toContain(PASSWORD);
    expect(proxy.tunnels.length).toBeGreaterThan(0);
  });

  it('a proxy variable no proxy can be is a configuration error, naming it: doctor exits 2, stdio says it in the chat', async () => {
    const run = promisify(execFile);
    const failure = await run(process.execPath, [CLI, 'doctor'], { env: env({ HTTPS_PROXY: 'socks5://127.0.0.1:1080' }), encoding: 'utf8' }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toMatch(/HTTPS_PROXY names a socks5 proxy; this server speaks to http:\/\/ and https:\/\/ proxies only/);
    // Over stdio (no input here: it ends at once) the server starts anyway to answer with the error (test/cli-misconfigured.test.ts).
    const child = spawn(process.execPath, [CLI], { env: env({ HTTPS_PROXY: 'socks5://127.0.0.1:1080' }), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(stderr).toMatch(/HTTPS_PROXY names a socks5 proxy.*Serving over stdio anyway/);
  });

  it('the start-up line on stderr names the proxy without its password', async () => {
    const withAuth = proxy.url.replace('http://', `http://team:${PASSWORD}@`);
    // No stdin: the server starts, says what it serves, sees the end of its input and exits.
    const child = spawn(process.execPath, [CLI], { env: env({ HTTPS_PROXY: withAuth }), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await once(child, 'exit');
    expect(stderr).toContain(`against ${front.url} through the proxy ${proxy.url} (HTTPS_PROXY).`);
    expect(stderr).not.toContain(PASSWORD);
  });
});
