// Issue 41 item 1: no recording holds the server's event loop for long. The built server, at its
// defaults in HTTP mode with per-user keys, reads hostile recordings from a purpose-built upstream
// on 127.0.0.1: a click on a chain of 110,000 nested <button>s (one posthog-js-compressed line of
// 0.42 MB), and one uncompressed line of 62 MB. While one user's tool works on them, another
// user's tools/list is timed, and a probe preloaded into the server (support/loop-probe.mjs)
// reports the longest its main thread's event loop was held.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOneBlockUpstream } from './support/one-block-upstream.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const PROBE = fileURLToPath(new URL('./support/loop-probe.mjs', import.meta.url));
const T = Date.parse('2026-11-20T10:00:00Z');
const DEPTH = 110_000;
/** Another user's call may wait this long at most (issue 41: "blocks no other user's call for more than 1 s"). */
const OTHER_USER_MS = 1_000;
/**
 * The longest the main thread's loop may be held. Each piece of work between two yields is
 * meant to stay near 100 ms (docs/security.md gives the figures measured); the bound leaves room
 * for a busy machine's scheduling. Before the fix these recordings held it 0.8 to 4.4 s.
 */
const LOOP_MS = 500;

const page = (t: number) => JSON.stringify(['w1', { type: 4, timestamp: t, data: { href: 'https://shop.test/', width: 800, height: 600 } }]);
const click = (t: number, id: number) => JSON.stringify(['w1', { type: 3, timestamp: t, data: { source: 2, type: 2, id, x: 1, y: 1 } }]);
const documentOf = (body: string) => `{"type":0,"id":1,"childNodes":[{"type":2,"id":2,"tagName":"html","attributes":{},"childNodes":[{"type":2,"id":3,"tagName":"body","attributes":{},"childNodes":[${body}]}]}]}`;

/** A page, a full snapshot whose body is `depth` nested buttons (compressed as posthog-js does), a click on the innermost. Built as text: JSON.stringify would overflow. */
function buttonChain(depth: number): string {
  const open: string[] = [];
  for (let id = 10; id < 10 + depth; id++) open.push(`{"type":2,"id":${id},"tagName":"button","attributes":{},"childNodes":[`);
  const data = `{"node":${documentOf(`${open.join('')}{"type":3,"id":${10 + depth},"textContent":"Go"}${']}'.repeat(depth)}`)},"initialOffset":{"top":0,"left":0}}`;
  const compressed = gzipSync(Buffer.from(data)).toString('latin1');
  return [page(T), JSON.stringify(['w1', { type: 2, timestamp: T + 5, cv: '2024-10', data: compressed }]), click(T + 900, 10 + depth - 1)].join('\n');
}

/** A page, a full snapshot of about `mb` MB of elements on one line, a click on the first. */
function hugeLine(mb: number): string {
  const rows: string[] = [];
  let size = 0;
  for (let id = 10; size < mb * 1e6; id += 2) {
    const row = `{"type":2,"id":${id},"tagName":"div","attributes":{"class":"row"},"childNodes":[{"type":3,"id":${id + 1},"textContent":"some text here"}]}`;
    rows.push(row);
    size += row.length + 1;
  }
  return [page(T), `["w1",{"type":2,"timestamp":${T + 5},"data":{"node":${documentOf(rows.join(','))},"initialOffset":{"top":0,"left":0}}}]`, click(T + 900, 10)].join('\n');
}

/**
 * 90 chains of 1,000 nested divs, and 400 clicks on their ends, each after a text change (a new
 * page state to search): past the reproduction's 10 s of work on any machine.
 */
function tooMuchWork(): string {
  const body = { type: 2, id: 3, tagName: 'body', attributes: {}, childNodes: [] as unknown[] };
  const ends: Array<[number, number]> = [];
  let id = 10;
  for (let chain = 0; chain < 90; chain++) {
    const root = { type: 2, id: id++, tagName: 'div', attributes: {}, childNodes: [] as unknown[] };
    let current = root;
    for (let depth = 0; depth < 1_000; depth++) {
      const next = { type: 2, id: id++, tagName: 'div', attributes: {}, childNodes: [] as unknown[] };
      current.childNodes.push(next);
      current = next;
    }
    current.childNodes.push({ type: 3, id: id, textContent: `end ${chain}` });
    ends.push([current.id, id++]);
    body.childNodes.push(root);
  }
  const lines = [page(T), JSON.stringify(['w1', { type: 2, timestamp: T + 1, data: { node: { type: 0, id: 1, childNodes: [{ type: 2, id: 2, tagName: 'html', attributes: {}, childNodes: [body] }] }, initialOffset: { top: 0, left: 0 } } }])];
  for (let i = 0; i < 400; i++) {
    const [element, textNode] = ends[i % ends.length]!;
    lines.push(JSON.stringify(['w1', { type: 3, timestamp: T + 1_000 * (i + 1), data: { source: 0, texts: [{ id: textNode, value: `end ${i}` }], attributes: [], removes: [], adds: [] } }]));
    lines.push(click(T + 1_000 * (i + 1) + 500, element));
  }
  return lines.join('\n');
}

