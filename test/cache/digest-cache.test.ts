import { afterEach, describe, expect, it } from 'vitest';
import { createDigestCache, sourcesFingerprint } from '../../src/cache/index.js';
import { MemoryDigestCache } from '../../src/cache/memory.js';
import { RedisDigestCache, redisDisplayName } from '../../src/cache/redis.js';
import { freeLoopbackPort } from '../support/ports.js';
import { REDIS_SERVER, startRedis, type RedisProcess } from '../support/redis.js';

const key = (recordingId: string, projectId = '1', upstream = 'https://us.posthog.com', keyIdentity = 'k1') => ({ upstream, projectId, recordingId, keyIdentity });
const source = (blobKey: string, end: string) => ({ source: 'blob_v2', blob_key: blobKey, start_timestamp: '2026-01-01T00:00:00Z', end_timestamp: end });

describe('sourcesFingerprint', () => {
  it('changes when a recording gains a block or a block grows, and only then', () => {
    const one = [source('0', '2026-01-01T00:01:00Z')];
    expect(sourcesFingerprint(one)).toBe(sourcesFingerprint([source('0', '2026-01-01T00:01:00Z')]));
    expect(sourcesFingerprint([...one, source('1', '2026-01-01T00:02:00Z')])).not.toBe(sourcesFingerprint(one));
    expect(sourcesFingerprint([source('0', '2026-01-01T00:01:30Z')])).not.toBe(sourcesFingerprint(one));
    expect(sourcesFingerprint([{ source: 'blob_v2_lts', blob_key: 'path/x', start_timestamp: null, end_timestamp: null }])).not.toBe(sourcesFingerprint(one));
  });
});

describe('MemoryDigestCache', () => {
  it('hits with the same fingerprint, misses with another, per upstream, project, recording and key', async () => {
    const cache = new MemoryDigestCache({ maxBytes: 1 << 20, ttlMs: 60_000 });
    await cache.set(key('a'), 'f1', { counts: { clicks: 3 } });
    expect(await cache.get(key('a'), 'f1')).toEqual({ counts: { clicks: 3 } });
    expect(await cache.get(key('a', '2'), 'f1')).toBeUndefined();
    expect(await cache.get(key('a', '1', 'https://eu.posthog.com'), 'f1')).toBeUndefined();
    expect(await cache.get(key('a', '1', 'https://us.posthog.com', 'k2'), 'f1')).toBeUndefined();
    expect(await cache.get(key('b'), 'f1')).toBeUndefined();
    // The recording gained blocks: the old digest is stale, and gone.
    expect(await cache.get(key('a'), 'f2')).toBeUndefined();
    expect(await cache.get(key('a'), 'f1')).toBeUndefined();
    expect(cache.stats).toEqual({ hits: 1, misses: 6, stale: 1, errors: 0 });
  });

  it('hands out copies: changing a returned digest does not change the cached one', async () => {
    const cache = new MemoryDigestCache({ maxBytes: 1 << 20, ttlMs: 60_000 });
    await cache.set(key('a'), 'f', { list: [1] });
    const first = await cache.get<{ list: number[] }>(key('a'), 'f');
    first!.list.push(2);
    expect(await cache.get(key('a'), 'f')).toEqual({ list: [1] });
  });

  it('stays within its byte budget, evicting the least recently used first', async () => {
    const value = { text: 'x'.repeat(1_000) };
    const entryBytes = JSON.stringify({ f: 'f', v: value }).length * 2;
    const cache = new MemoryDigestCache({ maxBytes: entryBytes * 3, ttlMs: 60_000 });
    for (const id of ['a', 'b', 'c']) await cache.set(key(id), 'f', value);
    await cache.get(key('a'), 'f'); // a is now the most recently used
    await cache.set(key('d'), 'f', value);
    expect(cache.size).toBe(3);
    expect(cache.usedBytes).toBeLessThanOrEqual(entryBytes * 3);
    expect(await cache.get(key('b'), 'f')).toBeUndefined();
    for (const id of ['a', 'c', 'd']) expect(await cache.get(key(id), 'f')).toEqual(value);
    // One entry larger than the whole budget is not kept, and evicts nothing.
    await cache.set(key('huge'), 'f', { text: 'x'.repeat(entryBytes * 2) });
    expect(await cache.get(key('huge'), 'f')).toBeUndefined();
    expect(cache.size).toBe(3);
  });

  it('expires entries after their time to live', async () => {
    let now = 1_000;
    const cache = new MemoryDigestCache({ maxBytes: 1 << 20, ttlMs: 500, now: () => now });
    await cache.set(key('a'), 'f', 1);
    now += 499;
    expect(await cache.get(key('a'), 'f')).toBe(1);
    now += 2;
    expect(await cache.get(key('a'), 'f')).toBeUndefined();
    expect(cache.usedBytes).toBe(0);
  });

  it('createDigestCache picks the kind from the setting', async () => {
    const log = () => {};
    expect(createDigestCache({ target: 'memory', maxMb: 1, ttlMs: 1 }, log).kind).toBe('memory');
    expect(createDigestCache({ target: 'off', maxMb: 1, ttlMs: 1 }, log).kind).toBe('off');
    const redis = createDigestCache({ target: 'redis://127.0.0.1:1', maxMb: 1, ttlMs: 1 }, log);
    expect(redis.kind).toBe('redis');
    await redis.close();
  });
});

