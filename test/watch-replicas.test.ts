import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLSETS } from '../src/settings.js';
import { PostHogClient } from '../src/posthog/client.js';
import { serverFactory, watchSources } from '../src/server.js';
import { DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { serveHttp, type RunningHttp } from '../src/transports/http.js';
import { watchOverHttp } from '../src/watch/index.js';
import { MAX_WATCH_LINKS, WATCH_TTL_MS } from '../src/watch/links.js';
import { SealedWatch } from '../src/watch/sealed.js';
import { encodeCursor } from '../src/tools/recordings/snapshot-cursor.js';
import { startHarness, text } from './harness.js';
import { freeLoopbackPort as freePort } from './support/ports.js';
import { get } from './support/raw-get.js';

/**
 * HTTP mode's watch links behind a round-robin balancer: replicas of one configuration (the same
 * MCP_WATCH_SECRET, the sandbox as their PostHog) in this process, each with its own memory. A
 * link made on one opens on any other, and after a restart, reading with the key of the user who
 * asked, which the link carries sealed; nothing else opens it.
 */
const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;
const SECRET = 'w'.repeat(40);
const USER_KEY = 'phx_watch_replica_user_key_0123456789';
const settings = { readOnly: false, toolsets: [...TOOLSETS], defaultProjectId: undefined };

interface Replica {
  origin: string;
  port: number;
  http: RunningHttp;
  close(): Promise<void>;
}

let sandbox: Sandbox;
let now = Date.now();
const clock = () => now;

/**
 * One replica as cli.ts makes it over HTTP: its own client, links and pages; per-user keys unless
 * given a key of its own, the sandbox as its PostHog unless given another.
 */
async function replica(secret: string, { port, apiKey, posthog = sandbox }: { port?: number; apiKey?: string; posthog?: Sandbox } = {}): Promise<Replica> {
  const at = port ?? (await freePort());
  const upstream = new PostHogClient({ baseUrl: posthog.url, timeoutMs: 5_000, ...(apiKey ? { apiKey } : {}) });
  const watch = watchOverHttp({ secret, publicUrl: `http://127.0.0.1:${at}` }, watchSources({ client: upstream, settings }), clock);
  const http = await serveHttp({ host: '127.0.0.1', port: at, client: upstream, createServer: serverFactory({ settings, watch: watch.service }), log: () => {}, watchPages: watch.pages });
  return {
    origin: `http://127.0.0.1:${at}`,
    port: at,
    http,
    close: async () => {
      await http.close();
      await watch.service.close();
      await upstream.close();
    },
  };
}

/** The replay's watch link, asked for on `at` from a client without MCP Apps, by the user of USER_KEY (or with no key: the server's own). */
async function linkFrom(at: Replica, id: string, { key = USER_KEY as string | undefined, start_at }: { key?: string | undefined; start_at?: string } = {}): Promise<string> {
  const client = new Client({ name: 'watch-replicas', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(at.http.url), { requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} } }));
  try {
    const result = await client.callTool({ name: 'session-recording-replay', arguments: { project_id: P, id, ...(start_at ? { start_at } : {}) } });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as { watch_url: string; watch_expires_at: string };
    expect(Date.parse(data.watch_expires_at)).toBe(now + WATCH_TTL_MS);
    return data.watch_url;
  } finally {
    await client.close();
  }
}

/** The same path on another replica, as a balancer would send it there. */
const on = (url: string, at: Replica) => {
  const { pathname, search } = new URL(url);
  return at.origin + pathname + search;
};

/** Requests to the sandbox since `from` that read a recording, and the keys they were sent with. */
function readsSince(from: number): Set<string | undefined> {
  return new Set(sandbox.requests.slice(from).filter((r) => r.path.includes('/session_recordings/')).map((r) => r.authorization));
}

beforeAll(async () => {
  sandbox = await startSandbox({ acceptAnyKey: true });
});

afterAll(async () => {
  await sandbox?.close();
});

