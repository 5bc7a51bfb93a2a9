// The benchmark's own dependencies live in bench/package.json (a tokenizer) and
// bench/peer/package.json (PostHog's agent toolkit), never in the project's. They are installed
// from their lockfiles on first use; without them the bench still runs, with what it cannot
// measure said plainly.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** `npm ci` in `dir` unless `probe` (a path inside its node_modules) is already there. */
export function ensureInstalled(dir, probe, log) {
  if (existsSync(join(dir, 'node_modules', probe))) return { ok: true };
  log(`installing ${dir} (npm ci)…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const run = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
  if (run.status === 0 && existsSync(join(dir, 'node_modules', probe))) return { ok: true };
  return { ok: false, reason: `npm ci in ${dir} failed (${run.error?.message ?? `exit ${run.status}`}): ${(run.stderr ?? '').trim().split('\n').slice(-3).join(' / ')}` };
}

/** Token counting: o200k_base (GPT-4o's tokenizer) when installed, else bytes/4. */
export async function loadTokenizer(benchDir, log) {
  const installed = ensureInstalled(benchDir, 'gpt-tokenizer/package.json', log);
  if (installed.ok) {
    const { encode } = await import(join(benchDir, 'node_modules/gpt-tokenizer/esm/encoding/o200k_base.js'));
    return { method: 'o200k_base tokens (gpt-tokenizer; Claude\'s tokenizer is not public, counts differ by model)', count: (text) => encode(text).length };
  }
  log(`tokenizer unavailable, estimating tokens as bytes/4: ${installed.reason}`);
  return { method: 'bytes/4 estimate (tokenizer could not be installed)', count: (text) => Math.round(Buffer.byteLength(text) / 4) };
}
