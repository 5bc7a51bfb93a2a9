import { redisKnownKeys, type SharedKnownKeys } from './known-keys.js';
import { redisOAuthStore, type SharedOAuthStore } from './oauth-store.js';
import { decodeEntry, digestCacheId, emptyStats, encodeEntry, type DigestCache, type DigestCacheKey } from './digest-cache.js';

export interface RedisCacheOptions {
  /** redis:// or rediss:// URL; it may carry a password, so it is never printed whole. */
  url: string;
  ttlMs: number;
  /** Longest wait for one cache operation before it counts as a miss. */
  opTimeoutMs?: number;
  /** Entries larger than this are not stored. */
  maxEntryBytes?: number;
  /** Where the one line about an outage goes (stderr in the CLI). */
  log: (message: string) => void;
}

const KEY_PREFIX = 'posthog-replay-mcp:digest:';

const CONNECT_TIMEOUT_MS = 2_000;

/** The URL as it may be shown: scheme, host and port, never the credentials. */
export function redisDisplayName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}`;
  } catch {
    return 'the configured Redis';
  }
}

type RedisClient = {
  isReady: boolean;
  connect(): Promise<unknown>;
  get(key: string): Promise<string | null | unknown>;
  pTTL(key: string): Promise<number | unknown>;
  set(key: string, value: string, options: { PX: number; condition?: 'NX' }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  del(key: string): Promise<unknown>;
  on(event: 'error' | 'ready', listener: (arg?: unknown) => void): unknown;
  destroy(): void;
};

/**
 * A digest cache shared by every replica of an HTTP deployment. Redis being down, slow or
 * unreachable never fails a tool call: every operation then counts as a miss, and the server says
 * so once on stderr for each outage (and once when Redis answers again).
 */
export class RedisDigestCache implements DigestCache {
  readonly kind = 'redis' as const;
  readonly stats = emptyStats();
  private client: RedisClient | undefined;
  private starting: Promise<RedisClient | undefined> | undefined;
  private down = false;
  private closed = false;
  private readonly name: string;
  private readonly opTimeoutMs: number;
  private readonly maxEntryBytes: number;

  constructor(private readonly options: RedisCacheOptions) {
    this.name = redisDisplayName(options.url);
    this.opTimeoutMs = options.opTimeoutMs ?? 1_000;
    this.maxEntryBytes = options.maxEntryBytes ?? 8 * 1024 * 1024;
  }

  /**
   * Connects on first use. The first lookup waits for the first connection attempt (at most the
   * connect timeout); after that, while Redis is away, lookups miss at once instead of waiting.
   */
  start(): Promise<RedisClient | undefined> {
    return (this.starting ??= (async () => {
      // Loaded only when a Redis cache is configured.
      const { createClient } = await import('@redis/client');
      const client = createClient({
        url: this.options.url,
        disableOfflineQueue: true,
        socket: {
          connectTimeout: CONNECT_TIMEOUT_MS,
          reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5_000),
        },
      }) as unknown as RedisClient;
      this.client = client;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, CONNECT_TIMEOUT_MS + 100);
        const settle = () => {
          clearTimeout(timer);
          resolve();
        };
        client.on('error', (err) => {
          this.markDown(err);
          settle();
        });
        client.on('ready', () => {
          this.markUp();
          settle();
        });
        client.connect().catch((err: unknown) => {
          this.markDown(err);
          settle();
        });
      });
      return client;
    })().catch((err: unknown) => {
      this.markDown(err);
      return undefined;
    }));
  }

  async get<T>(key: DigestCacheKey, fingerprint: string): Promise<T | undefined> {
    const id = KEY_PREFIX + digestCacheId(key);
    const text = await this.run((client) => client.get(id));
    const entry = typeof text === 'string' ? decodeEntry(text) : undefined;
    if (!entry || entry.f !== fingerprint) {
      if (entry) {
        this.stats.stale++;
        void this.run((client) => client.del(id));
      }
      this.stats.misses++;
      return undefined;
    }
    this.stats.hits++;
    return entry.v as T;
  }

  async set(key: DigestCacheKey, fingerprint: string, value: unknown): Promise<void> {
    const text = encodeEntry(fingerprint, value);
    if (Buffer.byteLength(text) > this.maxEntryBytes) return;
    await this.run((client) => client.set(KEY_PREFIX + digestCacheId(key), text, { PX: this.options.ttlMs }));
  }

  /**
   * The same connection as a small shared store for what replicas learn of PostHog's replay
   * throttle (posthog/replay-limiter.ts). An outage makes reads miss and writes vanish, as for digests.
   */
  limitStore(): { get(id: string): Promise<{ value: string; ttlMs: number } | undefined>; set(id: string, value: string, ttlMs: number): Promise<void> } {
    return {
      // The value with its remaining TTL, which Redis counts down: replicas share durations, never clock readings.
      get: async (id) => {
        const both = await this.run((client) => Promise.all([client.get(id), client.pTTL(id)]));
        const [value, ttlMs] = both ?? [];
        return typeof value === 'string' && typeof ttlMs === 'number' && ttlMs > 0 ? { value, ttlMs } : undefined;
      },
      set: async (id, value, ttlMs) => {
        await this.run((client) => client.set(id, value, { PX: Math.max(1, Math.round(ttlMs)) }));
      },
    };
  }

  /** The same connection as the replicas' memory of keys PostHog accepted (known-keys.ts). */
  knownKeys(): SharedKnownKeys {
    return redisKnownKeys({ run: (op) => this.run(op) });
  }

  /** The same connection as the OAuth server's shared memory (oauth-store.ts). */
  oauthStore(): SharedOAuthStore {
    return redisOAuthStore({ run: (op) => this.run(op) });
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (this.starting ? await this.starting : undefined);
    try {
      client?.destroy();
    } catch {
      // Already gone.
    }
  }

  /** One operation within opTimeoutMs; any failure is a miss (undefined). */
  private async run<R>(op: (client: RedisClient) => Promise<R>): Promise<R | undefined> {
    if (this.closed) return undefined;
    const client = await this.start();
    if (!client || !client.isReady) {
      this.stats.errors++;
      this.markDown(new Error('not connected'));
      return undefined;
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        op(client),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${this.opTimeoutMs} ms`)), this.opTimeoutMs);
        }),
      ]);
    } catch (err) {
      this.stats.errors++;
      this.markDown(err);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  private markDown(err: unknown): void {
    if (this.down || this.closed) return;
    this.down = true;
    const reason = err instanceof Error ? err.message.replace(/\/\/[^@/\s]*@/g, '//').slice(0, 120) : 'unknown error';
    this.options.log(`Digest cache: Redis at ${this.name} is not answering (${reason}); recordings are digested without the cache (and OAuth sign-ins, when on, are remembered by this replica alone) until it is back.`);
  }

  private markUp(): void {
    if (!this.down || this.closed) return;
    this.down = false;
    this.options.log(`Digest cache: Redis at ${this.name} is answering again.`);
  }
}