describe('a watch link over HTTP, on any replica with the same MCP_WATCH_SECRET', () => {
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    now = Date.now();
    a = await replica(SECRET);
    b = await replica(SECRET);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('made on A, opens on B: the page, the same player data and the events, read with the key of the user who asked', async () => {
    const url = await linkFrom(a, R.recordedCheckout, { start_at: '3' });
    expect(url.startsWith(`${a.origin}/watch/`)).toBe(true);
    // Short enough for any chat and browser; the key is in it in no form.
    expect(url.length).toBeLessThan(600);
    for (const form of [USER_KEY, Buffer.from(USER_KEY).toString('base64url'), Buffer.from(USER_KEY).toString('base64')]) expect(url).not.toContain(form);
    const token = new URL(url).pathname.split('/')[2]!;
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(header).toEqual({ alg: 'dir', enc: 'A256GCM', typ: 'rmcp-watch' });

    const fromA = await get(`${url}data`);
    const before = sandbox.requests.length;
    const page = await get(on(url, b));
    const data = await get(on(`${url}data`, b));
    const events = await get(on(`${url}events?max_bytes=300000`, b));
    expect([page.status, data.status, events.status]).toEqual([200, 200, 200]);
    expect(page.body).toContain('<main id="player">');
    // B made the player data afresh, as A had it: the digest's moments and windows, where to start.
    expect(JSON.parse(data.body)).toEqual(JSON.parse(fromA.body));
    expect(JSON.parse(data.body)).toMatchObject({ project_id: P, id: R.recordedCheckout, start_at_ms: 3_000 });
    expect((JSON.parse((JSON.parse(events.body) as { events: string }).events) as unknown[]).length).toBeGreaterThan(10);
    expect(readsSince(before)).toEqual(new Set([`Bearer ${USER_KEY}`]));
    for (const answer of [page, data, events]) {
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.body).not.toContain(USER_KEY);
    }
    expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    // B's own Host check holds for links it did not make.
    expect((await get(on(url, b), { host: `evil.example:${b.port}` })).status).toBe(421);
  });

  it('reads only its recording on every replica: a cursor of another recording is refused, a query naming one ignored', async () => {
    const checkout = await linkFrom(a, R.recordedCheckout);
    const cursor = (id: string) => encodeCursor({ r: id, p: P, i: 0, s: 0 });
    expect((await get(on(`${checkout}events?max_bytes=10000&cursor=${cursor(R.recordedCheckout)}`, b))).status).toBe(200);
    expect((await get(on(`${checkout}events?max_bytes=10000&cursor=${cursor(R.recordedSearchTabs)}`, b))).status).toBe(400);
    expect((JSON.parse((await get(on(`${checkout}data?id=${R.recordedSearchTabs}`, b))).body) as { id: string }).id).toBe(R.recordedCheckout);
  });

  it('answers 404 to the link with any one character changed, cut short or lengthened', async () => {
    const url = await linkFrom(a, R.recordedCheckout);
    const token = new URL(url).pathname.split('/')[2]!;
    expect((await get(on(url, b))).status).toBe(200);
    const forged = [token.slice(0, -1), `${token}A`, `${token}.`, token.replace('..', '.A.')];
    // Each character to its neighbour in the alphabet (its lowest bit flipped): at the end of a
    // part, the bits that spell nothing, so the same bytes spelt another way must not open either.
    const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const neighbour = (c: string) => (c === '.' ? 'A' : B64[B64.indexOf(c) ^ 1]!);
    for (let i = 0; i < token.length; i++) forged.push(token.slice(0, i) + neighbour(token[i]!) + token.slice(i + 1));
    const statuses = new Map<number, number>();
    for (const [i, t] of forged.entries()) {
      const status = (await get(`${(i % 2 ? a : b).origin}/watch/${t}/data`)).status;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect([...statuses]).toEqual([[404, forged.length]]);
  });

  it('answers 404, on every replica, once the link has expired', async () => {
    const url = await linkFrom(a, R.recordedCheckout);
    now += WATCH_TTL_MS - 1_000;
    try {
      expect((await get(on(url, b))).status).toBe(200);
      now += 1_000;
      for (const at of [a, b]) for (const part of ['', 'data', 'events']) expect({ part, status: (await get(on(`${url}${part}`, at))).status }).toEqual({ part, status: 404 });
    } finally {
      now = Date.now();
    }
  });
});

describe('what a replica does not open', () => {
  it('a link of another PostHog, or of the other kind of key (the server\'s own, a caller\'s): 404', async () => {
    now = Date.now();
    const elsewhere = await startSandbox({ acceptAnyKey: true });
    const ours = await replica(SECRET);
    const otherHost = await replica(SECRET, { posthog: elsewhere });
    const ownKey = await replica(SECRET, { apiKey: sandbox.apiKey });
    try {
      const url = await linkFrom(ours, R.recordedCheckout);
      expect((await get(url)).status).toBe(200);
      for (const at of [otherHost, ownKey]) for (const part of ['', 'data', 'events']) expect((await get(on(`${url}${part}`, at))).status).toBe(404);
      // The server's own key is never in its links; they open where that key is the server's.
      const own = await linkFrom(ownKey, R.recordedCheckout, { key: undefined });
      expect((await get(own)).status).toBe(200);
      expect((await get(on(own, ours))).status).toBe(404);
      const again = await replica(SECRET, { apiKey: sandbox.apiKey });
      try {
        const before = sandbox.requests.length;
        expect((await get(on(`${own}events?max_bytes=300000`, again))).status).toBe(200);
        expect(readsSince(before)).toEqual(new Set([`Bearer ${sandbox.apiKey}`]));
      } finally {
        await again.close();
      }
    } finally {
      await Promise.all([ours.close(), otherHost.close(), ownKey.close()]);
      await elsewhere.close();
    }
  });

  it('a link sealed with another secret: 404', async () => {
    now = Date.now();
    const ours = await replica(SECRET);
    const theirs = await replica('t'.repeat(40));
    try {
      const url = await linkFrom(theirs, R.recordedCheckout);
      expect((await get(url)).status).toBe(200);
      for (const part of ['', 'data', 'events']) expect((await get(on(`${url}${part}`, ours))).status).toBe(404);
    } finally {
      await ours.close();
      await theirs.close();
    }
  });
});

