import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { LoopbackWatch } from '../src/watch/index.js';
import { MAX_WATCH_LINKS, WATCH_TTL_MS, WatchTokens } from '../src/watch/links.js';
import { startHarness, type Harness } from './harness.js';
import { get } from './support/raw-get.js';

/**
 * The replay's watch links (issue 43) as a browser or an attacker on this machine meets them: the
 * loopback listener's answers, headers and refusals, over real HTTP. The page playing in Chromium
 * is test/watch-browser.test.ts; HTTP mode's sealed links, across replicas, test/watch-replicas.test.ts.
 */
const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;

describe('watch links over stdio\'s loopback listener', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ watch: new LoopbackWatch() });
  });

  afterAll(async () => {
    await h?.close();
  });

  async function linkTo(id: string): Promise<{ url: string }> {
    const result = await h.call('session-recording-replay', { project_id: P, id });
    const data = result.structuredContent as { watch_url: string };
    expect(data.watch_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/watch\/[\w-]{43}\.[\w-]{22}\/$/);
    return { url: data.watch_url };
  }

  it('sends the page and its data with a strict CSP, no-referrer and no-store, and no key anywhere', async () => {
    const link = await linkTo(R.recordedCheckout);
    const page = await get(link.url);
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/^default-src 'none'; /);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/https?:|\*/);
    const data = await get(`${link.url}data`);
    const events = await get(`${link.url}events?max_bytes=16000000`);
    for (const answer of [page, data, events]) {
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.body).not.toContain(h.sandbox.apiKey);
    }
    expect(events.status).toBe(200);
    expect(JSON.parse(data.body)).toMatchObject({ project_id: P, id: R.recordedCheckout });
    expect(link.url).not.toContain(h.sandbox.apiKey);
  });

  it('answers 404 to a tampered or unknown token, to another recording and to every other path; 421 to another Host', async () => {
    const a = await linkTo(R.recordedCheckout);
    const b = await linkTo(R.recordedSearchTabs);
    const origin = new URL(a.url).origin;
    const token = a.url.slice(`${origin}/watch/`.length, -1);
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    expect((await get(a.url)).status).toBe(200);
    for (const path of [
      `/watch/${flip(token, 0)}/`, // the random part
      `/watch/${flip(token, token.length - 1)}/`, // the tag
      `/watch/${token.slice(0, -1)}/`,
      `/watch/${token}/${R.recordedSearchTabs}`,
      `/watch/${token}/../${R.recordedSearchTabs}/data`,
      `/watch/${token}/data/x`,
      `/watch/${token}/player.html`,
      '/watch/',
      '/',
      '/mcp',
      `/project/${P}/replay/${R.recordedCheckout}`,
    ]) {
      expect({ path, status: (await get(`${origin}${path}`)).status }).toEqual({ path, status: 404 });
    }
    expect((await get(a.url, {}, 'POST')).status).toBe(404);
    // A's link reads A, whatever the query names.
    const data = JSON.parse((await get(`${a.url}data?id=${R.recordedSearchTabs}`)).body) as { id: string };
    expect(data.id).toBe(R.recordedCheckout);
    // B's cursor does not read B through A's link.
    const bFirst = JSON.parse((await get(`${b.url}events?max_bytes=10000`)).body) as { next_cursor: string | null };
    expect(bFirst.next_cursor).not.toBeNull();
    const crossed = await get(`${a.url}events?max_bytes=10000&cursor=${encodeURIComponent(bFirst.next_cursor!)}`);
    expect(crossed.status).toBe(400);
    // DNS rebinding: a page of another name pointed at 127.0.0.1 is not answered.
    const port = new URL(a.url).port;
    expect((await get(a.url, { host: `evil.example:${port}` })).status).toBe(421);
    expect((await get(a.url, { host: `127.0.0.1:${Number(port) + 1}` })).status).toBe(421);
    expect((await get(a.url, { host: `localhost:${port}` })).status).toBe(200);
  });
});

describe('the watch listener ends with its server', () => {
  it('is not listening before the first link, and refuses connections once closed', async () => {
    const watch = new LoopbackWatch();
    const h = await startHarness({ watch });
    let url: string;
    try {
      expect(await watch.port()).toBeUndefined();
      const result = await h.call('session-recording-replay', { project_id: P, id: R.recordedCheckout });
      url = (result.structuredContent as { watch_url: string }).watch_url;
      expect((await get(url)).status).toBe(200);
    } finally {
      await h.close();
    }
    await expect(get(url!)).rejects.toThrow(/ECONNREFUSED/);
    // A closed service makes no more links.
    expect(await watch.link({ project_id: P, id: R.recordedCheckout, player: {} as never }, { user: '', read: async () => ({ events: '[]', next_cursor: null }), host: '', key: undefined })).toEqual({ refused: 'the server is shutting down.' });
  });
});

