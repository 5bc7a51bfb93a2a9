import { afterEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MemoryDigestCache } from '../src/cache/memory.js';
import { RedisDigestCache } from '../src/cache/redis.js';
import { DEMO } from '../src/sandbox/index.js';
import { clientOptionsFrom } from '../src/posthog/from-config.js';
import { apiRequests, defaultConfig, harnessesPerTest, text, type Harness } from './harness.js';
import { freeLoopbackPort } from './support/ports.js';
import { REDIS_SERVER, startRedis, type RedisProcess } from './support/redis.js';

type Triage = {
  read: number;
  cached: number;
  problems: Array<{ kind: string; signature: string; sessions: number; people: number; occurrences: number; example: string }>;
  sessions: Array<{ id: string; console_errors: number; console_warnings: number; failed_requests: number; rage_clicks: number; dead_clicks: number }>;
  unread: Array<{ id: string; reason: string; retry_after_seconds?: number }>;
  next_cursor: string | null;
  partial?: { reason: string; retry_after_seconds?: number };
};

const PROJECT = String(DEMO.mainProjectId);
const CHECKOUT = DEMO.recordingIds.recordedCheckout;
/** The structured view with what it leaves out when there is nothing to say put back: no unread, no cache hits, zero counts. */
const triageOf = (result: CallToolResult): Triage => {
  const data = result.structuredContent as unknown as Triage;
  const zero = { console_errors: 0, console_warnings: 0, failed_requests: 0, rage_clicks: 0, dead_clicks: 0 };
  return { ...data, cached: data.cached ?? 0, unread: expandUnread(data.unread), sessions: (data.sessions ?? []).map((s) => ({ ...zero, ...s })) };
};
const blockRequests = (h: Harness) => apiRequests(h.sandbox).filter((r) => r.path.endsWith('/snapshots/') || r.path.endsWith('/snapshots')).filter((r) => r.query.source !== undefined).length;

const open = harnessesPerTest({ defaultProjectId: PROJECT });

