import { parseArgs } from 'node:util';
import { z } from 'zod';
import { DEFAULT_CALL_LIMITS } from './posthog/budget.js';
import { parseReplayPolicy } from './posthog/throttle.js';

export const TOOLSETS = ['recordings', 'projects'] as const;
export type Toolset = (typeof TOOLSETS)[number];

export const PROJECT_ID_PATTERN = /^(\d+|@current)$/;

const CLOUD_HOSTS: Record<string, string> = {
  us: 'https://us.posthog.com',
  eu: 'https://eu.posthog.com',
};

const configSchema = z.object({
  apiKey: z.string().optional(),
  /** Origin plus optional base path, no trailing slash. */
  baseUrl: z.string(),
  defaultProjectId: z.string().regex(PROJECT_ID_PATTERN).optional(),
  readOnly: z.boolean(),
  toolsets: z.array(z.enum(TOOLSETS)).min(1),
  timeoutMs: z.number().int().min(100).max(600_000),
  transport: z.enum(['stdio', 'http']),
  port: z.number().int().min(0).max(65_535),
  bindHost: z.string().min(1),
  sandbox: z.boolean(),
  /** Which PostHog the sandbox imitates: today's Cloud (default) or the 2024 API. */
  sandboxApi: z.enum(['today', '2024']),
  /** Where digests are kept (issue 13): memory, off, or a Redis URL (a secret when it carries a password). */
  cache: z.object({ target: z.string(), maxMb: z.number().int().min(1), ttlMs: z.number().int().min(1000) }),
  /** Bounds on what upstream may cost (issue 10) and PostHog's replay throttle (issue 9). */
  upstream: z.object({
    maxResponseBytes: z.number().int().min(1024),
    maxConcurrencyPerKey: z.number().int().min(1),
    /** 'auto': learned from PostHog's 429s; else rates paced up front ([] = off). */
    replayRates: z.union([z.literal('auto'), z.array(z.object({ count: z.number().int().min(1), windowMs: z.number().int().min(1) }))]),
    callMaxRequests: z.number().int().min(1),
    callTimeoutMs: z.number().int().min(1000),
    throttleWaitMs: z.number().int().min(0),
  }),
  /** Ask the user (MCP elicitation, when the client supports it) before a delete or a project change. */
  confirmDestructive: z.boolean(),
  /** HTTP transport only (issue 4): access control, rebinding checks, limits. */
  http: z.object({
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
  }),
  /** Non-fatal notes for stderr (e.g. an ingestion host was mapped). */
  warnings: z.array(z.string()),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

export type Env = Record<string, string | undefined>;

/** What `--help` prints. */
export const USAGE = `Usage: posthog-replay-mcp [options]

MCP server for PostHog session recordings and projects.

Options:
  --sandbox                 run against the embedded demo upstream (no PostHog account needed)
  --sandbox-api today|2024  the PostHog the sandbox imitates: today's Cloud (default) or the
                            2024 API (env POSTHOG_SANDBOX_API)
  --read-only               register only read-only tools (env POSTHOG_READ_ONLY=1)
  --no-confirm              do not ask the user before deletes and project changes
                            (env POSTHOG_CONFIRM_DESTRUCTIVE=0), for unattended agents
  --toolsets LIST           comma list of: ${TOOLSETS.join(', ')} (env POSTHOG_TOOLSETS)
  --cache memory|off|URL    where digests are kept so a recording is not read twice: in this
                            process (default), nowhere, or a shared redis://… (env MCP_DIGEST_CACHE;
                            prefer the variable for a URL with a password)
  --transport stdio|http    default stdio; http serves Streamable HTTP at /mcp
  --port N                  HTTP port (default 3000)
  --host ADDR               HTTP bind address (default 127.0.0.1)
  --allowed-hosts LIST      HTTP: Host header values accepted, e.g. mcp.example.com,10.0.0.5:3000
                            ("*" = any; default: localhost/127.0.0.1/[::1] with the port when
                            bound to loopback, any otherwise) (env MCP_ALLOWED_HOSTS)
  --allowed-origins LIST    HTTP: browser Origins accepted besides those of allowed hosts
                            (env MCP_ALLOWED_ORIGINS)
  --help, --version

Environment:
  POSTHOG_PERSONAL_API_KEY  personal API key (required unless --sandbox or HTTP per-user keys)
  POSTHOG_HOST              us | eu | https://your-posthog.example.com (default us)
  POSTHOG_PROJECT_ID        default project for recording tools (a number or @current)
  POSTHOG_TIMEOUT_MS        upstream request timeout in ms (default 30000)
  POSTHOG_MAX_RESPONSE_BYTES  largest JSON answer read from PostHog (default 8388608, 8 MiB)
  POSTHOG_CALL_MAX_REQUESTS upstream requests one tool call may make (default 100)
  POSTHOG_CALL_TIMEOUT_MS   wall clock of one tool call, waits included (default 120000)
  POSTHOG_REPLAY_RATE_LIMITS  PostHog's replay throttle: auto (default: full speed until PostHog
                            answers 429, then that key paced to the budget learned from it) |
                            free | paid | enterprise | e.g. 12/min,60/h (paced up front) | off
  POSTHOG_THROTTLE_WAIT_MS  how long summary/snapshots/triage may wait for that throttle (default 40000)
  POSTHOG_MAX_CONCURRENCY_PER_KEY  upstream requests in flight per API key (default 8)
  POSTHOG_SANDBOX=1         same as --sandbox

HTTP transport:
  Without POSTHOG_PERSONAL_API_KEY, each caller sends its own PostHog personal API key as
  "Authorization: Bearer phx_…", used for that caller's requests only.
  MCP_AUTH_TOKEN            with the server's own key: the token callers must send as
                            "Authorization: Bearer …" (at least 16 characters). Required
                            to listen on a non-loopback address with the server's own key.
  MCP_MAX_CONCURRENCY       MCP requests handled at once; more wait their turn (default 64)
  MCP_MAX_CONCURRENCY_PER_USER  of those, how many one caller's key may have (default 16)
  MCP_MAX_QUEUE_PER_USER    calls one caller may have waiting; more get 503 (default 64)
  MCP_QUEUE_TIMEOUT_MS      longest wait for a turn, then 503 with Retry-After (default 30000)
  MCP_SHUTDOWN_TIMEOUT_MS   on SIGTERM/SIGINT, how long running calls may finish (default 10000)

Digest cache:
  MCP_DIGEST_CACHE          memory (default) | off | redis://[:password@]host:port (same as --cache)
  MCP_DIGEST_CACHE_MB       in-process cache size in MiB (default 64)
  MCP_DIGEST_CACHE_TTL_S    how long a digest is kept, in seconds (default 86400)
`;

export type CliAction = { kind: 'run'; config: Config } | { kind: 'help' } | { kind: 'version' };

/** Parses flags and environment once. Throws ConfigurationError with a one-line message. */
export function parseCli(argv: readonly string[], env: Env): CliAction {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        sandbox: { type: 'boolean' },
        'sandbox-api': { type: 'string' },
        'read-only': { type: 'boolean' },
        'no-confirm': { type: 'boolean' },
        cache: { type: 'string' },
        toolsets: { type: 'string' },
        transport: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        'allowed-hosts': { type: 'string' },
        'allowed-origins': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    });
  } catch (err) {
    // parseArgs echoes the offending argument; a key passed as a flag would be printed, so strip values.
    const message = err instanceof Error ? err.message.replace(/'[^']*'/g, (m) => (m.length > 40 ? "'…'" : m)) : String(err);
    throw new ConfigurationError(`${message}. Run with --help for the options. (The API key is read only from POSTHOG_PERSONAL_API_KEY.)`);
  }
  const flags = parsed.values;
  if (flags.help) return { kind: 'help' };
  if (flags.version) return { kind: 'version' };

  const warnings: string[] = [];
  const sandbox = flags.sandbox === true || isTruthy(env.POSTHOG_SANDBOX);
  const transport = flags.transport ?? 'stdio';
  if (transport !== 'stdio' && transport !== 'http') {
    throw new ConfigurationError(`--transport must be "stdio" or "http", got "${transport}".`);
  }

  const apiKey = nonEmpty(env.POSTHOG_PERSONAL_API_KEY);
  if (apiKey !== undefined && /\s/.test(apiKey)) {
    throw new ConfigurationError('POSTHOG_PERSONAL_API_KEY contains whitespace; paste the key alone (it starts with phx_).');
  }
  if (!sandbox && apiKey === undefined && transport === 'stdio') {
    throw new ConfigurationError(
      'POSTHOG_PERSONAL_API_KEY is not set. Create a personal API key in PostHog (Settings → Personal API keys, scopes session_recording, project and query:read) or run with --sandbox (or POSTHOG_SANDBOX=1; "Demo mode" in the MCP Bundle) to try the demo data.',
    );
  }

  const baseUrl = sandbox ? 'http://127.0.0.1' : resolveHost(nonEmpty(env.POSTHOG_HOST), warnings);
  const sandboxApi = parseSandboxApi(stringFlag(flags['sandbox-api']), nonEmpty(env.POSTHOG_SANDBOX_API), sandbox, warnings);

  const defaultProjectId = nonEmpty(env.POSTHOG_PROJECT_ID);
  if (defaultProjectId !== undefined && !PROJECT_ID_PATTERN.test(defaultProjectId)) {
    throw new ConfigurationError(`POSTHOG_PROJECT_ID must be a project number or "@current", got "${defaultProjectId}".`);
  }

  const toolsetList = flags.toolsets ?? nonEmpty(env.POSTHOG_TOOLSETS);
  const toolsets = toolsetList === undefined ? [...TOOLSETS] : parseToolsets(toolsetList);

  const timeoutMs = parseInteger(env.POSTHOG_TIMEOUT_MS, 'POSTHOG_TIMEOUT_MS', 30_000, 100, 600_000);
  const upstream = parseUpstreamSettings(env);
  const cache = parseCacheSettings(stringFlag(flags.cache), env);
  const port = parseInteger(flags.port, '--port', 3000, 0, 65_535);
  const bindHost = flags.host?.trim() || '127.0.0.1';
  const http = parseHttpSettings(flags, env, { transport, bindHost, serverHasKey: sandbox || apiKey !== undefined, sandbox }, warnings);

  const config = configSchema.parse({
    apiKey,
    baseUrl,
    defaultProjectId,
    readOnly: flags['read-only'] === true || isTruthy(env.POSTHOG_READ_ONLY),
    toolsets,
    timeoutMs,
    transport,
    port,
    bindHost,
    sandbox,
    sandboxApi,
    upstream,
    cache,
    confirmDestructive: flags['no-confirm'] !== true && parseSwitch(env.POSTHOG_CONFIRM_DESTRUCTIVE, 'POSTHOG_CONFIRM_DESTRUCTIVE', true),
    http,
    warnings,
  });
  return { kind: 'run', config };
}

