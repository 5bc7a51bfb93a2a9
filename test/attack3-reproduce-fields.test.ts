// A recorded form field's own constraints are the site's, or any visitor's who sends recordings
// with the project's public token: the reproduction's placeholders (src/reproduce/fields.ts) must
// not let them hold the server. The built server, at its defaults in HTTP mode with per-user keys,
// makes a test of each hostile recording from a purpose-built upstream on 127.0.0.1 while another
// user's tools/list is timed and a probe preloaded into the server (support/loop-probe.mjs)
// reports the longest its main thread's event loop was held.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchesPattern } from '../src/reproduce/fields.js';
import { startOneBlockUpstream } from './support/one-block-upstream.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const PROBE = fileURLToPath(new URL('./support/loop-probe.mjs', import.meta.url));
const T = Date.parse('2026-11-20T10:00:00Z');
/** As test/event-loop-blocks.test.ts: another user waits under 1 s, no piece of work holds the loop 500 ms. */
const OTHER_USER_MS = 1_000;
const LOOP_MS = 500;

/** A page with one text field of these attributes and a button; the field typed in (masked), then the button clicked. */
function formWith(attributes: Record<string, string>): string {
  const node = {
    type: 0,
    id: 1,
    childNodes: [
      {
        type: 2,
        id: 2,
        tagName: 'html',
        attributes: {},
        childNodes: [
          {
            type: 2,
            id: 3,
            tagName: 'body',
            attributes: {},
            childNodes: [
              { type: 2, id: 10, tagName: 'input', attributes: { name: 'code', 'aria-label': 'Code', ...attributes }, childNodes: [] },
              { type: 2, id: 11, tagName: 'button', attributes: {}, childNodes: [{ type: 3, id: 12, textContent: 'Go' }] },
            ],
          },
        ],
      },
    ],
  };
  return [
    ['w1', { type: 4, timestamp: T, data: { href: 'https://shop.test/', width: 800, height: 600 } }],
    ['w1', { type: 2, timestamp: T + 5, data: { node, initialOffset: { top: 0, left: 0 } } }],
    ['w1', { type: 3, timestamp: T + 500, data: { source: 5, id: 10, text: '*****', isChecked: false } }],
    ['w1', { type: 3, timestamp: T + 900, data: { source: 2, type: 2, id: 11, x: 1, y: 1 } }],
  ]
    .map((line) => JSON.stringify(line))
    .join('\n');
}

describe("a recorded field's constraints hold no one (built server, HTTP, per-user keys)", { timeout: 120_000 }, () => {
  let upstream: Server;
  let child: ChildProcess;
  let stderr = '';
  let user: Client;
  let other: Client;

  beforeAll(async () => {
    upstream = await startOneBlockUpstream({
      // Each character more doubles the backtracking of this pattern: 24 held the loop for hours before the fix.
      redos: formWith({ pattern: '(.*.*)*y', minlength: '24' }),
      // 100 million characters to pad the placeholder to.
      long: formWith({ minlength: '100000000' }),
    });
    child = spawn(process.execPath, ['--import', PROBE, CLI, '--transport', 'http', '--port', '0'], {
      env: { PATH: process.env.PATH ?? '', POSTHOG_HOST: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    for (let i = 0; i < 1_000 && !/Streamable HTTP at (http:\S+\/mcp)/.test(stderr); i++) await new Promise((r) => setTimeout(r, 10));
    const url = new URL(/Streamable HTTP at (http:\S+\/mcp)/.exec(stderr)![1]!);
    const connect = async (key: string) => {
      const client = new Client({ name: 'attack3-fields', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      await client.callTool({ name: 'projects-list', arguments: {} });
      return client;
    };
    user = await connect('phx_first_user_000000000000000000');
    other = await connect('phx_other_user_111111111111111111');
  }, 60_000);

  afterAll(async () => {
    await user?.close().catch(() => {});
    await other?.close().catch(() => {});
    child?.kill();
    upstream?.close();
  });

  /** The call, with the other user's longest tools/list meanwhile and the probe's longest loop block. */
  async function within(what: string, id: string): Promise<CallToolResult> {
    const from = stderr.length;
    let done = false;
    let otherMs = 0;
    const polling = (async () => {
      while (!done) {
        const started = performance.now();
        await other.listTools(undefined, { timeout: 60_000 }).catch(() => undefined);
        otherMs = Math.max(otherMs, performance.now() - started);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const result = (await user.callTool({ name: 'session-recording-reproduce', arguments: { project_id: '1', id } }, undefined, { timeout: 60_000 })) as CallToolResult;
    await new Promise((r) => setTimeout(r, 500));
    done = true;
    await polling;
    const reports = [...stderr.slice(from).matchAll(/loop-max-ms (\d+)/g)].map((m) => Number(m[1]));
    // Without a report the longest block would be -Infinity, under any bound.
    expect(reports.length, `${what}: the probe's reports`).toBeGreaterThan(0);
    const loopMs = Math.max(...reports);
    console.info(`${what}: longest loop block ${loopMs} ms, other user's tools/list ${Math.round(otherMs)} ms`);
    expect(otherMs, `${what}: the other user's tools/list`).toBeLessThan(OTHER_USER_MS);
    expect(loopMs, `${what}: the longest loop block`).toBeLessThan(LOOP_MS);
    return result;
  }

  const code = (r: CallToolResult) => (r.structuredContent as { code?: string } | undefined)?.code ?? '';

  it('a pattern that backtracks for ever: the test is made, the loop free', async () => {
    const result = await within('reproduce, (.*.*)*y with minlength 24', 'redos-1');
    expect(result.isError).toBeFalsy();
    expect(code(result)).toMatch(/\.click\(\)/);
  });

  it('a minlength of 100 million: the test is made, of its usual size', async () => {
    const result = await within('reproduce, minlength 100,000,000', 'long-1');
    expect(result.isError).toBeFalsy();
    expect(code(result)).toMatch(/\.click\(\)/);
    expect(code(result).length).toBeLessThan(20_000);
  });
});

describe('which recorded patterns are tried', () => {
  it('the usual ones are; a repeated group, many quantifiers, a long pattern or value are not', () => {
    expect(matchesPattern('[A-Z]{2}-[0-9]{4}', 'AB-1234')).toBe(true);
    expect(matchesPattern('[A-Z]{2}-[0-9]{4}', 'AB-12')).toBe(false);
    expect(matchesPattern('(?=.*\\d)(?=.*[a-z]).{8,}', 'abcdefg1')).toBe(true);
    expect(matchesPattern('(\\+\\d{1,3})?\\d{10}', '0123456789')).toBe(true);
    expect(matchesPattern('\\(+x', '((x')).toBe(true);
    for (const slow of ['(.*.*)*y', '(a+)+', '(a|aa)*b', '(.*){9}x', '.*.*.*.*.*x', `${'a'.repeat(201)}`]) expect({ slow, tried: matchesPattern(slow, 'aaaa') }).toEqual({ slow, tried: undefined });
    expect(matchesPattern('x*', 'x'.repeat(129))).toBeUndefined();
  });
});
