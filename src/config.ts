import { parseArgs } from 'node:util';
import { z } from 'zod';
import { DEFAULT_CALL_LIMITS } from './call-limits.js';
import { ConfigurationError } from './errors.js';
import { ProxyRefused, proxyFor } from './proxy-env.js';
import { PLAN_RATES, parseReplayPolicy, type ReplayPolicy } from './replay-rates.js';
import { didYouMean } from './words.js';

export const TOOLSETS = ['recordings', 'projects'] as const;
export type Toolset = (typeof TOOLSETS)[number];

export const PROJECT_ID_PATTERN = /^(\d+|@current)$/;

/** How input schemas are listed: whole, each under 5,000 bytes, or compact only for clients known to cut larger ones (tools/listing-compact.ts). */
export const TOOL_SCHEMA_MODES = ['full', 'compact', 'auto'] as const;

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
    /** The outbound proxy the environment names for POSTHOG_HOST (proxy-env.ts); never for the sandbox. */
    proxy: z.object({ url: z.string(), from: z.string(), shown: z.string() }).optional(),
  }),
  /** Ask the user (MCP elicitation, when the client supports it) before a delete or a project change. */
  confirmDestructive: z.boolean(),
  toolSchemas: z.enum(TOOL_SCHEMA_MODES),
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
    /** MCP_OAUTH (issue 35): the secrets that seal tokens (current first) and the public origin. */
    oauth: z.object({ secrets: z.array(z.string()).min(1), publicUrl: z.string().optional() }).optional(),
  }),
  /** Non-fatal notes for stderr (e.g. an ingestion host was mapped). */
  warnings: z.array(z.string()),
});

export type Config = z.infer<typeof configSchema>;

export { ConfigurationError };

export type Env = Record<string, string | undefined>;

/** What `--help` prints. */
export const USAGE = `Usage: posthog-replay-mcp [options]         serve MCP (stdio unless --transport http)
       posthog-replay-mcp doctor [options]  check the key, host, scopes and PostHog's throttle, then exit

MCP server for PostHog session recordings and projects. On/off settings take 1/true/yes/on or
0/false/no/off; a value a setting does not accept is refused, naming it: doctor and HTTP exit 2,
and over stdio the server answers every call with the error (nothing is sent to PostHog).
Every setting: docs/configuration.md.

Options:
  --sandbox                 run against the embedded demo upstream (no PostHog account needed)
  --sandbox-api today|2024  the PostHog the sandbox imitates: today's Cloud (default) or the
                            2024 API (env POSTHOG_SANDBOX_API)
  --read-only               register only read-only tools (env POSTHOG_READ_ONLY=on)
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
  POSTHOG_HOST              us | eu | https://posthog.example.com (default us)
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
  POSTHOG_SANDBOX=on        same as --sandbox
  MCP_TOOL_SCHEMAS          full | compact (every input schema under 5,000 bytes, timezone as a
                            string) | auto (default: compact for Codex, full for other clients)

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
  MCP_OAUTH=on              also an OAuth 2.1 server for clients that sign in (Claude.ai, ChatGPT):
                            their MCP endpoint is /oauth/mcp; the consent page asks for the key
  MCP_OAUTH_SECRET          seals OAuth tokens (at least 32 characters; required with MCP_OAUTH)
  MCP_OAUTH_PREVIOUS_SECRET the secret being replaced: its tokens still open while they live
  MCP_PUBLIC_URL            the https origin clients reach the server at (needed beyond loopback)

Digest cache:
  MCP_DIGEST_CACHE          memory (default) | off | redis://[:password@]host:port (same as --cache)
  MCP_DIGEST_CACHE_MB       in-process cache size in MiB (default 64)
  MCP_DIGEST_CACHE_TTL_S    how long a digest is kept, in seconds (default 86400)
`;

export type CliAction = { kind: 'run'; config: Config } | { kind: 'doctor'; config: Config } | { kind: 'help' } | { kind: 'version' };

/**
 * The commands besides serving (a positional word before the options).
 * `doctor` checks the key, host, scopes and PostHog's throttle, prints a pass/fail list and exits.
 */
