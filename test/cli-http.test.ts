import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';
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

  describe('MCP_OAUTH (issue 35)', () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await startSandbox();
    });
    afterAll(() => sandbox.close());

    it('refuses a server key with MCP_OAUTH: exit 2, one line naming the key to unset, the key not echoed', async () => {
      const { out, exited } = spawnCli(['--transport', 'http', '--port', '0'], { MCP_OAUTH: 'on', MCP_OAUTH_SECRET: randomBytes(20).toString('hex'), POSTHOG_PERSONAL_API_KEY: SERVER_KEY, POSTHOG_HOST: sandbox.url });
      expect(await exited, out.stderr).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).toMatch(/MCP_OAUTH asks each person for their own PostHog key, so the server must not have one: unset POSTHOG_PERSONAL_API_KEY/);
      expect(out.stderr).not.toContain(SERVER_KEY);
    });

    it('a sign-in by hand (register, consent page, form, token) and a tool call on /oauth/mcp; no key, secret, code or token in its output', async () => {
      const secret = randomBytes(30).toString('base64url').slice(0, 40);
      const { child, out, exited } = spawnCli(['--transport', 'http', '--port', '0'], { MCP_OAUTH: 'on', MCP_OAUTH_SECRET: secret, POSTHOG_HOST: sandbox.url });
      try {
        await until(() => /OAuth \(MCP_OAUTH\).* connect to (http:\S+\/oauth\/mcp);/.test(out.stderr), 'the OAuth start-up line', out);
        const endpoint = /connect to (http:\S+\/oauth\/mcp);/.exec(out.stderr)![1]!;
        const origin = new URL(endpoint).origin;
        const seen: string[] = [];

        // What the app does first: find the server from the 401, then register.
        const challenge = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        expect(challenge.status).toBe(401);
        const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge.headers.get('www-authenticate') ?? '')![1]!;
        const issuer = ((await (await fetch(metadataUrl)).json()) as { authorization_servers: string[] }).authorization_servers[0]!;
        const meta = (await (await fetch(`${origin}/.well-known/oauth-authorization-server${new URL(issuer).pathname}`)).json()) as Record<string, string>;
        const redirect = 'http://127.0.0.1:9/callback';
        const registered = await fetch(meta.registration_endpoint!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'CLI test', redirect_uris: [redirect] }) });
        expect(registered.status).toBe(201);
        const clientId = ((await registered.json()) as { client_id: string }).client_id;

        // What the person's browser does: the consent page, then its form with the key.
        const verifier = randomBytes(32).toString('base64url');
        const state = randomBytes(8).toString('hex');
        const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirect, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', state, resource: endpoint });
        const page = await fetch(`${meta.authorization_endpoint}?${query}`);
        expect(page.status).toBe(200);
        const request = /name="request" value="([^"]+)"/.exec(await page.text())![1]!;
        const submit = () =>
          fetch(meta.authorization_endpoint!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ request, api_key: sandbox.apiKey }), redirect: 'manual' });
        // PostHog failing the check once: the page asks to try again, and the server says why in its log.
        sandbox.injectFault({ path: '/api/users/@me/', status: 400 });
        const failed = await submit();
        expect(failed.status).toBe(503);
        await until(() => /oauth: could not check a key with PostHog \(400\)/.test(out.stderr), 'the failed check in the log', out);
        const posted = await submit();
        expect(posted.status).toBe(302);
        const back = new URL(posted.headers.get('location')!);
        expect(back.searchParams.get('state')).toBe(state);
        const code = back.searchParams.get('code')!;
        seen.push(code);

        // The app again: the code for tokens, then a call with the access token.
        const token = await fetch(meta.token_endpoint!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: redirect, code_verifier: verifier }) });
        expect(token.status).toBe(200);
        const pair = (await token.json()) as { access_token: string; refresh_token: string };
        seen.push(pair.access_token, pair.refresh_token);
        const call = await fetch(endpoint, {
          method: 'POST',
          headers: { authorization: `Bearer ${pair.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'projects-list', arguments: { recording_settings: false } } }),
        });
        expect(call.status).toBe(200);
        const answer = (await call.json()) as { result: { isError?: boolean; structuredContent: { results: unknown[] } } };
        expect(answer.result.isError, JSON.stringify(answer)).toBeFalsy();
        expect(answer.result.structuredContent.results.length).toBeGreaterThan(0);
        expect(apiRequests(sandbox).at(-1)?.authorization).toBe(`Bearer ${sandbox.apiKey}`);

        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        const output = out.stdout + out.stderr;
        expect(out.stdout).toBe('');
        for (const value of [sandbox.apiKey, secret, ...seen]) expect(output.includes(value), value.slice(0, 12)).toBe(false);
      } finally {
        child.kill('SIGKILL');
      }
    });
  });

  describe('watch links on two replicas (issue 43)', () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await startSandbox({ acceptAnyKey: true });
    });
    afterAll(() => sandbox.close());

    it('a link made on one replica opens on the other, read with the caller\'s key', { timeout: 60_000 }, async () => {
      // The balancer's origin, which both replicas are configured with; the test goes to each replica itself.
      const env = { POSTHOG_HOST: sandbox.url, MCP_PUBLIC_URL: 'http://127.0.0.1:9', MCP_WATCH_SECRET: randomBytes(32).toString('hex'), MCP_ALLOWED_HOSTS: '127.0.0.1' };
      const replicas = [spawnCli(['--transport', 'http', '--port', '0'], env), spawnCli(['--transport', 'http', '--port', '0'], env)];
      const client = new Client({ name: 'watch-replicas-cli', version: '1' });
      try {
        const [one, two] = await Promise.all(
          replicas.map(async ({ out }) => {
            await until(() => /Streamable HTTP at (\S+)/.test(out.stderr), 'the start-up line', out);
            return /Streamable HTTP at (http:\S+)\/mcp/.exec(out.stderr)![1]!;
          }),
        );
        await client.connect(new StreamableHTTPClientTransport(new URL(`${one}/mcp`), { requestInit: { headers: { authorization: `Bearer ${USER_KEY}` } } }));
        const result = (await client.callTool({ name: 'session-recording-replay', arguments: { project_id: String(DEMO.mainProjectId), id: DEMO.recordingIds.recordedCheckout } })) as CallToolResult;
        const link = new URL((result.structuredContent as { watch_url: string }).watch_url);
        expect(link.origin).toBe('http://127.0.0.1:9');
        const before = sandbox.requests.length;
        const [page, data, events] = await Promise.all(['', 'data', 'events?max_bytes=300000'].map((part) => fetch(`${two}${link.pathname}${part}`)));
        expect([page!.status, data!.status, events!.status]).toEqual([200, 200, 200]);
        expect(((await data!.json()) as { id: string }).id).toBe(DEMO.recordingIds.recordedCheckout);
        const reads = sandbox.requests.slice(before).filter((r) => r.path.includes('/session_recordings/'));
        expect(reads.length).toBeGreaterThan(0);
        expect(new Set(reads.map((r) => r.authorization))).toEqual(new Set([`Bearer ${USER_KEY}`]));
        expect(link.href).not.toContain(USER_KEY);
      } finally {
        await client.close();
        for (const { child } of replicas) child.kill('SIGTERM');
        await Promise.all(replicas.map(({ exited }) => exited));
      }
      for (const { out } of replicas) expect(out.stdout + out.stderr).not.toContain(USER_KEY);
    });
  });
});