describe('no recording holds the event loop (built server, HTTP, per-user keys)', { timeout: 180_000 }, () => {
  let upstream: Server;
  let child: ChildProcess;
  let stderr = '';
  let user: Client;
  let other: Client;

  beforeAll(async () => {
    upstream = await startOneBlockUpstream({ chain: Buffer.from(buttonChain(DEPTH)), huge: Buffer.from(hugeLine(62)), work: Buffer.from(tooMuchWork()) });
    child = spawn(process.execPath, ['--import', PROBE, CLI, '--transport', 'http', '--port', '0'], {
      env: { PATH: process.env.PATH ?? '', POSTHOG_HOST: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    for (let i = 0; i < 1_000 && !/Streamable HTTP at (http:\S+\/mcp)/.test(stderr); i++) await new Promise((r) => setTimeout(r, 10));
    const url = new URL(/Streamable HTTP at (http:\S+\/mcp)/.exec(stderr)![1]!);
    const connect = async (key: string) => {
      const client = new Client({ name: 'loop-blocks-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      // A key PostHog has accepted is a known user's (newcomers share fewer slots).
      await client.callTool({ name: 'projects-list', arguments: {} });
      return client;
    };
    user = await connect('phx_first_user_000000000000000000');
    other = await connect('phx_other_user_111111111111111111');
  }, 60_000);

  afterAll(async () => {
    await user?.close();
    await other?.close();
    child?.kill();
    upstream?.close();
  });

  /**
   * Runs `calls` while the other user asks for the tool list again and again: the longest the
   * other user waited, and the longest the server's loop was held meanwhile (the probe's reports).
   */
  async function measure<T>(calls: () => Promise<T>): Promise<{ results: T; otherMs: number; loopMs: number }> {
    const from = stderr.length;
    let done = false;
    let otherMs = 0;
    const polling = (async () => {
      while (!done) {
        const started = performance.now();
        await other.listTools();
        otherMs = Math.max(otherMs, performance.now() - started);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const results = await calls();
    // The probe's report of the last stretch.
    await new Promise((r) => setTimeout(r, 500));
    done = true;
    await polling;
    const reports = [...stderr.slice(from).matchAll(/loop-max-ms (\d+)/g)].map((m) => Number(m[1]));
    expect(reports.length).toBeGreaterThan(0);
    return { results, otherMs: Math.round(otherMs), loopMs: Math.max(...reports) };
  }

  /** `calls` measured (measure), said in the test's output, and held to the bounds: the other user's wait first, as the issue states it. */
  async function within<T>(what: string, calls: () => Promise<T>): Promise<T> {
    const { results, otherMs, loopMs } = await measure(calls);
    console.info(`${what}: longest loop block ${loopMs} ms, other user's tools/list ${otherMs} ms`);
    expect(otherMs, `${what}: the other user's tools/list`).toBeLessThan(OTHER_USER_MS);
    expect(loopMs, `${what}: the longest loop block`).toBeLessThan(LOOP_MS);
    return results;
  }

  const call = (name: string, id: string) => user.callTool({ name, arguments: { project_id: '1', id } }, undefined, { timeout: 170_000 }) as Promise<CallToolResult>;
  const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

  it("one click on a chain of 110,000 nested buttons: a test is made, and the other user's call and the loop wait well under a second", async () => {
    const results = await within('reproduce, 110,000-deep chain', () => call('session-recording-reproduce', 'chain-1'));
    expect(results.isError, textOf(results)).toBeFalsy();
    expect((results.structuredContent as { code: string }).code).toMatch(/\.click\(\)/);
  });

  it('three such calls at once: the same', async () => {
    const results = await within('reproduce ×3, 110,000-deep chain', () => Promise.all(['chain-2', 'chain-3', 'chain-4'].map((id) => call('session-recording-reproduce', id))));
    for (const r of results) expect(r.isError, textOf(r)).toBeFalsy();
  });

  it('a reproduction past its 10 s of work stops with the clear error it always gave, the loop free meanwhile', async () => {
    const results = await within('reproduce past its work budget', () => call('session-recording-reproduce', 'work-1'));
    expect(results.isError).toBe(true);
    expect(textOf(results)).toMatch(/^Generating the test took more than 10 s of work and was stopped: the recorded pages are too large or too deeply nested/);
  });

  describe('one line of 62 MB is parsed and masked off the main thread', () => {
    it('by the snapshots page, which summarizes its event', async () => {
      const results = await within('snapshots, 62 MB line', () => call('session-recording-snapshots', 'huge-1'));
      expect(results.isError, textOf(results)).toBeFalsy();
      const events = (results.structuredContent as { events: Array<{ type: number; omitted?: string }> }).events;
      expect(events.map((e) => e.type)).toEqual([4, 2, 3]);
      expect(events[1]!.omitted).toMatch(/^FullSnapshot of 6\d{4} KB left out of this page \(too large\)/);
    });

    it("by the player's feed, which passes over an event too large to send", async () => {
      const results = await within('player feed, 62 MB line', () => call('session-recording-replay-events', 'huge-2'));
      expect(results.isError, textOf(results)).toBeFalsy();
      const fed = results.structuredContent as { count: number; notes?: string[] };
      expect(fed.count).toBe(2);
      expect(fed.notes?.join(' ')).toMatch(/1 event larger than 16 MB was passed over: too large to send/);
    });

    it('by the reproduction, which makes its test', async () => {
      const results = await within('reproduce, 62 MB line', () => call('session-recording-reproduce', 'huge-3'));
      expect(results.isError, textOf(results)).toBeFalsy();
      expect((results.structuredContent as { code: string }).code).toMatch(/\.click\(\)/);
    });
  });
});