export const COMMANDS = ['doctor'] as const;

// ---------------------------------------------------------------------------------------------
// Every setting, in one table: where it is read from (variable, flag), what it accepts, its
// default. A setting is added with one entry here and one field in configSchema; the test that
// walks this table (test/unit/config.test.ts) then refuses a bad value for it, and checks that
// --help and docs/configuration.md name it.
// ---------------------------------------------------------------------------------------------

/**
 * Thrown by a setting's parser: the value is not one it accepts (`message`, when given, says why
 * or what was meant). `public`: a secret setting's value that is no secret (a documented
 * placeholder), so it may be shown.
 */
export class Refused extends Error {
  constructor(
    message?: string,
    readonly isPublic = false,
  ) {
    super(message);
  }
}

export interface Setting<T> {
  /** Environment variable. */
  env?: string;
  /** Command-line flag. */
  flag?: string;
  /** For an on/off flag: the value its presence sets (the flag takes no argument). */
  flagValue?: T;
  /** What the setting accepts, in words, for errors, --help and docs. */
  accepted: string;
  fallback: T;
  /** Reads a non-empty value; throws Refused for anything it does not accept. */
  parse: (raw: string, warn: (message: string) => void) => T;
  /** Never echoed in errors (a key, a token, a URL that may hold a password). */
  secret?: boolean;
  /** The flags under which the setting takes effect, when not always (for docs and the table's test). */
  appliesWith?: readonly string[];
}

function setting<T>(spec: Setting<T>): Setting<T> {
  return spec;
}

const YES = ['1', 'true', 'yes', 'on'];
const NO = ['0', 'false', 'no', 'off'];

/** On/off: 1/true/yes/on or 0/false/no/off in any case, nothing else (a safety switch must not read "maybe" as off). */
function onOff(fallback: boolean): Pick<Setting<boolean>, 'accepted' | 'fallback' | 'parse'> {
  return {
    accepted: '1, true, yes, on or 0, false, no, off (any case)',
    fallback,
    parse: (raw) => {
      const word = raw.toLowerCase();
      if (YES.includes(word)) return true;
      if (NO.includes(word)) return false;
      throw new Refused();
    },
  };
}

