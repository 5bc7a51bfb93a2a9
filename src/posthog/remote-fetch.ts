import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';

/**
 * A request whose bytes another thread reads: the digest worker fetches a recording's blocks
 * itself, so hundreds of MB never pass through the main thread (whose young generation and
 * socket buffers they would fill: bench/README.md, "Peak memory"). The main thread stays the
 * gatekeeper: client.ts decides whether and when a request goes (stall breaker, replay
 * throttle, call budget, the recording's meter, the per-key gate, the deadline), reads the
 * answer's status and headers, learns from a 429 and reads an error answer's body; only a
 * successful body stays in the worker, which feeds it to the digest as it arrives
 * (remote-worker.ts).
 *
 * The request carries the key in its headers across a MessagePort within this process; it is
 * never logged or shown, as with any request.
 */

export type ToRemote =
  | { t: 'req'; id: number; origin: string; method: string; path: string; headers: Record<string, string>; connectTimeoutMs: number }
  /** Start reading the body: into the remote side's sink, or (an error answer) as bytes sent back, at most `maxBytes`. */
  | { t: 'pull'; id: number; sink: boolean; maxBytes: number }
  | { t: 'abort'; id: number };

export type FromRemote =
  | { t: 'head'; id: number; status: number; headers: IncomingHttpHeaders }
  | { t: 'bytes'; id: number; chunk: Uint8Array }
  /** A success's body, consumed there: how many bytes so far (every PROGRESS_BYTES), so a reader here can stop it by size. */
  | { t: 'progress'; id: number; sunk: number }
  | { t: 'done'; id: number; sunk?: number }
  | { t: 'fail'; id: number; error: RemoteError };

export interface RemoteError {
  name: string;
  message: string;
  code?: string | undefined;
}

export interface RemoteRequest {
  origin: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  connectTimeoutMs: number;
}

/** An answer's head; its body yields the bytes of an error answer, and of a success nothing: the remote side consumed them. */
export interface RemoteAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/** How a request is sent from another thread (RequestOptions.via). */
export interface RemoteDispatch {
  request(request: RemoteRequest): Promise<RemoteAnswer>;
}

/** How often the remote side says how much of a success's body it consumed. */
export const PROGRESS_BYTES = 1024 * 1024;

/** The most of an error answer sent back (failure.ts reads the first 64 KiB of one). */
const ERROR_BODY_BYTES = 64 * 1024;

function fromRemote(error: RemoteError): Error {
  return Object.assign(new Error(error.message), { name: error.name, code: error.code });
}

function reasonOf(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The request was aborted', 'AbortError');
}

interface Exchange {
  head?: { resolve: (answer: RemoteAnswer) => void; reject: (error: Error) => void };
  body?: RemoteBody;
  unlisten: () => void;
}

/** The main thread's end: sends requests over `post` and is handed the other end's messages (receive). */
export class RemoteFetcher implements RemoteDispatch {
  private nextId = 1;
  private readonly exchanges = new Map<number, Exchange>();

  constructor(private readonly post: (message: ToRemote) => void) {}

  request(request: RemoteRequest): Promise<RemoteAnswer> {
    const { signal } = request;
    if (signal.aborted) return Promise.reject(reasonOf(signal));
    const id = this.nextId++;
    return new Promise<RemoteAnswer>((resolve, reject) => {
      // As undici does: an abort before the head rejects with the signal's reason, after it fails the body.
      const onAbort = () => {
        const exchange = this.exchanges.get(id);
        if (!exchange) return;
        if (exchange.body) exchange.body.destroy(reasonOf(signal));
        else {
          this.end(id);
          this.post({ t: 'abort', id });
          reject(reasonOf(signal));
        }
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.exchanges.set(id, { head: { resolve, reject }, unlisten: () => signal.removeEventListener('abort', onAbort) });
      this.post({ t: 'req', id, origin: request.origin, method: request.method, path: request.path, headers: request.headers, connectTimeoutMs: request.connectTimeoutMs });
    });
  }

  /** A message from the other end; false when it is not one of these. */
  receive(message: { t: string }): boolean {
    const m = message as FromRemote;
    if (m.t !== 'head' && m.t !== 'bytes' && m.t !== 'progress' && m.t !== 'done' && m.t !== 'fail') return false;
    const exchange = this.exchanges.get(m.id);
    if (!exchange) return true; // aborted here meanwhile
    switch (m.t) {
      case 'head': {
        // A success's body is consumed there; an error answer's is sent here to be read.
        exchange.body = new RemoteBody(m.status < 400, () => this.post({ t: 'pull', id: m.id, sink: m.status < 400, maxBytes: ERROR_BODY_BYTES }), () => {
          if (this.end(m.id)) this.post({ t: 'abort', id: m.id });
        });
        exchange.head?.resolve({ statusCode: m.status, headers: m.headers, body: exchange.body });
        exchange.head = undefined;
        return true;
      }
      case 'bytes':
        exchange.body?.push(Buffer.from(m.chunk.buffer, m.chunk.byteOffset, m.chunk.byteLength));
        return true;
      case 'progress':
        if (exchange.body) exchange.body.sunkBytes = m.sunk;
        return true;
      case 'done':
        this.end(m.id);
        if (exchange.body && m.sunk !== undefined) exchange.body.sunkBytes = m.sunk;
        exchange.body?.push(null);
        return true;
      case 'fail':
        this.end(m.id);
        this.failOne(exchange, fromRemote(m.error));
        return true;
    }
  }

  /** The other end is gone (the worker stopped): every open exchange fails with `error`. */
  failAll(error: Error): void {
    for (const [id, exchange] of [...this.exchanges]) {
      this.end(id);
      this.failOne(exchange, error);
    }
  }

  private failOne(exchange: Exchange, error: Error): void {
    if (exchange.head) exchange.head.reject(error);
    else exchange.body?.destroy(error);
  }

  /** Forgets an exchange; true if it was still open. */
  private end(id: number): boolean {
    const exchange = this.exchanges.get(id);
    if (!exchange) return false;
    exchange.unlisten();
    this.exchanges.delete(id);
    return true;
  }
}

/** The body as the client reads it: asks for the bytes on the first read; destroying it aborts the request there. */
class RemoteBody extends Readable {
  private pulled = false;
  /** A success's body, consumed there: how many bytes of it so far (all of them once it ended). */
  sunkBytes = 0;

  constructor(
    readonly consumedThere: boolean,
    private readonly pull: () => void,
    private readonly abort: () => void,
  ) {
    super();
  }

  override _read(): void {
    if (this.pulled) return;
    this.pulled = true;
    this.pull();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.abort();
    callback(error);
  }
}
