import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { UpstreamError, UpstreamUnavailableError } from '../errors.js';
import { USER_AGENT } from '../version.js';
import { DEFAULT_MAX_RESPONSE_BYTES, discard, readBounded, readPrefix } from './body.js';
import { BudgetExceeded, type CallBudget } from './budget.js';
import { KeyGate } from './gate.js';
import type { RemoteDispatch } from './remote-fetch.js';
import { Redactor } from './redact.js';
import { StallBreaker, isStall } from './stall.js';
import { expectationFor, judgeBody, refuseStatus, type Expectation } from './status.js';
import { ReplayLimiter, type Admission, type SharedLimitStore } from './replay-limiter.js';
import type { ReplayPolicy } from '../replay-rates.js';
import { isReplayThrottled } from './throttle.js';
import { sleep } from './sleep.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  method: Method;
  /** Path from apiPath() plus an encoded query string. */
  path: string;
  body?: unknown;
  /** The MCP request's signal: cancelling the tool call aborts the upstream request. */
  signal?: AbortSignal | undefined;
  /** What counts as success (default: a JSON object, or for DELETE a 2xx that is no page). */
  expect?: Expectation | undefined;
  /**
   * The call may wait for PostHog's replay throttle up to its budget's throttle allowance
   * (reporting progress), instead of the 10 s retry budget (summary, snapshots, replay, triage).
   */
  patient?: boolean | undefined;
  /**
   * stream() only: hand the body over as PostHog sent it, the key not removed. For a reader
   * whose every output is scrubbed with redact()/redactValue() instead, after decoding (the
   * digest, the snapshots tool, the player's feed: that also sees inside gzipped fields, which no
   * scan of the raw bytes can), and that never shows or logs the bytes as they are.
   */
  unredacted?: boolean | undefined;
  /** Counts each attempt (retries too) against a bound of the caller's, e.g. one recording's (RecordingMeter, snapshots.ts); may throw to stop it. */
  meter?: { spend(where: string): void } | undefined;
  /**
   * stream() only, with `unredacted`: the request is sent, and a successful body read, by another
   * thread (remote-fetch.ts: the digest worker, which digests the bytes as they arrive); this
   * client still decides, paces, meters, times out and reads the status and any error answer.
   * The body it returns then ends empty, once the other thread has read it all.
   */
  via?: RemoteDispatch | undefined;
  /** Spends a request the call held back for this step (CallBudget.holdBack). */
  reserved?: boolean | undefined;
}

export interface ClientOptions {
  baseUrl: string;
  /** An outbound HTTP(S) proxy for every request (proxy-env.ts): its URL, credentials included, and the variable that named it. */
  proxy?: { url: string; from: string; shown: string } | undefined;
  apiKey?: string | undefined;
  timeoutMs: number;
  /** Upper bound on the sum of retry waits for one call (SPEC §3: under 10 s). */
  maxRetryWaitMs?: number;
  maxRetries?: number;
  /** Base of the exponential backoff when upstream names no wait. */
  backoffMs?: number;
  connections?: number;
  /** The most one JSON answer may be (POSTHOG_MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
  /** Upstream requests in flight per API key (POSTHOG_MAX_CONCURRENCY_PER_KEY). */
  maxConcurrencyPerKey?: number;
  /** PostHog's replay throttle, per key (POSTHOG_REPLAY_RATE_LIMITS): 'auto' (learned from 429s, the default), rates to pace by up front, or [] (off). */
  replayRates?: ReplayPolicy;
  /** Where replicas share what they learned of the throttle (the Redis digest cache). */
  sharedLimits?: SharedLimitStore | undefined;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
/**
 * Node's codes for a certificate it does not trust: asking again gets the same answer, so the
 * error says what to change instead of "retry".
 */
const UNTRUSTED_CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/**
 * What a TLS failure means for the user, or undefined when the failure is not about TLS.
 * `setting` names what to change: POSTHOG_HOST, or the proxy's variable when it is the proxy
 * that is reached over TLS.
 */
function tlsProblem(code: string, message: string, setting = 'POSTHOG_HOST'): string | undefined {
  if (UNTRUSTED_CERT_CODES.has(code)) {
    const whose = setting === 'POSTHOG_HOST' ? 'a self-hosted PostHog' : 'a proxy';
    return `its certificate is not one this machine trusts. For ${whose} with its own certificate authority, start this server with NODE_EXTRA_CA_CERTS=/path/to/ca.pem`;
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return "its certificate is outside its validity dates (check this machine's clock too)";
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `its certificate is for another host name: check ${setting}`;
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number/i.test(message)) return `it does not speak TLS there: ${setting} may need http:// instead of https://, or another port`;
  return undefined;
}

const MAX_ERROR_BODY = 64 * 1024;
/** Longest Retry-After / "available in" honoured: a day. A number too large to be finite (a 400-digit header) counts as no Retry-After. */
const MAX_RETRY_AFTER_SECONDS = 86_400;
/** undici's timeout errors, by code: the module itself may not be loaded yet (see loadUndici). */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * undici is the largest module the server needs (60-85 ms to import on a 2-core machine), and
 * an MCP client asks for the tool list before any tool runs: load it on first use, or when
 * warm() says the server is idle.
 */
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));

