import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostHogClient } from '../../src/posthog/client.js';
import { UpstreamUnavailableError } from '../../src/errors.js';

/** A loopback upstream that breaks off in the middle of a body, to test what the sandbox cannot. */
describe('failures while reading a body', () => {
  let server: Server;
  let url: string;
  let hits = 0;
  let mode: 'reset-once' | 'stall' | 'trickle' = 'reset-once';
  const trickles = new Set<NodeJS.Timeout>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      if (mode === 'stall') return void res.write('{"results":');
      if (mode === 'trickle') {
        res.write('{"results":');
        const timer = setInterval(() => res.write(' '), 40);
        trickles.add(timer);
        res.on('close', () => clearInterval(timer));
        return;
      }
      if (hits === 1) {
        res.write('{"results":[');
        setTimeout(() => res.socket?.destroy(), 10);
        return;
      }
      const body = '{"results":[],"has_next":false}';
      res.end(body.padEnd(100, ' '));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const timer of trickles) clearInterval(timer);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('a GET whose body is cut off is retried', async () => {
    const client = new PostHogClient({ baseUrl: url, apiKey: 'phx_x', timeoutMs: 2_000, backoffMs: 5 });
    const body = await client.json<{ results: unknown[] }>({ method: 'GET', path: '/api/projects/' });
    expect(body.results).toEqual([]);
    expect(hits).toBe(2);
    await client.close();
  });

  it('a POST whose body is cut off is not retried, and a stalled body is a timeout', async () => {
    hits = 0;
    const client = new PostHogClient({ baseUrl: url, apiKey: 'phx_x', timeoutMs: 300, backoffMs: 5 });
    await expect(client.json({ method: 'POST', path: '/api/projects/', body: { name: 'x' } })).rejects.toBeInstanceOf(UpstreamUnavailableError);
    expect(hits).toBe(1);
    mode = 'stall';
    await expect(client.json({ method: 'GET', path: '/api/projects/' })).rejects.toThrow(/did not answer .* within 300 ms/);
    await client.close();
  });

  it('a body that keeps trickling in is cut at the timeout, counted from the request', async () => {
    mode = 'trickle';
    const client = new PostHogClient({ baseUrl: url, apiKey: 'phx_x', timeoutMs: 300, backoffMs: 5 });
    // Never idle for 300 ms, so only the overall limit can stop it; without one this never ends.
    await expect(client.json({ method: 'GET', path: '/api/projects/' })).rejects.toThrow(/did not answer .* within 300 ms/);
    await client.close();
  });
});
