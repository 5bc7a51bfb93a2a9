// The product's skeleton (docs/development.md, the developers' guide): cli.ts → server.ts → tools/ →
// posthog/operations/ (the one room that knows PostHog's paths and answers) → posthog/ (the one
// client) → config.ts / errors.ts and the other foundation modules; digest/, sandbox/, reproduce/
// the player (app/) and its watch links (watch/) are rooms of their own. Arrows point down: a module imports only from its
// own room and the rooms this table puts below it. A helper two rooms need lives below both.
// Two rules more: tools reach PostHog through the operations, never the client itself; and a
// tool's module (one that calls defineTool) is a room of its own within tools/: what two tools
// share is a helper module, not one tool taken from another.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../src');

/** Files at the top of src/ that every room may use: they import only each other. */
const FOUNDATION = ['config', 'settings', 'setting-kinds', 'http-settings', 'posthog-host', 'help-text', 'errors', 'words', 'url-secrets', 'replay-rates', 'call-limits', 'proxy-env', 'version', 'icons', 'player-data', 'jwe'];

/** What each room may import besides itself. */
const BELOW: Record<string, string[]> = {
  foundation: [],
  posthog: ['foundation'],
  operations: ['foundation', 'posthog'],
  digest: ['foundation', 'posthog'],
  sandbox: ['foundation', 'posthog'],
  app: ['foundation', 'posthog'],
  watch: ['foundation'],
  reproduce: ['foundation', 'posthog', 'digest'],
  cache: ['foundation', 'posthog'],
  tools: ['foundation', 'posthog', 'operations', 'digest', 'reproduce', 'cache', 'watch'],
  resources: ['foundation', 'posthog', 'operations', 'tools'],
  prompts: ['foundation', 'posthog', 'operations', 'tools', 'resources'],
  tasks: ['foundation'],
  server: ['foundation', 'posthog', 'operations', 'tools', 'cache', 'prompts', 'resources', 'tasks', 'watch'],
  transports: ['foundation', 'posthog', 'operations', 'server', 'cache', 'watch'],
  doctor: ['foundation', 'posthog', 'operations'],
  cli: ['foundation', 'posthog', 'server', 'transports', 'sandbox', 'doctor', 'cache', 'watch'],
};

/**
 * Modules of a room below it that the room may still not import: the client, and what builds
 * PostHog's paths and reads its pages, are the operations' alone.
 */
const NOT_FROM: Record<string, string[]> = {
  tools: ['posthog/client.ts', 'posthog/query.ts', 'posthog/pagination.ts'],
};

function roomOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  if (parts[0] === 'posthog' && parts[1] === 'operations') return 'operations';
  if (parts.length > 1) return parts[0]!;
  const name = parts[0]!.replace(/\.ts$/, '');
  return FOUNDATION.includes(name) ? 'foundation' : name;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Relative imports (static, dynamic and re-exports) of a source text. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
}