/** --sandbox-api / POSTHOG_SANDBOX_API: only meaningful with --sandbox. */
function parseSandboxApi(flag: string | undefined, envValue: string | undefined, sandbox: boolean, warnings: string[]): 'today' | '2024' {
  const value = flag ?? envValue;
  if (value === undefined) return 'today';
  const name = flag !== undefined ? '--sandbox-api' : 'POSTHOG_SANDBOX_API';
  if (value !== 'today' && value !== '2024') throw new ConfigurationError(`${name} must be "today" or "2024", got "${value.slice(0, 40)}".`);
  if (!sandbox) {
    if (flag !== undefined) throw new ConfigurationError('--sandbox-api only applies with --sandbox.');
    warnings.push('POSTHOG_SANDBOX_API is ignored without --sandbox.');
  }
  return value;
}

/** --cache / MCP_DIGEST_CACHE: memory, off, or a Redis URL (never echoed: it may hold a password). */
function parseCacheSettings(flag: string | undefined, env: Env): Config['cache'] {
  const target = (flag ?? nonEmpty(env.MCP_DIGEST_CACHE) ?? 'memory').trim();
  const name = flag !== undefined ? '--cache' : 'MCP_DIGEST_CACHE';
  if (target !== 'memory' && target !== 'off' && !/^rediss?:\/\/[^\s]+$/i.test(target)) {
    throw new ConfigurationError(`${name} must be "memory", "off" or a redis:// (or rediss://) URL.`);
  }
  return {
    target,
    maxMb: parseInteger(env.MCP_DIGEST_CACHE_MB, 'MCP_DIGEST_CACHE_MB', 64, 1, 16_384),
    ttlMs: parseInteger(env.MCP_DIGEST_CACHE_TTL_S, 'MCP_DIGEST_CACHE_TTL_S', 86_400, 1, 30 * 86_400) * 1000,
  };
}

