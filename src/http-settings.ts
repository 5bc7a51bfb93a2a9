/**
 * The HTTP transport's settings (issue 4, issue 35): who may call (a token beside the server's own
 * key, each caller's own key, or OAuth sign-in), which Host and Origin headers are accepted, and the
 * limits on calls in flight and waiting. Their rows of the settings table, their part of Config's
 * schema, and the check of how they combine.
 */

import { z } from 'zod';
import { ConfigurationError } from './errors.js';
import { onOff, refuse, setting, splitList, wholeNumber, type ValuesOf } from './setting-kinds.js';

/** HTTP transport only (issue 4): access control, rebinding checks, limits. */
export const httpConfigSchema = z.object({
  /** Callers must send it as Bearer when the server uses its own PostHog key. A secret, like the key. */
  authToken: z.string().optional(),
  /** Host header values accepted; undefined: the loopback names with the port when bound to loopback, else any. */
  allowedHosts: z.array(z.string()).optional(),
  /** Origins accepted besides those whose host is an allowed host. */
  allowedOrigins: z.array(z.string()),
  maxConcurrency: z.number().int().min(1).max(100_000),
  maxConcurrencyPerUser: z.number().int().min(1).max(100_000),
  /** Calls one caller may have waiting for a slot; past it, 503 (0: refuse at once). */
  maxQueuePerUser: z.number().int().min(0).max(100_000),
  /** How long a call may wait for a slot before it is refused with 503. */
  queueTimeoutMs: z.number().int().min(100).max(600_000),
  shutdownTimeoutMs: z.number().int().min(0).max(600_000),
  /** MCP_OAUTH (issue 35): the secrets that seal tokens (current first) and the public origin. */
  oauth: z.object({ secrets: z.array(z.string()).min(1), publicUrl: z.string().optional() }).optional(),
  /** The replay's watch links (issue 43): served at the public origin, sealed with the secret (any replica with it opens them). */
  watch: z.object({ secret: z.string(), publicUrl: z.string() }).optional(),
});

type HttpSettings = z.infer<typeof httpConfigSchema>;

/** The last rows of the settings table (settings.ts): who may call an HTTP server, how many at once, OAuth sign-in. */
export const HTTP_SETTINGS = {
  authToken: setting<string | undefined>({
    env: 'MCP_AUTH_TOKEN',
    secret: true,
    appliesWith: ['--transport', 'http'],
    accepted: '16 to 512 printable characters without spaces (e.g. the output of `openssl rand -hex 32`)',
    fallback: undefined,
    parse: (raw) => (/^[\x21-\x7e]{16,512}$/.test(raw) ? raw : refuse()),
  }),
  allowedHosts: setting<string[] | undefined>({
    env: 'MCP_ALLOWED_HOSTS',
    flag: '--allowed-hosts',
    appliesWith: ['--transport', 'http'],
    accepted: 'host names or addresses with an optional port, comma-separated (e.g. mcp.example.com,127.0.0.1:3000), or * for any',
    fallback: undefined,
    parse: parseAllowedHosts,
  }),
  allowedOrigins: setting<string[]>({
    env: 'MCP_ALLOWED_ORIGINS',
    flag: '--allowed-origins',
    appliesWith: ['--transport', 'http'],
    accepted: 'origins like https://app.example.com, comma-separated',
    fallback: [],
    parse: parseAllowedOrigins,
  }),
  maxConcurrency: setting({ env: 'MCP_MAX_CONCURRENCY', appliesWith: ['--transport', 'http'], ...wholeNumber(64, 1, 100_000) }),
  maxConcurrencyPerUser: setting({ env: 'MCP_MAX_CONCURRENCY_PER_USER', appliesWith: ['--transport', 'http'], ...wholeNumber(16, 1, 100_000) }),
  /** An agent's burst of parallel calls (tens at once) waits rather than fails. */
  maxQueuePerUser: setting({ env: 'MCP_MAX_QUEUE_PER_USER', appliesWith: ['--transport', 'http'], ...wholeNumber(64, 0, 100_000) }),
  /** Half of an MCP client's usual 60 s request timeout: a call that waited this long still has time to run. */
  queueTimeoutMs: setting({ env: 'MCP_QUEUE_TIMEOUT_MS', appliesWith: ['--transport', 'http'], ...wholeNumber(30_000, 100, 600_000, ' (ms)') }),
  shutdownTimeoutMs: setting({ env: 'MCP_SHUTDOWN_TIMEOUT_MS', appliesWith: ['--transport', 'http'], ...wholeNumber(10_000, 0, 600_000, ' (ms)') }),
  oauth: setting({ env: 'MCP_OAUTH', appliesWith: ['--transport', 'http'], ...onOff(false) }),
  oauthSecret: setting<string | undefined>({
    env: 'MCP_OAUTH_SECRET',
    secret: true,
    appliesWith: ['--transport', 'http'],
    accepted: '32 to 512 printable characters without spaces (e.g. the output of `openssl rand -hex 32`)',
    fallback: undefined,
    parse: parseOAuthSecret,
  }),
  oauthPreviousSecret: setting<string | undefined>({
    env: 'MCP_OAUTH_PREVIOUS_SECRET',
    secret: true,
    appliesWith: ['--transport', 'http'],
    accepted: 'the MCP_OAUTH_SECRET being replaced (32 to 512 printable characters)',
    fallback: undefined,
    parse: parseOAuthSecret,
  }),
  watchSecret: setting<string | undefined>({
    env: 'MCP_WATCH_SECRET',
    secret: true,
    appliesWith: ['--transport', 'http'],
    accepted: '32 to 512 printable characters without spaces (e.g. the output of `openssl rand -hex 32`)',
    fallback: undefined,
    parse: parseOAuthSecret,
  }),
  publicUrl: setting<string | undefined>({
    env: 'MCP_PUBLIC_URL',
    appliesWith: ['--transport', 'http'],
    accepted: 'the origin clients reach the server at, like https://replay.example.com (http only on a loopback address)',
    fallback: undefined,
    parse: parsePublicUrl,
  }),
};

