// `npm run bundle`: builds posthog-replay-mcp.mcpb, the MCP Bundle a desktop host (Claude
// Desktop) installs with one click. Run after `npm run build` (the npm script does both).
//
// It stages, in a temporary folder: bundle/manifest.json (with the tool list taken from the
// build, so it cannot drift from the server's tools) and bundle/icon.png, the files of the npm
// package (the bundled server, its chunks and data, the sandbox's recorded fixtures), package.json
// without its scripts, and the production dependencies installed from the lockfile
// (`npm ci --omit=dev`, no install scripts). Then the official `mcpb` tool validates the manifest
// and packs the folder.
//
// Usage: node scripts/bundle.mjs [--out FILE]   (default: posthog-replay-mcp.mcpb at the repo root)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = resolve(values.out ?? join(ROOT, 'posthog-replay-mcp.mcpb'));
const say = (message) => process.stderr.write(`bundle: ${message}\n`);

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], shell: false });
  if (result.status !== 0) {
    say(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
}

/** What `npm pack` would put in the tarball, without packing it. */
function packedFiles() {
  const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) {
    say(`npm pack --dry-run failed (exit ${result.status ?? result.signal}): ${result.stderr}`);
    process.exit(1);
  }
  return JSON.parse(result.stdout)[0].files;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(join(ROOT, 'bundle/manifest.json'), 'utf8'));
if (manifest.version !== pkg.version) {
  say(`bundle/manifest.json has version ${manifest.version} but package.json ${pkg.version}: make them equal.`);
  process.exit(1);
}
const listingFile = join(ROOT, 'dist/tools/listing.json');
if (!existsSync(listingFile)) {
  say('dist/ is missing or incomplete: run `npm run build` first (or `npm run bundle`, which does).');
  process.exit(1);
}
// Every tool the server can offer (read-only mode and toolsets narrow it at run time).
manifest.tools = JSON.parse(readFileSync(listingFile, 'utf8')).plain.full.map((tool) => ({ name: tool.name, description: tool.title }));

const stage = mkdtempSync(join(tmpdir(), 'posthog-replay-mcpb-'));
try {
  writeFileSync(join(stage, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  cpSync(join(ROOT, 'bundle/icon.png'), join(stage, 'icon.png'));
  // The files the npm package holds (package.json "files": the bundled server, its chunks and
  // data, the recordings), as npm itself lists them; package.json is written below.
  for (const { path } of packedFiles()) {
    if (path !== 'package.json') cpSync(join(ROOT, path), join(stage, path));
  }
  // No scripts: `prepare` would try to build with dev dependencies the bundle does not carry.
  const { scripts: _scripts, ...runtimePkg } = pkg;
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(runtimePkg, null, 2)}\n`);
  cpSync(join(ROOT, 'package-lock.json'), join(stage, 'package-lock.json'));
  say('installing the production dependencies from the lockfile…');
  run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], stage);
  rmSync(join(stage, 'package-lock.json'));

  const mcpb = join(ROOT, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');
  run(process.execPath, [mcpb, 'validate', join(stage, 'manifest.json')], ROOT);
  rmSync(out, { force: true });
  run(process.execPath, [mcpb, 'pack', stage, out], ROOT);
  say(`wrote ${out}`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
