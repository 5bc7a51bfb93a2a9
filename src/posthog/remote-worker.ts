import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { PROGRESS_BYTES, type FromRemote, type RemoteError, type ToRemote } from './remote-fetch.js';

/**
 * The other end of remote-fetch.ts, in the thread that consumes the bytes (the digest worker):
 * sends each request the main thread allowed, reports the answer's head, and then either feeds a
 * successful body to `sink` as it arrives or sends an error answer's first bytes back. Timing out
 * is the main thread's (its deadline aborts the request here); only connecting has its own bound,
 * as the main client's pool has.
 *
 * Node's own HTTP client, not undici: its parser is native, where undici's is WebAssembly that
 * this thread would load and compile (and V8 recompile once it is hot) just for these requests.
 */
export class RemoteRequests {
  private readonly open = new Map<number, { request: ClientRequest; response?: IncomingMessage }>();
  private readonly agents = new Map<string, Agent>();

  constructor(
    private readonly post: (message: FromRemote, transfer?: ArrayBuffer[]) => void,
    private readonly sink: (chunk: Buffer) => void,
  ) {}

  /** A message from the main thread; false when it is not one of these. */
  receive(message: { t: string }): boolean {
    const m = message as ToRemote;
    if (m.t === 'req') this.send(m);
    else if (m.t === 'pull') this.pull(m.id, m.sink, m.maxBytes);
    else if (m.t === 'abort') this.abort(m.id);
    else return false;
    return true;
  }

  private send(m: Extract<ToRemote, { t: 'req' }>): void {
    const tls = m.origin.startsWith('https:');
    const http = tls ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
    let agent = this.agents.get(m.origin);
    if (!agent) {
      // One digest reads its parts one after another: one kept-alive connection is enough.
      agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      this.agents.set(m.origin, agent);
    }
    const request = http.request(m.origin + m.path, { method: m.method, headers: m.headers, agent });
    this.open.set(m.id, { request });
    request.on('socket', (socket: Socket) => {
      if (!socket.connecting) return;
      // As undici's connect timeout (shared-pool.ts), with its code: the stall breaker counts it.
      const timer = setTimeout(() => request.destroy(Object.assign(new Error('Connect Timeout Error'), { code: 'UND_ERR_CONNECT_TIMEOUT' })), m.connectTimeoutMs);
      socket.once(tls ? 'secureConnect' : 'connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    request.on('response', (response) => {
      const exchange = this.open.get(m.id);
      if (!exchange) return void response.destroy();
      exchange.response = response;
      response.pause();
      this.post({ t: 'head', id: m.id, status: response.statusCode ?? 0, headers: response.headers });
    });
    request.on('error', (error) => this.fail(m.id, error));
    request.end();
  }

  private pull(id: number, sink: boolean, maxBytes: number): void {
    const response = this.open.get(id)?.response;
    if (!response) return;
    let sent = 0;
    response.on('data', (chunk: Buffer) => {
      if (!this.open.has(id)) return;
      if (sink) {
        const before = sent;
        sent += chunk.byteLength;
        this.sink(chunk);
        // The reader there may stop the body by how much was read (the replay's bound).
        if (Math.floor(sent / PROGRESS_BYTES) > Math.floor(before / PROGRESS_BYTES)) this.post({ t: 'progress', id, sunk: sent });
        return;
      }
      const part = new Uint8Array(chunk.subarray(0, maxBytes - sent));
      sent += part.byteLength;
      this.post({ t: 'bytes', id, chunk: part }, [part.buffer as ArrayBuffer]);
      if (sent >= maxBytes) this.finish(id);
    });
    response.on('end', () => this.finish(id, sink ? sent : undefined));
    response.on('error', (error) => this.fail(id, error));
    // A body that closes before its end (a connection cut mid-body) without an 'error'.
    response.on('close', () => {
      if (this.open.has(id) && !response.complete) this.fail(id, Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    });
    response.resume();
  }

  /** `sunk`: the bytes of a success's body consumed here, which the client counts as read. */
  private finish(id: number, sunk?: number): void {
    const exchange = this.open.get(id);
    if (!exchange) return;
    this.open.delete(id);
    this.post(sunk === undefined ? { t: 'done', id } : { t: 'done', id, sunk });
    // The rest of a capped error body is not read.
    if (exchange.response && !exchange.response.complete) exchange.request.destroy();
  }

  private fail(id: number, error: Error & { code?: string }): void {
    const exchange = this.open.get(id);
    if (!exchange) return;
    this.open.delete(id);
    exchange.request.destroy();
    const reported: RemoteError = { name: error.name, message: error.message, code: typeof error.code === 'string' ? error.code : undefined };
    this.post({ t: 'fail', id, error: reported });
  }

  private abort(id: number): void {
    const exchange = this.open.get(id);
    if (!exchange) return;
    this.open.delete(id);
    exchange.request.destroy();
  }
}