function wholeNumber(fallback: number, min: number, max: number, unit = ''): Pick<Setting<number>, 'accepted' | 'fallback' | 'parse'> {
  return {
    accepted: `a whole number from ${min} to ${max}${unit}`,
    fallback,
    parse: (raw) => {
      if (!/^\d{1,16}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new Refused();
      return Number(raw);
    },
  };
}

function oneOf<const T extends string>(values: readonly T[], fallback: T): Pick<Setting<T>, 'accepted' | 'fallback' | 'parse'> {
  return {
    accepted: values.map((v) => `"${v}"`).join(' or '),
    fallback,
    parse: (raw) => {
      const hit = values.find((v) => v === raw.toLowerCase());
      if (hit === undefined) throw new Refused(didYouMean(raw, values));
      return hit;
    },
  };
}

export const SETTINGS = {
  apiKey: setting<string | undefined>({
    env: 'POSTHOG_PERSONAL_API_KEY',
    secret: true,
    accepted: 'a PostHog personal API key (phx_…)',
    fallback: undefined,
    parse: parseApiKey,
  }),
  baseUrl: setting<string>({ env: 'POSTHOG_HOST', accepted: 'us, eu, or a URL with its scheme like https://posthog.example.com', fallback: CLOUD_HOSTS.us!, parse: resolveHost }),
  defaultProjectId: setting<string | undefined>({
    env: 'POSTHOG_PROJECT_ID',
    accepted: 'a project number (e.g. 12345) or @current',
    fallback: undefined,
    parse: (raw) => {
      if (!PROJECT_ID_PATTERN.test(raw)) throw new Refused();
      return raw;
    },
  }),
  readOnly: setting({ env: 'POSTHOG_READ_ONLY', flag: '--read-only', flagValue: true, ...onOff(false) }),
  toolsets: setting<Toolset[]>({ env: 'POSTHOG_TOOLSETS', flag: '--toolsets', accepted: `a comma list of ${TOOLSETS.join(', ')}`, fallback: [...TOOLSETS], parse: parseToolsets }),
  sandbox: setting({ env: 'POSTHOG_SANDBOX', flag: '--sandbox', flagValue: true, ...onOff(false) }),
  sandboxApi: setting({ env: 'POSTHOG_SANDBOX_API', flag: '--sandbox-api', appliesWith: ['--sandbox'], ...oneOf(['today', '2024'], 'today') }),
  confirmDestructive: setting({ env: 'POSTHOG_CONFIRM_DESTRUCTIVE', flag: '--no-confirm', flagValue: false, ...onOff(true) }),
  toolSchemas: setting({ env: 'MCP_TOOL_SCHEMAS', ...oneOf(TOOL_SCHEMA_MODES, 'auto') }),
  timeoutMs: setting({ env: 'POSTHOG_TIMEOUT_MS', ...wholeNumber(30_000, 100, 600_000, ' (ms)') }),
  maxResponseBytes: setting({ env: 'POSTHOG_MAX_RESPONSE_BYTES', ...wholeNumber(8 * 1024 * 1024, 1024, 1024 * 1024 * 1024, ' (bytes)') }),
  maxConcurrencyPerKey: setting({ env: 'POSTHOG_MAX_CONCURRENCY_PER_KEY', ...wholeNumber(8, 1, 1_000) }),
  replayRates: setting<ReplayPolicy>({
    env: 'POSTHOG_REPLAY_RATE_LIMITS',
    accepted: 'auto, free, paid, enterprise, off, or a list like 12/min,60/h',
    fallback: 'auto',
    parse: (raw) => parseReplayPolicy(raw) ?? refuse(didYouMean(raw, ['auto', ...Object.keys(PLAN_RATES)])),
  }),
  callMaxRequests: setting({ env: 'POSTHOG_CALL_MAX_REQUESTS', ...wholeNumber(100, 1, 100_000) }),
  callTimeoutMs: setting({ env: 'POSTHOG_CALL_TIMEOUT_MS', ...wholeNumber(120_000, 1_000, 3_600_000, ' (ms)') }),
  // 40 s: a call that waits still answers within an MCP client's default 60 s request timeout (budget.ts).
  throttleWaitMs: setting({ env: 'POSTHOG_THROTTLE_WAIT_MS', ...wholeNumber(DEFAULT_CALL_LIMITS.throttleWaitMs, 0, 3_600_000, ' (ms)') }),
  transport: setting({ flag: '--transport', ...oneOf(['stdio', 'http'], 'stdio') }),
  port: setting({ flag: '--port', appliesWith: ['--transport', 'http'], ...wholeNumber(3000, 0, 65_535) }),
  bindHost: setting<string>({
    flag: '--host',
    appliesWith: ['--transport', 'http'],
    accepted: 'an address or host name to listen on, like 127.0.0.1, 0.0.0.0, :: or localhost',
    fallback: '127.0.0.1',
    parse: (raw) => (BIND_HOST.test(raw) ? raw : refuse()),
  }),
  cacheTarget: setting<string>({
    env: 'MCP_DIGEST_CACHE',
    flag: '--cache',
    secret: true,
    accepted: 'memory, off, or a redis:// (or rediss://) URL',
    fallback: 'memory',
    parse: (raw) => (raw === 'memory' || raw === 'off' || /^rediss?:\/\/[^\s]+$/i.test(raw) ? raw : refuse(didYouMean(raw, ['memory', 'off']))),
  }),
  cacheMb: setting({ env: 'MCP_DIGEST_CACHE_MB', ...wholeNumber(64, 1, 16_384, ' (MiB)') }),
  cacheTtlS: setting({ env: 'MCP_DIGEST_CACHE_TTL_S', ...wholeNumber(86_400, 1, 30 * 86_400, ' (seconds)') }),
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
  maxQueuePerUser: setting({ env: 'MCP_MAX_QUEUE_PER_USER', appliesWith: ['--transport', 'http'], ...wholeNumber(64, 0, 100_000) }),
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
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) refuse('Give the origin only, without a path (the server adds /oauth and /oauth/mcp).');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) refuse('OAuth needs https beyond loopback: put the server behind a TLS proxy and give its https:// origin.');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse();
  return url.origin;
}

