import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PostHogClient } from '../src/posthog/client.js';
import type { Sandbox } from '../src/sandbox/index.js';
import type { RunningHttp } from '../src/transports/http.js';
import { startOAuthStack, type OAuthStack } from './support/oauth.js';
import { OAuthServer } from '../src/transports/oauth.js';
import { Sealer } from '../src/transports/oauth-seal.js';

// Issue 35: HTTP mode as an OAuth 2.1 authorization server (MCP_OAUTH) for clients that cannot
// send a PostHog key (Claude.ai, ChatGPT). The whole flow through the SDK's OAuth-capable client,
// against the sandbox over loopback: discovery from a 401, registration, the consent form posted
// with a key, the token, a call that reaches PostHog with that key, refresh, and every refusal.

const SECRET = 'a'.repeat(20) + randomBytes(16).toString('hex');
const REDIRECT = 'http://127.0.0.1:9/callback';

/** An OAuth client provider as an MCP client keeps one: in memory, the browser step left to the test. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(private readonly metadata: Partial<OAuthClientMetadata> = {}) {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Test connector', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...this.metadata };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  state() {
    return 'st-' + randomBytes(6).toString('hex');
  }
}

/** What a browser does with the consent page: read the form's hidden request, post it with a key. */
async function consent(authorizationUrl: URL, apiKey: string, extra: Record<string, string> = {}): Promise<Response> {
  const page = await fetch(authorizationUrl);
  expect(page.status).toBe(200);
  const html = await page.text();
  const request = /name="request" value="([^"]+)"/.exec(html)?.[1];
  expect(request).toBeTruthy();
  return fetch(new URL('/oauth/authorize', authorizationUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request: request!.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))), api_key: apiKey, ...extra }),
    redirect: 'manual',
  });
}

