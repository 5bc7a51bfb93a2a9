import type { Dispatcher, Pool } from 'undici';
import { UpstreamError, UpstreamUnavailableError } from '../errors.js';
import { USER_AGENT } from '../version.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  method: Method;
  /** Path from apiPath() plus an encoded query string. */
  path: string;
  body?: unknown;
  /** The MCP request's signal: cancelling the tool call aborts the upstream request. */
  signal?: AbortSignal | undefined;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  timeoutMs: number;
  /** Upper bound on the sum of retry waits for one call (SPEC §3: under 10 s). */
  maxRetryWaitMs?: number;
  maxRetries?: number;
  /** Base of the exponential backoff when upstream names no wait. */
  backoffMs?: number;
  connections?: number;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const MAX_ERROR_BODY = 64 * 1024;
/** undici's timeout errors, by code: the module itself may not be loaded yet (see loadUndici). */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * undici is the largest module the server needs (60-85 ms to import on a 2-core machine), and
 * an MCP client asks for the tool list before any tool runs: load it on first use, or when
 * warm() says the server is idle.
 */
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));

/** One keep-alive pool, created on first use, shared by a client and its withApiKey() copies. */
class SharedPool {
  private pool: Pool | undefined;
  private creating: Promise<Pool> | undefined;

  constructor(
    private readonly origin: string,
    private readonly connections: number,
    /** Connecting counts toward a request's timeout; undici's own default is 10 s. */
    private readonly connectTimeoutMs: number,
  ) {}

  /** The pool, synchronously once it exists (the common case, with no extra await per request). */
  get ready(): Pool | undefined {
    return this.pool;
  }

  get(): Promise<Pool> {
    return (this.creating ??= loadUndici().then(({ Pool }) => {
      this.pool = new Pool(this.origin, { connections: this.connections, connectTimeout: this.connectTimeoutMs, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000 });
      return this.pool;
    }));
  }

  async close(): Promise<void> {
    if (this.creating) await (await this.creating).close();
  }
}

/** A streamed response body: the line reader for snapshots consumes it chunk by chunk. */
export interface StreamedResponse {
  body: AsyncIterable<Buffer>;
  /** Stop reading early (the page is full) and release the connection. */
  cancel(): void;
}

/**
 * The one PostHog client: one keep-alive pool for every tool, Bearer auth, per-request timeout,
 * bounded retries of idempotent requests, and typed errors from both of PostHog's error bodies.
 */
export class PostHogClient {
  readonly baseUrl: string;
  private readonly basePath: string;
  private readonly pool: SharedPool;
  private readonly apiKey: string | undefined;
  private readonly options: Required<Omit<ClientOptions, 'apiKey' | 'baseUrl'>>;

  /** The key came with the request (HTTP mode, per-user keys), not from the server's environment. */
  readonly callerKey: boolean;

  constructor(options: ClientOptions, pool?: SharedPool, callerKey = false) {
    this.callerKey = callerKey;
    const url = new URL(options.baseUrl);
    this.baseUrl = options.baseUrl;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.options = {
      timeoutMs: options.timeoutMs,
      maxRetryWaitMs: options.maxRetryWaitMs ?? 10_000,
      maxRetries: options.maxRetries ?? 3,
      backoffMs: options.backoffMs ?? 300,
      connections: options.connections ?? 16,
    };
    this.pool = pool ?? new SharedPool(url.origin, this.options.connections, Math.min(10_000, this.options.timeoutMs));
  }

  /** The same pool and settings with another key (per-user keys in HTTP mode). */
  withApiKey(apiKey: string): PostHogClient {
    return new PostHogClient({ ...this.options, baseUrl: this.baseUrl, apiKey }, this.pool, true);
  }

  get hasApiKey(): boolean {
    return this.apiKey !== undefined;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** Load the HTTP stack now, while nothing waits on it, so the first tool call does not. */
  warm(): void {
    this.pool.get().catch(() => {
      // The first request reports the same failure, with context.
    });
  }

  /** JSON in, JSON out. Answers with `undefined` for 204/empty bodies. */
  async json<T = unknown>(options: RequestOptions): Promise<T> {
    // The body is read inside the retry loop, so a reset mid-body is retried like any other.
    const text = await this.send(options, (response) => response.body.text());
    if (!text) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new UpstreamUnavailableError(
        'malformed',
        `PostHog answered ${options.method} ${stripQuery(options.path)} with a body that is not JSON (${this.redact(text).slice(0, 120)}…). Check POSTHOG_HOST points at the PostHog app (not a proxy or login page).`,
      );
    }
  }

