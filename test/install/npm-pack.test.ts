// The npx route: the tarball `npm pack` makes (what `npm publish` uploads) is installed into an
// empty folder with dependencies from the registry only, and its bin is started the way
// `npx -y posthog-replay-mcp --sandbox` starts it. No install script runs for a tarball and no
// dev dependency is there, so this catches a "files" list or a build step the package needs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/settings.js';
import { DEMO } from '../../src/sandbox/index.js';
import { ALL_TOOLS } from '../../src/tools/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; devDependencies: Record<string, string> };
const NPM_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
// The Node running the tests first on the PATH, for npm and the bin's `#!/usr/bin/env node`.
const PATH = [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);

function npm(args: string[], cwd: string) {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 300_000, env: { ...process.env, PATH } });
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed (exit ${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

describe('the npm package, as npx runs it', () => {
  let work: string;
  let files: string[];
  let app: string;
  let tarball: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'posthog-replay-npx-test-'));
    // dist/ is built by the suite's npm script; --ignore-scripts keeps `prepare` from rebuilding it here.
    const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work, ...NPM_FLAGS], ROOT)) as { filename: string; files: { path: string }[] }[];
    files = packed[0]!.files.map((f) => f.path);
    // Laid out like npx's own cache (~/.npm/_npx/<hash>/node_modules/.bin/…).
    app = join(work, '_npx', '0123456789abcdef');
    mkdirSync(app, { recursive: true });
    writeFileSync(join(app, 'package.json'), '{"name": "npx-trial", "version": "1.0.0", "private": true}\n');
    tarball = join(work, packed[0]!.filename);
    npm(['install', tarball, ...NPM_FLAGS], app);
  }, 400_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('packs the built server and the sandbox\'s recordings, not sources, tests or source maps', () => {
    // The docs README and --help point to (docs/configuration.md: every setting) travel with it.
    expect(files).toEqual(expect.arrayContaining(['dist/cli.js', 'dist/tools/listing.json', 'fixtures/recordings/index.json', 'README.md', 'docs/configuration.md', 'package.json']));
    expect(files.filter((f) => /^(src|test|bench|scripts)\//.test(f) || f.endsWith('.map'))).toEqual([]);
  });

  it('installs without dev dependencies and with its bin', () => {
    const installed = join(app, 'node_modules', pkg.name);
    expect(existsSync(join(installed, 'dist/cli.js'))).toBe(true);
    // The MCP SDK, zod and undici are inlined in dist/cli.js (scripts/build-server.mjs): dev dependencies, not installed.
    const devOnly = Object.keys(pkg.devDependencies);
    expect(devOnly).toEqual(expect.arrayContaining(['typescript', '@modelcontextprotocol/sdk', 'zod', 'undici']));
    for (const name of devOnly) expect(existsSync(join(app, 'node_modules', name)), name).toBe(false);
    expect(existsSync(join(app, 'node_modules/.bin/posthog-replay-mcp'))).toBe(true);
  });

  it('is what mcp.json\'s default entry runs: npx -y with the package name, and the settings the server reads', () => {
    const entry = JSON.parse(readFileSync(join(ROOT, 'mcp.json'), 'utf8')).mcpServers['posthog-replay'];
    expect(entry.command).toBe('npx');
    expect(entry.args).toEqual(['-y', pkg.name]);
    const installed = JSON.parse(readFileSync(join(app, 'node_modules', pkg.name, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    // npx runs the bin named like the package.
    expect(Object.keys(installed.bin)).toEqual([pkg.name]);
    const read = Object.values(SETTINGS).map((s) => (s as { env?: string }).env);
    for (const name of Object.keys(entry.env)) expect(read, name).toContain(name);
  });

  it('starts with --sandbox and answers tools/list and a first call over stdio', async () => {
    const transport = new StdioClientTransport({
      command: join(app, 'node_modules/.bin/posthog-replay-mcp'),
      args: ['--sandbox'],
      env: { PATH },
      cwd: tmpdir(),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'npx-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      // A client that declared no MCP Apps support is not shown app-only tools (the player's feed).
      expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS.filter((t) => (t._meta?.ui as { visibility?: string[] } | undefined)?.visibility?.includes('model') ?? true).map((t) => t.name));
      const list = (await client.callTool({ name: 'session-recordings-list', arguments: { limit: 100 } })) as CallToolResult;
      expect(list.isError, JSON.stringify(list.content)).toBeFalsy();
      // A real recording's events come from the package's fixtures folder: the digest reads them.
      const summary = (await client.callTool({ name: 'session-recording-summary', arguments: { id: DEMO.recordingIds.recordedCheckout } })) as CallToolResult;
      expect(summary.isError, JSON.stringify(summary.content)).toBeFalsy();
      expect(JSON.stringify(summary.structuredContent)).toMatch(/place-order|Place order/i);
      expect(stderr).toMatch(/SANDBOX/);
      // Started from npx's cache, the banner names the command to type, not the cache path: for a
      // tarball, the tarball (the bare name would fetch a package that is not published).
      expect(stderr).toContain(`npx @modelcontextprotocol/inspector npx -y --package=${tarball} posthog-replay-mcp --sandbox`);
      expect(stderr).not.toContain('_npx');
    } finally {
      await client.close();
    }
  });

  it('starts as the README says, through npx from the tarball (`npx -y --package=… posthog-replay-mcp --sandbox`)', async () => {
    // The README's command, with the packed tarball's path: npx installs it (dependencies from the registry) and runs its bin.
    const transport = new StdioClientTransport({ command: 'npx', args: ['-y', `--package=${tarball}`, pkg.name, '--sandbox'], env: { PATH, HOME: process.env.HOME ?? tmpdir() }, cwd: tmpdir(), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'npx-readme-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const list = (await client.callTool({ name: 'session-recordings-list', arguments: {} })) as CallToolResult;
      expect(list.isError, JSON.stringify(list.content)).toBeFalsy();
      expect(stderr).toContain(`npx -y --package=${tarball} ${pkg.name} --sandbox`);
    } finally {
      await client.close();
    }
  }, 300_000);
});
