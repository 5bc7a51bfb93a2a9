// A hostile upstream, for tests of what the server does when PostHog (or whatever answers in
// its place) misbehaves: redirects to a login page, 204/304 where JSON belongs, HTML with a 200,
// endless and enormous bodies, wrong types in every field, the key echoed back in disguise,
// one key's requests made slow, recordings with thousands of sources or stalling ones.
// Tests switch it on with sandbox.setHostile(mode) and off with setHostile(undefined).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Reply } from './http.js';

export type HostileMode = (
  | { kind: 'redirect'; status?: 301 | 302 | 303 | 307 | 308; location?: string }
  | { kind: 'no-content'; status: 204 | 205 | 304 }
  | { kind: 'html' }
  /** 200 JSON that never ends (a list whose items keep coming). */
  | { kind: 'endless' }
  /** A real list page with this many ~1 KB items, whatever limit was asked for. */
  | { kind: 'oversized'; items: number }
  /** The normal answer with every leaf value replaced by one of another type. */
  | { kind: 'wrong-types' }
  /** The key, disguised, in the body: a 200 project whose name carries it, or an error detail. */
  | { kind: 'echo-key'; form: EchoForm; status?: number }
  /** Requests sent with this key wait this long before the normal answer. */
  | { kind: 'slow-key'; key: string; delayMs: number }
  /**
   * A recording whose snapshot listing has `count` sources: legacy blobs (default), or blob_v2
   * blocks keyed 0, 1, 2… ('blob_v2') or 0, 2, 4… ('blob_v2-sparse', no two adjacent). Each
   * source's content is empty, or stalls.
   */
  | { kind: 'many-sources'; count: number; stall?: boolean; form?: 'blob' | 'blob_v2' | 'blob_v2-sparse' }
) & {
  /** Only requests whose path matches (default: every /api/ path). */
  path?: RegExp;
  /** Only requests with this method (default: any). */
  method?: string;
  /** Only requests sent with this key (default: any key); slow-key's own key means the same. */
  key?: string;
};

export type EchoForm = 'plain' | 'json-escape' | 'url' | 'base64' | 'prefix' | 'html-entity';

/** The decoy a login page would show. */
const LOGIN_PAGE = '<!DOCTYPE html><html><head><title>Sign in</title></head><body><form action="/login" method="post"><input name="email"><input type="password" name="password"></form></body></html>';

export class Hostile {
  private open = new Set<ServerResponse>();

  constructor(
    readonly mode: HostileMode,
    private readonly apiKey: string,
  ) {}

  applies(pathname: string, method: string, authorization?: string): boolean {
    if (!pathname.startsWith('/api/')) return false;
    if (this.mode.method && this.mode.method.toUpperCase() !== method) return false;
    if (this.mode.key !== undefined && authorization !== `Bearer ${this.mode.key}`) return false;
    return this.mode.path ? this.mode.path.test(pathname) : true;
  }