/** A tool's own module: under tools/, it calls defineTool. */
function isToolModule({ path, text }: { path: string; text: string }): boolean {
  return roomOf(path) === 'tools' && /\bdefineTool\s*\(\s*\{/.test(text);
}

/** Every import that points up or sideways, or past a rule above: `file → target (room → room)`. */
function violations(files: Array<{ path: string; text: string }>, below = BELOW): string[] {
  const found: string[] = [];
  const toolModules = new Set(files.filter(isToolModule).map((file) => file.path));
  for (const { path, text } of files) {
    const from = roomOf(path);
    for (const specifier of importsOf(text)) {
      const target = resolve(dirname(path), specifier).replace(/\.js$/, '.ts');
      const to = roomOf(target);
      const where = `${relative(SRC, path)} → ${specifier}`;
      if (toolModules.has(path) && toolModules.has(target)) found.push(`${where} (tool module → tool module)`);
      const module = relative(SRC, target).split(sep).join('/');
      if (NOT_FROM[from]?.includes(module)) found.push(`${where} (${from} → ${module})`);
      if (to === from) continue;
      const allowed = below[from];
      if (!allowed || !allowed.includes(to)) found.push(`${where} (${from} → ${to})`);
    }
  }
  return found;
}

describe('layering', () => {
  it('every room of src/ is in the table', () => {
    const rooms = new Set(sources(SRC).map(roomOf));
    expect([...rooms].filter((room) => !(room in BELOW))).toEqual([]);
  });

  it('no import points up or sideways', () => {
    const files = sources(SRC).map((path) => ({ path, text: readFileSync(path, 'utf8') }));
    expect(files.length).toBeGreaterThan(50);
    // The tool-module rule has tools to hold: every tool's module is found as one.
    expect(files.filter(isToolModule).length).toBeGreaterThanOrEqual(17);
    expect(violations(files)).toEqual([]);
  });

  it('the check catches an up-arrow (the digest taking a helper from tools/, config.ts from posthog/)', () => {
    const files = [
      { path: join(SRC, 'digest/render.ts'), text: "import { clip } from '../tools/format.js';" },
      { path: join(SRC, 'config.ts'), text: "import { PLAN_RATES } from './posthog/throttle.js';\nconst x = await import('./server.js');" },
      { path: join(SRC, 'tools/format.ts'), text: "export { clip } from '../words.js';" },
    ];
    expect(violations(files)).toEqual([
      'digest/render.ts → ../tools/format.js (digest → tools)',
      'config.ts → ./posthog/throttle.js (foundation → posthog)',
      'config.ts → ./server.js (foundation → server)',
    ]);
  });

  it('the check holds the operations between tools and the client (tools → operations → client)', () => {
    const files = [
      { path: join(SRC, 'tools/recordings/x.ts'), text: "import type { PostHogClient } from '../../posthog/client.js';\nimport { operationsOver } from '../../posthog/operations/index.js';\nimport { apiPath } from '../../posthog/query.js';\nimport { planUnits } from '../../posthog/snapshots.js';" },
      { path: join(SRC, 'posthog/snapshots.ts'), text: "import type { SnapshotOperations } from './operations/snapshots.js';" },
      { path: join(SRC, 'posthog/operations/projects.ts'), text: "import type { PostHogClient } from '../client.js';\nimport { clip } from '../../tools/format.js';" },
      { path: join(SRC, 'digest/runner.ts'), text: "import { operationsOver } from '../posthog/operations/index.js';" },
      { path: join(SRC, 'server.ts'), text: "import type { PostHogClient } from './posthog/client.js';\nimport { operationsOver } from './posthog/operations/index.js';" },
    ];
    expect(violations(files)).toEqual([
      'tools/recordings/x.ts → ../../posthog/client.js (tools → posthog/client.ts)',
      'tools/recordings/x.ts → ../../posthog/query.js (tools → posthog/query.ts)',
      'posthog/snapshots.ts → ./operations/snapshots.js (posthog → operations)',
      'posthog/operations/projects.ts → ../../tools/format.js (operations → tools)',
      'digest/runner.ts → ../posthog/operations/index.js (digest → operations)',
    ]);
  });

  it('the check catches a tool module importing another tool module, not a helper or the registry', () => {
    const tool = (name: string, imports = '') => ({ path: join(SRC, `tools/recordings/${name}.ts`), text: `${imports}\nexport const t = defineTool({ name: '${name}' });` });
    const files = [
      tool('session-recording-replay', "import { summarizeRecording } from './session-recording-summary.js';\nimport { playerUrl } from './player-link.js';"),
      tool('session-recording-summary', "import { summarizeRecording } from './summarize.js';"),
      { path: join(SRC, 'tools/recordings/summarize.ts'), text: "import { tailOf } from './tail.js';\nexport async function summarizeRecording() {}" },
      { path: join(SRC, 'tools/recordings/player-link.ts'), text: 'export function playerUrl() {}' },
      { path: join(SRC, 'tools/index.ts'), text: "import { t } from './recordings/session-recording-replay.js';\nimport { t as u } from './recordings/session-recording-summary.js';" },
      { path: join(SRC, 'tools/define.ts'), text: 'export function defineTool<I>(definition: I): I { return definition; }' },
    ];
    expect(violations(files)).toEqual(['tools/recordings/session-recording-replay.ts → ./session-recording-summary.js (tool module → tool module)']);
  });
});