type SettingValues = { [K in keyof typeof SETTINGS]: (typeof SETTINGS)[K] extends Setting<infer T> ? T : never };

function refuse(message?: string): never {
  throw new Refused(message);
}

type Flags = Record<string, string | boolean | undefined>;

/** One setting's value: the flag over the variable over the default. Both are checked when both are given. */
function readSetting<T>(spec: Setting<T>, flags: Flags, env: Env, warn: (message: string) => void): T {
  let value = spec.fallback;
  const fromEnv = spec.env === undefined ? undefined : nonEmpty(env[spec.env]);
  const key = nonEmpty(env.POSTHOG_PERSONAL_API_KEY);
  if (fromEnv !== undefined) value = parseAs(spec, spec.env!, fromEnv, warn, key);
  const fromFlag = spec.flag === undefined ? undefined : flags[spec.flag.slice(2)];
  if (spec.flagValue !== undefined) {
    if (fromFlag === true) value = spec.flagValue;
  } else if (typeof fromFlag === 'string') {
    value = parseAs(spec, spec.flag!, fromFlag.trim(), warn, key);
  }
  return value;
}

/** A PostHog key (personal, project or OAuth) in a value, or the configured key itself: never echoed. */
function holdsKey(raw: string, apiKey: string | undefined): boolean {
  return /ph[xca]_[A-Za-z0-9_-]{8,}/i.test(raw) || (apiKey !== undefined && apiKey.length >= 8 && raw.includes(apiKey));
}

function parseAs<T>(spec: Setting<T>, name: string, raw: string, warn: (message: string) => void, apiKey?: string): T {
  try {
    if (raw === '') throw new Refused('It is empty.');
    return spec.parse(raw, warn);
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    // The key pasted into the wrong variable: this message goes to stderr and the client's logs, so
    // neither the value nor the parser's words about it (which may quote it) are shown.
    if (!spec.secret && holdsKey(raw, apiKey)) {
      throw new ConfigurationError(`${name} must be ${spec.accepted}; got a value not shown here: it looks like a PostHog API key, which only POSTHOG_PERSONAL_API_KEY takes.`);
    }
    const got = spec.secret && !error.isPublic ? 'a value not shown here (it is a secret)' : `"${raw.length > 80 ? `${raw.slice(0, 79)}…` : raw}"`;
    throw new ConfigurationError(`${name} must be ${spec.accepted}; got ${got}.${error.message ? ` ${error.message}` : ''}`);
  }
}

/** The options parseArgs knows: every setting's flag, plus help and version. */
function flagOptions(): Record<string, { type: 'string' | 'boolean'; short?: string }> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } };
  for (const spec of Object.values(SETTINGS) as Setting<unknown>[]) {
    if (spec.flag) options[spec.flag.slice(2)] = { type: spec.flagValue === undefined ? 'string' : 'boolean' };
  }
  return options;
}

