// Runs a spec written by session-recording-reproduce with @playwright/test and Debian's Chromium
// (test/reproduce/playwright.config.ts) against a site, and reads what happened from its JSON report.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PLAYWRIGHT_CLI = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
const CONFIG = join(ROOT, 'test', 'reproduce', 'playwright.config.ts');

export interface SpecRun {
  status: string;
  message: string;
  line: number | undefined;
}

/** Writes the spec into the repo (so it resolves @playwright/test), runs it, reads the JSON report. */
export async function runSpec(spec: { filename: string; code: string }, baseUrl: string, env: Record<string, string> = {}): Promise<SpecRun> {
  await mkdir(join(ROOT, '.scratch'), { recursive: true });
  const dir = await mkdtemp(join(ROOT, '.scratch', 'reproduce-'));
  try {
    await writeFile(join(dir, spec.filename), spec.code);
    const report = join(dir, 'report.json');
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [PLAYWRIGHT_CLI, 'test', '--config', CONFIG, '--reporter=json'], {
        cwd: ROOT,
        env: { ...process.env, ...env, REPRO_TEST_DIR: dir, REPRO_BASE_URL: baseUrl, PLAYWRIGHT_JSON_OUTPUT_NAME: report, FORCE_COLOR: '0' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 || code === 1 ? resolve() : reject(new Error(`playwright exited ${code}: ${stderr.slice(0, 2000)}`))));
    });
    const json = JSON.parse(await readFile(report, 'utf8')) as { suites: Array<{ specs: Array<{ tests: Array<{ results: Array<{ status: string; errors: Array<{ message?: string; location?: { line: number } }> }> }> }> }>; errors: Array<{ message?: string }> };
    const result = json.suites[0]?.specs[0]?.tests[0]?.results[0];
    if (!result) throw new Error(`no test ran: ${JSON.stringify(json.errors).slice(0, 2000)}`);
    const error = result.errors[0];
    const run = { status: result.status, message: (error?.message ?? '').replace(/\u001b\[[0-9;]*m/g, ''), line: error?.location?.line };
    // Every locator resolves to one element: Playwright refuses an action on a locator that matches more.
    expect(run.message).not.toContain('strict mode violation');
    return run;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