/** Key material for OAuth tokens: long enough to derive a key from, printable, no spaces. */
function parseOAuthSecret(raw: string): string {
  return /^[\x21-\x7e]{32,512}$/.test(raw) ? raw : refuse();
}

/** An origin (scheme, host, port; no path, query or credentials): https, or http on loopback. */
function parsePublicUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse();
  }
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) refuse('Give the origin only, without a path (the server adds /oauth, /oauth/mcp and /watch/).');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) refuse('OAuth and watch links need https beyond loopback: put the server behind a TLS proxy and give its https:// origin.');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse();
  return url.origin;
}

/** Loopback names and addresses; anything else (0.0.0.0, ::, a host name) may be reachable from outside. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(h);
}

const HOST_ENTRY = /^(\*|\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?)(:\d{1,5})?$/;

function parseAllowedHosts(list: string): string[] {
  const entries = splitList(list);
  const bad = entries.filter((e) => !HOST_ENTRY.test(e) || (e.startsWith('*') && e !== '*'));
  if (entries.length === 0) refuse();
  if (bad.length > 0) refuse(`Not accepted: "${bad.join('", "')}".`);
  return entries;
}

function parseAllowedOrigins(list: string): string[] {
  const entries = splitList(list);
  if (entries.length === 0) refuse();
  return entries.map((entry) => {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search || url.hash || url.username) {
      refuse(`Not an origin: "${entry}".`);
    }
    return url.origin;
  });
}

/** What the check reads: these settings, and the transport and bind address they apply with. */
type HttpValues = ValuesOf<typeof HTTP_SETTINGS> & { transport: 'stdio' | 'http'; bindHost: string };

interface HttpContext {
  /** The server calls PostHog with a key of its own (POSTHOG_PERSONAL_API_KEY or the sandbox's). */
  serverHasKey: boolean;
  sandbox: boolean;
}

/**
 * Who may use an HTTP server. With its own key, the server is a door to that key's PostHog
 * account: callers must show MCP_AUTH_TOKEN, and without one it may listen on loopback only.
 * Without its own key, each caller's PostHog key is its credential (PostHog checks it), so a
 * token would only compete with that key for the one Authorization header: we refuse the mix.
 */