/** Parses flags and environment once. Throws ConfigurationError with a one-line message. */
export function parseCli(argv: readonly string[], env: Env): CliAction {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], strict: true, allowPositionals: true, options: flagOptions() });
  } catch (err) {
    // parseArgs echoes the offending argument; a key passed as a flag would be printed, so strip values.
    const message = err instanceof Error ? err.message.replace(/'[^']*'/g, (m) => (m.length > 40 ? "'…'" : m)) : String(err);
    throw new ConfigurationError(`${message}. Run with --help for the options. (The API key is read only from POSTHOG_PERSONAL_API_KEY.)`);
  }
  const flags = parsed.values as Flags;
  if (flags.help) return { kind: 'help' };
  if (flags.version) return { kind: 'version' };
  const command = parseCommand(parsed.positionals);

  const warnings: string[] = [];
  const warn = (message: string) => void warnings.push(message);
  const sandbox = readSetting(SETTINGS.sandbox, flags, env, warn);
  const values = {} as Record<string, unknown>;
  for (const [name, spec] of Object.entries(SETTINGS) as Array<[keyof typeof SETTINGS, Setting<unknown>]>) {
    // The sandbox brings its own key and address: ones left in a config (even the placeholder) are not read.
    if (name === 'apiKey' && sandbox) {
      if (nonEmpty(env.POSTHOG_PERSONAL_API_KEY) !== undefined) warn('POSTHOG_PERSONAL_API_KEY is ignored with --sandbox (the sandbox has its own key).');
      continue;
    }
    if (name === 'baseUrl' && sandbox) {
      if (nonEmpty(env.POSTHOG_HOST) !== undefined) warn('POSTHOG_HOST is ignored with --sandbox (the sandbox serves its demo data on 127.0.0.1; nothing goes to that host).');
      continue;
    }
    values[name] = readSetting(spec, flags, env, warn);
  }
  const v = values as SettingValues;

  if (!sandbox && v.apiKey === undefined && (v.transport === 'stdio' || command === 'doctor')) {
    throw new ConfigurationError(
      'POSTHOG_PERSONAL_API_KEY is not set. Create a personal API key in PostHog (Settings → Personal API keys, scopes session_recording, project and query:read) or run with --sandbox (or POSTHOG_SANDBOX=1; "Demo mode" in the MCP Bundle) to try the demo data.',
    );
  }
  if (!sandbox && (flags['sandbox-api'] !== undefined || nonEmpty(env.POSTHOG_SANDBOX_API) !== undefined)) {
    if (flags['sandbox-api'] !== undefined) throw new ConfigurationError('--sandbox-api only applies with --sandbox.');
    warn('POSTHOG_SANDBOX_API is ignored without --sandbox.');
  }
  const http = checkHttpAccess(v, { serverHasKey: sandbox || v.apiKey !== undefined, sandbox }, warn);
  let proxy;
  try {
    proxy = sandbox ? undefined : proxyFor(v.baseUrl, env);
  } catch (err) {
    if (err instanceof ProxyRefused) throw new ConfigurationError(`${err.message} Fix or unset it, or list the PostHog host in NO_PROXY.`);
    throw err;
  }

  const config = configSchema.parse({
    apiKey: v.apiKey,
    baseUrl: sandbox ? 'http://127.0.0.1' : v.baseUrl,
    defaultProjectId: v.defaultProjectId,
    readOnly: v.readOnly,
    toolsets: v.toolsets,
    timeoutMs: v.timeoutMs,
    transport: v.transport,
    port: v.port,
    bindHost: v.bindHost,
    sandbox,
    sandboxApi: v.sandboxApi,
    upstream: {
      maxResponseBytes: v.maxResponseBytes,
      maxConcurrencyPerKey: v.maxConcurrencyPerKey,
      replayRates: v.replayRates,
      callMaxRequests: v.callMaxRequests,
      callTimeoutMs: v.callTimeoutMs,
      throttleWaitMs: v.throttleWaitMs,
      proxy,
    },
    cache: { target: v.cacheTarget, maxMb: v.cacheMb, ttlMs: v.cacheTtlS * 1000 },
    confirmDestructive: v.confirmDestructive,
    toolSchemas: v.toolSchemas,
    http,
    warnings,
  });
  return command === 'doctor' ? { kind: 'doctor', config } : { kind: 'run', config };
}

/**
 * What a server whose settings were refused (parseCli threw) may still offer, read setting by
 * setting so one bad value does not hide the others (SPEC §2: over stdio the server starts anyway,
 * to say what is wrong in the chat). `command` and `transport` decide whether it starts at all
 * (doctor and HTTP do not); a transport that cannot be read is taken as stdio, its default.
 * Safety fails closed: a read-only switch or toolset list that cannot be read lists the
 * read-only tools only. Every call of such a server is refused, whatever it lists.
 */
