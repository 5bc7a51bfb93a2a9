// The README is what a newcomer follows to the end: short, every command in it run by a test or
// by CI, its client configurations started as a client would start them, its tool table true to
// the tools' schemas, its example answer what the tool says, its links alive.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { ALL_TOOLS } from '../src/tools/index.js';
import { startHarness, text } from './harness.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const PLACEHOLDER_PATH = '/absolute/path/to/posthog-replay-mcp';
const KEY = 'phx_readme_test_key_0123456789abcdef';

/** Fenced blocks of one language. */
function blocks(language: string): string[] {
  return [...README.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

/** The commands of the bash blocks, comments and the list's indentation removed. */
function commands(): string[] {
  return blocks('bash').flatMap((b) => b.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean));
}

/**
 * Where each README command runs. A command added to the README fails this test until it is
 * named here with what runs it; each runner is checked to contain the command's heart.
 */
const RUN_BY: Record<string, { file: string; contains: string }> = {
  'npm install && npm start': { file: '.ci/run', contains: 'npm start' },
  'npm test': { file: '.ci/run', contains: 'npm test' },
  'npm run test:slow': { file: '.ci/run', contains: 'npm run test:slow' },
  'POSTHOG_PERSONAL_API_KEY=phx_... POSTHOG_HOST=us node dist/cli.js doctor': { file: 'test/cli-doctor.test.ts', contains: "[CLI, 'doctor'" },
  [`claude mcp add posthog-replay -e POSTHOG_PERSONAL_API_KEY=phx_your_personal_api_key -e POSTHOG_HOST=us -- node ${PLACEHOLDER_PATH}/dist/cli.js`]: { file: 'test/readme.test.ts', contains: "split(' -- ')" },
  [`codex mcp add posthog-replay --env POSTHOG_PERSONAL_API_KEY=phx_your_personal_api_key --env POSTHOG_HOST=us -- node ${PLACEHOLDER_PATH}/dist/cli.js`]: { file: 'test/readme.test.ts', contains: "split(' -- ')" },
  'npm pack': { file: 'test/install/npm-pack.test.ts', contains: "'pack'" },
  [`npx -y --package=${PLACEHOLDER_PATH}/posthog-replay-mcp-0.1.0.tgz posthog-replay-mcp --sandbox`]: { file: 'test/install/npm-pack.test.ts', contains: '`--package=${tarball}`' },
};

/** Docs other branches write; listed until they are merged (then this list must shrink). */
const PENDING_DOCS: string[] = [];

describe('README', () => {
  it('fits the first hour: at most 300 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('runs every command it shows, in a test or in CI', () => {
    const found = commands();
    expect(found.sort()).toEqual(Object.keys(RUN_BY).sort());
    for (const [command, { file, contains }] of Object.entries(RUN_BY)) {
      expect(readFileSync(join(ROOT, file), 'utf8'), `${command} in ${file}`).toContain(contains);
    }
  });

  it('links only to files that exist', () => {
    const links = [...README.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^https?:/.test(l));
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) {
      if (PENDING_DOCS.includes(link)) {
        // Once merged, the link is checked like the others: take it off the pending list.
        expect(existsSync(join(ROOT, link)), `${link} exists now: remove it from PENDING_DOCS`).toBe(false);
        continue;
      }
      expect(existsSync(join(ROOT, link)), link).toBe(true);
    }
  });

  it('names each tool a model sees, with parameters its schema has and the ones it requires', () => {
    const rows = new Map([...README.matchAll(/^\| `([a-z-]+)` \| ([^|]*) \|/gm)].map((m) => [m[1]!, m[2]!]));
    for (const tool of ALL_TOOLS.filter((t) => !(t._meta?.ui as { visibility?: string[] } | undefined)?.visibility?.every((v) => v !== 'model'))) {
      const row = rows.get(tool.name);
      expect(row, tool.name).toBeDefined();
      const shape = (tool.inputSchema({}) as unknown as { shape: Record<string, { safeParse(v: unknown): { success: boolean } }> }).shape;
      const named = [...row!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
      for (const name of named) expect(Object.keys(shape), `${tool.name} row names ${name}`).toContain(name);
      const required = Object.entries(shape).filter(([, field]) => !field.safeParse(undefined).success).map(([name]) => name);
      for (const name of required) expect(named, `${tool.name} requires ${name}`).toContain(name);
    }
  });

  it('shows an example answer the summary tool really gives', async () => {
    const example = blocks('text')[0]!.trim().split('\n');
    const id = /^Recording (\S+) \(project (\d+)\)/.exec(example[0]!)!;
    const h = await startHarness();
    try {
      const r = await h.call('session-recording-summary', { project_id: id[2], id: id[1] });
      expect(r.isError, text(r)).toBeFalsy();
      for (const line of example) expect(text(r)).toContain(line);
    } finally {
      await h.close();
    }
  });

  it('shows filtered list calls that find recordings in the sandbox', async () => {
    const examples = blocks('jsonc');
    expect(examples.length).toBeGreaterThanOrEqual(2);
    const h = await startHarness({ defaultProjectId: '1001' });
    try {
      for (const example of examples) {
        const [comment, ...json] = example.trim().split('\n');
        const tool = /^\/\/ ([a-z-]+)$/.exec(comment!)![1]!;
        const r = await h.call(tool, JSON.parse(json.join('\n')) as Record<string, unknown>);
        expect(r.isError, text(r)).toBeFalsy();
        expect((r.structuredContent as { results: unknown[] }).results.length, example).toBeGreaterThan(0);
      }
    } finally {
      await h.close();
    }
  });

  describe('client configurations, started as a client starts them', () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await startSandbox({ apiKey: KEY });
    });
    afterAll(() => sandbox.close());

    /** The clone's path for the placeholder; the test sandbox and its key for the user's PostHog. */
    async function start(command: string, args: string[], env: Record<string, string> = {}) {
      expect(command).toBe('node');
      const filled = args.map((a) => a.replace(PLACEHOLDER_PATH, ROOT));
      expect(filled[0]).toBe(join(ROOT, 'dist/cli.js'));
      const transport = new StdioClientTransport({ command: process.execPath, args: filled, env: { ...env, PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: sandbox.url }, stderr: 'ignore' });
      const client = new Client({ name: 'readme-test', version: '1' });
      await client.connect(transport);
      try {
        const r = (await client.callTool({ name: 'projects-list', arguments: {} })) as CallToolResult;
        expect(r.isError, text(r)).toBeFalsy();
      } finally {
        await client.close();
      }
    }

    it('the JSON entries from the clone (mcpServers, VS Code\'s servers, OpenCode\'s mcp)', async () => {
      type Entry = { command: string | string[]; args?: string[]; env?: Record<string, string>; environment?: Record<string, string> };
      const entries = blocks('json').flatMap((b) => {
        const parsed = JSON.parse(b) as { mcpServers?: Record<string, Entry>; servers?: Record<string, Entry>; mcp?: Record<string, Entry> };
        return Object.values(parsed.mcpServers ?? parsed.servers ?? parsed.mcp ?? {});
      });
      expect(entries.length).toBeGreaterThanOrEqual(3);
      for (const entry of entries) {
        // OpenCode gives the command and its arguments as one list, and the variables as "environment".
        const [command, ...args] = Array.isArray(entry.command) ? entry.command : [entry.command, ...(entry.args ?? [])];
        await start(command!, args, entry.env ?? entry.environment);
      }
    });

    it('the Claude Code and Codex commands (what they register after --), the name before the variables', async () => {
      for (const client of ['claude', 'codex']) {
        const line = commands().find((c) => c.startsWith(`${client} mcp add`))!;
        // Claude Code's -e takes every word up to the next option: a name after it is read as a variable.
        expect(line).toMatch(new RegExp(`^${client} mcp add posthog-replay -`));
        const [command, ...args] = line.split(' -- ')[1]!.split(' ');
        await start(command!, args);
      }
    });

    it('the Codex TOML entry says what codex mcp add registers', () => {
      const toml = blocks('toml')[0]!;
      const line = commands().find((c) => c.startsWith('codex mcp add'))!;
      const [command, ...args] = line.split(' -- ')[1]!.split(' ');
      expect(toml).toContain('[mcp_servers.posthog-replay]');
      expect(toml).toContain(`command = ${JSON.stringify(command)}`);
      expect(toml).toContain(`args = ${JSON.stringify(args)}`);
      const env = Object.fromEntries([...line.matchAll(/--env (\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
      expect(toml).toContain(`env = { ${Object.entries(env).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(', ')} }`);
    });

    it('the tarball entry in prose and in mcp.json: the form the install test runs', () => {
      const args = ['-y', `--package=${PLACEHOLDER_PATH}/posthog-replay-mcp-0.1.0.tgz`, 'posthog-replay-mcp'];
      expect(README).toContain(`"args": ${JSON.stringify(args).replace(/","/g, '", "')}`);
      const mcpJson = JSON.parse(readFileSync(join(ROOT, 'mcp.json'), 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> };
      expect(mcpJson.mcpServers['posthog-replay-tarball']).toMatchObject({ command: 'npx', args });
      expect(mcpJson.mcpServers['posthog-replay-source']).toMatchObject({ command: 'node', args: [`${PLACEHOLDER_PATH}/dist/cli.js`] });
    });

    it('names the tarball npm pack writes for this version', () => {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
      for (const name of README.match(/[\w-]+-\d+\.\d+\.\d+\.tgz/g) ?? []) expect(name).toBe(`${pkg.name}-${pkg.version}.tgz`);
    });

    it('says the npm route is not yet published', () => {
      expect(README).toMatch(/From npm: not yet published/);
    });
  });
});
