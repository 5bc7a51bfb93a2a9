import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostHogClient } from '../src/posthog/client.js';
import type { Sandbox } from '../src/sandbox/index.js';
import type { RunningHttp } from '../src/transports/http.js';
import { Sealer } from '../src/transports/oauth-seal.js';
import { serveOAuth, startOAuthStack, type OAuthStack } from './support/oauth.js';

// MCP_OAUTH (issue 35) attacked from outside: every probe goes over HTTP to a real server with
// the sandbox behind it, as a hostile app, page or caller would send it. Each test names what
// must hold; the last checks that nothing secret reached the log along the way.

const SECRET = randomBytes(24).toString('hex');
const REDIRECT = 'http://127.0.0.1:9/callback';
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

describe('MCP_OAUTH under attack', () => {
  let sandbox: Sandbox;
  let upstream: PostHogClient;
  let http: RunningHttp;
  let origin: string;
  const logs: string[] = [];
  /** Every key, code and token handed out or typed: none may reach the log. */
  const secrets: string[] = [];

  let stack: OAuthStack;
  beforeAll(async () => {
    stack = await startOAuthStack(SECRET, (m) => logs.push(m));
    ({ sandbox, upstream, http, origin } = stack);
    secrets.push(sandbox.apiKey, SECRET);
  });
  afterAll(() => stack.close());

  async function register(metadata: Record<string, unknown> = {}): Promise<Response> {
    return fetch(`${origin}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT], ...metadata }) });
  }

  async function clientId(metadata: Record<string, unknown> = {}): Promise<string> {
    const r = await register(metadata);
    expect(r.status).toBe(201);
    return ((await r.json()) as { client_id: string }).client_id;
  }

  function pkce() {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  }

  function authorizeUrl(client: string, challenge: string, params: Record<string, string> = {}): string {
    return `${origin}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's', ...params })}`;
  }

  /** The consent page's sealed request, as the form would post it back. */
  async function consentRequest(url: string): Promise<string> {
    const page = await fetch(url);
    expect(page.status).toBe(200);
    return /name="request" value="([^"]+)"/.exec(await page.text())![1]!;
  }

  function post(form: Record<string, string>): Promise<Response> {
    return fetch(`${origin}/oauth/authorize`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form), redirect: 'manual' });
  }

  function token(form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${origin}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form) });
  }

  /** A whole sign-in for `client`: its code (not yet spent) and the verifier that redeems it. */
  async function code(client: string): Promise<{ code: string; verifier: string }> {
    const { verifier, challenge } = pkce();
    const answer = await post({ request: await consentRequest(authorizeUrl(client, challenge)), api_key: sandbox.apiKey });
    expect(answer.status).toBe(302);
    const value = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    secrets.push(value);
    return { code: value, verifier };
  }

  async function tokens(client: string): Promise<{ access_token: string; refresh_token: string }> {
    const c = await code(client);
    const r = await token({ grant_type: 'authorization_code', code: c.code, client_id: client, code_verifier: c.verifier });
    expect(r.status).toBe(200);
    const pair = (await r.json()) as { access_token: string; refresh_token: string };
    secrets.push(pair.access_token, pair.refresh_token);
    return pair;
  }

  function mcp(path: string, credential: string): Promise<Response> {
    return fetch(`${origin}${path}`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${credential}` }, body: LIST });
  }

  async function stillUp(): Promise<void> {
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    expect((await fetch(`${origin}/.well-known/oauth-authorization-server/oauth`)).status).toBe(200);
  }

  it('open redirect: no code and no error is ever sent to a URI the client did not register', async () => {
    const client = await clientId();
    const { challenge } = pkce();
    const unregistered = [
      'https://attacker.example/callback',
      'http://127.0.0.1:9/callbackx',
      'http://127.0.0.1:9/callback/../evil',
      'http://127.0.0.1:9/callback?next=https://attacker.example',
      'http://localhost:9/callback',
      'http://127.0.0.1.attacker.example:9/callback',
      '//attacker.example/callback',
      'javascript:alert(1)',
    ];
    for (const redirect of unregistered) {
      // Even with every other parameter wrong too: the redirect is judged first, and a bad one gets a page.
      for (const params of [{ redirect_uri: redirect }, { redirect_uri: redirect, response_type: 'token', code_challenge: '' }] as Array<Record<string, string>>) {
        const r = await fetch(authorizeUrl(client, challenge, params), { redirect: 'manual' });
        expect(r.status, redirect).toBe(400);
        expect(r.headers.get('location')).toBeNull();
      }
    }
    // redirect_uri twice (one registered, one not): refused, not "the first one wins".
    const twice = await fetch(`${authorizeUrl(client, challenge)}&redirect_uri=${encodeURIComponent('https://attacker.example/cb')}`, { redirect: 'manual' });
    expect(twice.status).toBe(400);
    expect(twice.headers.get('location')).toBeNull();
    // The form cannot redirect elsewhere either: the target is sealed in its request.
    const request = await consentRequest(authorizeUrl(client, challenge));
    for (const extra of [{ redirect_uri: 'https://attacker.example/cb' }, { deny: '1', redirect_uri: 'https://attacker.example/cb' }] as Array<Record<string, string>>) {
      const r = await post({ request, api_key: sandbox.apiKey, ...extra });
      expect(r.status).toBe(302);
      expect(new URL(r.headers.get('location')!).origin).toBe('http://127.0.0.1:9');
      secrets.push(new URL(r.headers.get('location')!).searchParams.get('code') ?? '');
    }
  });

  it('a bad or missing parameter from any registered client gets an error page and redirects nowhere (RFC 9700 §4.11.2)', async () => {
    // Anyone can register a client whose redirect URI is their own https site.
    const trap = 'https://attacker.example/landing';
    const client = await clientId({ redirect_uris: [trap] });
    const { challenge } = pkce();
    const good = { response_type: 'code', client_id: client, redirect_uri: trap, code_challenge: challenge, code_challenge_method: 'S256', state: 's' };
    const without = (name: string) => Object.fromEntries(Object.entries(good).filter(([k]) => k !== name));
    const bad: Array<[string, string]> = [
      ['missing response_type', new URLSearchParams(without('response_type')).toString()],
      ['response_type=token', new URLSearchParams({ ...good, response_type: 'token' }).toString()],
      ['missing code_challenge', new URLSearchParams(without('code_challenge')).toString()],
      ['malformed code_challenge', new URLSearchParams({ ...good, code_challenge: 'short' }).toString()],
      ['plain PKCE', new URLSearchParams({ ...good, code_challenge_method: 'plain' }).toString()],
      ['missing code_challenge_method', new URLSearchParams(without('code_challenge_method')).toString()],
      ['another resource', new URLSearchParams({ ...good, resource: 'https://other.example/mcp' }).toString()],
      ['state twice', `${new URLSearchParams(good)}&state=t`],
      ['response_type twice', `${new URLSearchParams(good)}&response_type=code`],
      ['state too long to seal', new URLSearchParams({ ...good, state: 's'.repeat(7_000) }).toString()],
    ];
    for (const [what, query] of bad) {
      const r = await fetch(`${origin}/oauth/authorize?${query}`, { redirect: 'manual' });
      expect(r.status, what).toBe(400);
      expect(r.headers.get('location'), what).toBeNull();
      expect(r.headers.get('content-type'), what).toMatch(/^text\/html/);
      expect(await r.text(), what).not.toContain('attacker.example');
    }
    // The same request without the fault shows the consent page (so the faults above were what was refused).
    expect((await fetch(`${origin}/oauth/authorize?${new URLSearchParams(good)}`, { redirect: 'manual' })).status).toBe(200);
    // A consent form whose request has expired: a page too, not a trip to the client's address.
    const expired = await new Sealer([SECRET]).seal('consent', { c: client, r: trap, cc: challenge, s: 's', exp: Math.floor(Date.now() / 1000) - 1 });
    const late = await post({ request: expired, api_key: sandbox.apiKey });
    expect(late.status).toBe(400);
    expect(late.headers.get('location')).toBeNull();
    expect(await late.text()).toContain('expired');
  });

  it('header injection: CR/LF and other bytes in state stay inside the Location URL of the form, and out of the error page', async () => {
    const client = await clientId();
    const { challenge } = pkce();
    const state = 'x\r\nSet-Cookie: pwned=1\r\n\r\n<script>alert(1)</script>\u2028é';
    const r = await post({ request: await consentRequest(authorizeUrl(client, challenge, { state })), deny: '1' });
    expect(r.status).toBe(302);
    expect(r.headers.get('set-cookie')).toBeNull();
    const location = r.headers.get('location')!;
    expect(location).not.toMatch(/[\r\n<>]/);
    expect(new URL(location).searchParams.get('state')).toBe(state);
    const page = await fetch(authorizeUrl(client, challenge, { state, response_type: 'token' }), { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(page.headers.get('set-cookie')).toBeNull();
    expect(await page.text()).not.toContain('<script>');
  });

  it('bodies: a huge one to /oauth/register, /oauth/token or the form is refused at 64 KB, with or without Content-Length, and the server keeps answering', async () => {
    const huge = 'a='.padEnd(10 * 1024 * 1024, 'a');
    for (const path of ['/oauth/register', '/oauth/token', '/oauth/authorize']) {
      const declared = await fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: huge });
      expect(declared.status, path).toBe(400);
      expect(await declared.text()).toMatch(/larger than 65536 bytes/);
      // Chunked, no length announced: cut off once past the bound.
      const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked' } }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        let sent = 0;
        const more = () => {
          while (sent < 4 * 1024 * 1024) {
            sent += 16 * 1024;
            if (!req.write('a'.repeat(16 * 1024))) return void req.once('drain', more);
          }
          req.end();
        };
        more();
      });
      expect(chunked.status, path).toBe(400);
      expect(chunked.body).toMatch(/larger than 65536 bytes/);
      await stillUp();
    }
  });

  it('slow bodies: a form, token or registration trickled in is cut off at the request timeout, and others are answered meanwhile', async () => {
    const quick = await serveOAuth(upstream, SECRET, (m) => logs.push(m), { requestTimeoutMs: 400 });
    const at = new URL(quick.url).origin;
    try {
      const trickles = ['/oauth/register', '/oauth/token', '/oauth/authorize'].map(
        (path) =>
          new Promise<{ status: number; body: string }>((resolve, reject) => {
            const req = httpRequest(`${at}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '1000' } }, (res) => {
              let body = '';
              res.on('data', (d) => (body += d));
              res.on('end', () => resolve({ status: res.statusCode!, body }));
            });
            req.on('error', reject);
            req.write('a=1');
          }),
      );
      // While three bodies hang, the server answers others.
      expect((await fetch(`${at}/.well-known/oauth-authorization-server/oauth`)).status).toBe(200);
      for (const answer of await Promise.all(trickles)) {
        expect(answer.status).toBe(400);
        expect(answer.body).toMatch(/did not arrive in time/);
      }
      expect((await fetch(`${at}/healthz`)).status).toBe(200);
    } finally {
      await quick.close();
    }
  });

  it('8 KB of junk as client_id, code, refresh token, consent request or access token: a plain refusal each, nothing sent to PostHog', async () => {
    const junk = (prefix: string) => prefix + randomBytes(6 * 1024).toString('base64url').slice(0, 8 * 1024 - prefix.length);
    const client = await clientId();
    const { challenge, verifier } = pkce();
    sandbox.requests.length = 0;
    const page = await fetch(authorizeUrl(junk('rmcp_client_'), challenge), { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('Unknown app');
    expect((await token({ grant_type: 'authorization_code', code: 'x', client_id: junk('rmcp_client_'), code_verifier: verifier })).status).toBe(401);
    expect(await (await token({ grant_type: 'authorization_code', code: junk('rmcp_code_'), client_id: client, code_verifier: verifier })).json()).toMatchObject({ error: 'invalid_grant' });
    expect(await (await token({ grant_type: 'refresh_token', refresh_token: junk('rmcp_rt_'), client_id: client })).json()).toMatchObject({ error: 'invalid_grant' });
    const form = await post({ request: junk('rmcp_consent_'), api_key: sandbox.apiKey });
    expect(form.status).toBe(400);
    expect(await form.text()).toContain('This sign-in page is not valid');
    for (const credential of [junk('rmcp_at_'), junk('')]) {
      const r = await mcp('/oauth/mcp', credential);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
    }
    expect(sandbox.requests).toHaveLength(0);
    await stillUp();
  });

  it("one client's consent request, code or refresh token is worth nothing to another client", async () => {
    const alice = await clientId({ client_name: 'Alice' });
    const mallory = await clientId({ client_name: 'Mallory' });
    // Alice's consent request posted with Mallory's id beside it: the code is still Alice's.
    const { challenge, verifier } = pkce();
    const request = await consentRequest(authorizeUrl(alice, challenge));
    const answer = await post({ request, api_key: sandbox.apiKey, client_id: mallory });
    const stolen = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    secrets.push(stolen);
    expect(await (await token({ grant_type: 'authorization_code', code: stolen, client_id: mallory, code_verifier: verifier })).json()).toMatchObject({ error: 'invalid_grant' });
    // Mallory's attempt did not spend it: Alice still redeems it.
    const good = await token({ grant_type: 'authorization_code', code: stolen, client_id: alice, code_verifier: verifier });
    expect(good.status).toBe(200);
    const pair = (await good.json()) as { access_token: string; refresh_token: string };
    secrets.push(pair.access_token, pair.refresh_token);
    // Alice's refresh token presented by Mallory: refused, and Alice's sign-in is not revoked by it.
    expect(await (await token({ grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: mallory })).json()).toMatchObject({ error: 'invalid_grant' });
    const renewed = await token({ grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: alice });
    expect(renewed.status).toBe(200);
    const next = (await renewed.json()) as { access_token: string; refresh_token: string };
    secrets.push(next.access_token, next.refresh_token);
    expect((await mcp('/oauth/mcp', next.access_token)).status).toBe(200);
  });

  it('a client with a long name and several redirect URIs gets tokens /oauth/mcp accepts', async () => {
    const client = await clientId({ client_name: 'N'.repeat(120), redirect_uris: [REDIRECT, ...Array.from({ length: 4 }, (_, i) => `https://app-${i}.example.com/oauth/callback/for/a/rather/long/path`)] });
    const pair = await tokens(client);
    expect(pair.access_token.length).toBeGreaterThan(512);
    expect((await mcp('/oauth/mcp', pair.access_token)).status).toBe(200);
  });

  it("the server's own tokens on /mcp: refused there with a pointer to /oauth/mcp, never sent to PostHog as a key", async () => {
    const pair = await tokens(await clientId());
    sandbox.requests.length = 0;
    for (const credential of [pair.access_token, pair.refresh_token, 'rmcp_at_short']) {
      const r = await mcp('/mcp', credential);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="Unauthorized: that is an OAuth token from a sign-in, not a PostHog key: [^"]+"$/);
      const body = (await r.json()) as { error: { message: string } };
      expect(body.error.message).toContain(`${origin}/oauth/mcp`);
      expect(body.error.message).not.toContain(credential);
    }
    expect(sandbox.requests).toHaveLength(0);
  });

  it('Basic credentials that are not valid percent-encoding: invalid_client, not a server error', async () => {
    const client = await clientId({ token_endpoint_auth_method: 'client_secret_basic' });
    for (const basic of [`${client}:%E0%A4%A`, `%:x`, `${client}`]) {
      const r = await token({ grant_type: 'authorization_code', code: 'x' }, { authorization: `Basic ${Buffer.from(basic).toString('base64')}` });
      expect(r.status, basic).toBe(401);
      expect(await r.json()).toMatchObject({ error: 'invalid_client' });
    }
    await stillUp();
  });

  it('a code used twice revokes the tokens it bought (OAuth 2.1: the first use may have been a thief)', async () => {
    const client = await clientId();
    const c = await code(client);
    const first = await token({ grant_type: 'authorization_code', code: c.code, client_id: client, code_verifier: c.verifier });
    const pair = (await first.json()) as { access_token: string; refresh_token: string };
    secrets.push(pair.access_token, pair.refresh_token);
    expect((await mcp('/oauth/mcp', pair.access_token)).status).toBe(200);
    expect(await (await token({ grant_type: 'authorization_code', code: c.code, client_id: client, code_verifier: c.verifier })).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await mcp('/oauth/mcp', pair.access_token)).status).toBe(401);
    expect((await token({ grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: client })).status).toBe(400);
  });

  it('registration that would make a client_id too long to carry is refused; so is a state too long to seal', async () => {
    const long = Array.from({ length: 10 }, (_, i) => `https://app.example.com/${i}/${'p'.repeat(1_900)}`);
    const r = await register({ redirect_uris: long });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: 'invalid_client_metadata' });
    const client = await clientId();
    const { challenge } = pkce();
    const answer = await fetch(authorizeUrl(client, challenge, { state: 's'.repeat(7_000) }), { redirect: 'manual' });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    expect(await answer.text()).toContain('state is too long');
  });

  it('a burst of 12 form posts from one client: all checked in turn, 2 at a time, while another client is checked at once', async () => {
    const client = await clientId();
    const other = await clientId();
    const requests = await Promise.all(Array.from({ length: 12 }, () => consentRequest(authorizeUrl(client, pkce().challenge))));
    const otherRequest = await consentRequest(authorizeUrl(other, pkce().challenge));
    sandbox.injectFault({ path: '/api/users/@me/', delayMs: 1_000, times: Infinity });
    const order: string[] = [];
    let answers: Response[];
    try {
      const burst = requests.map((request, i) => post({ request, api_key: sandbox.apiKey }).then((r) => (order.push(`burst ${i}`), r)));
      await new Promise((r) => setTimeout(r, 100));
      const alone = await post({ request: otherRequest, api_key: sandbox.apiKey });
      order.push('other');
      expect(alone.status).toBe(302);
      secrets.push(new URL(alone.headers.get('location')!).searchParams.get('code')!);
      answers = await Promise.all(burst);
    } finally {
      sandbox.reset();
    }
    // Nobody was told to come back: every post got its code, in turn.
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(302));
    for (const a of answers) secrets.push(new URL(a.headers.get('location')!).searchParams.get('code')!);
    // The other client did not wait for the burst: at most the burst's first two came before it.
    expect(order.indexOf('other')).toBeLessThanOrEqual(2);
    expect((await post({ request: requests[0]!, api_key: sandbox.apiKey })).status).toBe(302);
  });

  it('a client name with bidi overrides or other invisible characters is shown without them', async () => {
    const client = await clientId({ client_name: 'Claude\u202E\u2066 \u200Bgnissecorp\u0007' });
    const { challenge } = pkce();
    const html = await (await fetch(authorizeUrl(client, challenge))).text();
    expect(html).toContain('<strong>“<bdi>Claude gnissecorp</bdi>”</strong>');
    expect(html).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B\u0007]/);
  });

  it('no key, code or token reached the log', () => {
    const all = logs.join('\n');
    for (const s of secrets.filter(Boolean)) expect(all.includes(s), s.slice(0, 12)).toBe(false);
  });
});