describe('a restart', () => {
  it('keeps the link working until it expires', async () => {
    now = Date.now();
    const first = await replica(SECRET);
    let url: string;
    try {
      url = await linkFrom(first, R.recordedCheckout);
      expect((await get(url)).status).toBe(200);
    } finally {
      await first.close();
    }
    await expect(get(url)).rejects.toThrow(/ECONNREFUSED/);
    const again = await replica(SECRET, { port: first.port });
    try {
      const before = sandbox.requests.length;
      const [page, data, events] = [await get(url), await get(`${url}data`), await get(`${url}events?max_bytes=300000`)];
      expect([page.status, data.status, events.status]).toEqual([200, 200, 200]);
      expect(JSON.parse(data.body)).toMatchObject({ id: R.recordedCheckout, project_id: P });
      expect(readsSince(before)).toEqual(new Set([`Bearer ${USER_KEY}`]));
    } finally {
      await again.close();
    }
  });
});

describe('the player data a replica holds', () => {
  const player = (id: string) => ({ project_id: P, id, start_time: null, duration_ms: 1_000, start_at_ms: 0, posthog_url: null, windows: [], moments: [] });
  const caller = { user: 'u', read: async () => ({ events: '[]', next_cursor: null }), host: 'http://posthog.invalid', key: USER_KEY };

  it('is made afresh once for a page\'s requests at once, and at most MAX_WATCH_LINKS links\' data is held', async () => {
    const made: string[] = [];
    const sources = (link: { id: string }) => ({ read: caller.read, player: async () => (made.push(link.id), player(link.id)) });
    const maker = new SealedWatch({ secret: SECRET, publicUrl: 'http://127.0.0.1:9', sources });
    const opener = new SealedWatch({ secret: SECRET, publicUrl: 'http://127.0.0.1:9', sources });
    const tokens: string[] = [];
    for (let i = 0; i <= MAX_WATCH_LINKS; i++) {
      const offer = await maker.link({ project_id: P, id: `rec-${i}`, player: player(`rec-${i}`) }, caller);
      if (!('url' in offer)) throw new Error(offer.refused);
      tokens.push(new URL(offer.url).pathname.split('/')[2]!);
    }
    // The replica that made them holds all but the oldest.
    expect(typeof (await maker.opener(tokens.at(-1)!))?.data).toBe('string');
    expect(typeof (await maker.opener(tokens[0]!))?.data).toBe('function');
    // Another replica holds none, makes the data once however many requests ask at once, then holds it.
    const link = await opener.opener(tokens[5]!);
    if (!link || typeof link.data === 'string') throw new Error('expected data to be made afresh');
    const remake = link.data;
    const answers = await Promise.all([remake(), remake(), remake()]);
    expect(made).toEqual(['rec-5']);
    expect(new Set(answers)).toEqual(new Set([JSON.stringify(player('rec-5'))]));
    expect((await opener.opener(tokens[5]!))?.data).toBe(JSON.stringify(player('rec-5')));
  });
});

describe('without MCP_PUBLIC_URL and MCP_WATCH_SECRET', () => {
  it('no link, and the result says why', async () => {
    const h = await startHarness({ watch: watchOverHttp(undefined, () => undefined).service });
    try {
      const result = await h.call('session-recording-replay', { project_id: P, id: R.recordedCheckout });
      const data = result.structuredContent as { watch_url?: string; watch_note?: string };
      expect(data.watch_url).toBeUndefined();
      expect(data.watch_note).toMatch(/MCP_PUBLIC_URL and MCP_WATCH_SECRET/);
      expect(text(result)).toMatch(/No watch link: .*MCP_PUBLIC_URL and MCP_WATCH_SECRET/);
    } finally {
      await h.close();
    }
  });
});
