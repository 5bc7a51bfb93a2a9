import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { FairQueue } from './fair-queue.js';
import { Redactor } from './redact.js';
import type { ReplayLimiter } from './replay-limiter.js';
import { StallBreaker } from './stall.js';

/** An outbound HTTP(S) proxy for every request (proxy-env.ts): its URL, credentials included, the variable that named it, and the URL as it may be shown. */
export interface UpstreamProxy {
  url: string;
  from: string;
  shown: string;
}

/**
 * undici is the largest module the server needs (60-85 ms to import on a 2-core machine), and
 * an MCP client asks for the tool list before any tool runs: load it on first use, or when
 * warm() says the server is idle.
 */
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));

/** Keys remembered as accepted by PostHog; past it the oldest is forgotten (it then waits as a new one would). */
const MAX_ACCEPTED_KEYS = 10_000;
/** Keys whose redactor and hash are kept made; past it the oldest is made again when it comes back. */
const MAX_IDENTITIES = 1_000;

/**
 * What a client shares with its withApiKey() and forCall() copies: one keep-alive pool (created
 * on first use), the per-key concurrency gate, the per-key replay throttle (replay-limiter.ts),
 * the stall breaker, and what is known of each key.
 */
export class SharedPool {
  /**
   * Per-key concurrency for the shared upstream pool. In HTTP mode with per-user keys every user
   * shares one client; without a cap, one user's slow calls take every connection and everyone
   * else's calls wait behind them. Each key may have at most `perKey` requests in flight; the
   * rest of that key's requests queue in order, while other keys go straight through.
   */
  readonly gate: FairQueue;
  readonly limiter: ReplayLimiter;
  /** Per key, what is derived from it (its redactor, its hash), made once: HTTP mode makes a client per request. */
  private readonly identities = new Map<string, { redactor: Redactor; keyId: string }>();

  constructor(
    private readonly origin: string,
    private readonly connections: number,
    /** Connecting counts toward a request's timeout; undici's own default is 10 s. */
    private readonly connectTimeoutMs: number,
    perKey: number,
    limiter: ReplayLimiter,
    /** Every connection through this proxy (a CONNECT tunnel, for http:// and https:// upstreams alike). */
    readonly proxy?: UpstreamProxy,
  ) {
    this.gate = new FairQueue({ total: Infinity, perUser: perKey });
    this.limiter = limiter;
  }

  identity(key: string | undefined): { redactor: Redactor; keyId: string } {
    const known = key === undefined ? undefined : this.identities.get(key);
    if (known) return known;
    // The host is part of it: what is learned of a key (throttles, stalls, acceptance) is about that key on this host.
    const made = { redactor: new Redactor(key), keyId: key ? createHash('sha256').update(`${this.origin}\n${key}`).digest('hex').slice(0, 32) : '' };
    if (key !== undefined) {
      if (this.identities.size >= MAX_IDENTITIES) this.identities.delete(this.identities.keys().next().value!);
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

  /** Stops asking an upstream that stopped answering (stall.ts). */
  private breaker: StallBreaker | undefined;
  get stalls(): StallBreaker {
    return (this.breaker ??= new StallBreaker(this.origin));
  }

  private pool: Dispatcher | undefined;
  private creating: Promise<Dispatcher> | undefined;

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