describe('over stdio, from the built CLI and a client that declares no MCP Apps', () => {
  it('gives a watch link that serves the recording, and ends with the server', { timeout: 60_000 }, async () => {
    const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
    const transport = new StdioClientTransport({ command: process.execPath, args: [cli, '--sandbox'], env: { PATH: process.env.PATH ?? '' }, stderr: 'pipe' });
    const client = new Client({ name: 'watch-test', version: '1' });
    await client.connect(transport);
    let url: string;
    try {
      const result = await client.callTool({ name: 'session-recording-replay', arguments: { id: R.recordedCheckout } });
      expect(result.isError).toBeFalsy();
      const data = result.structuredContent as { watch_url: string; watch_expires_at: string; watch_note: string };
      url = data.watch_url;
      // A client that shows the model only the JSON still tells it to hand the link on.
      expect(data.watch_note).toMatch(/no player appeared in the chat, give the user this link/);
      expect(Date.parse(data.watch_expires_at) - Date.now()).toBeGreaterThan(29 * 60_000);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/watch\/[\w-]{43}\.[\w-]{22}\/$/);
      const page = await get(url);
      expect(page.status).toBe(200);
      expect(page.body).toContain('<main id="player">');
      expect(JSON.parse((await get(`${url}data`)).body)).toMatchObject({ id: R.recordedCheckout, project_id: P });
      const events = JSON.parse((await get(`${url}events?max_bytes=300000`)).body) as { events: string };
      expect((JSON.parse(events.events) as unknown[]).length).toBeGreaterThan(10);
    } finally {
      await client.close();
    }
    // The client closed stdin: the server stopped, and its listener with it.
    await expect.poll(() => get(url!).then(() => 'answered', (error: Error) => error.message), { timeout: 15_000 }).toMatch(/ECONNREFUSED/);
  });
});

describe('the watch listener\'s reads', () => {
  it('reads at most 4 event pages at once, 2 for one user\'s links; past them 503 with Retry-After, then answers again', async () => {
    const watch = new LoopbackWatch();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const read = async () => {
      started++;
      await gate;
      return { events: '[]', next_cursor: null };
    };
    const linkFor = async (user: string) => {
      const link = await watch.link({ project_id: P, id: R.recordedCheckout, player: { moments: [] } as never }, { user, read, host: '', key: undefined });
      if (!('url' in link)) throw new Error(link.refused);
      return link.url;
    };
    try {
      const [a, b, c] = [await linkFor('a'), await linkFor('b'), await linkFor('c')];
      const held = [a, a, b, b].map((url) => get(`${url}events`));
      await expect.poll(() => started).toBe(4);
      for (const url of [a, c]) {
        const refused = await get(`${url}events`);
        expect(refused.status).toBe(503);
        expect(refused.headers['retry-after']).toBe('2');
      }
      release();
      expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      expect((await get(`${a}events`)).status).toBe(200);
    } finally {
      await watch.close();
    }
  });
});

describe('watch tokens', () => {
  const recording = { project_id: P, id: R.recordedCheckout, player: { moments: [] } as never };
  const read = async () => ({ events: '[]', next_cursor: null });

  it('open for 30 minutes, then never again', () => {
    let now = 1_000_000;
    const tokens = new WatchTokens(undefined, () => now);
    const { token, expiresAt } = tokens.issue(recording, 'user', read);
    expect(expiresAt).toBe(now + WATCH_TTL_MS);
    expect(Buffer.from(token.split('.')[0]!, 'base64url').length).toBeGreaterThanOrEqual(16);
    now += WATCH_TTL_MS - 1;
    expect(tokens.open(token)?.id).toBe(R.recordedCheckout);
    now += 1;
    expect(tokens.open(token)).toBeUndefined();
    expect(tokens.size).toBe(0);
  });

  it('opens a token only with the tag made for it: not another tag, nor one of another secret', () => {
    const tokens = new WatchTokens('s'.repeat(40));
    const other = new WatchTokens('t'.repeat(40));
    const { token } = tokens.issue(recording, 'user', read);
    const [nonce, tag] = token.split('.') as [string, string];
    expect(tokens.open(token)?.id).toBe(R.recordedCheckout);
    const mine = other.issue(recording, 'user', read).token;
    expect(tokens.open(`${nonce}.${mine.split('.')[1]}`)).toBeUndefined();
    expect(tokens.open(`${nonce}.${tag.slice(0, -1)}${tag.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined();
    expect(tokens.open(nonce)).toBeUndefined();
    expect(tokens.open(`${nonce}.`)).toBeUndefined();
    expect(other.open(token)).toBeUndefined();
  });

  it('keeps at most MAX_WATCH_LINKS, forgetting the oldest', () => {
    const tokens = new WatchTokens(undefined);
    const issued = Array.from({ length: MAX_WATCH_LINKS + 3 }, () => tokens.issue(recording, 'user', read).token);
    expect(tokens.size).toBe(MAX_WATCH_LINKS);
    expect(tokens.open(issued[0]!)).toBeUndefined();
    expect(tokens.open(issued[2]!)).toBeUndefined();
    expect(tokens.open(issued[3]!)).toBeDefined();
    expect(tokens.open(issued.at(-1)!)).toBeDefined();
  });
});
