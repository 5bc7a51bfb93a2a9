import { connect, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostHogClient } from '../src/posthog/client.js';
import { serverFactory, watchSources } from '../src/server.js';
import { TOOLSETS } from '../src/settings.js';
import { DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { serveHttp, type RunningHttp } from '../src/transports/http.js';
import { MAX_WATCH_LINKS } from '../src/watch/links.js';
import { LoopbackWatch, watchOverHttp } from '../src/watch/index.js';
import { MAX_LOOPBACK_CONNECTIONS } from '../src/watch/loopback.js';
import { freeLoopbackPort as freePort } from './support/ports.js';
import { get } from './support/raw-get.js';

/**
 * Watch links over HTTP with per-user keys, attacked by one of the users (issue 41's way: from
 * outside, at the defaults). Links and the listener's reads are shared by every user of the
 * server: one user must not take them from the others.
 */
const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;
const VICTIM = 'phx_attack3_watch_victim_key_0123456789';
const ATTACKER = 'phx_attack3_watch_attacker_key_0123456';

describe('watch links over HTTP, one user against another', () => {
  let sandbox: Sandbox;
  let upstream: PostHogClient;
  let http: RunningHttp;
  const clients: Client[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({ acceptAnyKey: true });
    upstream = new PostHogClient({ baseUrl: sandbox.url, timeoutMs: 10_000 });
    const port = await freePort();
    const settings = { readOnly: false, toolsets: [...TOOLSETS], defaultProjectId: undefined };
    const watch = watchOverHttp({ secret: 'w'.repeat(40), publicUrl: `http://127.0.0.1:${port}` }, watchSources({ client: upstream, settings }));
    http = await serveHttp({ host: '127.0.0.1', port, client: upstream, createServer: serverFactory({ settings, watch: watch.service }), log: () => {}, watchPages: watch.pages });
  });

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await http?.close();
    await upstream?.close();
    await sandbox?.close();
  });

  async function user(key: string): Promise<Client> {
    const client = new Client({ name: 'attack3-watch', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    clients.push(client);
    return client;
  }

  async function watchUrl(client: Client, id: string): Promise<string> {
    const result = await client.callTool({ name: 'session-recording-replay', arguments: { project_id: P, id } });
    const url = (result.structuredContent as { watch_url?: string }).watch_url;
    if (!url) throw new Error(`no watch link: ${JSON.stringify(result.structuredContent).slice(0, 300)}`);
    return url;
  }

  it('one user reading pages as fast as they can leaves another user\'s page a read', { timeout: 60_000 }, async () => {
    const victim = await user(VICTIM);
    const attacker = await user(ATTACKER);
    const mine = await watchUrl(victim, R.recordedCheckout);
    const theirs = await watchUrl(attacker, R.recordedCheckout);
    // The attacker's recording reads slowly (as a large one does from PostHog): each of their reads holds its slot 3 s.
    sandbox.setHostile({ kind: 'slow-key', key: ATTACKER, delayMs: 3_000, path: /snapshots/ });
    const before = sandbox.requests.length;
    const held = Array.from({ length: 4 }, () => get(`${theirs}events?max_bytes=16000000`));
    try {
      await expect.poll(() => sandbox.requests.slice(before).filter((r) => r.authorization === `Bearer ${ATTACKER}`).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      // Past the attacker's own share, the victim's page is read at once.
      const started = Date.now();
      const answer = await get(`${mine}events?max_bytes=300000`);
      expect({ status: answer.status, body: answer.body.slice(0, 120) }).toMatchObject({ status: 200 });
      expect(Date.now() - started).toBeLessThan(2_500);
      const statuses = (await Promise.all(held)).map((a) => a.status).sort();
      // The attacker's own reads beyond their share wait (503, Retry-After), as all reads past the bound did.
      expect(statuses).toEqual([200, 200, 503, 503]);
    } finally {
      await Promise.allSettled(held);
      sandbox.setHostile(undefined);
    }
  });

  it('HEAD of an event page reads nothing from PostHog', async () => {
    const victim = await user(VICTIM);
    const url = await watchUrl(victim, R.recordedSearchTabs);
    const before = sandbox.requests.length;
    const head = await get(`${url}events?max_bytes=16000000`, {}, 'HEAD');
    expect(head.status).toBe(405);
    expect(sandbox.requests.slice(before).filter((r) => r.path.includes('/session_recordings/'))).toEqual([]);
    // The page and its data still answer HEAD as GET.
    expect((await get(url, {}, 'HEAD')).status).toBe(200);
    expect((await get(`${url}data`, {}, 'HEAD')).status).toBe(200);
  });

  // Failed before the sealed links (branch watchrep): MAX_WATCH_LINKS links for the whole server,
  // the oldest forgotten whoever made it. A sealed link's player data is now read again when forgotten.
  it(`another user's ${MAX_WATCH_LINKS} replays do not take away a user's live link`, { timeout: 180_000 }, async () => {
    const victim = await user(VICTIM);
    const attacker = await user(ATTACKER);
    const mine = await watchUrl(victim, R.recordedCheckout);
    expect((await get(`${mine}data`)).status).toBe(200);
    for (let i = 0; i < MAX_WATCH_LINKS; i++) await watchUrl(attacker, R.recordedSearchTabs);
    expect((await get(`${mine}data`)).status).toBe(200);
  });
});

describe("the loopback listener against a local process holding connections", () => {
  it('keeps at most its bound of connections open, however many are held half-sent', { timeout: 30_000 }, async () => {
    const watch = new LoopbackWatch();
    const sockets: Socket[] = [];
    try {
      const link = await watch.link({ project_id: P, id: R.recordedCheckout, player: { moments: [] } as never }, { user: '', read: async () => ({ events: '[]', next_cursor: null }), host: '', key: undefined });
      if (!('url' in link)) throw new Error(link.refused);
      const port = Number(new URL(link.url).port);
      let open = 0;
      for (let i = 0; i < 400; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => {});
        socket.on('connect', () => {
          open++;
          socket.write('GET /watch/ HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        });
        socket.on('close', () => open--);
        sockets.push(socket);
      }
      await new Promise((r) => setTimeout(r, 1_500));
      // Each socket the server keeps is a file descriptor of the MCP server's process (256 in all by default on macOS).
      expect(open).toBeLessThanOrEqual(MAX_LOOPBACK_CONNECTIONS);
    } finally {
      for (const socket of sockets) socket.destroy();
      await watch.close();
    }
  });
});
