import { spawn } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const SECRET = 'phx_cli_test_secret_key_0123456789abcdef';

/** Runs the built CLI to exit; for start-up failures. */
function runToExit(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

describe('the built CLI', () => {
  // Over stdio a refused setting does not stop the server (its answers carry the error: test/cli-misconfigured.test.ts);
  // with stdin closed at once, as here, it says so on stderr and exits 0 like any stdio server.
  it('without a key over stdio: one clear line on stderr, nothing on stdout, and no exit 2', async () => {
    const result = await runToExit([], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/POSTHOG_PERSONAL_API_KEY is not set.*Serving over stdio anyway/);
  });

  it('doctor and HTTP still stop at a refused setting (exit 2): an unknown toolset, a malformed host, no key', async () => {
    const toolset = await runToExit(['--transport', 'http', '--port', '0', '--toolsets', 'recordings,insights'], { POSTHOG_PERSONAL_API_KEY: SECRET });
    expect(toolset.code).toBe(2);
    expect(toolset.stderr).toMatch(/Unknown toolset "insights"/);
    const host = await runToExit(['doctor'], { POSTHOG_PERSONAL_API_KEY: SECRET, POSTHOG_HOST: 'ftp://nope' });
    expect(host.code).toBe(2);
    expect(host.stderr).toMatch(/POSTHOG_HOST/);
    const noKey = await runToExit(['doctor'], {});
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/POSTHOG_PERSONAL_API_KEY is not set/);
    for (const r of [toolset, host, noKey]) {
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(host.stderr + toolset.stderr).not.toContain(SECRET);
  });

  it('names an on/off setting it does not recognise, the value and the words it takes', async () => {
    const result = await runToExit(['--transport', 'http', '--port', '0'], { POSTHOG_PERSONAL_API_KEY: SECRET, POSTHOG_READ_ONLY: 'maybe' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/POSTHOG_READ_ONLY must be 1, true, yes, on or 0, false, no, off \(any case\); got "maybe"/);
  });

  it('--sandbox says on stderr that it ignores a key and a host left in the settings', async () => {
    const result = await runToExit(['--sandbox'], { POSTHOG_PERSONAL_API_KEY: SECRET, POSTHOG_HOST: 'https://eu.posthog.com' });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning: POSTHOG_PERSONAL_API_KEY is ignored with --sandbox/);
    expect(result.stderr).toMatch(/warning: POSTHOG_HOST is ignored with --sandbox/);
    expect(result.stderr).not.toContain(SECRET);
  });

  it('POSTHOG_READ_ONLY=on is read-only: the banner says so and a client sees no write tool', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--sandbox'], env: { PATH: process.env.PATH ?? '', POSTHOG_READ_ONLY: 'on' }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'read-only', version: '1' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
      expect(tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name)).toEqual([]);
      expect(stderr).toMatch(new RegExp(`: version \\S+, ${tools.length} tools .*\\(read-only, `));
    } finally {
      await client.close();
    }
  });

  it('--sandbox serves all fourteen model-facing tools over stdio with only protocol messages on stdout', async () => {
    const child = spawn(process.execPath, [CLI, '--sandbox'], { env: { PATH: process.env.PATH ?? '' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const waitFor = async (id: number) => {
      for (let i = 0; i < 200; i++) {
        const line = stdout.split('\n').find((l) => l.includes(`"id":${id}`));
        if (line) return JSON.parse(line);
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`no answer to request ${id}; stderr: ${stderr}`);
    };
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    await waitFor(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const list = await waitFor(2);
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'projects-list', arguments: {} } });
    const call = await waitFor(3);
    child.stdin.end();
    await new Promise((r) => child.on('close', r));

    expect(list.result.tools).toHaveLength(16);
    expect(call.result.isError).toBeFalsy();
    expect(call.result.structuredContent.results.length).toBeGreaterThan(0);
    for (const line of stdout.split('\n').filter(Boolean)) expect(JSON.parse(line).jsonrpc).toBe('2.0');
    expect(stderr).toMatch(/SANDBOX/);
    expect(stderr).toMatch(/To connect/);
  });

  it('answers requests already written when the client closes stdin at once, then exits', async () => {
    const child = spawn(process.execPath, [CLI, '--sandbox'], { env: { PATH: process.env.PATH ?? '' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'session-recording-summary', arguments: { project_id: '1001', id: DEMO.recordingIds.recordedCheckout } } },
    ];
    child.stdin.end(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const code = await new Promise((r) => child.on('close', r));
    const answers = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: number; result: { isError?: boolean; content?: Array<{ text: string }> } });
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    expect(answers[2]!.result.isError).toBeFalsy();
    expect(answers[2]!.result.content![0]!.text).toContain('RAGE CLICK');
    expect(code).toBe(0);
  });

  it('serves the full tool list when the prebuilt dist/tools/listing.json is corrupt or stale', async () => {
    // A copy of dist/ inside node_modules, so its packages still resolve.
    const copy = fileURLToPath(new URL('../node_modules/.cache/listing-test/', import.meta.url));
    rmSync(copy, { recursive: true, force: true });
    cpSync(fileURLToPath(new URL('../dist/', import.meta.url)), copy, { recursive: true });
    const listing = join(copy, 'tools', 'listing.json');
    const good = JSON.parse(readFileSync(listing, 'utf8')) as { plain: { full: Array<{ name: string; description: string }> } };
    const list = async () => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [join(copy, 'cli.js')], env: { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: SECRET, POSTHOG_HOST: 'http://127.0.0.1:9' }, stderr: 'ignore' });
      const client = new Client({ name: 't', version: '1' });
      await client.connect(transport);
      const { tools } = await client.listTools();
      await client.close();
      return tools;
    };
    try {
      writeFileSync(listing, '{"plain": [{"name": "session-recordings-list"');
      // (a client that declared no MCP Apps support is not shown the app-only tool)
      expect((await list()).map((t) => t.name)).toEqual(good.plain.full.map((t) => t.name).filter((name) => name !== 'session-recording-replay-events'));
      good.plain.full[0]!.description = 'An old description from an older build.';
      writeFileSync(listing, JSON.stringify(good));
      const fresh = await list();
      expect(fresh[0]!.description).not.toBe('An old description from an older build.');
      expect(fresh).toHaveLength(16);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  describe('mcp.json', () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await startSandbox({ apiKey: SECRET });
    });
    afterAll(() => sandbox.close());

    it('starts the built server with the docs/configuration.md variables, and the key never shows', async () => {
      const config = JSON.parse(readFileSync(new URL('../mcp.json', import.meta.url), 'utf8'));
      // The clone-and-build entry (the npx one is started from a packed tarball in test/install/npm-pack.test.ts).
      const entry = config.mcpServers['posthog-replay-source'];
      expect(Object.keys(entry.env)).toEqual(
        expect.arrayContaining(['POSTHOG_PERSONAL_API_KEY', 'POSTHOG_HOST', 'POSTHOG_PROJECT_ID', 'POSTHOG_READ_ONLY', 'POSTHOG_TOOLSETS', 'POSTHOG_TIMEOUT_MS']),
      );
      // As a user fills it in: the clone's path for the placeholder.
      const args = (entry.args as string[]).map((a) => a.replace('/absolute/path/to/posthog-replay-mcp', ROOT.replace(/\/$/, '')));
      expect(args).toEqual([join(ROOT, 'dist/cli.js')]);
      const transport = new StdioClientTransport({
        command: entry.command === 'node' ? process.execPath : entry.command,
        args,
        cwd: ROOT,
        env: { ...entry.env, PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: SECRET, POSTHOG_HOST: sandbox.url },
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (d) => (stderr += d));
      const client = new Client({ name: 'mcp-json-test', version: '1' });
      await client.connect(transport);
      const tools = await client.listTools();
      expect(tools.tools).toHaveLength(16);
      const ok = await client.callTool({ name: 'projects-list', arguments: { limit: 2 } });
      const failed = await client.callTool({ name: 'project-get', arguments: { id: 999_999 } });
      await client.close();

      expect(ok.isError).toBeFalsy();
      expect(failed.isError).toBe(true);
      expect(sandbox.requests.some((r) => r.authorization === `Bearer ${SECRET}`)).toBe(true);
      const everything = JSON.stringify([tools, ok, failed]) + stderr;
      expect(everything).not.toContain(SECRET);
    });
  });
});