function parseUpstreamSettings(env: Env): Config['upstream'] {
  const ratesText = nonEmpty(env.POSTHOG_REPLAY_RATE_LIMITS) ?? 'auto';
  const replayRates = parseReplayPolicy(ratesText);
  if (!replayRates) {
    throw new ConfigurationError(`POSTHOG_REPLAY_RATE_LIMITS must be auto, free, paid, enterprise, off, or a list like "12/min,60/h"; got "${ratesText.slice(0, 80)}".`);
  }
  return {
    maxResponseBytes: parseInteger(env.POSTHOG_MAX_RESPONSE_BYTES, 'POSTHOG_MAX_RESPONSE_BYTES', 8 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxConcurrencyPerKey: parseInteger(env.POSTHOG_MAX_CONCURRENCY_PER_KEY, 'POSTHOG_MAX_CONCURRENCY_PER_KEY', 8, 1, 1_000),
    replayRates,
    callMaxRequests: parseInteger(env.POSTHOG_CALL_MAX_REQUESTS, 'POSTHOG_CALL_MAX_REQUESTS', 100, 1, 100_000),
    callTimeoutMs: parseInteger(env.POSTHOG_CALL_TIMEOUT_MS, 'POSTHOG_CALL_TIMEOUT_MS', 120_000, 1_000, 3_600_000),
    // 40 s: a call that waits still answers within an MCP client's default 60 s request timeout (budget.ts).
    throttleWaitMs: parseInteger(env.POSTHOG_THROTTLE_WAIT_MS, 'POSTHOG_THROTTLE_WAIT_MS', DEFAULT_CALL_LIMITS.throttleWaitMs, 0, 3_600_000),
  };
}

interface HttpContext {
  transport: 'stdio' | 'http';
  bindHost: string;
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
function parseHttpSettings(flags: Record<string, string | boolean | undefined>, env: Env, context: HttpContext, warnings: string[]): Config['http'] {
  const authToken = nonEmpty(env.MCP_AUTH_TOKEN);
  const hostList = stringFlag(flags['allowed-hosts']) ?? nonEmpty(env.MCP_ALLOWED_HOSTS);
  const originList = stringFlag(flags['allowed-origins']) ?? nonEmpty(env.MCP_ALLOWED_ORIGINS);
  const settings: Config['http'] = {
    authToken,
    allowedHosts: hostList === undefined ? undefined : parseAllowedHosts(hostList),
    allowedOrigins: originList === undefined ? [] : parseAllowedOrigins(originList),
    maxConcurrency: parseInteger(env.MCP_MAX_CONCURRENCY, 'MCP_MAX_CONCURRENCY', 64, 1, 100_000),
    maxConcurrencyPerUser: parseInteger(env.MCP_MAX_CONCURRENCY_PER_USER, 'MCP_MAX_CONCURRENCY_PER_USER', 16, 1, 100_000),
    maxQueuePerUser: parseInteger(env.MCP_MAX_QUEUE_PER_USER, 'MCP_MAX_QUEUE_PER_USER', 64, 0, 100_000),
    queueTimeoutMs: parseInteger(env.MCP_QUEUE_TIMEOUT_MS, 'MCP_QUEUE_TIMEOUT_MS', 30_000, 100, 600_000),
    shutdownTimeoutMs: parseInteger(env.MCP_SHUTDOWN_TIMEOUT_MS, 'MCP_SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
  };
  if (context.transport !== 'http') {
    if (authToken !== undefined) warnings.push('MCP_AUTH_TOKEN is ignored in stdio mode (it protects --transport http).');
    return settings;
  }
  if (authToken !== undefined) {
    if (!/^[\x21-\x7e]{16,512}$/.test(authToken)) {
      throw new ConfigurationError('MCP_AUTH_TOKEN must be 16 to 512 printable characters without spaces (e.g. the output of `openssl rand -hex 32`).');
    }
    if (!context.serverHasKey) {
      throw new ConfigurationError(
        'MCP_AUTH_TOKEN is set but POSTHOG_PERSONAL_API_KEY is not: without a server key each caller sends its own PostHog key as the Bearer credential, so there is no room for a token. Set both (shared key behind a token) or unset MCP_AUTH_TOKEN (per-user keys).',
      );
    }
  }
  if (context.serverHasKey && authToken === undefined && !isLoopbackHost(context.bindHost)) {
    const key = context.sandbox ? 'the sandbox key' : 'the server\'s POSTHOG_PERSONAL_API_KEY';
    throw new ConfigurationError(
      `Refusing to listen on ${context.bindHost} (not a loopback address) with ${key} and no MCP_AUTH_TOKEN: anyone who reaches it could use the key. Set MCP_AUTH_TOKEN, or unset POSTHOG_PERSONAL_API_KEY so each caller sends its own key, or use --host 127.0.0.1.`,
    );
  }
  if (settings.allowedHosts === undefined && !isLoopbackHost(context.bindHost)) {
    warnings.push(`listening on ${context.bindHost} with no MCP_ALLOWED_HOSTS: any Host header is accepted (every call still needs a Bearer credential). Set MCP_ALLOWED_HOSTS to the names clients use.`);
  }
  return settings;
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
  if (bad.length > 0 || entries.length === 0) {
    throw new ConfigurationError(`MCP_ALLOWED_HOSTS/--allowed-hosts takes host names or addresses with an optional port (e.g. mcp.example.com,127.0.0.1:3000, or * for any); got "${bad.join('", "') || list}".`);
  }
  return entries;
}

function parseAllowedOrigins(list: string): string[] {
  return splitList(list).map((entry) => {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search || url.hash || url.username) {
      throw new ConfigurationError(`MCP_ALLOWED_ORIGINS/--allowed-origins takes origins like https://app.example.com; got "${entry}".`);
    }
    return url.origin;
  });
}

function splitList(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

function stringFlag(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? nonEmpty(value) : undefined;
}

/** `us`/`eu` shorthands, bare host names, ingestion hosts mapped to their app host. */
export function resolveHost(raw: string | undefined, warnings: string[]): string {
  if (raw === undefined) return CLOUD_HOSTS.us!;
  const shorthand = CLOUD_HOSTS[raw.toLowerCase()];
  if (shorthand) return shorthand;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ConfigurationError(`POSTHOG_HOST is not a valid URL: "${raw}". Use us, eu, or e.g. https://posthog.example.com.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigurationError(`POSTHOG_HOST must be an http(s) URL, got "${raw}".`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ConfigurationError(`POSTHOG_HOST must be a plain base URL without credentials, query or fragment, got "${raw}".`);
  }
  const ingestion = /^([a-z0-9-]+)\.i\.posthog\.com$/i.exec(url.hostname);
  if (ingestion) {
    const region = ingestion[1]!.toLowerCase().replace(/-assets$/, '');
    const appHost = `https://${region}.posthog.com`;
    warnings.push(`POSTHOG_HOST ${url.hostname} is an ingestion host, which does not serve the REST API; using ${appHost} instead.`);
    return appHost;
  }
  const basePath = url.pathname.replace(/\/+$/, '').replace(/\/api$/, '');
  return `${url.origin}${basePath}`;
}

function parseToolsets(list: string): Toolset[] {
  const names = splitList(list);
  const unknown = names.filter((n) => !(TOOLSETS as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new ConfigurationError(`Unknown toolset "${unknown.join('", "')}"; valid toolsets are: ${TOOLSETS.join(', ')}.`);
  }
  if (names.length === 0) throw new ConfigurationError(`--toolsets/POSTHOG_TOOLSETS is empty; valid toolsets are: ${TOOLSETS.join(', ')}.`);
  return [...new Set(names)] as Toolset[];
}

function parseInteger(raw: string | undefined, name: string, fallback: number, min: number, max: number): number {
  const value = nonEmpty(raw);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigurationError(`${name} must be a whole number from ${min} to ${max}, got "${value}".`);
  }
  return Number(value);
}

/**
 * An empty value is unset, and so is a host's unfilled placeholder: an MCP Bundle host that has
 * no value (and no default) for a setting may pass `${user_config.name}` through verbatim.
 */
function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed && !/^\$\{user_config\.[^}]*\}$/.test(trimmed) ? trimmed : undefined;
}

/** On/off settings that default to on: 0/false/no/off turn them off. */
function parseSwitch(raw: string | undefined, name: string, fallback: boolean): boolean {
  const value = nonEmpty(raw)?.toLowerCase();
  if (value === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new ConfigurationError(`${name} must be 1/true/yes/on or 0/false/no/off, got "${value}".`);
}

function isTruthy(value: string | undefined): boolean {
  return ['1', 'true', 'yes'].includes((value ?? '').trim().toLowerCase());
}
