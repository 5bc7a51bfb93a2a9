// The product's skeleton (STYLE.md, the developers' guide): cli.ts → server.ts → tools/ →
// posthog/ (the one client) → config.ts / errors.ts and the other foundation modules; digest/,
// sandbox/, reproduce/ and the player (app/) are rooms of their own. Arrows point down: a module
// imports only from its own room and the rooms this table puts below it. A helper two rooms need
// lives below both.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../src');

/** Files at the top of src/ that every room may use: they import only each other. */
const FOUNDATION = ['config', 'settings', 'setting-kinds', 'http-settings', 'posthog-host', 'help-text', 'errors', 'words', 'url-secrets', 'replay-rates', 'call-limits', 'proxy-env', 'version', 'icons', 'player-data'];

/** What each room may import besides itself. */
const BELOW: Record<string, string[]> = {
  foundation: [],
  posthog: ['foundation'],
  digest: ['foundation', 'posthog'],
  sandbox: ['foundation', 'posthog'],
  app: ['foundation', 'posthog'],
  reproduce: ['foundation', 'posthog', 'digest'],
  cache: ['foundation', 'posthog'],
  tools: ['foundation', 'posthog', 'digest', 'reproduce', 'cache'],
  resources: ['foundation', 'posthog', 'tools'],
  prompts: ['foundation', 'posthog', 'tools', 'resources'],
  tasks: ['foundation'],
  server: ['foundation', 'posthog', 'tools', 'cache', 'prompts', 'resources', 'tasks'],
  transports: ['foundation', 'posthog', 'server', 'cache'],
  doctor: ['foundation', 'posthog'],
  cli: ['foundation', 'posthog', 'server', 'transports', 'sandbox', 'doctor', 'cache'],
};

function roomOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
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

/** Every import that points up or sideways: `file → target (room → room)`. */
function violations(files: Array<{ path: string; text: string }>, below = BELOW): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    const from = roomOf(path);
    for (const specifier of importsOf(text)) {
      const target = resolve(dirname(path), specifier).replace(/\.js$/, '.ts');
      const to = roomOf(target);
      if (to === from) continue;
      const allowed = below[from];
      if (!allowed || !allowed.includes(to)) found.push(`${relative(SRC, path)} → ${specifier} (${from} → ${to})`);
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
});
