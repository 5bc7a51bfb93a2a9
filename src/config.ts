import { parseArgs } from 'node:util';
import { z } from 'zod';

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
  --read-only               register only read-only tools (env POSTHOG_READ_ONLY=1)
  --toolsets LIST           comma list of: ${TOOLSETS.join(', ')} (env POSTHOG_TOOLSETS)
  --transport stdio|http    default stdio; http serves Streamable HTTP at /mcp
  --port N                  HTTP port (default 3000)
  --host ADDR               HTTP bind address (default 127.0.0.1)
  --help, --version

Environment:
  POSTHOG_PERSONAL_API_KEY  personal API key (required unless --sandbox)
  POSTHOG_HOST              us | eu | https://your-posthog.example.com (default us)
  POSTHOG_PROJECT_ID        default project for recording tools (a number or @current)
  POSTHOG_TIMEOUT_MS        upstream request timeout in ms (default 30000)
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
        'read-only': { type: 'boolean' },
        toolsets: { type: 'string' },
        transport: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
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
  const sandbox = flags.sandbox === true;
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
      'POSTHOG_PERSONAL_API_KEY is not set. Create a personal API key in PostHog (Settings → Personal API keys, scopes session_recording and project) or run with --sandbox to try the demo data.',
    );
  }

  const baseUrl = sandbox ? 'http://127.0.0.1' : resolveHost(nonEmpty(env.POSTHOG_HOST), warnings);

  const defaultProjectId = nonEmpty(env.POSTHOG_PROJECT_ID);
  if (defaultProjectId !== undefined && !PROJECT_ID_PATTERN.test(defaultProjectId)) {
    throw new ConfigurationError(`POSTHOG_PROJECT_ID must be a project number or "@current", got "${defaultProjectId}".`);
  }

  const toolsetList = flags.toolsets ?? nonEmpty(env.POSTHOG_TOOLSETS);
  const toolsets = toolsetList === undefined ? [...TOOLSETS] : parseToolsets(toolsetList);

  const timeoutMs = parseInteger(env.POSTHOG_TIMEOUT_MS, 'POSTHOG_TIMEOUT_MS', 30_000, 100, 600_000);
  const port = parseInteger(flags.port, '--port', 3000, 0, 65_535);

  const config = configSchema.parse({
    apiKey,
    baseUrl,
    defaultProjectId,
    readOnly: flags['read-only'] === true || isTruthy(env.POSTHOG_READ_ONLY),
    toolsets,
    timeoutMs,
    transport,
    port,
    bindHost: flags.host ?? '127.0.0.1',
    sandbox,
    warnings,
  });
  return { kind: 'run', config };
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
  const names = list
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
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

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function isTruthy(value: string | undefined): boolean {
  return ['1', 'true', 'yes'].includes((value ?? '').trim().toLowerCase());
}
