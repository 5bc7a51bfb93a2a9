import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PostHogClient } from '../src/posthog/client.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import type { RunningHttp } from '../src/transports/http.js';
import { serveOAuth, perUserUpstream } from './support/oauth.js';
import { CHROMIUM, chromiumPresent, HEADLESS_FLAGS } from './support/chromium.js';

/**
 * The MCP_OAUTH consent page (issue 35) as a person meets it: Debian's headless Chromium opens
 * the authorization URL, reads the page, types a key and presses a button; the "app" is a
 * loopback listener that records what the browser brings back. With and without JavaScript:
 * the page has none of its own and must not need the browser's.
 */
const hasChromium = chromiumPresent('oauth-browser tests');

const FLAGS = HEADLESS_FLAGS;
const SECRET = randomBytes(24).toString('hex');
const WRONG_KEY = 'phx_not_the_sandbox_key_0123456789';
const HOSTILE_NAME = `Evil <script>window.pwned=1</script><img src=x onerror="window.pwned=2"> & "co"`;

/** What the app's redirect listener received: one entry per request. */
interface Arrival {
  url: URL;
  headers: IncomingHttpHeaders;
}

describe.skipIf(!hasChromium)('the OAuth consent page in headless Chromium', { timeout: 60_000 }, () => {
  let sandbox: Sandbox;
  let upstream: PostHogClient;
  let http: RunningHttp;
  let origin: string;
  let app: Server;
  let callback: string;
  const arrivals: Arrival[] = [];
  let browser: Browser;

  beforeAll(async () => {
    sandbox = await startSandbox();
    upstream = perUserUpstream(sandbox.url);
    http = await serveOAuth(upstream, SECRET, () => {});
    origin = new URL(http.url).origin;
    app = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      // The browser also asks the app for its /favicon.ico.
      if (url.pathname === '/callback') arrivals.push({ url, headers: req.headers });
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Back in the app</title><p>Signed in.</p>');
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    app?.closeAllConnections();
    await new Promise((resolve) => app?.close(resolve));
    await http?.close();
    await upstream?.close();
    await sandbox?.close();
  });

  async function register(name: string): Promise<string> {
    const r = await fetch(`${origin}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: name, redirect_uris: [callback], token_endpoint_auth_method: 'none' }) });
    expect(r.status).toBe(201);
    return ((await r.json()) as { client_id: string }).client_id;
  }

  /** A new sign-in as an app starts one: its PKCE pair, its state, the URL it opens. */
  function start(clientId: string) {
    const verifier = randomBytes(32).toString('base64url');
    const state = 'st-' + randomBytes(8).toString('hex');
    const params = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: callback, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', state, resource: `${origin}/oauth/mcp` });
    return { verifier, state, url: `${origin}/oauth/authorize?${params}` };
  }

  /** A fresh browser profile that keeps every URL it requested or showed. */
  async function open(javaScriptEnabled: boolean): Promise<{ context: BrowserContext; page: Page; urls: string[]; refused: string[] }> {
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    const urls: string[] = [];
    const refused: string[] = [];
    page.on('request', (request) => urls.push(request.url()));
    page.on('framenavigated', (frame) => urls.push(frame.url()));
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    return { context, page, urls, refused };
  }

  it("says who asks (the client's name, quoted, as text), where the browser goes back and which server, and asks for the key in a password field; nothing the client named runs", async () => {
    const { context, page, refused } = await open(true);
    try {
      await page.goto(start(await register(HOSTILE_NAME)).url);
      expect(await page.title()).toBe('Connect to PostHog Replay MCP');
      expect(await page.locator('main strong').textContent()).toBe(`“${HOSTILE_NAME}”`);
      const text = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
      expect(text).toContain(`your browser goes back to ${new URL(callback).origin}.`);
      expect(text).toContain(`the PostHog Replay MCP server at ${origin} on your behalf`);
      const field = page.locator('input[name="api_key"]');
      expect(await field.getAttribute('type')).toBe('password');
      expect(await field.getAttribute('autocomplete')).toBe('off');
      // The markup in the name stayed text: no element was made of it, no script ran, and the CSP
      // had nothing to refuse (it would have, had an element been made).
      expect(await page.locator('script, img').count()).toBe(0);
      expect(await page.evaluate('typeof window.pwned')).toBe('undefined');
      expect(refused).toEqual([]);
      expect(arrivals).toHaveLength(0);
    } finally {
      await context.close();
    }
  });

  for (const javaScriptEnabled of [true, false]) {
    it(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}: a wrong key is refused on the page, which stays; the right one lands on the redirect URI with code, state and iss, and the code buys a token that calls a tool`, async () => {
      arrivals.length = 0;
      const flow = start(await register('Browser test app'));
      const { context, page, urls } = await open(javaScriptEnabled);
      try {
        await page.goto(flow.url);
        // A key PostHog refuses: the same page again, saying so, and the app hears nothing.
        await page.locator('input[name="api_key"]').fill(WRONG_KEY);
        await Promise.all([page.waitForURL(`${origin}/oauth/authorize`), page.getByRole('button', { name: 'Connect' }).click()]);
        expect(await page.getByRole('alert').textContent()).toMatch(/^PostHog did not accept this key/);
        expect(await page.locator('input[name="api_key"]').inputValue()).toBe('');
        expect(await page.content()).not.toContain(WRONG_KEY);
        expect(arrivals).toHaveLength(0);

        await page.locator('input[name="api_key"]').fill(sandbox.apiKey);
        await Promise.all([page.waitForURL((url) => url.href.startsWith(callback)), page.getByRole('button', { name: 'Connect' }).click()]);
        expect(await page.title()).toBe('Back in the app');
        expect(arrivals).toHaveLength(1);
        const back = arrivals[0]!;
        expect(back.url.pathname).toBe('/callback');
        expect(back.url.searchParams.get('state')).toBe(flow.state);
        expect(back.url.searchParams.get('iss')).toBe(`${origin}/oauth`);
        expect(back.url.searchParams.get('error')).toBeNull();
        const code = back.url.searchParams.get('code')!;
        expect(code).toMatch(/^rmcp_code_/);

        // The key went in the form's body only: in no URL the browser requested or showed, and
        // the app's request carries no Referer (nor anything else holding it).
        expect(urls.length).toBeGreaterThan(3);
        for (const url of urls) {
          expect(url).not.toContain(sandbox.apiKey);
          expect(url).not.toContain(WRONG_KEY);
        }
        expect(back.headers.referer).toBeUndefined();
        expect(JSON.stringify(back.headers)).not.toContain(sandbox.apiKey);

        const token = await fetch(`${origin}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: new URL(flow.url).searchParams.get('client_id')!, redirect_uri: callback, code_verifier: flow.verifier }),
        });
        expect(token.status).toBe(200);
        const { access_token } = (await token.json()) as { access_token: string };
        const client = new Client({ name: 'oauth-browser-test', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(http.oauthUrl!), { requestInit: { headers: { authorization: `Bearer ${access_token}` } } }));
        sandbox.requests.length = 0;
        const r = (await client.callTool({ name: 'projects-list', arguments: { recording_settings: false } })) as CallToolResult;
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
        expect(sandbox.requests.filter((q) => q.path.startsWith('/api/')).map((q) => q.authorization)).toEqual([`Bearer ${sandbox.apiKey}`]);
        await client.close();
      } finally {
        await context.close();
      }
    });
  }

  it('Cancel sends the browser back to the app with error=access_denied, its state and iss, and no code', async () => {
    arrivals.length = 0;
    const flow = start(await register('Browser test app'));
    const { context, page } = await open(true);
    try {
      await page.goto(flow.url);
      // Nothing typed: Cancel skips the field's "required".
      await Promise.all([page.waitForURL((url) => url.href.startsWith(callback)), page.getByRole('button', { name: 'Cancel' }).click()]);
      expect(arrivals).toHaveLength(1);
      const query = arrivals[0]!.url.searchParams;
      expect(query.get('error')).toBe('access_denied');
      expect(query.get('state')).toBe(flow.state);
      expect(query.get('iss')).toBe(`${origin}/oauth`);
      expect(query.get('code')).toBeNull();
    } finally {
      await context.close();
    }
  });
});
