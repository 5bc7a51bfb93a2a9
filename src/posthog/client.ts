import type { Dispatcher } from 'undici';
import { UpstreamUnavailableError, type UpstreamError } from '../errors.js';
import { USER_AGENT } from '../version.js';
import { discard, readBounded } from './body.js';
import type { CallBudget } from './budget.js';
import { withDefaults, type ClientOptions, type ClientSettings, type RequestOptions } from './client-options.js';
import { TimeoutMarker, classify, toUpstreamError, whereOf, type Failure } from './failure.js';
import type { Redactor } from './redact.js';
import type { Rate } from '../replay-rates.js';
import { ReplayLimiter, type Admission } from './replay-limiter.js';
import { Retries, stillThrottled } from './retry.js';
import { SharedPool } from './shared-pool.js';
import { sleep } from './sleep.js';
import { isStall } from './stall.js';
import { expectationFor, judgeBody, refuseStatus } from './status.js';
import { streamedBody, type StreamedResponse } from './streamed-body.js';
import { isReplayThrottled } from './throttle.js';

export type { ClientOptions, Method, RequestOptions } from './client-options.js';

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
  private readonly options: ClientSettings;
  private readonly redactor: Redactor;
  /** The key as PostHog's throttle counts it (a hash), for the per-key gate and pacer. */
  private readonly keyId: string;

  /** The key came with the request (HTTP mode, per-user keys), not from the server's environment. */
  readonly callerKey: boolean;
  /** The tool call this copy serves (forCall), whose allowance every request spends. */
  readonly budget: CallBudget | undefined;

  constructor(options: ClientOptions, pool?: SharedPool, callerKey = false) {
    this.callerKey = callerKey;
    const url = new URL(options.baseUrl);
    this.baseUrl = options.baseUrl;
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.options = withDefaults(options);
    this.pool =
      pool ??
      new SharedPool(url.origin, this.options.connections, Math.min(10_000, this.options.timeoutMs), this.options.maxConcurrencyPerKey, new ReplayLimiter(this.options.replayRates, options.sharedLimits), options.proxy);
    const identity = this.pool.identity(options.apiKey);
    this.redactor = identity.redactor;
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

  /** Replay requests this key may still send now without waiting (ReplayLimiter.room; `assumed` where no rates are known). */
  replayRoom(assumed: readonly Rate[]): number {
    return this.pool.limiter.room(this.keyId, assumed);
  }

  /** This key's replay list and snapshot requests are being paced now (configured rates, or learned from PostHog's 429s). */
  get pacesReplay(): boolean {
    return this.pool.limiter.paces(this.keyId);
  }

  /**
   * The key the caller sent (per-user keys), for what must read as them later in another process:
   * a watch link seals it (watch/sealed.ts). Undefined for the server's own key, which never leaves it.
   */
  get callerApiKey(): string | undefined {
    return this.callerKey ? this.apiKey : undefined;
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
    const where = whereOf(options);
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
    return streamedBody(response.body, {
      unredacted: options.unredacted === true,
      redactor: this.redactor,
      classify: (err) => this.classify(err, options),
      answered: () => this.pool.stalls.answered(this.keyId, this.budget),
      stalled: (failure) => this.stalled(failure),
    });
  }

  /**
   * The request path, as a list: break stalls, pace, spend, then gate and send (exchange()); an
   * answer under 400 is judged and read, anything else retried or thrown. After a 429 on a paced
   * replay request the key is blocked until the time PostHog named and (auto) its budget learned
   * (replay-limiter.ts), and the next attempt's pace() waits for the window within what the call
   * may wait, or stops the call with when to continue. Any other 429, and a 502, 503 or 504, of a
   * GET or DELETE is asked again after PostHog's Retry-After or a backoff, within the call's retry
   * allowance (retry.ts).
   */
  private async send<T>(options: RequestOptions, consume: (response: Dispatcher.ResponseData) => Promise<T>): Promise<T> {
    if (!this.apiKey) {
      throw new UpstreamUnavailableError('connection', 'No PostHog personal API key is available for this request.');
    }
    const idempotent = options.method === 'GET' || options.method === 'DELETE';
    const where = whereOf(options);
    // Replay requests go through the throttle (replay-limiter.ts) unless it is off.
    const paced = this.pool.limiter.active && isReplayThrottled(options.method, options.path);
    const retries = new Retries(this.options);
    let lastThrottle: UpstreamError | undefined;
    for (let attempt = 0; ; attempt++) {
      if (options.signal?.aborted) {
        throw new UpstreamUnavailableError('cancelled', `The request ${where} was cancelled by the client.`);
      }
      // An upstream that stopped answering this key is not asked again for a while (stall.ts).
      this.pool.stalls.check(this.keyId, this.budget, where);
      const admission = paced ? await this.pace(options, where, retries, lastThrottle) : undefined;
      this.spend(options, where, admission);
      let response: Dispatcher.ResponseData | undefined;
      try {
        response = await this.exchange(options, admission);
        if (response.statusCode < 400) return await this.read(response, options, where, consume);
      } catch (err) {
        await sleep(this.retryWait(err, options, response !== undefined, attempt, retries), options.signal);
        continue;
      }
      const error = await toUpstreamError(response, options, (t) => this.redact(t));
      this.pool.stalls.answered(this.keyId, this.budget);
      if (paced && error.status === 429) {
        await this.pool.limiter.throttled(this.keyId, admission, error);
        lastThrottle = error;
        if (retries.another(attempt)) continue;
        throw stillThrottled(error);
      }
      const wait = retries.afterAnswer(attempt, error, idempotent);
      if (wait === undefined) throw error;
      await sleep(wait, options.signal);
    }
  }

  /** Pace: a replay request waits for room in PostHog's throttle window for this key (replay-limiter.ts). */
  private async pace(options: RequestOptions, where: string, retries: Retries, lastThrottle: UpstreamError | undefined): Promise<Admission> {
    const patient = options.patient === true;
    const admission = await this.pool.limiter.admit(this.keyId, { where, signal: options.signal, budget: this.budget, patient, retryAllowanceMs: retries.allowanceMs, lastThrottle });
    // A patient call waits on its budget's throttle allowance instead of the retry allowance.
    if (!(patient && this.budget)) retries.waited(admission.waitedMs);
    return admission;
  }

  /** Spend: the call's allowance (budget.ts) and the caller's meter count every attempt, and may stop it. */
  private spend(options: RequestOptions, where: string, admission: Admission | undefined): void {
    try {
      this.budget?.spend(where, options.reserved);
      options.meter?.spend(where);
    } catch (err) {
      if (admission) this.pool.limiter.release(this.keyId, admission);
      throw err;
    }
  }

  /** Gate and send: one attempt (attempt()), its answer settled with the pacer and, on success, the key known as accepted. */
  private async exchange(options: RequestOptions, admission: Admission | undefined): Promise<Dispatcher.ResponseData> {
    let response: Dispatcher.ResponseData | undefined;
    try {
      response = await this.attempt(options);
      if (response.statusCode >= 200 && response.statusCode < 300) this.pool.accept(this.keyId);
      return response;
    } finally {
      // Counted by PostHog unless it answers 429 (then throttled() takes the slot back).
      if (admission && response?.statusCode !== 429) this.pool.limiter.settle(this.keyId, admission);
    }
  }

  /** An answer under 400: refused when it is not what the request expects (status.ts), else read. */
  private async read<T>(response: Dispatcher.ResponseData, options: RequestOptions, where: string, consume: (response: Dispatcher.ResponseData) => Promise<T>): Promise<T> {
    const refusal = refuseStatus({ status: response.statusCode, headers: response.headers }, options.expect ?? expectationFor(options.method), where, (t) => this.redact(t));
    if (refusal) {
      discard(response.body);
      throw refusal;
    }
    return consume(response);
  }

  /**
   * Retry or give up, after an attempt that brought no usable answer: the wait before the next
   * attempt (retry.ts), or the failure thrown as what it means for the user (failure.ts).
   * `answered`: the answer's headers had come.
   */
  private retryWait(err: unknown, options: RequestOptions, answered: boolean, attempt: number, retries: Retries): number {
    // Our own verdicts (a refused answer, a spent budget) are final.
    if (err instanceof UpstreamUnavailableError && err.kind !== 'cancelled' && !(err instanceof TimeoutMarker)) throw err;
    const failure = this.classify(err, options);
    const idempotent = options.method === 'GET' || options.method === 'DELETE';
    // Once a POST/PATCH has its answer's headers, it reached PostHog: never again.
    if (answered && !idempotent) throw failure.error;
    this.stalled(failure);
    const wait = retries.afterFailure(attempt, failure, idempotent);
    if (wait === undefined) throw failure.error;
    return wait;
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

  /** Break stalls: a failure that is a stall counts against this key on this host (stall.ts). */
  private stalled(failure: Failure): void {
    if (isStall(failure.error, failure.code)) this.pool.stalls.timedOut(this.keyId, this.budget, this.options.timeoutMs);
  }

  private classify(err: unknown, options: RequestOptions): Failure {
    const upstream = { baseUrl: this.baseUrl, origin: this.origin, proxy: this.pool.proxy, timeoutMs: this.options.timeoutMs, redact: (t: string) => this.redact(t) };
    return classify(err, options, upstream, this.budget);
  }
}
