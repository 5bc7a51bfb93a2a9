#!/usr/bin/env node
import { ConfigurationError, USAGE, parseCli, type Config } from './config.js';
import { PostHogClient } from './posthog/client.js';
import { selectTools, serverFactory } from './server.js';
import { serveStdio } from './transports/stdio.js';
import { PRODUCT_NAME, VERSION } from './version.js';

/** stderr only: in stdio mode stdout carries nothing but protocol messages. */
const log = (message: string) => process.stderr.write(`${PRODUCT_NAME}: ${message}\n`);

async function main(): Promise<void> {
  let action;
  try {
    action = parseCli(process.argv.slice(2), process.env);
  } catch (error) {
    log(error instanceof ConfigurationError ? error.message : `invalid configuration: ${String(error)}`);
    process.exit(2);
  }
  if (action.kind === 'help') return void process.stdout.write(USAGE);
  if (action.kind === 'version') return void process.stdout.write(`${VERSION}\n`);
  const config: Config = action.config;
  for (const warning of config.warnings) log(`warning: ${warning}`);

  let baseUrl = config.baseUrl;
  let apiKey = config.apiKey;
  let closeSandbox = async () => {};
  if (config.sandbox) {
    const { startSandbox } = await import('./sandbox/index.js');
    const sandbox = await startSandbox();
    baseUrl = sandbox.url;
    apiKey = sandbox.apiKey;
    closeSandbox = () => sandbox.close();
  }

  const client = new PostHogClient({ baseUrl, apiKey, timeoutMs: config.timeoutMs });
  const settings = { readOnly: config.readOnly, toolsets: config.toolsets, defaultProjectId: config.defaultProjectId };
  const toolCount = selectTools(settings).length;
  const makeServer = serverFactory({ settings, log });

  const shutdown = async (code: number) => {
    await Promise.allSettled([client.close(), closeSandbox()]);
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));

  if (config.transport === 'http') {
    // Loaded only in HTTP mode: stdio start-up, which a client waits for at every launch, skips it.
    const { serveHttp } = await import('./transports/http.js');
    const http = await serveHttp({
      host: config.bindHost,
      port: config.port,
      client,
      createServer: makeServer,
      log,
    });
    log(`${banner(config, toolCount, baseUrl)} Streamable HTTP at ${http.url}`);
    return;
  }

  log(`${banner(config, toolCount, baseUrl)} Speaking MCP over stdio.`);
  if (config.sandbox) {
    const cli = process.argv[1] ?? 'dist/cli.js';
    const lines = [
      'This is the embedded SANDBOX: demo data on 127.0.0.1, no PostHog account needed, nothing touches a real PostHog. To connect:',
      `  MCP Inspector:  npx @modelcontextprotocol/inspector node ${cli} --sandbox`,
      `  MCP client:     {"command": "node", "args": ["${cli}", "--sandbox"]} (see README)`,
    ];
    if (process.stdin.isTTY) lines.push('Waiting for an MCP client on stdin; press Ctrl+C to stop.');
    log(lines.join('\n'));
  }
  await serveStdio(makeServer(client));
  await shutdown(0);
}

function banner(config: Config, toolCount: number, baseUrl: string): string {
  const target = config.sandbox ? `the embedded sandbox at ${baseUrl} (demo data, nothing touches a real PostHog)` : baseUrl;
  const mode = [config.readOnly ? 'read-only' : '', config.defaultProjectId ? `default project ${config.defaultProjectId}` : ''].filter(Boolean).join(', ');
  return `${PRODUCT_NAME} ${VERSION}: ${toolCount} tools against ${target}${mode ? ` (${mode})` : ''}.`;
}

main().catch((error) => {
  log(`fatal: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
