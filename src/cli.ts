#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createDigestCache } from './cache/index.js';
import type { RedisDigestCache } from './cache/redis.js';
import { ConfigurationError, parseCli, readDespiteError, type Config } from './config.js';
import { USAGE } from './help-text.js';
import { PostHogClient } from './posthog/client.js';
import { keepWasmOnBaselineCompiler } from './posthog/wasm-tier.js';
import { callLimitsFrom, clientOptionsFrom } from './posthog/from-config.js';
import { createMisconfiguredServer, serverFactory, toolCounts, watchSources } from './server.js';
import { serveStdio } from './transports/stdio.js';
import { LoopbackWatch, watchOverHttp } from './watch/index.js';
import { PRODUCT_NAME, VERSION } from './version.js';

/** stderr only: in stdio mode stdout carries nothing but protocol messages. */
const log = (message: string) => process.stderr.write(`${PRODUCT_NAME}: ${message}\n`);

async function main(): Promise<void> {
  let action;
  try {
    action = parseCli(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) {
      log(`invalid configuration: ${String(error)}`);
      process.exit(2);
    }
    return refuseToServe(error);
  }
  if (action.kind === 'help') return void process.stdout.write(USAGE);
  if (action.kind === 'version') return void process.stdout.write(`${VERSION}\n`);
  const config: Config = action.config;
  // Before any WebAssembly (undici's parser, the sandbox's) is compiled: see wasm-tier.ts.
  keepWasmOnBaselineCompiler();
  if (action.kind === 'doctor') return doctor(config);
  for (const warning of config.warnings) log(`warning: ${warning}`);

  let baseUrl = config.baseUrl;
  let apiKey = config.apiKey;
  let closeSandbox = async () => {};
  let defaultProjectId = config.defaultProjectId;
  let demoProject: string | undefined;
  if (config.sandbox) {
    const { startSandbox, DEMO, SCALE } = await import('./sandbox/index.js');
    const sandbox = await startSandbox({ api: config.sandboxApi, scale: config.sandboxScale });
    baseUrl = sandbox.url;
    apiKey = sandbox.apiKey;
    closeSandbox = () => sandbox.close();
    // A first call that works: the recording tools need no project id in the sandbox (at scale, the shop's week).
    if (defaultProjectId === undefined && config.sandboxScale) {
      defaultProjectId = String(SCALE.projectId);
      demoProject = `${defaultProjectId} "${SCALE.projectName}", the sandbox's week at scale; set POSTHOG_PROJECT_ID for another`;
    } else if (defaultProjectId === undefined) {
      const main = DEMO.projects.find((p) => p.id === DEMO.mainProjectId);
      defaultProjectId = String(DEMO.mainProjectId);
      demoProject = `${defaultProjectId} "${main?.name ?? 'demo'}", the sandbox's demo project; set POSTHOG_PROJECT_ID for another`;
    }
  }

  // With a Redis cache, what one replica learns of PostHog's replay throttle every replica knows.
  const cache = createDigestCache(config.cache, log);
  const redis = cache.kind === 'redis' ? (cache as RedisDigestCache) : undefined;
  const sharedLimits = redis?.limitStore();
  const client = new PostHogClient(clientOptionsFrom(config, { baseUrl, apiKey, sharedLimits }));
  const settings = { readOnly: config.readOnly, toolsets: config.toolsets, defaultProjectId, confirmDestructive: config.confirmDestructive, toolSchemas: config.toolSchemas };
  const toolCount = toolCounts(settings);
  const callLimits = callLimitsFrom(config);
  // The replay's watch links (src/watch/): over stdio, a loopback listener started at the first
  // link; over HTTP, served by the HTTP server at MCP_PUBLIC_URL when MCP_WATCH_SECRET is set, and
  // opened by any replica with that secret.
  const watch = config.transport === 'stdio' ? { service: new LoopbackWatch(log), pages: undefined } : watchOverHttp(config.http.watch, watchSources({ client, settings, callLimits, cache }));
  // Stateless HTTP answers in plain JSON: a question to the user could not reach the client.
  const makeServer = serverFactory({ settings, log, interactive: config.transport === 'stdio', callLimits, cache, watch: watch.service });

  const shutdown = async (code: number) => {
    await Promise.allSettled([watch.service.close(), client.close(), closeSandbox(), cache.close()]);
    process.exit(code);
  };

  if (config.transport === 'http') {
    // Loaded only in HTTP mode: stdio start-up, which a client waits for at every launch, skips it.
    const { serveHttp } = await import('./transports/http.js');
    const http = await serveHttp({
      host: config.bindHost,
      port: config.port,
      client,
      createServer: makeServer,
      log,
      watchPages: watch.pages,
      authToken: config.http.authToken,
      allowedHosts: config.http.allowedHosts,
      allowedOrigins: config.http.allowedOrigins,
      maxConcurrency: config.http.maxConcurrency,
      maxConcurrencyPerUser: config.http.maxConcurrencyPerUser,
      maxQueuePerUser: config.http.maxQueuePerUser,
      queueTimeoutMs: config.http.queueTimeoutMs,
      // With a Redis cache, every replica knows which codes and refresh tokens were used.
      oauth: config.http.oauth ? { ...config.http.oauth, store: redis?.oauthStore() } : undefined,
      // And which keys PostHog accepted, so a restart or a new replica does not treat every user as new.
      knownKeys: redis?.knownKeys(),
    });
    log(`${banner(config, toolCount, baseUrl, demoProject)} Streamable HTTP at ${http.url} (${accessSummary(config)}).`);
    if (http.oauthUrl) log(`OAuth (MCP_OAUTH): clients that sign in (Claude.ai, ChatGPT) connect to ${http.oauthUrl}; ${http.url} still takes a key in the header.`);
    onStopSignal(async (signal) => {
      const grace = config.http.shutdownTimeoutMs;
      log(`${signal}: no longer accepting connections; letting ${http.inFlight} running request(s) finish (up to ${grace} ms).`);
      const { abandoned } = await http.shutdown(grace);
      log(abandoned === 0 ? 'all requests finished; stopped.' : `${abandoned} request(s) still running after ${grace} ms were answered with an error and stopped.`);
      await shutdown(0);
    });
    return;
  }

  onStopSignal(() => shutdown(0));
  log(`${banner(config, toolCount, baseUrl, demoProject)} Speaking MCP over stdio.`);
  if (config.sandbox) {
    const { command, args } = howToStartAgain(process.argv[1] ?? 'dist/cli.js');
    const start = [command, ...args, '--sandbox'].join(' ');
    const entry = JSON.stringify({ command, args: [...args, '--sandbox'] });
    const lines = [
      'This is the embedded SANDBOX: demo data on 127.0.0.1, no PostHog account needed, nothing touches a real PostHog. To connect:',
      `  MCP Inspector:  npx @modelcontextprotocol/inspector ${start}`,
      `  MCP client:     ${entry} (see README)`,
    ];
    if (process.stdin.isTTY) lines.push('Waiting for an MCP client on stdin; press Ctrl+C to stop.');
    log(lines.join('\n'));
  }
  await serveStdio(makeServer(client));
  await shutdown(0);
}

