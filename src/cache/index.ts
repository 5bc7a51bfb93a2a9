import { NoDigestCache, type DigestCache } from './digest-cache.js';
import { MemoryDigestCache } from './memory.js';
import { RedisDigestCache } from './redis.js';

export { sourcesFingerprint, type DigestCache, type DigestCacheKey } from './digest-cache.js';

export interface DigestCacheSettings {
  /** "memory" (the default), "off", or a redis:// / rediss:// URL. */
  target: string;
  /** In-process budget in MiB. */
  maxMb: number;
  ttlMs: number;
}

export function createDigestCache(settings: DigestCacheSettings, log: (message: string) => void): DigestCache {
  if (settings.target === 'off') return new NoDigestCache();
  if (/^rediss?:\/\//i.test(settings.target)) return new RedisDigestCache({ url: settings.target, ttlMs: settings.ttlMs, log });
  return new MemoryDigestCache({ maxBytes: settings.maxMb * 1024 * 1024, ttlMs: settings.ttlMs });
}
