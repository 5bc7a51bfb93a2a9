import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** The built CLI over stdio, with the raw lines it writes: messages a client would never send. */
function start() {
  const child = spawn(process.execPath, [CLI, '--sandbox'], { env: { PATH: process.env.PATH ?? '' }, stdio: ['pipe', 'pipe', 'pipe'] }) as ChildProcessWithoutNullStreams;
  const out = { stdout: '', stderr: '', exited: null as number | null };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  child.on('exit', (code) => (out.exited = code));
  const write = (text: string) => new Promise<void>((resolve) => (child.stdin.write(text) ? resolve() : child.stdin.once('drain', () => resolve())));
  const answer = async (id: number | string | null) => {
    for (let i = 0; i < 800; i++) {
      const line = out.stdout.split('\n').find((l) => l.trim() && (JSON.parse(l) as { id?: unknown }).id === id);
      if (line) return JSON.parse(line) as { id: unknown; result?: { isError?: boolean; content: Array<{ text: string }> }; error?: { code: number; message: string } };
      if (out.exited !== null) throw new Error(`server exited (${out.exited}) before answering ${String(id)}; stderr: ${out.stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no answer to ${String(id)}; stderr: ${out.stderr}`);
  };
  return { child, out, write, answer };
}

let running: ChildProcessWithoutNullStreams | undefined;
afterEach(() => {
  running?.kill();
  running = undefined;
});

describe('stdio: a message the server cannot take is answered, and the server keeps serving', () => {
  it('answers a message over 10 MiB with a JSON-RPC error for its id, logs one line, and answers the next call', { timeout: 60_000 }, async () => {
    const s = start();
    running = s.child;
    await s.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
    await s.answer(1);
    await s.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    // The SDK's client writes method and params first and the id last.
    const huge = { method: 'tools/call', params: { name: 'projects-list', arguments: { search: 'x'.repeat(11 * 1024 * 1024) } }, jsonrpc: '2.0', id: 2 };
    await s.write(`${JSON.stringify(huge)}\n`);
    const refused = await s.answer(2);
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toMatch(/too large/);
    expect(s.out.stderr).toMatch(/refused a message over 10485760 bytes \(request id 2\); still serving/);
    await s.write('this is not JSON\n');
    const parseError = await s.answer(null);
    expect(parseError.error?.code).toBe(-32700);
    await s.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'project-get', arguments: { id: DEMO.mainProjectId } } })}\n`);
    const next = await s.answer(3);
    expect(next.result?.isError, JSON.stringify(next)).toBeFalsy();
    expect(s.out.exited).toBeNull();
    // stdout carried protocol messages only.
    for (const line of s.out.stdout.split('\n').filter((l) => l.trim())) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  });

  it('refuses what the SDK JSON-RPC schema refuses, though common requests are checked by hand, and takes a request with _meta', { timeout: 30_000 }, async () => {
    const s = start();
    running = s.child;
    await s.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
    await s.answer(1);
    await s.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    // Each is JSON, but no JSON-RPC message the SDK's schema accepts: answered -32600 with its id.
    const refused = [
      { jsonrpc: '2.0', id: 2, method: 'ping', params: [1] }, // params must be an object
      { jsonrpc: '1.0', id: 3, method: 'ping' }, // not JSON-RPC 2.0
      { jsonrpc: '2.0', id: 4, method: 'ping', extra: true }, // strict: no other members
      { jsonrpc: '2.0', id: 6, method: 7 }, // a method is a string
    ];
    for (const message of refused) {
      await s.write(`${JSON.stringify(message)}\n`);
      const answer = await s.answer(message.id);
      expect(answer.error?.code, JSON.stringify(message)).toBe(-32600);
    }
    // An id is a string or an integer; one that is neither cannot be answered by id.
    await s.write(`${JSON.stringify({ jsonrpc: '2.0', id: true, method: 'ping' })}\n`);
    expect((await s.answer(null)).error?.code).toBe(-32600);
    // A request with _meta (a progress token) goes through the SDK's schema, and is served.
    await s.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'with-meta', method: 'tools/call', params: { name: 'project-get', arguments: { id: DEMO.mainProjectId }, _meta: { progressToken: 9 } } })}\n`);
    const served = await s.answer('with-meta');
    expect(served.result?.isError, JSON.stringify(served)).toBeFalsy();
    expect(served.result?.content[0]?.text).toMatch(/Project/);
    expect(s.out.exited).toBeNull();
  });

  it('refuses an own __proto__ key sent on the wire, and project-delete deletes nothing', { timeout: 30_000 }, async () => {
    const s = start();
    running = s.child;
    await s.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
    await s.answer(1);
    await s.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    // Written as text: JSON.stringify would never produce an own __proto__ key.
    await s.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"project-delete","arguments":{"id":${DEMO.emptyProjectId},"__proto__":{"x":1}}}}\n`);
    const refused = await s.answer(2);
    expect(refused.result?.isError).toBe(true);
    expect(refused.result?.content[0]?.text).toMatch(/unrecognized key "__proto__"/);
    await s.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'project-get', arguments: { id: DEMO.emptyProjectId } } })}\n`);
    const still = await s.answer(3);
    expect(still.result?.isError, JSON.stringify(still)).toBeFalsy();
  });
});