export interface Refusal {
  command: 'serve' | 'doctor';
  transport: 'stdio' | 'http';
  tools: { readOnly: boolean; toolsets: Toolset[]; defaultProjectId: string | undefined };
}

/** Reads a Refusal from the same flags and environment parseCli refused; never throws. */
export function readDespiteError(argv: readonly string[], env: Env): Refusal {
  let flags: Flags = {};
  let positionals: string[] = [];
  try {
    // Not strict: an unknown flag (perhaps the error itself) leaves the others readable.
    const parsed = parseArgs({ args: [...argv], strict: false, allowPositionals: true, options: flagOptions() });
    flags = parsed.values as Flags;
    positionals = parsed.positionals;
  } catch {
    // Nothing readable: the defaults below.
  }
  const ignore = () => {};
  const attempt = <T>(spec: Setting<T>): T | undefined => {
    try {
      return readSetting(spec, flags, env, ignore);
    } catch {
      return undefined;
    }
  };
  const readOnly = attempt(SETTINGS.readOnly);
  const toolsets = attempt(SETTINGS.toolsets);
  return {
    command: positionals[0] === 'doctor' ? 'doctor' : 'serve',
    transport: attempt(SETTINGS.transport) ?? 'stdio',
    tools: { readOnly: readOnly === undefined || toolsets === undefined ? true : readOnly, toolsets: toolsets ?? [...TOOLSETS], defaultProjectId: attempt(SETTINGS.defaultProjectId) },
  };
}

function parseCommand(positionals: readonly string[]): 'serve' | (typeof COMMANDS)[number] {
  if (positionals.length === 0) return 'serve';
  const [word, ...rest] = positionals;
  const command = COMMANDS.find((c) => c === word);
  if (command === undefined || rest.length > 0) {
    const shown = positionals.join(' ');
    throw new ConfigurationError(`Unknown command "${shown.length > 40 ? `${shown.slice(0, 39)}…` : shown}": the only command is ${COMMANDS.join(', ')} (or none, to serve). Run with --help for the options.`);
  }
  return command;
}

/** A personal API key as PostHog issues it, or a warning when its shape is unfamiliar. */
function parseApiKey(raw: string, warn: (message: string) => void): string {
  if (PLACEHOLDER_KEYS.some((p) => p.test(raw))) {
    const documented = raw === DOCUMENTED_PLACEHOLDER;
    throw new Refused(
      `It is ${documented ? 'the placeholder from the README and mcp.json' : `a placeholder like the README's (${DOCUMENTED_PLACEHOLDER})`}: replace it with a personal API key from PostHog (Settings → Personal API keys), or run with --sandbox to try the demo data.`,
      documented,
    );
  }
  if (/\s/.test(raw)) refuse('It contains whitespace: paste the key alone (it starts with phx_).');
  if (/^phc_/i.test(raw)) refuse('It is a project API key (phc_…), which only sends events: this server reads recordings and needs a personal API key (phx_…, Settings → Personal API keys).');
  if (!/^[A-Za-z0-9_.-]{1,512}$/.test(raw)) refuse('It holds characters no PostHog key has (keys are letters, digits, _ and -).');
  // pha_: an OAuth access token, which PostHog also takes as Bearer.
  if (!/^ph[xa]_[A-Za-z0-9_-]{8,}$/.test(raw)) warn('POSTHOG_PERSONAL_API_KEY does not look like a PostHog personal API key (phx_ followed by letters and digits); if calls fail with 401, check it.');
  return raw;
}

const DOCUMENTED_PLACEHOLDER = 'phx_your_personal_api_key';
const PLACEHOLDER_KEYS = [/^phx_your_personal_api_key$/i, /your[_-]?(personal[_-]?)?(api[_-]?)?key/i, /^<.*>$/, /^phx_(x+|\.\.\.|…)$/i];