/**
 * Settings that cannot be used. `doctor`, HTTP and a person at a terminal get the line and exit 2;
 * an MCP client over stdio would show only "Connection closed", so for it the server starts
 * anyway and answers every call with the error (docs/design.md, "Misconfigured start"; createMisconfiguredServer).
 */
async function refuseToServe(error: ConfigurationError): Promise<void> {
  const refusal = readDespiteError(process.argv.slice(2), process.env);
  if (refusal.command === 'doctor' || refusal.transport !== 'stdio' || process.stdin.isTTY) {
    log(error.message);
    process.exit(2);
  }
  log(`${error.message} (Serving over stdio anyway so the MCP client shows this: every tool call answers with it, and nothing is sent to PostHog.)`);
  onStopSignal(async () => process.exit(0));
  const { command, args } = howToStartAgain(process.argv[1] ?? 'dist/cli.js');
  const doctor = [command, ...args, 'doctor'].map((word) => (/\s/.test(word) ? JSON.stringify(word) : word)).join(' ');
  await serveStdio(createMisconfiguredServer({ error, settings: refusal.tools, doctor }));
  process.exit(0);
}

/**
 * The command that starts this server again, for the sandbox's banner and the doctor a refused
 * setting recommends (the package is not published: from a clone it is node and this path). Started by npx, the path
 * is npx's cache: name what npx was given instead, which npx records in the cache folder's
 * package.json: the package's name when it came from the registry, the tarball's path when it
 * came from `npm pack` (the name alone would fetch a package that is not published).
 */
