import { createHash, randomBytes } from 'node:crypto';
import { parseCli, type Config } from '../../src/config.js';
import { PostHogClient } from '../../src/posthog/client.js';
import { callLimitsFrom, clientOptionsFrom } from '../../src/posthog/from-config.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { serverFactory } from '../../src/server.js';
import { serveHttp, type HttpOptions, type RunningHttp } from '../../src/transports/http.js';

/** What the CLI makes of `--transport http` with POSTHOG_HOST and no key: per-user keys, every other setting at its default. */
function perUserConfig(host: string): Config {
  const action = parseCli(['--transport', 'http'], { POSTHOG_HOST: host });
  if (action.kind !== 'run') throw new Error('parseCli did not give a configuration');
  return action.config;
}

/**
 * The HTTP server with MCP_OAUTH on loopback in front of `upstream`, its MCP servers made as the
 * CLI makes them for HTTP mode at the defaults (read and write, both toolsets, the default call
 * limits, no questions to the user): what the OAuth tests sign in to.
 */
export function serveOAuth(upstream: PostHogClient, secret: string, log: (message: string) => void, extra: Partial<HttpOptions> = {}): Promise<RunningHttp> {
  const config = perUserConfig(upstream.baseUrl);
  const settings = { readOnly: config.readOnly, toolsets: config.toolsets, defaultProjectId: undefined, confirmDestructive: config.confirmDestructive, toolSchemas: config.toolSchemas };
  return serveHttp({
    host: '127.0.0.1',
    port: 0,
    client: upstream,
    createServer: serverFactory({ settings, log, interactive: false, callLimits: callLimitsFrom(config) }),
    log,
    oauth: { secrets: [secret] },
    ...extra,
  });
}

/** A public client registered, and a code for it from the consent form posted with `apiKey`: what a person's browser and app do. */
export async function codeByHand(origin: string, apiKey: string, redirect = 'http://127.0.0.1:9/callback'): Promise<{ clientId: string; code: string; verifier: string; redirect: string }> {
  const registered = (await (await fetch(`${origin}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [redirect] }) })).json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({ response_type: 'code', client_id: registered.client_id, redirect_uri: redirect, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' });
  const page = await (await fetch(`${origin}/oauth/authorize?${query}`)).text();
  const request = /name="request" value="([^"]+)"/.exec(page)![1]!.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)));
  const answer = await fetch(`${origin}/oauth/authorize`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ request, api_key: apiKey }), redirect: 'manual' });
  const code = new URL(answer.headers.get('location')!).searchParams.get('code');
  if (!code) throw new Error(`no code: ${answer.status} ${answer.headers.get('location')}`);
  return { clientId: registered.client_id, code, verifier, redirect };
}

/** A POST to a token endpoint with form parameters. */
export function tokenRequest(origin: string, params: Record<string, string>): Promise<Response> {
  return fetch(`${origin}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
}

export interface OAuthStack {
  sandbox: Sandbox;
  /** The keyless client of the sandbox every caller's key goes through. */
  upstream: PostHogClient;
  http: RunningHttp;
  origin: string;
  close(): Promise<void>;
}

/**
 * The keyless upstream client the CLI builds in HTTP mode with per-user keys (what MCP_OAUTH
 * needs), from its own parser: every setting at its default, POSTHOG_HOST the sandbox.
 */
export function perUserUpstream(sandboxUrl: string): PostHogClient {
  const config = perUserConfig(sandboxUrl);
  return new PostHogClient(clientOptionsFrom(config, { baseUrl: config.baseUrl, apiKey: undefined }));
}

/** The sandbox, and the server with MCP_OAUTH in front of it on loopback. */
export async function startOAuthStack(secret: string, log: (message: string) => void): Promise<OAuthStack> {
  const sandbox = await startSandbox();
  const upstream = perUserUpstream(sandbox.url);
  const http = await serveOAuth(upstream, secret, log);
  return {
    sandbox,
    upstream,
    http,
    origin: new URL(http.url).origin,
    close: async () => {
      await http.close();
      await upstream.close();
      await sandbox.close();
    },
  };
}
