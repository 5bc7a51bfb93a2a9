// docs/design.md, "Misconfigured start": MCP clients show a stdio server that exits at
// start as "Connection closed" and nothing more. So over stdio the server starts with settings it
// refuses, and its instructions and every answer carry the error and the fix, while nothing at all
// reaches the upstream: each case points POSTHOG_HOST (or the address it would have used) at a
// loopback server that counts connections.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../src/tools/index.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const SECRET = 'phx_misconfigured_test_key_0123456789abcdef';

interface Answer {
  id: unknown;
  result?: { instructions?: string; tools?: Array<{ name: string; annotations?: { readOnlyHint?: boolean } }>; isError?: boolean; content?: Array<{ text: string }> };
  error?: { code: number; message: string };
}

/** The built CLI over stdio with raw lines, to see every byte it writes to stdout. */
function start(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '', exited: null as number | null };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve((out.exited = code))));
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const answer = async (id: number): Promise<Answer> => {
    for (let i = 0; i < 800; i++) {
      const line = out.stdout.split('\n').find((l) => l.trim() && (JSON.parse(l) as { id?: unknown }).id === id);
      if (line) return JSON.parse(line) as Answer;
      if (out.exited !== null) throw new Error(`server exited (${out.exited}) before answering ${id}; stderr: ${out.stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no answer to ${id}; stderr: ${out.stderr}`);
  };
  return { child, out, send, answer, closed };
}

let upstream: Server;
let url: string;
let connections = 0;
beforeAll(async () => {
  upstream = createServer((_req, res) => res.writeHead(500).end('{"detail":"this upstream must not be reached"}'));
  upstream.on('connection', () => connections++);
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

const WRITE_TOOLS = ALL_TOOLS.filter((t) => !t.annotations.readOnlyHint).map((t) => t.name);

const CASES: Array<{ kind: string; env: () => Record<string, string>; args?: string[]; error: RegExp | (() => RegExp); safety?: boolean }> = [
  { kind: 'no key', env: () => ({ POSTHOG_HOST: url }), error: /POSTHOG_PERSONAL_API_KEY is not set\. Create a personal API key/ },
  { kind: 'the placeholder key', env: () => ({ POSTHOG_HOST: url, POSTHOG_PERSONAL_API_KEY: 'phx_your_personal_api_key' }), error: /the placeholder from the README and mcp\.json: replace it/ },
  { kind: 'an unknown toolset', env: () => ({ POSTHOG_HOST: url, POSTHOG_PERSONAL_API_KEY: SECRET, POSTHOG_TOOLSETS: 'recordings,insights' }), error: /Unknown toolset "insights"/, safety: true },
  { kind: 'an on/off safety switch it cannot read', env: () => ({ POSTHOG_HOST: url, POSTHOG_PERSONAL_API_KEY: SECRET, POSTHOG_READ_ONLY: 'maybe' }), error: /POSTHOG_READ_ONLY must be 1, true, yes, on or 0, false, no, off .*got "maybe"/, safety: true },
  // A page of the app pasted as the host: were it taken as a base path, requests would reach the counter.
  { kind: 'a browser URL as POSTHOG_HOST', env: () => ({ POSTHOG_HOST: `${url}/project/1/replay/abc?t=5`, POSTHOG_PERSONAL_API_KEY: SECRET }), error: () => new RegExp(`POSTHOG_HOST must be .*page of PostHog's app.*POSTHOG_HOST=${url.replace(/\./g, '\\.')}(?!/)`) },
  { kind: 'a number it cannot read', env: () => ({ POSTHOG_HOST: url, POSTHOG_PERSONAL_API_KEY: SECRET, POSTHOG_TIMEOUT_MS: 'soon' }), error: /POSTHOG_TIMEOUT_MS must be .*got "soon"/ },
  { kind: 'a proxy no proxy can be', env: () => ({ POSTHOG_HOST: url, POSTHOG_PERSONAL_API_KEY: SECRET, HTTP_PROXY: 'socks5://127.0.0.1:1080' }), error: /HTTP_PROXY names a socks5 proxy/ },
  { kind: 'an unknown flag', args: ['--read-onyl'], env: () => ({ POSTHOG_HOST: url, POSTHOG_PERSONAL_API_KEY: SECRET }), error: /Unknown option '--read-onyl'/ },
];

describe('over stdio, a configuration error reaches the chat and nothing reaches PostHog', () => {
  for (const c of CASES) {
    it(`${c.kind}: starts, lists tools, says the error and the fix in its instructions and every answer`, { timeout: 30_000 }, async () => {
      const error = typeof c.error === 'function' ? c.error() : c.error;
      const before = connections;
      const s = start(c.args ?? [], c.env());
      s.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      const init = await s.answer(1);
      s.send({ method: 'notifications/initialized' });
      s.send({ id: 2, method: 'tools/list' });
      s.send({ id: 3, method: 'tools/call', params: { name: 'session-recordings-list', arguments: {} } });
      s.send({ id: 4, method: 'tools/call', params: { name: 'project-delete', arguments: { id: 1 } } });
      s.send({ id: 5, method: 'resources/read', params: { uri: 'posthog://projects/1' } });
      const [list, read, write, resource] = [await s.answer(2), await s.answer(3), await s.answer(4), await s.answer(5)];
      s.child.stdin.end();
      expect(await s.closed, s.out.stderr).toBe(0);

      const instructions = init.result?.instructions ?? '';
      expect(instructions).toMatch(/not configured correctly/);
      expect(instructions).toMatch(error);
      expect(instructions).toMatch(/To fix it: /);
      // The package is not published: the check it recommends is this very CLI, as it was started.
      expect(instructions).toContain(`\`node ${CLI} doctor\`, run with the same settings, checks them.`);
      expect(instructions).not.toContain('npx');
      const tools = list.result?.tools ?? [];
      expect(tools.map((t) => t.name)).toContain('session-recordings-list');
      // A safety setting it cannot read lists no tool that writes.
      if (c.safety) expect(tools.filter((t) => WRITE_TOOLS.includes(t.name)).map((t) => t.name)).toEqual([]);
      else expect(tools.map((t) => t.name)).toContain('project-delete');
      for (const call of [read, write]) {
        expect(call.result?.isError).toBe(true);
        expect(call.result?.content?.[0]?.text).toMatch(error);
        expect(call.result?.content?.[0]?.text).toMatch(/To fix it: .*restart the server/);
      }
      expect(resource.error?.message).toMatch(error);

      // Nothing but protocol messages on stdout; the stderr line as before; no form of the key anywhere.
      for (const line of s.out.stdout.split('\n').filter((l) => l.trim())) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
      expect(s.out.stderr).toMatch(error);
      expect(s.out.stderr.trim().split('\n')).toHaveLength(1);
      expect(s.out.stdout + s.out.stderr).not.toContain(SECRET);
      expect(connections - before, 'connections to the upstream').toBe(0);
    });
  }
});
