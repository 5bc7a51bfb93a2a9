import { decodeEntry, digestCacheId, emptyStats, encodeEntry, type DigestCache, type DigestCacheKey } from './digest-cache.js';

export interface MemoryCacheOptions {
  /** Upper bound on the stored text, in bytes (UTF-16 length × 2 is what the strings cost). */
  maxBytes: number;
  /** How long an entry is served. */
  ttlMs: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Slot {
  text: string;
  bytes: number;
  expires: number;
}

/**
 * The in-process digest cache: least recently used entries go first once the byte budget is
 * reached. Values are kept as JSON text, so what a caller does with a returned digest cannot
 * change the cached one, and the budget counts what is really held.
 */
export class MemoryDigestCache implements DigestCache {
  readonly kind = 'memory' as const;
  readonly stats = emptyStats();
  private readonly slots = new Map<string, Slot>();
  private bytes = 0;
  private readonly now: () => number;

  constructor(private readonly options: MemoryCacheOptions) {
    // Monotonic: a wall clock stepped back must not keep an entry past its TTL.
    this.now = options.now ?? (() => performance.now());
  }

  get size(): number {
    return this.slots.size;
  }

  get usedBytes(): number {
    return this.bytes;
  }

  async get<T>(key: DigestCacheKey, fingerprint: string): Promise<T | undefined> {
    const id = digestCacheId(key);
    const slot = this.slots.get(id);
    if (!slot || slot.expires <= this.now()) {
      if (slot) this.drop(id, slot);
      this.stats.misses++;
      return undefined;
    }
    const entry = decodeEntry(slot.text);
    if (!entry || entry.f !== fingerprint) {
      this.drop(id, slot);
      if (entry) this.stats.stale++;
      this.stats.misses++;
      return undefined;
    }
    // Most recently used goes to the end of the Map's order.
    this.slots.delete(id);
    this.slots.set(id, slot);
    this.stats.hits++;
    return entry.v as T;
  }

  async set(key: DigestCacheKey, fingerprint: string, value: unknown): Promise<void> {
    const text = encodeEntry(fingerprint, value);
    const bytes = text.length * 2;
    const id = digestCacheId(key);
    const old = this.slots.get(id);
    if (old) this.drop(id, old);
    // One entry larger than the whole budget is not kept (it would evict everything else).
    if (bytes > this.options.maxBytes) return;
    while (this.bytes + bytes > this.options.maxBytes) {
      const oldest = this.slots.entries().next().value;
      if (!oldest) break;
      this.drop(oldest[0], oldest[1]);
    }
    this.slots.set(id, { text, bytes, expires: this.now() + this.options.ttlMs });
    this.bytes += bytes;
  }

  async close(): Promise<void> {
    this.slots.clear();
    this.bytes = 0;
  }

  private drop(id: string, slot: Slot): void {
    this.slots.delete(id);
    this.bytes -= slot.bytes;
  }
}