describe('redisDisplayName', () => {
  it('never shows the credentials of a Redis URL', () => {
    expect(redisDisplayName('redis://user:s3cret@cache.internal:6380/2')).toBe('redis://cache.internal:6380');
    expect(redisDisplayName('rediss://:s3cret@cache.internal')).toBe('rediss://cache.internal');
    expect(redisDisplayName('not a url s3cret')).not.toContain('s3cret');
  });
});

if (!REDIS_SERVER) console.warn('Skipping the Redis digest-cache tests: redis-server is not installed (apt-get install redis-server; .ci/run does this).');

describe.skipIf(!REDIS_SERVER)('RedisDigestCache against a real redis-server', () => {
  let redis: RedisProcess | undefined;
  const caches: RedisDigestCache[] = [];
  const open = (url: string, log: string[] = []) => {
    const cache = new RedisDigestCache({ url, ttlMs: 60_000, opTimeoutMs: 1_000, log: (m) => log.push(m) });
    caches.push(cache);
    return cache;
  };

  afterEach(async () => {
    await Promise.all(caches.splice(0).map((c) => c.close()));
    await redis?.stop();
    redis = undefined;
  });

  it('is shared between replicas: what one stores, another finds; a new fingerprint misses', async () => {
    redis = await startRedis();
    const log: string[] = [];
    const one = open(redis.url, log);
    const two = open(redis.url, log);
    await one.set(key('rec'), 'f1', { timeline: [{ t: 1, kind: 'click' }] });
    expect(await two.get(key('rec'), 'f1')).toEqual({ timeline: [{ t: 1, kind: 'click' }] });
    expect(await two.get(key('rec', '9'), 'f1')).toBeUndefined();
    expect(await two.get(key('rec'), 'f2')).toBeUndefined();
    // The stale entry was removed for everyone.
    await new Promise((r) => setTimeout(r, 50));
    expect(await one.get(key('rec'), 'f1')).toBeUndefined();
    expect(two.stats).toMatchObject({ hits: 1, stale: 1, errors: 0 });
    expect(log).toEqual([]);
  });

  it('with Redis down, every lookup misses at once and the outage is said once; when Redis is back, it is used again', async () => {
    const port = await freeLoopbackPort();
    const log: string[] = [];
    const cache = open(`redis://:hunter2-secret@127.0.0.1:${port}`, log);
    const started = Date.now();
    for (let i = 0; i < 5; i++) {
      await cache.set(key('rec'), 'f', { i });
      expect(await cache.get(key('rec'), 'f')).toBeUndefined();
    }
    // Bounded by the first connect attempt, not by ten operations' timeouts.
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/Redis at redis:\/\/127\.0\.0\.1:\d+ is not answering.*without the cache/);
    expect(log.join('\n')).not.toContain('hunter2');

    redis = await startRedis(port);
    // The client reconnects on its own (backoff at most 5 s).
    const deadline = Date.now() + 15_000;
    let stored = false;
    while (!stored && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      await cache.set(key('rec'), 'f', { back: true });
      stored = (await cache.get(key('rec'), 'f')) !== undefined;
    }
    expect(stored).toBe(true);
    expect(log).toHaveLength(2);
    expect(log[1]).toMatch(/answering again/);
  });

  it('a Redis that stops mid-way makes lookups miss, not fail', async () => {
    redis = await startRedis();
    const log: string[] = [];
    const cache = open(redis.url, log);
    await cache.set(key('rec'), 'f', 1);
    expect(await cache.get(key('rec'), 'f')).toBe(1);
    await redis.stop();
    redis = undefined;
    await new Promise((r) => setTimeout(r, 100));
    expect(await cache.get(key('rec'), 'f')).toBeUndefined();
    await expect(cache.set(key('rec'), 'f', 2)).resolves.toBeUndefined();
    expect(log).toHaveLength(1);
  });
});

describe('settledFingerprint', () => {
  it('vouches only for a recording that is over, from its start, end and duration', async () => {
    const { settledFingerprint } = await import('../../src/tools/recordings/recording-digest.js');
    const now = Date.parse('2026-11-22T12:00:00Z');
    const meta = { start_time: '2026-11-22T10:00:00Z', end_time: '2026-11-22T10:05:00Z', recording_duration: 300, ongoing: false };
    const print = settledFingerprint(meta, now);
    expect(print).toBeTruthy();
    expect(settledFingerprint({ ...meta }, now)).toBe(print);
    expect(settledFingerprint({ ...meta, end_time: '2026-11-22T10:06:00Z', recording_duration: 360 }, now)).not.toBe(print);
    // Still going on, or ended too recently to be sure: the sources listing decides.
    expect(settledFingerprint({ ...meta, ongoing: true }, now)).toBeUndefined();
    expect(settledFingerprint({ ...meta, end_time: '2026-11-22T11:45:00Z' }, now)).toBeUndefined();
    expect(settledFingerprint({ ...meta, end_time: null }, now)).toBeUndefined();
    expect(settledFingerprint(undefined, now)).toBeUndefined();
  });
});
