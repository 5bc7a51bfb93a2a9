// A stand-in for the operations (src/posthog/operations/): a test gives a tool the typed values
// or errors it wants to reach an edge case with, and talks to the server as a client would (the
// SDK Client over an in-memory transport). No upstream: an operation the test did not give
// fails the call, naming it, so a test also says which operations a tool may use.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TOOLSETS } from '../../src/settings.js';
import { PostHogClient } from '../../src/posthog/client.js';
import type { PostHogOperations } from '../../src/posthog/operations/index.js';
import { createServer } from '../../src/server.js';

type Family = 'recordings' | 'snapshots' | 'projects' | 'query' | 'sessions' | 'definitions' | 'population' | 'segments';
const FAMILIES: readonly Family[] = ['recordings', 'snapshots', 'projects', 'query', 'sessions', 'definitions', 'population', 'segments'];

/** The operations a test gives, by family; and what else of the operations it sets. */
export type StandInParts = { [F in Family]?: Partial<PostHogOperations[F]> } & Partial<Pick<PostHogOperations, 'baseUrl' | 'hasApiKey' | 'keyIdentity' | 'pacesReplay'>>;

export interface StandInServer {
  /** Every operation called, in order ("projects.get"), given or not. */
  calls: string[];
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export function standInOperations(parts: StandInParts, calls: string[]): PostHogOperations {
  const family = (name: Family) =>
    new Proxy({} as Record<string, unknown>, {
      get: (_target, op) => {
        if (typeof op !== 'string') return undefined;
        const given = (parts[name] as Record<string, ((...args: unknown[]) => unknown) | undefined> | undefined)?.[op];
        return (...args: unknown[]) => {
          calls.push(`${name}.${op}`);
          if (!given) throw new Error(`the stand-in was not given ${name}.${op}`);
          return given(...args);
        };
      },
    });
  const families = Object.fromEntries(FAMILIES.map((name) => [name, family(name)])) as unknown as Pick<PostHogOperations, Family>;
  return {
    ...families,
    baseUrl: parts.baseUrl ?? 'http://127.0.0.1:9',
    hasApiKey: parts.hasApiKey ?? true,
    keyIdentity: parts.keyIdentity ?? 'stand-in',
    pacesReplay: parts.pacesReplay ?? false,
    // Nothing paces the stand-in's replay requests.
    replayRoom: () => Infinity,
    budget: undefined,
    redact: (text) => text,
    redactValue: (value) => value,
  };
}

/** A server whose every tool call gets the stand-in operations, and a client connected to it. */
export async function startStandIn(parts: StandInParts, settings: { defaultProjectId?: string } = {}): Promise<StandInServer> {
  const calls: string[] = [];
  // The server's own client sends nothing here (its key only redacts); the calls get the stand-in.
  const client = new PostHogClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'phx_standin_0000000000000000000000000000000000', timeoutMs: 1_000 });
  const server = createServer({
    client,
    settings: { readOnly: false, toolsets: [...TOOLSETS], defaultProjectId: settings.defaultProjectId },
    operations: () => standInOperations(parts, calls),
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const mcp = new Client({ name: 'stand-in-test', version: '1.0.0' });
  await server.connect(serverTransport);
  await mcp.connect(clientTransport);
  return {
    calls,
    call: async (name, args = {}) => (await mcp.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await mcp.close();
      await server.close();
      await client.close();
    },
  };
}