export function checkHttpAccess(v: HttpValues, context: HttpContext, warn: (message: string) => void): HttpSettings {
  const settings: HttpSettings = {
    authToken: v.authToken,
    allowedHosts: v.allowedHosts,
    allowedOrigins: v.allowedOrigins,
    maxConcurrency: v.maxConcurrency,
    maxConcurrencyPerUser: v.maxConcurrencyPerUser,
    maxQueuePerUser: v.maxQueuePerUser,
    queueTimeoutMs: v.queueTimeoutMs,
    shutdownTimeoutMs: v.shutdownTimeoutMs,
  };
  if (v.transport !== 'http') {
    if (v.authToken !== undefined) warn('MCP_AUTH_TOKEN is ignored in stdio mode (it protects --transport http).');
    if (v.oauth) warn('MCP_OAUTH is ignored in stdio mode (it is for --transport http).');
    if (v.watchSecret !== undefined) warn('MCP_WATCH_SECRET is ignored in stdio mode: its watch links are served on 127.0.0.1 without it.');
    return settings;
  }
  if (v.oauth) {
    if (v.oauthSecret === undefined) throw new ConfigurationError('MCP_OAUTH is on but MCP_OAUTH_SECRET is not set: give it 32 or more random characters (openssl rand -hex 32); it seals the tokens clients get.');
    if (context.serverHasKey) {
      throw new ConfigurationError(
        `MCP_OAUTH asks each person for their own PostHog key, so the server must not have one: unset ${context.sandbox ? '--sandbox' : 'POSTHOG_PERSONAL_API_KEY'} (and MCP_AUTH_TOKEN).`,
      );
    }
    if (v.publicUrl === undefined && !isLoopbackHost(v.bindHost)) {
      throw new ConfigurationError(`MCP_OAUTH needs the https origin clients reach this server at (behind its TLS proxy): set MCP_PUBLIC_URL, e.g. https://replay.example.com.`);
    }
    if (v.oauthPreviousSecret === v.oauthSecret) warn('MCP_OAUTH_PREVIOUS_SECRET equals MCP_OAUTH_SECRET: nothing is being rotated; unset it.');
    settings.oauth = { secrets: [v.oauthSecret, ...(v.oauthPreviousSecret && v.oauthPreviousSecret !== v.oauthSecret ? [v.oauthPreviousSecret] : [])], publicUrl: v.publicUrl };
  } else if (v.oauthSecret !== undefined || (v.publicUrl !== undefined && v.watchSecret === undefined)) {
    warn(`${v.oauthSecret !== undefined ? 'MCP_OAUTH_SECRET' : 'MCP_PUBLIC_URL'} is set but MCP_OAUTH is off: no OAuth endpoints are served.`);
  }
  if (v.watchSecret !== undefined && v.publicUrl !== undefined) settings.watch = { secret: v.watchSecret, publicUrl: v.publicUrl };
  else if (v.watchSecret !== undefined) warn('MCP_WATCH_SECRET is set but MCP_PUBLIC_URL is not: the replay gives no watch links (they need the origin browsers reach this server at).');
  if (v.authToken !== undefined && !context.serverHasKey) {
    throw new ConfigurationError(
      'MCP_AUTH_TOKEN is set but POSTHOG_PERSONAL_API_KEY is not: without a server key each caller sends its own PostHog key as the Bearer credential, so there is no room for a token. Set both (shared key behind a token) or unset MCP_AUTH_TOKEN (per-user keys).',
    );
  }
  if (context.serverHasKey && v.authToken === undefined && !isLoopbackHost(v.bindHost)) {
    const key = context.sandbox ? 'the sandbox key' : 'the server\'s POSTHOG_PERSONAL_API_KEY';
    throw new ConfigurationError(
      `Refusing to listen on ${v.bindHost} (not a loopback address) with ${key} and no MCP_AUTH_TOKEN: anyone who reaches it could use the key. Set MCP_AUTH_TOKEN, or unset POSTHOG_PERSONAL_API_KEY so each caller sends its own key, or use --host 127.0.0.1.`,
    );
  }
  if (settings.allowedHosts === undefined && !isLoopbackHost(v.bindHost)) {
    warn(`listening on ${v.bindHost} with no MCP_ALLOWED_HOSTS: any Host header is accepted (every call still needs a Bearer credential). Set MCP_ALLOWED_HOSTS to the names clients use.`);
  }
  return settings;
}
