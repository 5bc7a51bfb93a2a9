// The MCP Bundle (.mcpb): built by `scripts/bundle.mjs` with the official mcpb tool, validated,
// unpacked into a temporary folder, and started from its own manifest with the settings a host
// (Claude Desktop) would fill in, using mcpb's own substitution code (getMcpConfigForManifest).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getMcpConfigForManifest, type McpbManifestAny } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ALL_TOOLS } from '../../src/tools/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MCPB_CLI = join(ROOT, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };

function mcpb(...args: string[]) {
  return spawnSync(process.execPath, [MCPB_CLI, ...args], { encoding: 'utf8', timeout: 120_000 });
}

/** Starts the unpacked bundle as a host would: the manifest's mcp_config with ${…} substituted. */
async function startFromManifest(dir: string, manifest: McpbManifestAny, userConfig: Record<string, string | number | boolean>) {
  const config = await getMcpConfigForManifest({ manifest, extensionPath: dir, systemDirs: { HOME: tmpdir() }, userConfig, pathSeparator: '/' });
  if (!config) throw new Error('the host would refuse to start the bundle (missing required settings)');
  // Hosts run "node" with a Node of their own; here that is the Node running the tests.
  const command = config.command === 'node' ? process.execPath : config.command;
  const stderr: string[] = [];
  const transport = new StdioClientTransport({ command, args: config.args ?? [], env: { PATH: process.env.PATH ?? '', ...config.env }, stderr: 'pipe', cwd: tmpdir() });
  transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const client = new Client({ name: 'bundle-test-host', version: '1.0.0' });
  await client.connect(transport);
  return { client, config, stderr };
}

describe('the MCP Bundle', () => {
  let work: string;
  let file: string;
  let dir: string;
  let manifest: McpbManifestAny;
  let sandbox: Sandbox;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'posthog-replay-bundle-test-'));
    file = join(work, 'posthog-replay-mcp.mcpb');
    const built = spawnSync(process.execPath, [join(ROOT, 'scripts/bundle.mjs'), '--out', file], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
    if (built.status !== 0) throw new Error(`bundle build failed:\n${built.stdout}\n${built.stderr}`);
    dir = join(work, 'unpacked');
    const unpacked = mcpb('unpack', file, dir);
    if (unpacked.status !== 0) throw new Error(`mcpb unpack failed:\n${unpacked.stdout}\n${unpacked.stderr}`);
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as McpbManifestAny;
    sandbox = await startSandbox();
  }, 400_000);

  afterAll(async () => {
    await sandbox?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('passes `mcpb validate`, with the icon and the entry point inside it', () => {
    const result = mcpb('validate', join(dir, 'manifest.json'));
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/validation passes/i);
    expect(readFileSync(join(dir, 'icon.png')).subarray(1, 4).toString()).toBe('PNG');
    expect(existsSync(join(dir, manifest.server.entry_point))).toBe(true);
  });

  it('carries package.json\'s version, every tool, and the settings a user fills in (the key masked)', () => {
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.tools?.map((t) => t.name)).toEqual(ALL_TOOLS.map((t) => t.name));
    const settings = manifest.user_config ?? {};
    expect(Object.keys(settings).sort()).toEqual(['api_key', 'confirm_destructive', 'demo_mode', 'host', 'project_id', 'read_only', 'toolsets']);
    expect(settings.api_key).toMatchObject({ type: 'string', sensitive: true });
    expect(manifest.server.mcp_config.env).toMatchObject({
      POSTHOG_PERSONAL_API_KEY: '${user_config.api_key}',
      POSTHOG_HOST: '${user_config.host}',
      POSTHOG_PROJECT_ID: '${user_config.project_id}',
      POSTHOG_READ_ONLY: '${user_config.read_only}',
      POSTHOG_TOOLSETS: '${user_config.toolsets}',
    });
  });

  it('holds the production dependencies only', () => {
    for (const name of Object.keys(pkg.dependencies)) expect(existsSync(join(dir, 'node_modules', name, 'package.json')), name).toBe(true);
    // The MCP SDK, zod and undici are inlined in dist/cli.js (scripts/build-server.mjs): dev dependencies, not installed.
    const devOnly = Object.keys(pkg.devDependencies);
    expect(devOnly).toEqual(expect.arrayContaining(['typescript', '@modelcontextprotocol/sdk', 'zod', 'undici']));
    for (const name of devOnly) expect(existsSync(join(dir, 'node_modules', name)), name).toBe(false);
    expect(existsSync(join(dir, 'src'))).toBe(false);
  });

  it('starts from its manifest in Demo mode and answers a first call with no project id', async () => {
    const { client, stderr } = await startFromManifest(dir, manifest, { demo_mode: true });
    try {
      const { tools } = await client.listTools();
      // A client that declared no MCP Apps support is not shown app-only tools (the player's feed).
      expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS.filter((t) => (t._meta?.ui as { visibility?: string[] } | undefined)?.visibility?.includes('model') ?? true).map((t) => t.name));
      const result = (await client.callTool({ name: 'session-recordings-list', arguments: { limit: 2 } })) as CallToolResult;
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect((result.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
      expect(stderr.join('')).toMatch(/default project 1001 "Acme Shop", the sandbox's demo project/);
    } finally {
      await client.close();
    }
  });

  it('maps the key, host, read-only mode and toolsets to the server, which calls that host with that key', async () => {
    const { client, config } = await startFromManifest(dir, manifest, {
      api_key: sandbox.apiKey,
      host: sandbox.url,
      read_only: true,
      toolsets: 'projects',
    });
    try {
      // Settings the user left alone keep their defaults; the unset project id is empty, not "${…}".
      expect(config.env).toMatchObject({ POSTHOG_HOST: sandbox.url, POSTHOG_READ_ONLY: 'true', POSTHOG_SANDBOX: 'false', POSTHOG_PROJECT_ID: '' });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['projects-list', 'project-get']);
      const before = sandbox.requests.length;
      const result = (await client.callTool({ name: 'projects-list', arguments: {} })) as CallToolResult;
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const calls = sandbox.requests.slice(before).filter((r) => r.path.startsWith('/api/projects'));
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.every((r) => r.authorization === `Bearer ${sandbox.apiKey}`)).toBe(true);
    } finally {
      await client.close();
    }
  });
});