  /** For large bodies (snapshot blocks): the caller reads chunks and may stop early. */
  async stream(options: RequestOptions): Promise<StreamedResponse> {
    const response = await this.send(options, async (r) => r);
    const classify = (err: unknown) => this.classify(err, options).error;
    async function* chunks(): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of response.body as AsyncIterable<Buffer>) yield chunk;
      } catch (err) {
        throw err instanceof UpstreamUnavailableError ? err : classify(err);
      }
    }
    // Cancelling a body nobody is reading yet must not surface as an unhandled 'error' event.
    response.body.on('error', () => {});
    return {
      body: chunks(),
      cancel: () => response.body.destroy(),
    };
  }

  private async send<T>(options: RequestOptions, consume: (response: Dispatcher.ResponseData) => Promise<T>): Promise<T> {
    if (!this.apiKey) {
      throw new UpstreamUnavailableError('connection', 'No PostHog personal API key is available for this request.');
    }
    const idempotent = options.method === 'GET' || options.method === 'DELETE';
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      if (options.signal?.aborted) {
        throw new UpstreamUnavailableError('cancelled', `The request ${options.method} ${stripQuery(options.path)} was cancelled by the client.`);
      }
      let response: Dispatcher.ResponseData | undefined;
      try {
        response = await this.attempt(options);
        if (response.statusCode < 400) return await consume(response);
      } catch (err) {
        // Once a POST/PATCH has its answer's headers, it reached PostHog: never again.
        if (response !== undefined && !idempotent) throw this.classify(err, options).error;
        const failure = this.classify(err, options);
        // A request that never connected (ECONNREFUSED) cannot have reached PostHog, so even a POST may go again.
        const neverSent = failure.code === 'ECONNREFUSED';
        const wait = this.backoff(attempt);
        if (failure.retryable && (idempotent || neverSent) && attempt < this.options.maxRetries && waited + wait < this.options.maxRetryWaitMs) {
          waited += wait;
          await sleep(wait, options.signal);
          continue;
        }
        throw failure.error;
      }

      const error = await this.toUpstreamError(response, options);
      if (idempotent && RETRYABLE_STATUS.has(response.statusCode) && attempt < this.options.maxRetries) {
        const wait = error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : this.backoff(attempt);
        if (waited + wait < this.options.maxRetryWaitMs) {
          waited += wait;
          await sleep(wait, options.signal);
          continue;
        }
      }
      throw error;
    }
  }

  /** Exponential backoff with a little jitter, for failures that name no wait. */
  private backoff(attempt: number): number {
    return Math.round(this.options.backoffMs * 2 ** attempt * (1 + Math.random() * 0.2));
  }

  /**
   * One request, within timeoutMs in all, from the moment it is asked for: waiting for a free
   * connection in the shared pool and connecting count too (in HTTP mode one user's slow calls
   * must not queue everyone else's past the timeout). One controller per attempt carries both the
   * deadline and the MCP call's cancellation; it costs some 15 µs a request, the price of a
   * timeout that holds.
   */
  private async attempt(options: RequestOptions): Promise<Dispatcher.ResponseData> {
    const pool = this.pool.ready ?? (await this.pool.get());
    const controller = new AbortController();
    const cancel = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) cancel();
    else options.signal?.addEventListener('abort', cancel, { once: true });
    // undici rejects (or fails the body) with this reason: a TimeoutError, reported as a timeout.
    const deadline = setTimeout(() => controller.abort(new DOMException(`No complete answer within ${this.options.timeoutMs} ms`, 'TimeoutError')), this.options.timeoutMs).unref();
    const done = () => {
      clearTimeout(deadline);
      options.signal?.removeEventListener('abort', cancel);
    };
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      'user-agent': USER_AGENT,
      accept: 'application/json, application/jsonl;q=0.9, */*;q=0.5',
    };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    let response: Dispatcher.ResponseData;
    try {
      response = await pool.request({
        method: options.method,
        path: this.basePath + options.path,
        headers,
        body,
        signal: controller.signal,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
    } catch (err) {
      done();
      throw err;
    }
    response.body.once('close', done);
    return response;
  }

  private classify(err: unknown, options: RequestOptions): { error: Error; retryable: boolean; code?: string } {
    const where = `${options.method} ${stripQuery(options.path)}`;
    if (options.signal?.aborted) {
      return { error: new UpstreamUnavailableError('cancelled', `The request ${where} was cancelled by the client.`), retryable: false };
    }
    const name = (err as { name?: string })?.name;
    const code = (err as { code?: string })?.code ?? '';
    if (
      name === 'TimeoutError' ||
      name === 'AbortError' || // undici's RequestAbortedError too
      TIMEOUT_CODES.has(code)
    ) {
      return {
        error: new UpstreamUnavailableError(
          'timeout',
          `PostHog did not answer ${where} within ${this.options.timeoutMs} ms. It may be under load: try again shortly, narrow the request (smaller limit or date range), or raise POSTHOG_TIMEOUT_MS.`,
        ),
        retryable: false,
      };
    }
    const message = err instanceof Error ? err.message : String(err);
    return {
      error: new UpstreamUnavailableError(
        'connection',
        `Could not reach PostHog at ${this.baseUrl} for ${where} (${code || 'network error'}: ${this.redact(message).slice(0, 200)}). Check POSTHOG_HOST and the network, then retry.`,
      ),
      retryable: RETRYABLE_NETWORK_CODES.has(code) || /other side closed|socket hang up/i.test(message),
      code,
    };
  }

  private async toUpstreamError(response: Dispatcher.ResponseData, options: RequestOptions): Promise<UpstreamError> {
    let text = '';
    try {
      text = await readCapped(response.body, MAX_ERROR_BODY);
    } catch {
      // A body that breaks off still leaves us the status.
    }
    // Redact the whole text before anything is cut, so no part of the key can survive a cut.
    const parsed = parseErrorBody(this.redact(text));
    const detail = parsed.detail;
    return new UpstreamError({
      status: response.statusCode,
      method: options.method,
      path: stripQuery(options.path),
      detail,
      code: parsed.code,
      type: parsed.type,
      attr: parsed.attr,
      retryAfterSeconds: retryAfterSeconds(response.headers['retry-after'], detail),
    });
  }

  /** Upstream text is shown to the agent; the key must never be, even if a proxy echoes it. */
  private redact(text: string): string {
    return this.apiKey ? text.split(this.apiKey).join('[redacted]') : text;
  }
}