function howToStartAgain(cli: string): { command: string; args: string[] } {
  const npxDir = /^(.*[\\/]_npx[\\/][^\\/]+)[\\/]/.exec(cli)?.[1];
  if (npxDir === undefined) return { command: 'node', args: [cli] };
  let spec: string | undefined;
  try {
    const manifest = JSON.parse(readFileSync(join(npxDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    spec = manifest.dependencies?.[PRODUCT_NAME];
  } catch {
    spec = undefined;
  }
  const local = spec?.startsWith('file:') ? resolve(npxDir, spec.slice('file:'.length)) : undefined;
  return local ? { command: 'npx', args: ['-y', `--package=${local}`, PRODUCT_NAME] } : { command: 'npx', args: ['-y', PRODUCT_NAME] };
}

/** `doctor`: the checks on stdout (no protocol runs), against the sandbox with --sandbox; exit 1 when one failed. */
async function doctor(config: Config): Promise<void> {
  const { runDoctor } = await import('./doctor.js');
  let target = { baseUrl: config.baseUrl, apiKey: config.apiKey, defaultProjectId: config.defaultProjectId };
  let close = async () => {};
  if (config.sandbox) {
    const { startSandbox, DEMO, SCALE } = await import('./sandbox/index.js');
    const sandbox = await startSandbox({ api: config.sandboxApi, scale: config.sandboxScale });
    target = { baseUrl: sandbox.url, apiKey: sandbox.apiKey, defaultProjectId: config.defaultProjectId ?? String(config.sandboxScale ? SCALE.projectId : DEMO.mainProjectId) };
    close = () => sandbox.close();
  }
  process.stdout.write(`${PRODUCT_NAME} ${VERSION} doctor\n`);
  const code = await runDoctor(config, target, (line) => process.stdout.write(`${line}\n`)).finally(close);
  process.exit(code);
}

/** The first SIGTERM/SIGINT stops gracefully; a second one (an impatient operator) exits at once. */
function onStopSignal(stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`${signal} again: exiting now.`);
      process.exit(1);
    }
    stopping = true;
    void stop(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** Who may call this HTTP server, for the start-up line (never the token or key themselves). */
function accessSummary(config: Config): string {
  if (config.http.authToken !== undefined) return 'callers must send the MCP_AUTH_TOKEN as Bearer';
  if (config.sandbox || config.apiKey !== undefined) return 'no access token: loopback callers only';
  return 'per-user keys: each caller sends its own PostHog key as Bearer';
}

function banner(config: Config, toolCount: { model: number; appOnly: number }, baseUrl: string, demoProject: string | undefined): string {
  const imitating = `${config.sandboxApi === '2024' ? "imitating PostHog's 2024 API" : "imitating today's PostHog Cloud"}${config.sandboxScale ? ', with a week at scale' : ''}`;
  const proxy = config.upstream.proxy;
  const target = config.sandbox ? `the embedded sandbox at ${baseUrl} (demo data, ${imitating}, nothing touches a real PostHog)` : `${baseUrl}${proxy ? ` through the proxy ${proxy.shown} (${proxy.from})` : ''}`;
  const project = demoProject ?? config.defaultProjectId;
  const mode = [
    config.readOnly ? 'read-only' : '',
    project ? `default project ${project}` : '',
    config.confirmDestructive ? '' : 'no confirmation before deletes and changes',
  ]
    .filter(Boolean)
    .join(', ');
  const tools = `${toolCount.model} tools${toolCount.appOnly ? ` (and ${toolCount.appOnly} that only the in-chat player calls)` : ''}`;
  // log() already starts the line with the name.
  return `version ${VERSION}, ${tools} against ${target}${mode ? ` (${mode})` : ''}.`;
}

main().catch((error) => {
  log(`fatal: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