/** Keys remembered as accepted by PostHog; past it the oldest is forgotten (it then waits as a new one would). */
const MAX_ACCEPTED_KEYS = 10_000;

/**
 * What a client shares with its withApiKey() and forCall() copies: one keep-alive pool (created
 * on first use), the per-key concurrency gate and the per-key replay throttle (replay-limiter.ts).
 */
class SharedPool {
  readonly gate: KeyGate;
  readonly limiter: ReplayLimiter;
  /** Per key, what is derived from it (its redactor, its hash), made once: HTTP mode makes a client per request. */
  private readonly identities = new Map<string, { redactor: Redactor; keyId: string }>();

  identity(key: string | undefined): { redactor: Redactor; keyId: string } {
    const known = key === undefined ? undefined : this.identities.get(key);
    if (known) return known;
    // The host is part of it: what is learned of a key (throttles, stalls, acceptance) is about that key on this host.
    const made = { redactor: new Redactor(key), keyId: key ? createHash('sha256').update(`${this.origin}\n${key}`).digest('hex').slice(0, 32) : '' };
    if (key !== undefined) {
      if (this.identities.size >= 1_000) this.identities.delete(this.identities.keys().next().value!);
      this.identities.set(key, made);
    }
    return made;
  }

  /**
   * Keys PostHog has answered with a success (by hash): in HTTP mode, callers with a key not in
   * here yet (a new user, or a made-up key) share a bounded part of the call slots (http.ts).
   */
  private readonly acceptedKeys = new Set<string>();

  accepted(keyId: string): boolean {
    return this.acceptedKeys.has(keyId);
  }

  accept(keyId: string): void {
    if (this.acceptedKeys.has(keyId)) return;
    if (this.acceptedKeys.size >= MAX_ACCEPTED_KEYS) this.acceptedKeys.delete(this.acceptedKeys.values().next().value!);
    this.acceptedKeys.add(keyId);
  }

  private pool: Dispatcher | undefined;
  private creating: Promise<Dispatcher> | undefined;

  constructor(
    private readonly origin: string,
    private readonly connections: number,
    /** Connecting counts toward a request's timeout; undici's own default is 10 s. */
    private readonly connectTimeoutMs: number,
    perKey: number,
    limiter: ReplayLimiter,
    /** Every connection through this proxy (a CONNECT tunnel, for http:// and https:// upstreams alike). */
    readonly proxy?: ClientOptions['proxy'],
  ) {
    this.gate = new KeyGate(perKey);
    this.limiter = limiter;
  }

  /** Stops asking an upstream that stopped answering (stall.ts). */
  private breaker: StallBreaker | undefined;
  get stalls(): StallBreaker {
    return (this.breaker ??= new StallBreaker(this.origin));
  }

