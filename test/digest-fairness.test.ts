import { availableParallelism } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { PostHogClient } from '../src/posthog/client.js';
import { DEMO, startSandbox } from '../src/sandbox/index.js';
import { serverFactory } from '../src/server.js';
import { serveHttp } from '../src/transports/http.js';

// Issue 33, finding 2: the digest slots were one first-come line for everyone, held while blocks
// stream in, so one user's slow recordings made another user's quick summary wait. They are now
// shared between users as call slots are. Server defaults; two users with their own keys.

const settings = { readOnly: false, toolsets: ['recordings' as const, 'projects' as const], defaultProjectId: String(DEMO.mainProjectId) };
const SLOW = 'phx_slow_digest_user_000000000';
const QUICK = 'phx_quick_digest_user_11111111';
const R = DEMO.recordingIds;

async function connect(url: string, bearer: string): Promise<Client> {
  const client = new Client({ name: 'digest-fairness-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  return client;
}

describe('digest slots in HTTP mode with per-user keys', () => {
  it("one user's slow summaries, more than the machine has cores, do not hold up another user's quick summary", async () => {
    const sandbox = await startSandbox({ acceptAnyKey: true });
    const upstream = new PostHogClient({ baseUrl: sandbox.url, timeoutMs: 20_000 });
    const http = await serveHttp({ host: '127.0.0.1', port: 0, client: upstream, createServer: serverFactory({ settings }), log: () => {} });
    const slow = await connect(http.url, SLOW);
    const quick = await connect(http.url, QUICK);
    const slowCalls: Array<Promise<unknown>> = [];
    try {
      // Every block request of the slow user takes 2.5 s to answer (the listing answers at once).
      sandbox.setHostile({ kind: 'slow-key', key: SLOW, delayMs: 2_500, path: /\/snapshots\/?$/ });
      const order: string[] = [];
      const busy = Math.min(4, availableParallelism()) + 2;
      const ids = [R.checkoutFailure, R.longBrowse, R.compressedMobile, R.legacyBlob, R.longTermStorage, R.checkoutFailure];
      for (const id of ids.slice(0, busy)) {
        slowCalls.push(slow.callTool({ name: 'session-recording-summary', arguments: { id } }).then(() => order.push('slow')));
      }
      // Wait until the slow user's digests hold their slots (their first block requests reached PostHog).
      const blockRequests = () => sandbox.requests.filter((r) => r.authorization === `Bearer ${SLOW}` && /\/snapshots\/?$/.test(r.path) && r.query.source !== undefined).length;
      for (let i = 0; i < 500 && blockRequests() < Math.min(4, availableParallelism()); i++) await new Promise((r) => setTimeout(r, 10));
      expect(blockRequests()).toBeGreaterThanOrEqual(Math.min(4, availableParallelism()));
      const r = (await quick.callTool({ name: 'session-recording-summary', arguments: { id: R.checkoutFailure } })) as CallToolResult;
      order.push('quick');
      expect(r.isError).toBeFalsy();
      // Answered; the slow user's later block requests need not take 2.5 s each any more.
      sandbox.setHostile(undefined);
      await Promise.all(slowCalls);
      // The quick user's summary came before any of the slow user's.
      expect(order[0]).toBe('quick');
    } finally {
      await Promise.allSettled(slowCalls);
      await slow.close();
      await quick.close();
      await http.close();
      await upstream.close();
      await sandbox.close();
    }
  }, 90_000);
});
