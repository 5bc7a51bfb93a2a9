// Run by `npm start` (prestart): builds only when the build is missing or older than what it is
// built from. `npm install` has already built (prepare), and a full build takes 10-20 s of
// silence, so a fresh clone's `npm install && npm start` starts at once; after an edit of src/ (or
// a checkout) it builds first, saying so on stderr. stdout stays empty: it belongs to the protocol.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What `npm run build` writes and the server reads at start. */
const OUTPUTS = ['dist/cli.js', 'dist/tools/listing.json', 'dist/app/player.html'];
/** What it is built from: the sources and the build's own configuration and scripts. */
const INPUTS = ['src', 'tsconfig.build.json', 'scripts/build-app.mjs', 'scripts/build-server.mjs'];

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The newest modification time of the files under a path (folders' own times count for nothing), and its file. */
function newest(path) {
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    return { ms: mtime(path) ?? 0, path };
  }
  let found = { ms: 0, path };
  for (const entry of entries) {
    const child = newest(join(path, entry.name));
    if (child.ms > found.ms) found = child;
  }
  return found;
}

/** Why the build must run, or undefined when every output is newer than every input. */
function staleReason() {
  let oldest = Infinity;
  for (const output of OUTPUTS) {
    const ms = mtime(join(ROOT, output));
    if (ms === undefined) return `${output} is missing`;
    oldest = Math.min(oldest, ms);
  }
  for (const input of INPUTS) {
    const latest = newest(join(ROOT, input));
    if (latest.ms > oldest) return `${latest.path.slice(ROOT.length)} changed since the last build`;
  }
  return undefined;
}

const reason = staleReason();
if (reason !== undefined) {
  process.stderr.write(`posthog-replay-mcp: ${reason}: building first (npm run build, 10-20 s)…\n`);
  // The build's own output goes to stderr too.
  const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 2, 2], shell: process.platform === 'win32' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