/** A bind address: a host name, IPv4, or IPv6 with or without brackets. */
const BIND_HOST = /^([a-z0-9]([a-z0-9.-]*[a-z0-9])?|\[?[0-9a-f:.]*:[0-9a-f:.]*\]?)$/i;

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
function checkHttpAccess(v: SettingValues, context: HttpContext, warn: (message: string) => void): Config['http'] {
  const settings: Config['http'] = {
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
  } else if (v.oauthSecret !== undefined || v.publicUrl !== undefined) {
    warn(`${v.oauthSecret !== undefined ? 'MCP_OAUTH_SECRET' : 'MCP_PUBLIC_URL'} is set but MCP_OAUTH is off: no OAuth endpoints are served.`);
  }
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

function splitList(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * `us`/`eu` shorthands and URLs; ingestion hosts mapped to their app host. A host without its
 * scheme is refused with the form to write: guessing https would hide a typo of a region name.
 */
export function resolveHost(raw: string, warn: (message: string) => void): string {
  const shorthand = CLOUD_HOSTS[raw.toLowerCase()];
  if (shorthand) return shorthand;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    const near = didYouMean(raw, Object.keys(CLOUD_HOSTS));
    const page = /^[\w.-]+(:\d+)?\//.test(raw) ? appPageBase(`https://${raw}`) : undefined;
    if (page) refuse(appPageAdvice(page));
    refuse(near || (/^[\w.-]+(:\d+)?(\/\S*)?$/.test(raw) ? `Write the scheme too: https://${raw.replace(/\/+$/, '')}` : ''));
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    refuse('It is not a valid URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse('Only http and https are served.');
  const page = appPageBase(raw);
  if (page) refuse(appPageAdvice(page));
  if (url.username || url.password || url.search || url.hash) refuse('Give the plain base URL: no credentials, query or fragment.');
  const ingestion = /^([a-z0-9-]+)\.i\.posthog\.com$/i.exec(url.hostname);
  if (ingestion) {
    const region = ingestion[1]!.toLowerCase().replace(/-assets$/, '');
    const appHost = `https://${region}.posthog.com`;
    warn(`POSTHOG_HOST ${url.hostname} is an ingestion host, which does not serve the REST API; using ${appHost} instead.`);
    return appHost;
  }
  const basePath = url.pathname.replace(/\/+$/, '').replace(/\/api$/, '');
  return `${url.origin}${basePath}`;
}

/** PostHog Cloud's app hosts (app.posthog.com is the US one's older name): their API is at the root. */
const CLOUD_APP_HOST = /^(us|eu|app)\.posthog\.com$/i;

/**
 * The base URL a page of PostHog's app was copied from (a replay, a project's settings), or
 * undefined when the URL is no such page: on PostHog Cloud any path; elsewhere a path with
 * `/project/<id>`, which is where the app's pages live (under a base path, kept).
 */
function appPageBase(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (CLOUD_APP_HOST.test(url.hostname)) {
    const path = url.pathname.replace(/\/+$/, '');
    return path === '' || path === '/api' ? undefined : url.origin;
  }
  const at = /\/project\/(\d+|@current)(\/|$)/.exec(url.pathname);
  return at ? `${url.origin}${url.pathname.slice(0, at.index)}` : undefined;
}

function appPageAdvice(base: string): string {
  const shorthand = Object.entries(CLOUD_HOSTS).find(([, host]) => host === base)?.[0];
  return `It is the address of a page of PostHog's app, not of PostHog itself: set POSTHOG_HOST=${base}${shorthand ? ` (or ${shorthand})` : ''}.`;
}

function parseToolsets(list: string): Toolset[] {
  const names = splitList(list);
  if (names.length === 0) refuse();
  const unknown = names.filter((n) => !(TOOLSETS as readonly string[]).includes(n));
  if (unknown.length > 0) refuse(`Unknown toolset "${unknown.join('", "')}".${unknown.map((u) => didYouMean(u, TOOLSETS)).filter(Boolean).map((s) => ` ${s}`).join('')}`);
  return [...new Set(names)] as Toolset[];
}

/**
 * An empty value is unset, and so is a host's unfilled placeholder: an MCP Bundle host that has
 * no value (and no default) for a setting may pass `${user_config.name}` through verbatim.
 */
function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed && !/^\$\{user_config\.[^}]*\}$/.test(trimmed) ? trimmed : undefined;
}
