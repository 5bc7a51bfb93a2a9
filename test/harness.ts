import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { DigestCache } from '../src/cache/index.js';
import { TOOLSETS, type Toolset } from '../src/config.js';
import type { CallLimits } from '../src/posthog/budget.js';
import { PostHogClient, type ClientOptions } from '../src/posthog/client.js';
import { endpointMemory } from '../src/posthog/hogql.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/sandbox/index.js';
import { createServer } from '../src/server.js';

export interface HarnessOptions {
  sandbox?: SandboxOptions;
  readOnly?: boolean;
  toolsets?: Toolset[];
  defaultProjectId?: string;
  /** Overrides for the upstream client (e.g. a short timeout, fast backoff). */
  client?: Partial<ClientOptions>;
  /** What one tool call may spend (default: the server's defaults). */
  callLimits?: CallLimits;
  /** What the MCP client declares at initialize (e.g. the MCP Apps extension). */
  clientCapabilities?: ClientCapabilities;
  /** The digest cache the server uses (default: none, every digest made afresh). */
  cache?: DigestCache;
}

export interface Harness {
  sandbox: Sandbox;
  client: Client;
  posthog: PostHogClient;
  stderr: string[];
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** A real MCP Client talking to our server over an in-memory transport, upstream = the sandbox over HTTP. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const sandbox = await startSandbox(options.sandbox);
  const posthog = new PostHogClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey, timeoutMs: 5_000, backoffMs: 20, ...options.client });
  const stderr: string[] = [];
  const server = createServer({
    client: posthog,
    settings: { readOnly: options.readOnly ?? false, toolsets: options.toolsets ?? [...TOOLSETS], defaultProjectId: options.defaultProjectId },
    log: (message) => stderr.push(message),
    ...(options.callLimits ? { callLimits: options.callLimits } : {}),
    ...(options.cache ? { cache: options.cache } : {}),
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test-client', version: '1.0.0' }, options.clientCapabilities ? { capabilities: options.clientCapabilities } : undefined);
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
      await posthog.close();
      await sandbox.close();
      // What the server learnt about this upstream dies with it: a later sandbox may get its port.
      endpointMemory.forget(sandbox.url);
    },
  };
}

export function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** The API requests the sandbox received: tests read which calls were made, and with which key. */
export function apiRequests(sandbox: Sandbox) {
  return sandbox.requests.filter((r) => r.path.startsWith('/api/'));
}