describe('MCP_OAUTH: /oauth/mcp behind OAuth 2.1, /mcp as it was', () => {
  let sandbox: Sandbox;
  let upstream: PostHogClient;
  let http: RunningHttp;
  const logs: string[] = [];
  let origin: string;
  /** Every code and token the tests saw: none may reach a log. */
  const secrets: string[] = [];

  let stack: OAuthStack;
  beforeAll(async () => {
    stack = await startOAuthStack(SECRET, (m) => logs.push(m));
    ({ sandbox, upstream, http, origin } = stack);
    secrets.push(sandbox.apiKey, SECRET);
  });
  afterAll(() => stack.close());

  /** The SDK client's own flow: a 401 starts discovery and registration; the browser step is ours. */
  async function signIn(provider = new MemoryProvider()): Promise<MemoryProvider> {
    const first = new Client({ name: 'oauth-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(http.oauthUrl!), { authProvider: provider });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.href.startsWith(`${origin}/oauth/authorize?`)).toBe(true);
    const answer = await consent(provider.authorizationUrl!, sandbox.apiKey);
    expect(answer.status).toBe(302);
    const back = new URL(answer.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe(provider.authorizationUrl!.searchParams.get('state'));
    expect(back.searchParams.get('iss')).toBe(`${origin}/oauth`);
    const code = back.searchParams.get('code')!;
    // The key is in no URL, not even inside the code.
    expect(back.href).not.toContain(sandbox.apiKey);
    secrets.push(code);
    await transport.finishAuth(code);
    secrets.push(provider.saved!.access_token, provider.saved!.refresh_token!);
    return provider;
  }

  async function connected(provider: MemoryProvider): Promise<Client> {
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.oauthUrl!), { authProvider: provider }));
    return client;
  }

  it('signs in through discovery, registration, the form and the token, then calls a tool with the key given', async () => {
    const provider = await signIn();
    expect(provider.info?.client_id).toMatch(/^rmcp_client_/);
    expect(provider.saved).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(provider.saved!.access_token).toMatch(/^rmcp_at_/);
    expect(provider.saved!.access_token).not.toContain(sandbox.apiKey);
    expect(Buffer.from(provider.saved!.access_token.slice(8), 'base64url').toString('latin1')).not.toContain(sandbox.apiKey);
    // Signed in, a GET (an event stream) is what a stateless server declines: 405, not 401.
    expect((await fetch(http.oauthUrl!, { headers: { authorization: `Bearer ${provider.saved!.access_token}`, accept: 'text/event-stream' } })).status).toBe(405);
    const client = await connected(provider);
    sandbox.requests.length = 0;
    const r = (await client.callTool({ name: 'projects-list', arguments: { recording_settings: false } })) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect((r.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
    const calls = sandbox.requests.filter((q) => q.path.startsWith('/api/'));
    expect(calls.map((q) => q.authorization)).toEqual([`Bearer ${sandbox.apiKey}`]);
    await client.close();
  });

  it('advertises itself only for /oauth/mcp: every discovery path a client of /mcp probes is a plain 404', async () => {
    const prm = await fetch(`${origin}/.well-known/oauth-protected-resource/oauth/mcp`);
    expect(await prm.json()).toEqual({ resource: `${origin}/oauth/mcp`, authorization_servers: [`${origin}/oauth`], bearer_methods_supported: ['header'], resource_name: 'PostHog Replay MCP' });
    const meta = (await (await fetch(`${origin}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({ issuer: `${origin}/oauth`, code_challenge_methods_supported: ['S256'], registration_endpoint: `${origin}/oauth/register` });
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/.well-known/oauth-authorization-server/mcp', '/.well-known/openid-configuration/mcp', '/mcp/.well-known/openid-configuration', '/register', '/authorize', '/token']) {
      expect((await fetch(`${origin}${path}`)).status, path).toBe(404);
    }
    // /mcp's 401 names no metadata: a client there keeps sending its header.
    const bare = await fetch(http.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="Unauthorized: \/mcp has no sign-in: [^"]*, or use http:[^"]*\/oauth\/mcp, which signs you in\. [^"]*"$/);
    expect(bare.headers.get('www-authenticate')).not.toContain('resource_metadata');
    // /oauth/mcp's 401 does, whatever the method: a client opening with a GET meets it too.
    for (const method of ['POST', 'GET']) {
      const guarded = await fetch(http.oauthUrl!, { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) });
      expect(guarded.status, method).toBe(401);
      expect(guarded.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/oauth/mcp"`);
    }
  });

  it('header users on /mcp are unaffected: their key in the header reaches PostHog', async () => {
    const client = new Client({ name: 'header-user', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${sandbox.apiKey}` } } }));
    const r = (await client.callTool({ name: 'projects-list', arguments: { recording_settings: false } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    await client.close();
  });

  it('refresh rotates: the new pair works, the old refresh token is refused and ends that sign-in', async () => {
    const provider = await signIn();
    const clientId = provider.info!.client_id;
    const first = provider.saved!;
    const refresh = (token: string) =>
      fetch(`${origin}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: clientId }) });
    const renewed = await refresh(first.refresh_token!);
    expect(renewed.status).toBe(200);
    const pair = (await renewed.json()) as OAuthTokens;
    secrets.push(pair.access_token, pair.refresh_token!);
    expect(pair.refresh_token).not.toBe(first.refresh_token);
    provider.saved = pair;
    const client = await connected(provider);
    expect(((await client.callTool({ name: 'projects-list', arguments: { recording_settings: false } })) as CallToolResult).isError).toBeFalsy();
    await client.close();
    // The spent refresh token again: refused, and the sign-in it belonged to is revoked.
    const replay = await refresh(first.refresh_token!);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    const after = await fetch(http.oauthUrl!, { method: 'POST', headers: { authorization: `Bearer ${pair.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect((await refresh(pair.refresh_token!)).status).toBe(400);
  });

  it('a tampered, foreign or raw-key credential on /oauth/mcp is a 401 with WWW-Authenticate, and reaches no one', async () => {
    const provider = await signIn();
    const token = provider.saved!.access_token;
    const flipped = token.slice(0, 20) + (token[20] === 'A' ? 'B' : 'A') + token.slice(21);
    // Sealed the same way for this very resource, with another server's secret.
    const foreign = await new Sealer(['z'.repeat(40)]).seal('access', { c: provider.info!.client_id, k: sandbox.apiKey, res: `${origin}/oauth/mcp`, f: 'f', exp: Math.floor(Date.now() / 1000) + 3600 });
    sandbox.requests.length = 0;
    for (const credential of [flipped, token + 'x', foreign, sandbox.apiKey, 'rmcp_at_AAAA', provider.saved!.refresh_token!]) {
      const r = await fetch(http.oauthUrl!, { method: 'POST', headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      expect(r.status, credential.slice(0, 12)).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="[^"]+", error="invalid_token"/);
    }
    expect(sandbox.requests).toHaveLength(0);
  });

  it('a wrong key is told so on the page, and no code is issued', async () => {
    const provider = new MemoryProvider();
    const transport = new StreamableHTTPClientTransport(new URL(http.oauthUrl!), { authProvider: provider });
    await expect(new Client({ name: 't', version: '1' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const answer = await consent(provider.authorizationUrl!, 'phx_not_a_real_key_at_all_000000');
    expect(answer.status).toBe(400);
    const html = await answer.text();
    expect(html).toContain('PostHog did not accept this key');
    expect(html).not.toContain('phx_not_a_real_key_at_all_000000');
    expect(answer.headers.get('location')).toBeNull();
    // Cancel sends the app access_denied.
    const denied = await consent(provider.authorizationUrl!, '', { deny: '1' });
    expect(denied.status).toBe(302);
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
  });

  it('refuses what OAuth 2.1 refuses: bad redirect URIs, unknown clients, no PKCE, a wrong verifier, a code used twice, another resource', async () => {
    const register = (body: unknown) => fetch(`${origin}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    for (const uri of ['javascript:alert(1)', 'http://evil.example/cb', 'https://a.example/cb#x', 'not a uri']) {
      const r = await register({ redirect_uris: [uri] });
      expect(r.status, uri).toBe(400);
      expect(await r.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    }
    const reg = (await (await register({ redirect_uris: [REDIRECT], client_name: 'Raw' })).json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = (params: Record<string, string>) => new URL(`${origin}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: reg.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's1', ...params })}`);
    // Unknown client or unregistered redirect: a page, never a redirect.
    for (const params of [{ client_id: 'rmcp_client_forged' }, { redirect_uri: 'https://attacker.example/cb' }] as Array<Record<string, string>>) {
      const r = await fetch(authorize(params), { redirect: 'manual' });
      expect(r.status).toBe(400);
      expect(r.headers.get('location')).toBeNull();
    }
    // No PKCE, or another resource: a page saying so, and no redirect either (RFC 9700 §4.11.2).
    for (const [params, why] of [[{ code_challenge: '' }, 'PKCE is required'], [{ code_challenge_method: 'plain' }, 'code_challenge_method must be S256'], [{ resource: 'https://other.example/mcp' }, 'issues tokens for']] as const) {
      const r = await fetch(authorize(params), { redirect: 'manual' });
      expect(r.status).toBe(400);
      expect(r.headers.get('location')).toBeNull();
      expect(await r.text()).toContain(why);
    }
    const answer = await consent(authorize({ resource: `${origin}/oauth/mcp` }), sandbox.apiKey);
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    secrets.push(code);
    const token = (params: Record<string, string>) =>
      fetch(`${origin}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: reg.client_id, redirect_uri: REDIRECT, code_verifier: verifier, ...params }) });
    expect(await (await token({ code_verifier: randomBytes(32).toString('base64url') })).json()).toMatchObject({ error: 'invalid_grant' });
    expect(await (await token({ resource: 'https://other.example/mcp' })).json()).toMatchObject({ error: 'invalid_target' });
    const good = await token({});
    expect(good.status).toBe(200);
    const pair = (await good.json()) as OAuthTokens;
    secrets.push(pair.access_token, pair.refresh_token!);
    const again = await token({});
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/^The code was already used/) });
  });

  it('a confidential client authenticates at the token endpoint with its secret (Basic or in the body)', async () => {
    const reg = (await (await fetch(`${origin}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }) })).json()) as { client_id: string; client_secret: string };
    expect(reg.client_secret).toBeTruthy();
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${origin}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: reg.client_id, redirect_uri: REDIRECT, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' })}`);
    const code = new URL((await consent(url, sandbox.apiKey)).headers.get('location')!).searchParams.get('code')!;
    secrets.push(code, reg.client_secret);
    const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
    const wrong = await fetch(`${origin}/oauth/token`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${reg.client_id}:nope`).toString('base64')}` }, body });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${origin}/oauth/token`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${reg.client_id}:${reg.client_secret}`).toString('base64')}` }, body });
    expect(right.status).toBe(200);
    const pair = (await right.json()) as OAuthTokens;
    secrets.push(pair.access_token, pair.refresh_token!);
  });

  it('an access token past its hour is refused; a token sealed with a previous secret still opens after rotation', async () => {
    let now = Date.parse('2026-11-26T10:00:00Z');
    const old = new OAuthServer({ secrets: ['o'.repeat(40)], publicUrl: origin, client: upstream, log: () => {}, now: () => now });
    const token = await new Sealer(['o'.repeat(40)]).seal('access', { c: 'x', k: 'phx_k', res: `${origin}/oauth/mcp`, f: 'f', exp: Math.floor(now / 1000) + 3600 });
    expect(await old.authenticate(token)).toEqual({ ok: true, key: 'phx_k', signIn: 'f' });
    const rotated = new OAuthServer({ secrets: ['n'.repeat(40), 'o'.repeat(40)], publicUrl: origin, client: upstream, log: () => {}, now: () => now });
    expect(await rotated.authenticate(token)).toEqual({ ok: true, key: 'phx_k', signIn: 'f' });
    const retired = new OAuthServer({ secrets: ['n'.repeat(40)], publicUrl: origin, client: upstream, log: () => {}, now: () => now });
    expect((await retired.authenticate(token)).ok).toBe(false);
    now += 3600 * 1000;
    expect(await old.authenticate(token)).toMatchObject({ ok: false, message: expect.stringMatching(/expired/) });
    // For another resource (another server's origin): refused.
    const elsewhere = new OAuthServer({ secrets: ['o'.repeat(40)], publicUrl: 'https://other.example', client: upstream, log: () => {}, now: () => now - 1000 });
    expect((await elsewhere.authenticate(token)).ok).toBe(false);
  });

  it('no key, code or token appears in any log line', () => {
    expect(secrets.length).toBeGreaterThan(8);
    const all = logs.join('\n');
    for (const s of secrets) expect(all.includes(s), s.slice(0, 12)).toBe(false);
  });
});
