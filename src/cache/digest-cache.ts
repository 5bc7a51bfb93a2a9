
/**
 * A cache of recording digests, so the same recording is not fetched and digested twice while it
 * has not changed (issue 13). Entries are addressed by upstream, project (its number, never
 * "@current", which means another project for another key or after a switch), recording and the
 * identity of the key that read it, and carry a fingerprint of the recording's sources listing:
 * when an ongoing recording gains blocks, the fingerprint changes and the entry is a miss.
 *
 * An entry is only ever served to the key that made it: in HTTP mode with per-user keys, user B is
 * never served user A's digest, whatever the two recordings have in common.
 */

export interface DigestCacheKey {
  /** The PostHog base URL the recording lives on. */
  upstream: string;
  /** The project's number (callers resolve "@current" first). */
  projectId: string;
  recordingId: string;
  /** Who read it: a hash of host and key (PostHogClient.keyIdentity), never the key. */
  keyIdentity: string;
}

export interface DigestCache {
  readonly kind: 'memory' | 'redis' | 'off';
  /** The value stored under this key with this fingerprint; undefined on a miss, a stale entry or a cache failure. */
  get<T>(key: DigestCacheKey, fingerprint: string): Promise<T | undefined>;
  /** Stores a JSON-serialisable value; failures are swallowed (the caller already has its answer). */
  set(key: DigestCacheKey, fingerprint: string, value: unknown): Promise<void>;
  readonly stats: CacheStats;
  close(): Promise<void>;
}

export interface CacheStats {
  hits: number;
  misses: number;
  /** Entries found with another fingerprint (the recording changed since). */
  stale: number;
  /** Operations that failed (Redis unreachable, too slow, or a corrupt entry). */
  errors: number;
}

/** node:crypto on first use, not at start-up (every client waits for start-up; few ever digest). */
function createHash(algorithm: string) {
  return process.getBuiltinModule('node:crypto').createHash(algorithm);
}

/**
 * Bump when the shape of cached digests changes: entries written by an older build are then
 * simply never found (in Redis they expire on their own). 2: digests are scrubbed of the key
 * before they are stored (version 1 could hold one decoded from gzipped recording data). 3: entries
 * are per key and per resolved project (version 2 shared them between keys, and under "@current").
 * 4: repeated errors and requests keep their last time (`last_t`). 5: page messages that tell of
 * trouble say so (`trouble`), for the triage. 6: failed requests keep their response body (`request.body`).
 * 7: a page message repeated with other numbers keeps the last one's text (`last_detail`).
 */
export const DIGEST_CACHE_VERSION = 7;

/** Stable and short: the raw parts can be long (a 200-character id) and carry a host name. */
export function digestCacheId(key: DigestCacheKey): string {
  return createHash('sha256')
    .update(`${DIGEST_CACHE_VERSION}\n${key.upstream.replace(/\/+$/, '')}\n${key.projectId}\n${key.recordingId}\n${key.keyIdentity}`)
    .digest('base64url');
}

/**
 * What identifies one state of a recording's stored data: every source's kind, key and time
 * range, in order. New blocks (an ongoing recording) or a move to long-term storage change it.
 */
export function sourcesFingerprint(sources: ReadonlyArray<{ source: string; blob_key: string | null; start_timestamp: string | null; end_timestamp: string | null }>): string {
  const hash = createHash('sha256');
  for (const s of sources) hash.update(`${s.source}\u0000${s.blob_key ?? ''}\u0000${s.start_timestamp ?? ''}\u0000${s.end_timestamp ?? ''}\n`);
  return `${sources.length}:${hash.digest('base64url').slice(0, 22)}`;
}

export function emptyStats(): CacheStats {
  return { hits: 0, misses: 0, stale: 0, errors: 0 };
}

/** The stored form: the fingerprint beside the value, in one JSON text. */
export interface StoredEntry {
  f: string;
  v: unknown;
}

export function encodeEntry(fingerprint: string, value: unknown): string {
  return JSON.stringify({ f: fingerprint, v: value } satisfies StoredEntry);
}

export function decodeEntry(text: string): StoredEntry | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as StoredEntry).f === 'string' && 'v' in parsed) return parsed as StoredEntry;
  } catch {
    // A corrupt entry is a miss.
  }
  return undefined;
}

/** For when caching is switched off: every lookup misses, nothing is kept. */
export class NoDigestCache implements DigestCache {
  readonly kind = 'off' as const;
  readonly stats = emptyStats();
  async get<T>(): Promise<T | undefined> {
    this.stats.misses++;
    return undefined;
  }
  async set(): Promise<void> {}
  async close(): Promise<void> {}
}
