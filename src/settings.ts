/**
 * Every setting, in one table: where it is read from (variable, flag), what it accepts, its
 * default. A setting is added with one entry here (the HTTP transport's: in http-settings.ts) and
 * one field in config.ts's schema; the test that walks this table (test/unit/config.test.ts) then
 * refuses a bad value for it, and checks that --help and docs/configuration.md name it.
 */

import { DEFAULT_CALL_LIMITS, DEFAULT_TRIAGE_REPLAY_BUDGET } from './call-limits.js';
import { HTTP_SETTINGS } from './http-settings.js';
import { CLOUD_HOSTS, resolveHost } from './posthog-host.js';
import { PLAN_RATES, parseReplayPolicy, type ReplayPolicy } from './replay-rates.js';
import { Refused, oneOf, onOff, refuse, setting, splitList, wholeNumber, type ValuesOf } from './setting-kinds.js';
import { didYouMean } from './words.js';

export const TOOLSETS = ['recordings', 'projects'] as const;
export type Toolset = (typeof TOOLSETS)[number];

export const PROJECT_ID_PATTERN = /^(\d+|@current)$/;

/** How input schemas are listed: whole, each under 5,000 bytes, or compact only for clients known to cut larger ones (tools/listing-compact.ts). */
export const TOOL_SCHEMA_MODES = ['full', 'compact', 'auto'] as const;

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
  sandboxScale: setting({ env: 'POSTHOG_SANDBOX_SCALE', flag: '--sandbox-scale', flagValue: true, appliesWith: ['--sandbox'], ...onOff(false) }),
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
  triageReplayBudget: setting({ env: 'POSTHOG_TRIAGE_REPLAY_BUDGET', ...wholeNumber(DEFAULT_TRIAGE_REPLAY_BUDGET, 1, 10_000) }),
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
  ...HTTP_SETTINGS,
};

export type SettingValues = ValuesOf<typeof SETTINGS>;

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

function parseToolsets(list: string): Toolset[] {
  const names = splitList(list);
  if (names.length === 0) refuse();
  const unknown = names.filter((n) => !(TOOLSETS as readonly string[]).includes(n));
  if (unknown.length > 0) refuse(`Unknown toolset "${unknown.join('", "')}".${unknown.map((u) => didYouMean(u, TOOLSETS)).filter(Boolean).map((s) => ` ${s}`).join('')}`);
  return [...new Set(names)] as Toolset[];
}