  /**
   * Answers the request itself when the mode replaces the answer; 'continue' lets the sandbox
   * answer (after a delay for slow-key). `sleep` is the sandbox's, which close() cuts short.
   */
  async before(req: IncomingMessage, res: ServerResponse, pathname: string, query: Record<string, string>, sleep: (ms: number) => Promise<void>): Promise<'handled' | 'continue'> {
    const mode = this.mode;
    switch (mode.kind) {
      case 'redirect': {
        const location = mode.location ?? `https://sso.example.invalid/login?next=${encodeURIComponent(pathname)}`;
        // Location only, as SSO gateways often answer: an empty body is what a careless client takes for success.
        res.writeHead(mode.status ?? 302, { location, 'content-length': '0' });
        res.end();
        return 'handled';
      }
      case 'no-content':
        res.writeHead(mode.status);
        res.end();
        return 'handled';
      case 'html':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(LOGIN_PAGE) });
        res.end(LOGIN_PAGE);
        return 'handled';
      case 'endless':
        await this.pour(res, '{"count":1,"next":null,"previous":null,"results":[', () => `{"id":1,"name":"${'x'.repeat(1000)}"},`, Infinity);
        return 'handled';
      case 'oversized': {
        let i = 0;
        await this.pour(res, `{"count":${mode.items},"next":null,"previous":null,"results":[`, () => {
          i++;
          return `${i > 1 ? ',' : ''}{"id":${i},"uuid":"0190a1b2-c3d4-7e5f-8a9b-${String(i).padStart(12, '0')}","name":"Project ${i} ${'y'.repeat(900)}","timezone":"UTC","is_demo":false}`;
        }, mode.items, ']}');
        return 'handled';
      }
      case 'echo-key': {
        const echoed = disguise(this.apiKey, mode.form);
        const status = mode.status ?? 200;
        // Written by hand, so JSON escapes stay in the raw text as a proxy would send them.
        const body =
          status >= 400
            ? `{"type":"validation_error","code":"invalid_input","detail":"Bad header Authorization: Bearer ${echoed}","attr":null}`
            : `{"id":1001,"uuid":"0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","name":"Key ${echoed} here","timezone":"UTC","organization":"org","is_demo":false}`;
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
        return 'handled';
      }
      case 'slow-key':
        if ((req.headers.authorization ?? '') === `Bearer ${mode.key}`) await sleep(mode.delayMs);
        return 'continue';
      case 'many-sources': {
        if (!/\/snapshots\/?$/.test(pathname)) return 'continue';
        if (query.source === undefined) {
          const form = mode.form ?? 'blob';
          const key = (i: number) => (form === 'blob' ? `k${i}` : String(form === 'blob_v2' ? i : i * 2));
          const sources = Array.from({ length: mode.count }, (_, i) => ({ source: form === 'blob' ? 'blob' : 'blob_v2', start_timestamp: null, end_timestamp: null, blob_key: key(i) }));
          const body = JSON.stringify({ sources });
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
          res.end(body);
          return 'handled';
        }
        if (mode.stall) {
          // Headers, then nothing: the client's timeout (or the call's budget) must end it.
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('');
          await new Promise<void>((resolve) => {
            this.open.add(res);
            res.once('close', () => resolve());
          });
          return 'handled';
        }
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '0' });
        res.end();
        return 'handled';
      }
      default:
        return 'continue';
    }
  }

  /** For modes that change the normal answer. */
  after(reply: Reply): Reply {
    if (this.mode.kind !== 'wrong-types' || reply.body === undefined) return reply;
    try {
      const value: unknown = JSON.parse(reply.body.toString());
      return { ...reply, body: JSON.stringify(wrongTypes(value, 0)) };
    } catch {
      return reply;
    }
  }

  /** Ends every body still being poured or stalled (the sandbox is closing). */
  close(): void {
    for (const res of this.open) res.destroy();
    this.open.clear();
  }

  /** Writes head, then items as fast as the reader takes them, until `count` or the reader leaves. */
  private async pour(res: ServerResponse, head: string, item: () => string, count: number, tail = ''): Promise<void> {
    this.open.add(res);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(head);
    let closed = false;
    res.once('close', () => {
      closed = true;
    });
    // Bounded even when "endless": 4 GiB at most, far past any cap the client has.
    const limit = Math.min(count, 4_000_000);
    for (let i = 0; i < limit && !closed; i++) {
      if (!res.write(item())) await drainedOrClosed(res, closed);
    }
    if (!closed) res.end(tail);
    this.open.delete(res);
  }
}

/**
 * Until the reader takes more, or leaves. Whichever comes first removes the other listener: left
 * in place, a 'close' listener per wait piles up on a long pour (Node warns past ten).
 */
function drainedOrClosed(res: ServerResponse, closed: boolean): Promise<void> {
  if (closed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

function disguise(key: string, form: EchoForm): string {
  switch (form) {
    case 'plain':
      return key;
    case 'json-escape':
      return [...key].map((c, i) => (i % 2 === 0 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c)).join('');
    case 'url':
      return [...key].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
    case 'base64':
      return Buffer.from(`Bearer ${key}`).toString('base64');
    case 'prefix':
      return key.slice(0, 20);
    case 'html-entity':
      return [...key].map((c) => `&#${c.charCodeAt(0)};`).join('');
  }
}

/** Every leaf of another type; containers kept (deeper than 6 levels left as is). */
function wrongTypes(value: unknown, depth: number): unknown {
  if (Array.isArray(value)) return depth > 6 ? value : value.map((v) => wrongTypes(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    if (depth > 6) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wrongTypes(v, depth + 1)]));
  }
  switch (typeof value) {
    case 'string':
      return { toString: 'x', length: -1 };
    case 'number':
      return String(value) + 'e';
    case 'boolean':
      return value ? 'yes' : 0;
    default:
      return ['null'];
  }
}
