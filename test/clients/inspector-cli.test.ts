// A real MCP client from npm, as people run it: MCP Inspector's CLI 0.15 (what `npx
// @modelcontextprotocol/inspector --cli` runs on Node 20), pinned as a dev dependency. It sends
// every tool argument as a string (docs/mcp-features.md, "Arguments as clients send them") and starts the server over stdio
// with the environment it was given.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'index.js');
const SERVER = join(ROOT, 'dist', 'cli.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One Inspector CLI run against the built server; env replaces what the server would read. */
function inspect(serverArgs: string[], args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, process.execPath, SERVER, ...serverArgs, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function result(run: Run): { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> } {
  expect(run.code, run.stderr.slice(0, 2000)).toBe(0);
  return JSON.parse(run.stdout) as ReturnType<typeof result>;
}

const text = (r: ReturnType<typeof result>) => r.content.map((c) => c.text ?? '').join('\n');

describe('MCP Inspector CLI 0.15 (every argument a string)', () => {
  it('lists recordings with limit="2", and takes Gemini CLI\'s wait_for_previous', async () => {
    const r = result(await inspect(['--sandbox'], ['--method', 'tools/call', '--tool-name', 'session-recordings-list', '--tool-arg', 'limit=2', 'date_from=-30d', 'wait_for_previous=true']));
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent!.results as unknown[]).length).toBe(2);
    expect(r.structuredContent!.next_offset).toBe(2);
  });

  it('reads a project with id="1001" and include_settings="true"', async () => {
    const r = result(await inspect(['--sandbox'], ['--method', 'tools/call', '--tool-name', 'project-get', '--tool-arg', 'id=1001', 'include_settings=true']));
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent!.project).toMatchObject({ id: 1001 });
    // include_settings shapes the text: the settings objects are shown, none only named.
    expect(text(r)).toContain('has_completed_onboarding_for={');
    expect(text(r)).not.toMatch(/Left out \(include_settings=true/);
  });

  it('refuses a string that is not a number, naming the field', async () => {
    const r = result(await inspect(['--sandbox'], ['--method', 'tools/call', '--tool-name', 'session-recordings-list', '--tool-arg', 'limit=ten']));
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/limit/);
  });

  it('with the placeholder key: the server still starts, lists its tools, and a call says what to fix', async () => {
    const env = { POSTHOG_PERSONAL_API_KEY: 'phx_your_personal_api_key', POSTHOG_HOST: 'http://127.0.0.1:9' };
    const listed = JSON.parse((await inspect([], ['--method', 'tools/list'], env)).stdout) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name)).toContain('session-recordings-list');
    const r = result(await inspect([], ['--method', 'tools/call', '--tool-name', 'projects-list'], env));
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/placeholder/);
    expect(text(r)).toMatch(/Settings → Personal API keys|--sandbox/);
  });
});
