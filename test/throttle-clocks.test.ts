import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { PostHogClient } from '../src/posthog/client.js';
import { callLimitsFrom, clientOptionsFrom } from '../src/posthog/from-config.js';
import type { SharedLimitStore } from '../src/posthog/replay-limiter.js';
import { DEMO, type Sandbox } from '../src/sandbox/index.js';
import { createServer } from '../src/server.js';
import { apiRequests, defaultConfig, startHarness, text, type Harness } from './harness.js';

// Issue 33, findings 3 and 4: what the client learns of PostHog's replay throttle is kept by host
// and key hash (PostHog counts per key), on a clock that cannot be fooled: local waits on the
// monotonic clock, and what replicas share through the store as durations (its TTL), never as a
// wall-clock instant that another replica compares with its own clock.

const P = String(DEMO.mainProjectId);
const LIST = `/api/projects/${P}/session_recordings`;
const THROTTLED = { type: 'throttled_error', code: 'throttled', detail: 'Request was throttled. Expected available in 20 seconds.', attr: null };
const realNow = Date.now;

/** Shifts this process's wall clock (Date.now) by `ms`, as an NTP step or a wrong clock would. */
function shiftWallClock(ms: number): void {
  Date.now = () => realNow() + ms;
}

/**
 * A store as Redis is to the replicas: entries expire after their TTL, counted down by the store.
 * get() returns the stored text with the entry's remaining TTL.
 */
function memoryStore(): SharedLimitStore {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  return {
    get: async (id) => {
      const entry = entries.get(id);
      const ttlMs = entry ? entry.expiresAt - performance.now() : 0;
      if (!entry || ttlMs <= 0) return undefined;
      return { value: entry.value, ttlMs };
    },
    set: async (id, value, ttlMs) => void entries.set(id, { value, expiresAt: performance.now() + ttlMs }),
  };
}

/** Another replica on the same upstream and key, sharing `store`, as the CLI sets it up with only key and host. */
async function replica(sandbox: Sandbox, store: SharedLimitStore): Promise<{ call: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>; close: () => Promise<void> }> {
  const config = defaultConfig(sandbox.url, sandbox.apiKey);
  const posthog = new PostHogClient(clientOptionsFrom(config, { baseUrl: config.baseUrl, apiKey: sandbox.apiKey, sharedLimits: store }));
  const server = createServer({ client: posthog, settings: { readOnly: config.readOnly, toolsets: config.toolsets, defaultProjectId: config.defaultProjectId, confirmDestructive: config.confirmDestructive, toolSchemas: config.toolSchemas }, callLimits: callLimitsFrom(config) });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'replica-two', version: '1.0.0' });
  await server.connect(b);
  await client.connect(a);
  return {
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
      await posthog.close();
    },
  };
}

const listRequests = (sandbox: Sandbox) => apiRequests(sandbox).filter((r) => r.path.replace(/\/$/, '') === LIST);
const retrySeconds = (r: CallToolResult) => Number(/retry in about (\d+) seconds/i.exec(text(r))?.[1] ?? Number.NaN);

const open: Array<{ close: () => Promise<void> }> = [];
afterEach(async () => {
  Date.now = realNow;
  for (const h of open.splice(0).reverse()) await h.close();
});

async function harness(store?: SharedLimitStore): Promise<Harness> {
  const h = await startHarness(store ? { client: { sharedLimits: store } } : {});
  open.push(h);
  return h;
}

describe('clocks that cannot be fooled', () => {
  it("a wall clock stepped back an hour does not keep a throttled key refused for an hour", async () => {
    const h = await harness();
    // PostHog refuses one list request: the key is blocked for the 20 s it names.
    h.sandbox.injectFault({ path: LIST, status: 429, body: THROTTLED });
    const first = await h.call('session-recordings-list', { project_id: P });
    expect(first.isError).toBe(true);
    expect(retrySeconds(first)).toBeLessThanOrEqual(20);
    // The machine's clock is stepped back an hour (NTP, a VM resumed, a wrong clock fixed).
    shiftWallClock(-3_600_000);
    const second = await h.call('session-recordings-list', { project_id: P });
    expect(second.isError).toBe(true);
    // Still what PostHog said, not an hour more.
    expect(retrySeconds(second)).toBeLessThanOrEqual(20);
  });

  it('a block shared with another replica is a duration: a replica whose clock runs an hour ahead does not block the others for an hour', async () => {
    const store = memoryStore();
    // This replica's wall clock is an hour ahead of the other's.
    shiftWallClock(3_600_000);
    const h = await harness(store);
    h.sandbox.injectFault({ path: LIST, status: 429, body: THROTTLED });
    expect((await h.call('session-recordings-list', { project_id: P })).isError).toBe(true);
    Date.now = realNow;
    const other = await replica(h.sandbox, store);
    open.push(other);
    const sent = listRequests(h.sandbox).length;
    const r = await other.call('session-recordings-list', { project_id: P });
    // The other replica knows the key is blocked (it sends nothing), for as long as PostHog said.
    expect(r.isError).toBe(true);
    expect(listRequests(h.sandbox)).toHaveLength(sent);
    expect(retrySeconds(r)).toBeLessThanOrEqual(20);
  });
});

describe('learned throttles are per host and key', () => {
  it('a 429 for a key on one PostHog host does not hold back the same key on another host sharing the store', async () => {
    const store = memoryStore();
    const one = await harness(store);
    const two = await harness(store);
    // Both sandboxes take the same key.
    expect(two.sandbox.apiKey).toBe(one.sandbox.apiKey);
    one.sandbox.injectFault({ path: LIST, status: 429, body: THROTTLED });
    expect((await one.call('session-recordings-list', { project_id: P })).isError).toBe(true);
    const r = await two.call('session-recordings-list', { project_id: P });
    expect(r.isError, text(r)).toBeFalsy();
    expect(listRequests(two.sandbox)).toHaveLength(1);
  });
});
