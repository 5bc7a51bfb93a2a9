/**
 * Flags and environment, read once into one typed Config (validated with zod), with a one-line
 * error naming any setting whose value is refused. What each setting accepts is the table in
 * settings.ts; cli.ts hands this module process.env and argv.
 */

import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ConfigurationError } from './errors.js';
import { checkHttpAccess, httpConfigSchema } from './http-settings.js';
import { ProxyRefused, proxyFor } from './proxy-env.js';
import { Refused, type Setting } from './setting-kinds.js';
import { PROJECT_ID_PATTERN, SETTINGS, TOOLSETS, TOOL_SCHEMA_MODES, type SettingValues, type Toolset } from './settings.js';

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
  /** Add the sandbox's project at scale: a generated week of ~3,000 recorded sessions (docs/sandbox.md). */
  sandboxScale: z.boolean(),
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
    triageReplayBudget: z.number().int().min(1),
    /** The outbound proxy the environment names for POSTHOG_HOST (proxy-env.ts); never for the sandbox. */
    proxy: z.object({ url: z.string(), from: z.string(), shown: z.string() }).optional(),
  }),
  /** Ask the user (MCP elicitation, when the client supports it) before a delete or a project change. */
  confirmDestructive: z.boolean(),
  toolSchemas: z.enum(TOOL_SCHEMA_MODES),
  /** HTTP transport only (issue 4): access control, rebinding checks, limits. */
  http: httpConfigSchema,
  /** Non-fatal notes for stderr (e.g. an ingestion host was mapped). */
  warnings: z.array(z.string()),
});

export type Config = z.infer<typeof configSchema>;

export { ConfigurationError };

export type Env = Record<string, string | undefined>;

export type CliAction = { kind: 'run'; config: Config } | { kind: 'doctor'; config: Config } | { kind: 'help' } | { kind: 'version' };

/**
 * The commands besides serving (a positional word before the options).
 * `doctor` checks the key, host, scopes and PostHog's throttle, prints a pass/fail list and exits.
 */
export const COMMANDS = ['doctor'] as const;

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
  if (!sandbox && (flags['sandbox-scale'] !== undefined || nonEmpty(env.POSTHOG_SANDBOX_SCALE) !== undefined)) {
    if (flags['sandbox-scale'] !== undefined) throw new ConfigurationError('--sandbox-scale only applies with --sandbox.');
    warn('POSTHOG_SANDBOX_SCALE is ignored without --sandbox.');
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
    sandboxScale: sandbox && v.sandboxScale,
    upstream: {
      maxResponseBytes: v.maxResponseBytes,
      maxConcurrencyPerKey: v.maxConcurrencyPerKey,
      replayRates: v.replayRates,
      callMaxRequests: v.callMaxRequests,
      callTimeoutMs: v.callTimeoutMs,
      throttleWaitMs: v.throttleWaitMs,
      triageReplayBudget: v.triageReplayBudget,
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
 * setting so one bad value does not hide the others (docs/design.md, "Misconfigured start": over stdio the server starts anyway,
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

/**
 * An empty value is unset, and so is a host's unfilled placeholder: an MCP Bundle host that has
 * no value (and no default) for a setting may pass `${user_config.name}` through verbatim.
 */
function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed && !/^\$\{user_config\.[^}]*\}$/.test(trimmed) ? trimmed : undefined;
}
