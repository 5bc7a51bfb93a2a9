// The routes a user's MCP client launches the published package by, set up once per bench run in
// a temporary folder: the tarball `npm pack` makes (what `npm publish` uploads) installed with
// `npm install` (its dependencies from the npm cache or registry), so `npx -y posthog-replay-mcp`
// (mcp.json's default entry) started in that folder finds the package installed there and asks
// no registry, and its bin can be started directly too. Also a bundled copy of the floor, for
// scale: what bundling alone does to a bare SDK server's start.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NPM_FLAGS = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];

/** { ok, dir, app, bin, floorBundled, close } or { ok: false, reason }. */
export async function prepareInstallRoutes(root, benchDir, log) {
  const dir = mkdtempSync(join(tmpdir(), 'posthog-replay-bench-'));
  const close = () => rmSync(dir, { recursive: true, force: true });
  const npm = (args, cwd) => spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 300_000 });
  try {
    log('packing and installing the package for the npx route…');
    const packed = npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir, ...NPM_FLAGS], root);
    if (packed.status !== 0) throw new Error(`npm pack: ${packed.stderr.trim().split('\n').slice(-2).join(' / ')}`);
    const tarball = join(dir, JSON.parse(packed.stdout)[0].filename);
    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{"name": "bench-npx-route", "version": "1.0.0", "private": true}\n');
    const installed = npm(['install', tarball, ...NPM_FLAGS], app);
    const bin = join(app, 'node_modules/.bin/posthog-replay-mcp');
    if (installed.status !== 0 || !existsSync(bin)) throw new Error(`npm install: ${installed.stderr.trim().split('\n').slice(-2).join(' / ')}`);
    const floorBundled = join(dir, 'floor-bundled.mjs');
    const { build } = await import('esbuild');
    await build({
      entryPoints: [join(benchDir, 'floor/server.mjs')],
      outfile: floorBundled,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'error',
      banner: { js: "import { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);" },
    });
    return { ok: true, dir, app, bin, floorBundled, close };
  } catch (error) {
    close();
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