describe('session-recordings-triage', () => {
  it('aggregates exactly what the single digests say, and names the recorded checkout\'s 500, console error and rage click', async () => {
    const h = await open();
    // Many reads at once share the call's signal: none may make Node warn of a listener leak.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const result = await h.call('session-recordings-triage', { max_chars: 20_000, date_from: '-30d', max_recordings: 20 }).finally(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      process.off('warning', onWarning);
    });
    expect(warnings).toEqual([]);
    expect(result.isError, text(result)).toBeFalsy();
    const triage = triageOf(result);
    expect(triage.read).toBeGreaterThanOrEqual(10);
    expect(triage.unread).toEqual([]);
    expect(triage.next_cursor).toBeNull();

    // The same recordings, one summary each: the totals must be the sums of their counts.
    const totals = { console_errors: 0, console_warnings: 0, failed_requests: 0, rage_clicks: 0, dead_clicks: 0 };
    const withOrders500: string[] = [];
    const withPaymentError: string[] = [];
    const withPlaceOrderRage: string[] = [];
    for (const { id } of triage.sessions) {
      const summary = (await h.call('session-recording-summary', { id, max_chars: 20_000 })).structuredContent as { counts: Record<string, number>; timeline?: string[] };
      const timeline = summary.timeline ?? [];
      for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += summary.counts[key] ?? 0;
      if (timeline.some((line) => /^\S+ request failed POST "[^"]*\/api\/orders" → 500/.test(line))) withOrders500.push(id);
      if (timeline.some((line) => /^\S+ console error "Payment failed: order service returned \d+"/.test(line))) withPaymentError.push(id);
      if (timeline.some((line) => /^\S+ RAGE CLICK .*Place order/.test(line))) withPlaceOrderRage.push(id);
    }
    const fromTriage = { console_errors: 0, console_warnings: 0, failed_requests: 0, rage_clicks: 0, dead_clicks: 0 };
    for (const s of triage.sessions) for (const key of Object.keys(fromTriage) as Array<keyof typeof fromTriage>) fromTriage[key] += s[key];
    expect(fromTriage).toEqual(totals);
    // The symptoms of one failure are one entry naming its parts, each part with its own counts.
    type Part = Triage['problems'][number];
    const entryOf = new Map<Part, Part>();
    const flat: Part[] = [];
    for (const p of triage.problems) {
      for (const part of p.kind === 'chain' ? (p as Part & { parts: Part[] }).parts : [p]) {
        flat.push(part);
        entryOf.set(part, p);
      }
    }
    const sumOver = (kind: string) => flat.filter((p) => p.kind === kind).reduce((n, p) => n + p.occurrences, 0);
    expect(sumOver('console-error')).toBe(totals.console_errors);
    expect(sumOver('request-failed')).toBe(totals.failed_requests);
    expect(sumOver('rage-click')).toBe(totals.rage_clicks);

    // The recorded checkout's problems, with the session counts the summaries give.
    expect(withOrders500).toContain(CHECKOUT);
    const orders = flat.find((p) => p.kind === 'request-failed' && /^POST [^ ]*\/api\/orders → 500$/.test(p.signature))!;
    expect(orders, JSON.stringify(triage.problems.map((p) => p.signature))).toBeDefined();
    expect(orders.sessions).toBe(withOrders500.length);
    // One example: PostHog's player at its moment.
    const payment = flat.find((p) => p.kind === 'console-error' && /^Payment failed: order service returned \d+(…\d+)?$/.test(p.signature))!;
    expect(payment.sessions).toBe(withPaymentError.length);
    expect(withPaymentError).toContain(CHECKOUT);
    const rage = flat.filter((p) => p.kind === 'rage-click' && /Place order/.test(p.signature));
    expect(rage.reduce((n, p) => n + p.sessions, 0)).toBe(withPlaceOrderRage.length);
    expect(withPlaceOrderRage).toContain(CHECKOUT);
    const example = entryOf.get(orders)!.example;
    expect(example).toMatch(new RegExp(`^${h.sandbox.url}/project/${PROJECT}/replay/[\\w-]+\\?t=\\d+$`));
    expect(text(result)).toContain(`e.g. ${example}`);
    expect(text(result)).toMatch(/failed request "POST [^"]*\/api\/orders → 500"/);
  });

  it('reports a recording it could not read, and reads the others', async () => {
    const h = await open();
    h.sandbox.injectFault({ method: 'GET', path: new RegExp(`/session_recordings/${CHECKOUT}/snapshots/?$`), status: 500, times: Infinity });
    const triage = triageOf(await h.call('session-recordings-triage', { max_chars: 20_000, date_from: '-30d', max_recordings: 20 }));
    expect(triage.unread).toEqual([expect.objectContaining({ id: CHECKOUT, reason: 'failed' })]);
    expect(triage.read).toBeGreaterThanOrEqual(9);
    expect(triage.sessions.map((s) => s.id)).not.toContain(CHECKOUT);
  });

  it('stops at PostHog\'s replay throttle with a correct partial result, and its cursor reads the rest', async () => {
    const rates = [{ count: 16, windowMs: 1_500 }];
    // About pacing to a budget the user configured (POSTHOG_REPLAY_RATE_LIMITS), with a short
    // throttle wait so the stop comes quickly; the learned default is tested in throttle.test.ts.
    // A page of 12 recordings needs more than 16 replay requests: the cursor stops at the window
    // more than once, each time for about 2 s.
    const h = await open({
      sandbox: { replayThrottle: rates },
      client: { replayRates: rates },
      callLimits: { maxRequests: 100, wallClockMs: 30_000, throttleWaitMs: 300 },
    });
    const all = triageOf(await (await open()).call('session-recordings-triage', { max_chars: 20_000, date_from: '-30d', max_recordings: 50 }));
    expect(all.next_cursor).toBeNull();
    expect(all.read).toBeGreaterThan(12);

    const read = new Map<string, Triage['sessions'][number]>();
    let cursor: string | undefined;
    let calls = 0;
    let sawPartial = false;
    do {
      const result = await h.call('session-recordings-triage', { max_chars: 20_000, date_from: '-30d', max_recordings: 12, ...(cursor ? { cursor } : {}) });
      expect(result.isError, text(result)).toBeFalsy();
      const triage = triageOf(result);
      for (const s of triage.sessions) read.set(s.id, s);
      if (triage.partial) {
        sawPartial = true;
        expect(triage.partial.reason).toBe('throttle');
        expect(triage.partial.retry_after_seconds).toBeGreaterThan(0);
        expect(triage.next_cursor).toBeTruthy();
        expect(triage.unread.length).toBeGreaterThan(0);
        expect(text(result)).toMatch(/PARTIAL/);
        // Nothing reported as read is also reported as unread.
        for (const u of triage.unread) expect(triage.sessions.map((s) => s.id)).not.toContain(u.id);
        await new Promise((r) => setTimeout(r, (triage.partial!.retry_after_seconds ?? 1) * 1000));
      }
      cursor = triage.next_cursor ?? undefined;
      calls++;
    } while (cursor && calls < 12);
    expect(sawPartial).toBe(true);
    expect(cursor).toBeUndefined();
    // Every recording of one unthrottled run was read once the cursor ran out (its pages of 12
    // included), with the same counts.
    expect([...read.keys()].sort()).toEqual(all.sessions.map((s) => s.id).sort());
    for (const s of all.sessions) expect(read.get(s.id)).toEqual(s);
  }, 90_000);

  it('reads the same against the 2024 API as against today\'s PostHog', async () => {
    const today = triageOf(await (await open()).call('session-recordings-triage', { max_chars: 20_000, date_from: '-30d', max_recordings: 20 }));
    const old = triageOf(await (await open({ sandbox: { api: '2024' } })).call('session-recordings-triage', { max_chars: 20_000, date_from: '-30d', max_recordings: 20 }));
    expect(old.read).toBe(today.read);
    // Demo times follow each sandbox's clock, and links its port: compare what was found.
    const found = (t: Triage) => t.problems.map((p) => ({ kind: p.kind, signature: p.signature, sessions: p.sessions, people: p.people, occurrences: p.occurrences, example: p.example.replace(/^http:\/\/[^/]+/, '') }));
    expect(found(old)).toEqual(found(today));
    expect(found(today).length).toBeGreaterThan(5);
  });

  it('keeps both views within the default max_chars on a fresh sandbox, whatever the period', async () => {
    const h = await open();
    for (const args of [{}, { date_from: '-7d' }, { date_from: '-30d' }]) {
      const result = await h.call('session-recordings-triage', args);
      expect(result.isError, text(result)).toBeFalsy();
      expect(text(result).length, JSON.stringify(args)).toBeLessThanOrEqual(4_000);
      // As a client serializes it for the model, the notice included.
      expect(JSON.stringify(result.structuredContent).length, JSON.stringify(args)).toBeLessThanOrEqual(4_000);
      // Counted over the period (query-first), the demo week may fit whole; what is left out says how to see it.
      const leftOut = (result.structuredContent as { left_out?: string }).left_out;
      if (leftOut !== undefined) expect(leftOut).toMatch(/raise max_chars/);
      expect(text(result)).toMatch(/Left out for max_chars|Problems across every recording/);
    }
  });

  it('says when nothing matched, and how to look further back', async () => {
    const h = await open();
    const result = await h.call('session-recordings-triage', { max_chars: 20_000, person_uuid: '00000000-0000-4000-8000-000000000000' });
    expect(result.isError, text(result)).toBeFalsy();
    expect(triageOf(result)).toMatchObject({ read: 0, problems: [], next_cursor: null });
    expect(text(result)).toMatch(/No recordings matched these filters \(PostHog searched the last 3 days; pass date_from/);
  });

  it('refuses a cursor it did not give, before any request', async () => {
    const h = await open();
    const before = apiRequests(h.sandbox).length;
    const result = await h.call('session-recordings-triage', { max_chars: 20_000, cursor: 'not-a-cursor' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/cursor is not one this tool gave/);
    expect(apiRequests(h.sandbox).length).toBe(before);
  });
});

describe('the digest cache, through the tools', () => {
  it('hit: a second triage and a summary of recordings that are over make no replay request beyond the list; miss: a recording whose metadata changed', async () => {
    const cache = new MemoryDigestCache({ maxBytes: 64 << 20, ttlMs: 60_000 });
    const h = await open({ cache });
    const listings = () => apiRequests(h.sandbox).filter((r) => /\/snapshots\/?$/.test(r.path) && r.query.source === undefined).length;
    const first = triageOf(await h.call('session-recordings-triage', { max_chars: 20_000, date_from: '-30d', max_recordings: 20 }));
    expect(first.cached).toBe(0);
    const blocks = blockRequests(h);
    const firstListings = listings();
    expect(blocks).toBeGreaterThan(0);
    expect(firstListings).toBe(first.read);

    const second = triageOf(await h.call('session-recordings-triage', { max_chars: 20_000, date_from: '-30d', max_recordings: 20 }));
    expect(second.read).toBe(first.read);
    expect(second.cached).toBe(first.read);
    expect(second.problems).toEqual(first.problems);
    expect(blockRequests(h)).toBe(blocks);
    // Only the recording that is still going on needed its listing read again (to know it is unchanged).
    expect(listings() - firstListings).toBe(1);
    const summary = await h.call('session-recording-summary', { id: CHECKOUT });
    expect(summary.structuredContent).toMatchObject({ counts: { rage_clicks: 1 } });
    expect(blockRequests(h)).toBe(blocks);
    expect(listings() - firstListings).toBe(1);

    // PostHog's metadata says the recording changed (it ends later): the cached digest is stale.
    const meta = await fetch(`${h.sandbox.url}/api/projects/${PROJECT}/session_recordings/${CHECKOUT}/`, { headers: { authorization: `Bearer ${h.sandbox.apiKey}` } }).then((r) => r.json() as Promise<Record<string, unknown>>);
    meta.end_time = new Date(Date.parse(String(meta.end_time)) + 60_000).toISOString();
    h.sandbox.injectFault({ method: 'GET', path: `/api/projects/${PROJECT}/session_recordings/${CHECKOUT}/`, status: 200, body: meta, times: 2 });
    await h.call('session-recording-summary', { id: CHECKOUT });
    const afterChange = blockRequests(h);
    expect(afterChange).toBeGreaterThan(blocks);
    // …and the new state is what is kept.
    await h.call('session-recording-summary', { id: CHECKOUT });
    expect(blockRequests(h)).toBe(afterChange);
    expect(cache.stats.stale).toBe(1);
  });

  it('a recording still going on is checked against its sources listing: unchanged, a hit; a new block, a miss', async () => {
    const cache = new MemoryDigestCache({ maxBytes: 64 << 20, ttlMs: 60_000 });
    const h = await open({ cache });
    const ONGOING = DEMO.recordingIds.ongoing;
    await h.call('session-recording-summary', { id: ONGOING });
    const blocks = blockRequests(h);
    await h.call('session-recording-summary', { id: ONGOING });
    expect(blockRequests(h)).toBe(blocks);
    expect(cache.stats.hits).toBe(1);

    const listing = await fetch(`${h.sandbox.url}/api/projects/${PROJECT}/session_recordings/${ONGOING}/snapshots/?blob_v2=true`, { headers: { authorization: `Bearer ${h.sandbox.apiKey}` } }).then((r) => r.json() as Promise<{ sources: Array<{ end_timestamp: string | null }> }>);
    const last = listing.sources[listing.sources.length - 1]!;
    last.end_timestamp = new Date(Date.parse(last.end_timestamp ?? new Date().toISOString()) + 60_000).toISOString();
    h.sandbox.injectFault({ method: 'GET', path: new RegExp(`/session_recordings/${ONGOING}/snapshots/?$`), query: { blob_v2: 'true' }, status: 200, body: listing, times: 1 });
    await h.call('session-recording-summary', { id: ONGOING });
    expect(blockRequests(h)).toBeGreaterThan(blocks);
    expect(cache.stats.stale).toBe(1);
  });

  it('never serves a cached digest to a key that cannot read the recording', async () => {
    const cache = new MemoryDigestCache({ maxBytes: 64 << 20, ttlMs: 60_000 });
    const owner = await open({ cache });
    expect((await owner.call('session-recording-summary', { id: CHECKOUT })).isError).toBeFalsy();
    // Another user, same upstream and cache, with a key PostHog refuses.
    const { createServer } = await import('../src/server.js');
    const { PostHogClient } = await import('../src/posthog/client.js');
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
    const stranger = new PostHogClient(clientOptionsFrom(defaultConfig(owner.sandbox.url, 'phx_someone_else_entirely_0000000000'), { baseUrl: owner.sandbox.url, apiKey: 'phx_someone_else_entirely_0000000000' }));
    const server = createServer({ client: stranger, settings: { readOnly: true, toolsets: ['recordings'], defaultProjectId: PROJECT }, cache });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'stranger', version: '1.0.0' });
    await server.connect(b);
    await client.connect(a);
    try {
      const result = (await client.callTool({ name: 'session-recording-summary', arguments: { id: CHECKOUT } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/401/);
      expect(JSON.stringify(result)).not.toMatch(/Place order/);
      const triage = (await client.callTool({ name: 'session-recordings-triage', arguments: { date_from: '-30d' } })) as CallToolResult;
      expect(triage.isError).toBe(true);
      expect(JSON.stringify(triage)).not.toMatch(/api\/orders/);
      expect(cache.stats.hits).toBe(0);
    } finally {
      await client.close();
      await server.close();
      await stranger.close();
    }
  });
});

if (!REDIS_SERVER) console.warn('Skipping the Redis digest-cache tool tests: redis-server is not installed (apt-get install redis-server; .ci/run does this).');

describe.skipIf(!REDIS_SERVER)('the digest cache on Redis, through the tools', () => {
  let redis: RedisProcess | undefined;
  afterEach(async () => {
    await redis?.stop();
    redis = undefined;
  });

  it('two replicas share digests: what one read, the other serves without fetching snapshot data', async () => {
    redis = await startRedis();
    const log: string[] = [];
    const one = new RedisDigestCache({ url: redis.url, ttlMs: 60_000, log: (m) => log.push(m) });
    const two = new RedisDigestCache({ url: redis.url, ttlMs: 60_000, log: (m) => log.push(m) });
    try {
      const first = await open({ cache: one });
      const summary = await first.call('session-recording-summary', { id: CHECKOUT });
      expect(summary.isError).toBeFalsy();
      // The second replica talks to the same upstream (the first's sandbox) through its own server.
      const { createServer } = await import('../src/server.js');
      const { PostHogClient } = await import('../src/posthog/client.js');
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
      const posthog = new PostHogClient(clientOptionsFrom(defaultConfig(first.sandbox.url, first.sandbox.apiKey), { baseUrl: first.sandbox.url, apiKey: first.sandbox.apiKey }));
      const server = createServer({ client: posthog, settings: { readOnly: true, toolsets: ['recordings'], defaultProjectId: PROJECT }, cache: two });
      const [a, b] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: 'replica-two', version: '1.0.0' });
      await server.connect(b);
      await client.connect(a);
      const blocks = blockRequests(first);
      const again = (await client.callTool({ name: 'session-recording-summary', arguments: { id: CHECKOUT } })) as CallToolResult;
      expect(again.isError).toBeFalsy();
      expect(again.structuredContent).toEqual(summary.structuredContent);
      expect(blockRequests(first)).toBe(blocks);
      expect(two.stats.hits).toBe(1);
      expect(log).toEqual([]);
      await client.close();
      await server.close();
      await posthog.close();
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('with Redis down the tools still answer, uncached, and say so once on stderr', async () => {
    const port = await freeLoopbackPort();
    const h = await open({});
    const log: string[] = [];
    const cache = new RedisDigestCache({ url: `redis://127.0.0.1:${port}`, ttlMs: 60_000, log: (m) => log.push(m) });
    try {
      const { createServer } = await import('../src/server.js');
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
      const server = createServer({ client: h.posthog, settings: { readOnly: true, toolsets: ['recordings'], defaultProjectId: PROJECT }, cache });
      const [a, b] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: 'no-redis', version: '1.0.0' });
      await server.connect(b);
      await client.connect(a);
      for (let i = 0; i < 2; i++) {
        const result = (await client.callTool({ name: 'session-recording-summary', arguments: { id: CHECKOUT } })) as CallToolResult;
        expect(result.isError, text(result)).toBeFalsy();
        expect(result.structuredContent).toMatchObject({ counts: { rage_clicks: 1 } });
      }
      const triage = (await client.callTool({ name: 'session-recordings-triage', arguments: { date_from: '-30d', max_recordings: 5 } })) as CallToolResult;
      expect(triage.isError, text(triage)).toBeFalsy();
      expect(log).toHaveLength(1);
      expect(log[0]).toMatch(/Redis .* is not answering/);
      await client.close();
      await server.close();
    } finally {
      await cache.close();
    }
  });
});

/** The unread entries one a recording: three or more left for one reason come as one entry with their count and first ids. */
function expandUnread(entries: Array<{ id?: string; ids?: string[]; count?: number; reason: string }> | undefined): Array<{ id: string; reason: string }> {
  return (entries ?? []).flatMap((e) =>
    e.ids ? Array.from({ length: e.count ?? e.ids.length }, (_, i) => ({ ...e, id: e.ids![i] ?? `(one of ${e.count} more)` })) : [{ ...e, id: e.id! }],
  );
}
