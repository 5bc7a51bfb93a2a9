import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { afterEach } from 'vitest';
import type { DigestCache } from '../src/cache/index.js';
import { parseCli, type Config } from '../src/config.js';
import { TOOLSETS, type Toolset } from '../src/settings.js';
import type { CallLimits } from '../src/call-limits.js';
import { PostHogClient, type ClientOptions } from '../src/posthog/client.js';
import { callLimitsFrom, clientOptionsFrom } from '../src/posthog/from-config.js';
import { endpointMemory } from '../src/posthog/hogql.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/sandbox/index.js';
import { createServer } from '../src/server.js';
import type { WatchService } from '../src/watch/index.js';

export interface HarnessOptions {
  sandbox?: SandboxOptions;
  readOnly?: boolean;
  toolsets?: Toolset[];
  defaultProjectId?: string;
  /** Overrides of the defaults for the upstream client, for tests about them (e.g. a short timeout). */
  client?: Partial<ClientOptions>;
  /** What one tool call may spend (default: what the CLI sets with only key and host). */
  callLimits?: CallLimits;
  /** What the MCP client declares at initialize (e.g. the MCP Apps extension). */
  clientCapabilities?: ClientCapabilities;
  /** The digest cache the server uses (default: none, every digest made afresh). */
  cache?: DigestCache;
  /** The name the MCP client gives at initialize (default test-client). */
  clientName?: string;
  /** MCP_TOOL_SCHEMAS (default: what the CLI sets, auto). */
  toolSchemas?: Config['toolSchemas'];
  /** Where the replay's watch links are made and served (default: none); closed with the harness. */
  watch?: WatchService;
}

export interface Harness {
  sandbox: Sandbox;
  client: Client;
  posthog: PostHogClient;
  stderr: string[];
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** The configuration a user gets who sets only the key and the host (the CLI's own parser). */
export function defaultConfig(host: string, apiKey: string): Config {
  const action = parseCli([], { POSTHOG_PERSONAL_API_KEY: apiKey, POSTHOG_HOST: host });
  if (action.kind !== 'run') throw new Error('parseCli did not give a configuration');
  return action.config;
}

/**
 * A real MCP Client talking to our server over an in-memory transport, upstream = the sandbox
 * over HTTP. The client and the call limits are what the CLI makes of only the key and the host
 * (POSTHOG_PERSONAL_API_KEY, POSTHOG_HOST): a test changes them only when it is about them.
 */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const sandbox = await startSandbox(options.sandbox);
  const config = defaultConfig(sandbox.url, sandbox.apiKey);
  const posthog = new PostHogClient({ ...clientOptionsFrom(config, { baseUrl: config.baseUrl, apiKey: sandbox.apiKey }), ...options.client });
  const stderr: string[] = [];
  const server = createServer({
    client: posthog,
    settings: { readOnly: options.readOnly ?? false, toolsets: options.toolsets ?? [...TOOLSETS], defaultProjectId: options.defaultProjectId, toolSchemas: options.toolSchemas ?? config.toolSchemas },
    log: (message) => stderr.push(message),
    callLimits: options.callLimits ?? callLimitsFrom(config),
    ...(options.cache ? { cache: options.cache } : {}),
    ...(options.watch ? { watch: options.watch } : {}),
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: options.clientName ?? 'test-client', version: '1.0.0' }, options.clientCapabilities ? { capabilities: options.clientCapabilities } : undefined);
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  return {
    sandbox,
    client,
    posthog,
    stderr,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
      await options.watch?.close();
      await posthog.close();
      await sandbox.close();
      // What the server learnt about this upstream dies with it: a later sandbox may get its port.
      endpointMemory.forget(sandbox.url);
    },
  };
}

/**
 * For a test file whose tests each open harnesses of their own: `open` starts one with the
 * file's `defaults` under the test's own options, and every harness a test opened is closed
 * after that test.
 */
export function harnessesPerTest(defaults: HarnessOptions = {}): (options?: HarnessOptions) => Promise<Harness> {
  const opened: Harness[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((h) => h.close()));
  });
  return async (options = {}) => {
    const h = await startHarness({ ...defaults, ...options });
    opened.push(h);
    return h;
  };
}

export function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** The API requests the sandbox received: tests read which calls were made, and with which key. */
export function apiRequests(sandbox: Sandbox) {
  return sandbox.requests.filter((r) => r.path.startsWith('/api/'));
}
