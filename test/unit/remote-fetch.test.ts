import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MessageChannel } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteFetcher, type FromRemote, type ToRemote } from '../../src/posthog/remote-fetch.js';
import { RemoteRequests } from '../../src/posthog/remote-worker.js';

// The two ends of a request whose body another thread reads (the digest worker's block
// requests), joined by a MessageChannel as the worker's port joins them, against a real HTTP
// server on loopback. The built server's end-to-end tests are in summary-worker-fetch.test.ts.

const ERROR_BODY = 'e'.repeat(200 * 1024);

describe('remote fetch: one end sends and reads, the other decides', () => {
  let server: Server;
  let origin: string;
  const stalled = new Set<ServerResponse>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/ok') {
        res.writeHead(200, { 'content-type': 'application/jsonl', 'x-seen-key': req.headers.authorization === 'Bearer k' ? 'yes' : 'no' });
        res.write('line one\n');
        setTimeout(() => res.end('line two\n'), 20);
      } else if (req.url === '/error') {
        res.writeHead(500, { 'content-type': 'text/plain', 'retry-after': '7' });
        res.end(ERROR_BODY);
      } else if (req.url === '/stall-head') {
        stalled.add(res);
      } else if (req.url === '/stall-body') {
        res.writeHead(200);
        res.write('part\n');
        stalled.add(res);
      } else if (req.url === '/big-stall') {
        res.writeHead(200);
        res.write('x'.repeat(1_500_000));
        stalled.add(res);
      } else if (req.url === '/cut') {
        res.writeHead(200, { 'content-length': '1000' });
        res.write('only some of it\n');
        setTimeout(() => res.socket?.destroy(), 20);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const res of stalled) res.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Both ends over a real MessagePort; `sunk` collects what the far end consumed. */
  function ends() {
    const { port1, port2 } = new MessageChannel();
    const sunk: string[] = [];
    const sent: ToRemote[] = [];
    const fetcher = new RemoteFetcher((m) => {
      sent.push(m);
      port1.postMessage(m);
    });
    const far = new RemoteRequests((m: FromRemote, transfer) => port2.postMessage(m, transfer ?? []), (chunk) => sunk.push(chunk.toString()));
    port1.on('message', (m) => fetcher.receive(m));
    port2.on('message', (m) => far.receive(m));
    const close = () => {
      port1.close();
      port2.close();
    };
    return { fetcher, sunk, sent, close };
  }
  const request = (path: string, signal = new AbortController().signal) => ({ origin, method: 'GET', path, headers: { authorization: 'Bearer k' }, signal, connectTimeoutMs: 2_000 });
  const drain = async (body: AsyncIterable<Buffer>) => {
    const parts: string[] = [];
    for await (const chunk of body) parts.push(chunk.toString());
    return parts.join('');
  };

  it('a success: the head comes back, the body goes to the far end, and the body here ends empty once it is all read there', async () => {
    const { fetcher, sunk, close } = ends();
    try {
      const answer = await fetcher.request(request('/ok'));
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['x-seen-key']).toBe('yes');
      // Nothing is read there before this end asks (it may still refuse the answer).
      expect(sunk).toEqual([]);
      expect(await drain(answer.body)).toBe('');
      expect(sunk.join('')).toBe('line one\nline two\n');
    } finally {
      close();
    }
  });

  it('an error answer: its first 64 KiB come back to be read here, and nothing reaches the far end', async () => {
    const { fetcher, sunk, close } = ends();
    try {
      const answer = await fetcher.request(request('/error'));
      expect(answer.statusCode).toBe(500);
      expect(answer.headers['retry-after']).toBe('7');
      const text = await drain(answer.body);
      expect(text.length).toBe(64 * 1024);
      expect(sunk).toEqual([]);
    } finally {
      close();
    }
  });

  it('an abort before the head rejects with the abort reason and stops the request there', async () => {
    const { fetcher, sent, close } = ends();
    try {
      const controller = new AbortController();
      const answer = fetcher.request(request('/stall-head', controller.signal));
      setTimeout(() => controller.abort(new DOMException('No complete answer within 50 ms', 'TimeoutError')), 50);
      await expect(answer).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(sent.map((m) => m.t)).toEqual(['req', 'abort']);
    } finally {
      close();
    }
  });

  it('an abort mid-body fails the body with the abort reason and stops the reading there', async () => {
    const { fetcher, sunk, sent, close } = ends();
    try {
      const controller = new AbortController();
      const answer = await fetcher.request(request('/stall-body', controller.signal));
      const read = drain(answer.body);
      for (let i = 0; i < 200 && sunk.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
      controller.abort(new DOMException('No complete answer within 50 ms', 'TimeoutError'));
      await expect(read).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(sunk).toEqual(['part\n']);
      expect(sent.map((m) => m.t)).toEqual(['req', 'pull', 'abort']);
    } finally {
      close();
    }
  });

  it("a success's body still being read there: this end learns how much was read (every MiB), so it can stop it by size", async () => {
    const { fetcher, sunk, close } = ends();
    try {
      const answer = await fetcher.request(request('/big-stall'));
      const body = answer.body as typeof answer.body & { sunkBytes: number };
      const reading = drain(body).catch(() => '');
      for (let i = 0; i < 400 && body.sunkBytes === 0; i++) await new Promise((r) => setTimeout(r, 5));
      expect(body.sunkBytes).toBeGreaterThanOrEqual(1024 * 1024);
      expect(body.sunkBytes).toBeLessThanOrEqual(sunk.join('').length);
      body.destroy();
      await reading;
    } finally {
      close();
    }
  });

  it('a body cut off before its length fails with a socket error here, as undici reports one', async () => {
    const { fetcher, close } = ends();
    try {
      const answer = await fetcher.request(request('/cut'));
      await expect(drain(answer.body)).rejects.toMatchObject({ code: expect.stringMatching(/^(ECONNRESET|UND_ERR_SOCKET)$/) });
    } finally {
      close();
    }
  });

  it('a refused connection rejects with its code, so the client may send it again', async () => {
    const { fetcher, close } = ends();
    try {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      await expect(fetcher.request({ ...request('/ok'), origin: `http://127.0.0.1:${port}` })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      close();
    }
  });

  it('when the far end is gone, every open request fails with the reason', async () => {
    const { fetcher, close } = ends();
    try {
      const answer = await fetcher.request(request('/stall-body'));
      const reading = drain(answer.body);
      // Not sent yet (one connection per origin, which the body holds): still waiting for its head.
      const waiting = fetcher.request(request('/stall-head'));
      fetcher.failAll(new Error('the digest worker stopped unexpectedly'));
      await expect(waiting).rejects.toThrow('the digest worker stopped unexpectedly');
      await expect(reading).rejects.toThrow('the digest worker stopped unexpectedly');
    } finally {
      close();
    }
  });
});