  /** The pool, synchronously once it exists (the common case, with no extra await per request). */
  get ready(): Dispatcher | undefined {
    return this.pool;
  }

  get(): Promise<Dispatcher> {
    return (this.creating ??= loadUndici().then(({ Pool, ProxyAgent }) => {
      const options = { connections: this.connections, connectTimeout: this.connectTimeoutMs, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000 };
      // The proxy's answer to CONNECT is part of connecting, bounded as connecting is: undici
      // waits for it with its default headers timeout (300 s), and a request that was never
      // connected does not end when its signal aborts, so a proxy that took the CONNECT and
      // never answered held the call for five minutes, whatever POSTHOG_TIMEOUT_MS said.
      const clientFactory = (origin: URL, opts: object) => new Pool(origin, { ...opts, headersTimeout: this.connectTimeoutMs });
      this.pool = this.proxy ? new ProxyAgent({ uri: this.proxy.url, clientFactory, ...options }) : new Pool(this.origin, options);
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
  /** Stop reading early (the page is full) and release the connection; the body then ends where it is. */
  cancel(): void;
  /** With `via`: the bytes of the body the other side consumed so far (within about a MiB; all of them once it ended; 0 without `via`). */
  bytesConsumedThere(): number;
}

/**
 * The one PostHog client: one keep-alive pool for every tool, Bearer auth, per-request timeout,
 * bounded retries of idempotent requests, and typed errors from both of PostHog's error bodies.
 */
export class PostHogClient {
  readonly baseUrl: string;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly pool: SharedPool;
  private readonly apiKey: string | undefined;
  private readonly options: Required<Omit<ClientOptions, 'apiKey' | 'baseUrl' | 'sharedLimits' | 'proxy'>>;
  private readonly redactor: Redactor;
  /** The key as PostHog's throttle counts it (a hash), for the per-key gate and pacer. */
  private readonly keyId: string;

  /** The key came with the request (HTTP mode, per-user keys), not from the server's environment. */
  readonly callerKey: boolean;
  /** The tool call this copy serves (forCall), whose allowance every request spends. */
  readonly budget: CallBudget | undefined;

  constructor(options: ClientOptions, pool?: SharedPool, callerKey = false, budget?: CallBudget, redactor?: Redactor) {
    this.callerKey = callerKey;
    this.budget = budget;
    const url = new URL(options.baseUrl);
    this.baseUrl = options.baseUrl;
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.options = {
      timeoutMs: options.timeoutMs,
      maxRetryWaitMs: options.maxRetryWaitMs ?? 10_000,
      maxRetries: options.maxRetries ?? 3,
      backoffMs: options.backoffMs ?? 300,
      connections: options.connections ?? 64,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      maxConcurrencyPerKey: options.maxConcurrencyPerKey ?? 8,
      // As the CLI's default: no pacing until PostHog answers 429, then its budget learned.
      replayRates: options.replayRates ?? 'auto',
    };
    this.pool =
      pool ??
      new SharedPool(url.origin, this.options.connections, Math.min(10_000, this.options.timeoutMs), this.options.maxConcurrencyPerKey, new ReplayLimiter(this.options.replayRates, options.sharedLimits), options.proxy);
    const identity = this.pool.identity(options.apiKey);
    this.redactor = redactor ?? identity.redactor;
    this.keyId = identity.keyId;
  }

  /** The same pool and settings with another key (per-user keys in HTTP mode). */
  withApiKey(apiKey: string): PostHogClient {
    return new PostHogClient({ ...this.options, baseUrl: this.baseUrl, apiKey }, this.pool, true);
  }

  /**
   * The same client for one tool call: its requests spend `budget` (request count, wall clock,
   * throttle waits). A copy of this one with the budget set, not a new client: every tool call
   * makes one, and the constructor's URL parsing and option defaults were a tenth of a call's own CPU.
   */
  forCall(budget: CallBudget): PostHogClient {
    const copy: PostHogClient = Object.create(PostHogClient.prototype);
    Object.assign(copy, this);
    (copy as { budget: CallBudget | undefined }).budget = budget;
    return copy;
  }

  /** Upstream text made safe to show: the key removed in every form (see redact.ts). */
  redact(text: string): string {
    return this.redactor.text(text);
  }

  /** A JSON-safe value made safe to show: the same value when it holds no key, else a redacted copy. */
  redactValue<T>(value: T): T {
    return this.redactor.scrub(value);
  }

  /** This key's replay list and snapshot requests are being paced now (configured rates, or learned from PostHog's 429s). */
  get pacesReplay(): boolean {
    return this.pool.limiter.paces(this.keyId);
  }

  get hasApiKey(): boolean {
    return this.apiKey !== undefined;
  }

  /**
   * Who this client's key is on its host, for what must be kept per user: a hash of host and key
   * (never the key); '' without a key.
   */
  get keyIdentity(): string {
    return this.keyId;
  }

  /** PostHog has answered a request made with this client's key with a success (since this process started). */
  get keyAccepted(): boolean {
    return this.apiKey !== undefined && this.pool.accepted(this.keyId);
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

  /**
   * JSON in, JSON out, read through one bounded reader (maxResponseBytes) and judged by one
   * rule (status.ts): a JSON object for reads and writes; for DELETE, undefined (204) or the
   * JSON PostHog sent. Strings holding the key in any form come back redacted.
   */
  async json<T = unknown>(options: RequestOptions): Promise<T> {
    const where = `${options.method} ${stripQuery(options.path)}`;
    const expect = options.expect ?? expectationFor(options.method);
    // The body is read inside the retry loop, so a reset mid-body is retried like any other.
    return this.send({ ...options, expect }, async (response) => {
      const text = await readBounded(response.body, this.options.maxResponseBytes, response.headers['content-length'], where);
      this.pool.stalls.answered(this.keyId, this.budget);
      return judgeBody(text, expect, where, (t) => this.redactor.parse(t), (t) => this.redact(t)) as T;
    });
  }

  /** For large bodies (snapshot blocks): the caller reads chunks and may stop early. The key is removed from them (unless `unredacted`). */
  async stream(options: RequestOptions): Promise<StreamedResponse> {
    // The other thread sends no request body, and its bytes are not redacted here.
    if (options.via && (!options.unredacted || options.body !== undefined)) throw new Error('`via` is for unredacted reads without a request body');
    const response = await this.send({ ...options, expect: options.expect ?? 'data' }, async (r) => r);
    const classify = (err: unknown) => this.classify(err, options);
    const redactor = this.redactor;
    // A body that stalls after its headers counts as a timeout; one read to its end (or until the
    // reader had enough), as an answer.
    let got = false;
    // Cancelled by its reader: the body ends where it is, its reader knowing why (not a failure, nor a stall).
    let cancelled = false;
    const answered = () => this.pool.stalls.answered(this.keyId, this.budget);
    const timedOut = () => this.pool.stalls.timedOut(this.keyId, this.budget, this.options.timeoutMs);
    async function* chunks(): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of options.unredacted ? (response.body as AsyncIterable<Buffer>) : redactor.stream(response.body as AsyncIterable<Buffer>)) {
          got = true;
          yield chunk;
        }
        answered();
      } catch (err) {
        if (cancelled) return;
        got = false;
        if (err instanceof UpstreamUnavailableError) throw err;
        const failure = classify(err);
        if (isStall(failure.error, failure.code)) timedOut();
        throw failure.error;
      }
    }
    // Cancelling a body nobody is reading yet must not surface as an unhandled 'error' event.
    response.body.on('error', () => {});
    return {
      body: chunks(),
      cancel: () => {
        cancelled = true;
        if (got) answered();
        response.body.destroy();
      },
      bytesConsumedThere: () => (response.body as { sunkBytes?: number }).sunkBytes ?? 0,
    };
  }

  private async send<T>(options: RequestOptions, consume: (response: Dispatcher.ResponseData) => Promise<T>): Promise<T> {
    if (!this.apiKey) {
      throw new UpstreamUnavailableError('connection', 'No PostHog personal API key is available for this request.');
    }
    const idempotent = options.method === 'GET' || options.method === 'DELETE';
    const where = `${options.method} ${stripQuery(options.path)}`;
    // Replay requests go through the throttle (replay-limiter.ts) unless it is off.
    const paced = this.pool.limiter.active && isReplayThrottled(options.method, options.path);
    const waits = { retry: 0 };
    let lastThrottle: UpstreamError | undefined;
    for (let attempt = 0; ; attempt++) {
      if (options.signal?.aborted) {
        throw new UpstreamUnavailableError('cancelled', `The request ${where} was cancelled by the client.`);
      }
      this.pool.stalls.check(this.keyId, this.budget, where);
      let admission: Admission | undefined;
      if (paced) {
        admission = await this.pool.limiter.admit(this.keyId, {
          where,
          signal: options.signal,
          budget: this.budget,
          patient: options.patient === true,
          retryAllowanceMs: Math.max(0, this.options.maxRetryWaitMs - waits.retry),
          lastThrottle,
        });
        if (!(options.patient && this.budget)) waits.retry += admission.waitedMs;
      }
      try {
        this.budget?.spend(where, options.reserved);
        options.meter?.spend(where);
      } catch (err) {
        if (admission) this.pool.limiter.release(this.keyId, admission);
        throw err;
      }
      let response: Dispatcher.ResponseData | undefined;
      try {
        try {
          response = await this.attempt(options);
          if (response.statusCode >= 200 && response.statusCode < 300) this.pool.accept(this.keyId);
        } finally {
          // Counted by PostHog unless it answers 429 (then throttled() below takes the slot back).
          if (admission && response?.statusCode !== 429) this.pool.limiter.settle(this.keyId, admission);
        }
        if (response.statusCode < 400) {
          const refusal = refuseStatus({ status: response.statusCode, headers: response.headers }, options.expect ?? expectationFor(options.method), where, (t) => this.redact(t));
          if (refusal) {
            discard(response.body);
            throw refusal;
          }
          return await consume(response);
        }
      } catch (err) {
        // Our own verdicts (a refused answer, a spent budget) are final.
        if (err instanceof UpstreamUnavailableError && err.kind !== 'cancelled' && !(err instanceof TimeoutMarker)) throw err;
        // Once a POST/PATCH has its answer's headers, it reached PostHog: never again.
        if (response !== undefined && !idempotent) throw this.classify(err, options).error;
        const failure = this.classify(err, options);
        if (isStall(failure.error, failure.code)) this.pool.stalls.timedOut(this.keyId, this.budget, this.options.timeoutMs);
        // A request that never connected (ECONNREFUSED) cannot have reached PostHog, so even a POST may go again.
        const neverSent = failure.code === 'ECONNREFUSED';
        const wait = this.backoff(attempt);
        if (failure.retryable && (idempotent || neverSent) && attempt < this.options.maxRetries && waits.retry + wait < this.options.maxRetryWaitMs) {
          waits.retry += wait;
          await sleep(wait, options.signal);
          continue;
        }
        throw failure.error;
      }

      const error = await this.toUpstreamError(response, options);
      this.pool.stalls.answered(this.keyId, this.budget);
      // PostHog could not load these blocks: asking again gets the same answer (facts §10).
      if (error.status === 502 && error.code === 'recording_blocks_unavailable') throw error;
      if (paced && error.status === 429) {
        // PostHog's window is full: the key is blocked until it reopens, and (auto) its budget learned.
        await this.pool.limiter.throttled(this.keyId, admission, error);
        lastThrottle = error;
        // admit() waits (within what this call may wait) or stops the call with when to continue.
        if (attempt < this.options.maxRetries) continue;
        // Still refused after every retry: the call stops with when to continue, as for a long wait.
        const seconds = Math.max(1, Math.ceil(error.retryAfterSeconds ?? 60));
        throw new BudgetExceeded('throttle', `PostHog kept refusing replay requests for this key (429).${error.detail ? ` PostHog said: "${error.detail.slice(0, 160)}"` : ''} Retry in about ${seconds} seconds.`, seconds);
      }
      if (idempotent && RETRYABLE_STATUS.has(response.statusCode) && attempt < this.options.maxRetries) {
        const wait = error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : this.backoff(attempt);
        if (waits.retry + wait < this.options.maxRetryWaitMs) {
          waits.retry += wait;
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
    // Through a proxy the other thread's plain connections would go around it: this thread reads the body.
    const via = this.pool.proxy ? undefined : options.via;
    const pool = via ? undefined : (this.pool.ready ?? (await this.pool.get()));
    const controller = new AbortController();
    const cancel = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) cancel();
    else options.signal?.addEventListener('abort', cancel, { once: true });
    // The call's wall clock may end before the request's own timeout: then it is the call that is up.
    const callLeft = this.budget ? this.budget.remainingMs() : Infinity;
    const limit = Math.max(1, Math.min(this.options.timeoutMs, callLeft));
    const timeoutMs = this.options.timeoutMs;
    // undici rejects (or fails the body) with this reason: a TimeoutError, reported as a timeout.
    // Made only when the time is up: an error's stack trace costs tens of µs, on every request.
    const deadline = setTimeout(
      () => controller.abort(limit < timeoutMs ? new TimeoutMarker() : new DOMException(`No complete answer within ${timeoutMs} ms`, 'TimeoutError')),
      limit,
    ).unref();
    let release: (() => void) | undefined;
    const done = () => {
      clearTimeout(deadline);
      options.signal?.removeEventListener('abort', cancel);
      release?.();
    };
    try {
      // One key's requests beyond its share wait here, not in the pool everyone shares.
      const granted = this.pool.gate.acquire(this.keyId, controller.signal);
      release = typeof granted === 'function' ? granted : await granted;
    } catch (err) {
      done();
      throw err;
    }
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
      if (via) {
        // The same deadline and cancellation (the controller), the same connect bound as the pool's.
        // Its body is a plain Readable where undici's has helpers this client does not call.
        const path = this.basePath + options.path;
        const connectTimeoutMs = Math.min(10_000, this.options.timeoutMs);
        response = (await via.request({ origin: this.origin, method: options.method, path, headers, signal: controller.signal, connectTimeoutMs })) as unknown as Dispatcher.ResponseData;
      } else {
        response = await pool!.request({
          // A Pool knows its origin; a ProxyAgent is told it.
          origin: this.origin,
          method: options.method,
          path: this.basePath + options.path,
          headers,
          body,
          signal: controller.signal,
          headersTimeout: this.options.timeoutMs,
          bodyTimeout: this.options.timeoutMs,
        });
      }
    } catch (err) {
      done();
      throw err;
    }
    // An empty body (204) may have closed already; then the slot and timer are freed now.
    if (response.body.closed || response.body.destroyed) done();
    else response.body.once('close', done);
    return response;
  }

  private classify(err: unknown, options: RequestOptions): { error: Error; retryable: boolean; code?: string } {
    const where = `${options.method} ${stripQuery(options.path)}`;
    if (err instanceof TimeoutMarker || (err as { cause?: unknown })?.cause instanceof TimeoutMarker) {
      return { error: this.budget?.timeUp(where) ?? new UpstreamUnavailableError('timeout', err instanceof Error ? err.message : String(err)), retryable: false };
    }
    if (options.signal?.aborted) {
      return { error: new UpstreamUnavailableError('cancelled', `The request ${where} was cancelled by the client.`), retryable: false };
    }
    const name = (err as { name?: string })?.name;
    const code = (err as { code?: string })?.code ?? '';
    const proxy = this.pool.proxy;
    const notDone = options.method === 'GET' ? 'Nothing was read.' : 'Nothing was sent.';
    // undici reports a proxy's refusal of the tunnel as an abort: it is the proxy's answer.
    const refusal = proxy ? /^Proxy response \((\d{3})\)/.exec(err instanceof Error ? err.message : '') : null;
    if (proxy && refusal) {
      const status = Number(refusal[1]);
      const why =
        status === 407
          ? 'it wants credentials: put them in the proxy URL (http://user:password@host:port)'
          : `it answered ${status}: check ${proxy.from}, and NO_PROXY if PostHog should be reached directly`;
      return { error: new UpstreamUnavailableError('connection', `Could not reach PostHog at ${this.baseUrl} for ${where}: the proxy ${proxy.shown} (${proxy.from}) refused the connection (${status}: ${why}). ${notDone}`), retryable: false, code: 'PROXY_REFUSED' };
    }
    if (
      name === 'TimeoutError' ||
      name === 'AbortError' || // undici's RequestAbortedError too
      TIMEOUT_CODES.has(code)
    ) {
      return {
        error: new UpstreamUnavailableError(
          'timeout',
          `PostHog did not answer ${where}${proxy ? ` through the proxy ${proxy.shown} (${proxy.from}; it may be the one not answering)` : ''} within ${this.options.timeoutMs} ms. It may be under load: try again shortly, narrow the request (smaller limit or date range), or raise POSTHOG_TIMEOUT_MS.`,
        ),
        retryable: false,
      };
    }
    const message = err instanceof Error ? err.message : String(err);
    // A TLS failure with an http:// PostHog behind an https:// proxy can only be the proxy's.
    const proxyTls = proxy !== undefined && proxy.shown.startsWith('https:') && !this.origin.startsWith('https:');
    const tls = tlsProblem(code, message, proxyTls ? proxy.from : undefined);
    if (tls) {
      const subject = proxyTls ? `the proxy ${proxy.shown} (${proxy.from}): ` : '';
      return { error: new UpstreamUnavailableError('connection', `Could not reach PostHog at ${this.baseUrl} for ${where}: ${subject}${tls} (${code || 'TLS'}: ${this.redact(message).slice(0, 160)}). ${notDone}`), retryable: false, code };
    }
    return {
      error: new UpstreamUnavailableError(
        'connection',
        `Could not reach PostHog at ${this.baseUrl}${proxy ? ` through the proxy ${proxy.shown} (${proxy.from})` : ''} for ${where} (${code || 'network error'}: ${this.redact(message).slice(0, 200)}). Check POSTHOG_HOST${proxy ? `, ${proxy.from}` : ''} and the network, then retry.`,
      ),
      retryable: RETRYABLE_NETWORK_CODES.has(code) || /other side closed|socket hang up/i.test(message),
      code,
    };
  }

  private async toUpstreamError(response: Dispatcher.ResponseData, options: RequestOptions): Promise<UpstreamError> {
    let text = '';
    try {
      text = await readPrefix(response.body, MAX_ERROR_BODY);
    } catch {
      // A body that breaks off still leaves us the status.
    }
    // Redact the whole text before anything is cut, so no part of the key can survive a cut;
    // and the parsed fields again, as JSON decoding can join what escapes kept apart.
    const parsed = parseErrorBody(this.redact(text));
    const detail = parsed.detail === undefined ? undefined : this.redact(parsed.detail);
    if (parsed.attr !== undefined) parsed.attr = this.redact(parsed.attr);
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

}

/** The abort reason when a call's wall clock, not the request's own timeout, cut a request. */
class TimeoutMarker extends UpstreamUnavailableError {
  constructor() {
    super('timeout', 'The call reached its time budget.');
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
  // A number beyond a day (a 400-digit header is Infinity) says nothing usable: capped at a day.
  const sane = (seconds: number) => (Number.isFinite(seconds) ? Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, seconds)) : undefined);
  if (value !== undefined && value.length <= 100) {
    if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return sane(Number(value));
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return sane(Math.ceil((date - Date.now()) / 1000));
  }
  const match = detail ? /available in (\d{1,30}(?:\.\d{1,10})?) seconds?/i.exec(detail) : null;
  return match ? sane(Number(match[1])) : undefined;
}

function stripQuery(path: string): string {
  const index = path.indexOf('?');
  return index === -1 ? path : path.slice(0, index);
}