interface ParsedErrorBody {
  detail?: string | undefined;
  code?: string | undefined;
  type?: string | undefined;
  attr?: string | undefined;
}

/** PostHog answers `{type, code, detail, attr}` or, on some replay paths, `{error, message?}`. */
export function parseErrorBody(text: string): ParsedErrorBody {
  const trimmed = text.trim();
  if (!trimmed) return {};
  let body: unknown;
  try {
    body = JSON.parse(trimmed);
  } catch {
    // An HTML error page from a proxy: keep a short, tag-free excerpt.
    const plain = trimmed.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
    return { detail: plain.slice(0, 200) || undefined };
  }
  if (typeof body !== 'object' || body === null) return { detail: String(body).slice(0, 500) };
  const record = body as Record<string, unknown>;
  const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
  if ('detail' in record || 'type' in record) {
    return {
      detail: str(record.detail) ?? (record.detail !== undefined ? JSON.stringify(record.detail).slice(0, 500) : undefined),
      code: str(record.code),
      type: str(record.type),
      attr: str(record.attr),
    };
  }
  if ('error' in record) {
    const error = str(record.error);
    const message = str(record.message);
    return { detail: message && error ? `${error}: ${message}` : (message ?? error), code: error && /^[a-z_]+$/.test(error) ? error : undefined };
  }
  return { detail: JSON.stringify(body).slice(0, 500) };
}

/** Retry-After (seconds or an HTTP date), else PostHog's "Expected available in N seconds". */
export function retryAfterSeconds(header: string | string[] | undefined, detail: string | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined) {
    if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.max(0, Number(value));
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - Date.now()) / 1000));
  }
  const match = detail ? /available in (\d+(?:\.\d+)?) seconds?/i.exec(detail) : null;
  return match ? Number(match[1]) : undefined;
}

async function readCapped(body: Dispatcher.ResponseData['body'], cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size < cap) chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks).subarray(0, cap).toString('utf8');
}

function stripQuery(path: string): string {
  const index = path.indexOf('?');
  return index === -1 ? path : path.slice(0, index);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new UpstreamUnavailableError('cancelled', 'The request was cancelled by the client.'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new UpstreamUnavailableError('cancelled', 'The request was cancelled by the client.'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
