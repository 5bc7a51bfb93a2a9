// `npm start` runs scripts/ensure-built.mjs first: it builds only when the build is missing or older
// than its sources, saying so on stderr. Run here in a scratch copy of the layout whose `build`
// script only writes the outputs, with modification times set by hand (no clock involved).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/ensure-built.mjs', import.meta.url));
const OUTPUTS = ['dist/cli.js', 'dist/tools/listing.json', 'dist/app/player.html'];
const INPUTS = ['src/cli.ts', 'src/tools/a.ts', 'tsconfig.build.json', 'scripts/build-app.mjs', 'scripts/build-server.mjs'];
const FAKE_BUILD = `node -e "const fs=require('fs');for(const f of ${JSON.stringify(OUTPUTS).replace(/"/g, "'")}){fs.mkdirSync(require('path').dirname(f),{recursive:true});fs.writeFileSync(f,'rebuilt')}"`;

let root: string;
const write = (path: string, text: string, seconds: number) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
  utimesSync(join(root, path), seconds, seconds);
};
const run = () => spawnSync(process.execPath, [join(root, 'scripts/ensure-built.mjs')], { cwd: root, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ensure-built-'));
  mkdirSync(join(root, 'scripts'));
  copyFileSync(SCRIPT, join(root, 'scripts/ensure-built.mjs'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'scratch', version: '0.0.0', private: true, scripts: { build: FAKE_BUILD } }));
  for (const input of INPUTS) write(input, '// source', 1_000_000);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('npm start after npm install (scripts/ensure-built.mjs)', () => {
  it('starts at once when every output is newer than every source: no build, nothing said', () => {
    for (const output of OUTPUTS) write(output, 'old', 2_000_000);
    const r = run();
    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).toBe('');
    for (const output of OUTPUTS) expect(readFileSync(join(root, output), 'utf8')).toBe('old');
  });

  it('builds when an output is missing, saying so on stderr and nothing on stdout', () => {
    write('dist/cli.js', 'old', 2_000_000);
    const r = run();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/dist\/tools\/listing\.json is missing: building first/);
    for (const output of OUTPUTS) expect(readFileSync(join(root, output), 'utf8')).toBe('rebuilt');
  });

  it('builds when a source changed after the last build, naming it', () => {
    for (const output of OUTPUTS) write(output, 'old', 2_000_000);
    write('src/tools/a.ts', '// edited', 3_000_000);
    const r = run();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/src\/tools\/a\.ts changed since the last build: building first/);
    expect(readFileSync(join(root, 'dist/cli.js'), 'utf8')).toBe('rebuilt');
  });
});
