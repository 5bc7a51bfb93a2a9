// The Node version users are told to have is the least the server runs on: the bundled undici
// declares >=20.18.1 (our own code needs 20.16, for process.getBuiltinModule). package.json, the
// bundle's manifest and the client guide say the same.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const require = createRequire(import.meta.url);

describe('the minimum Node version', () => {
  it('is the same in package.json, the bundle manifest and docs/clients.md, and no lower than undici needs', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe('>=20.18.1');
    expect((JSON.parse(read('bundle/manifest.json')) as { compatibility: { runtimes: { node: string } } }).compatibility.runtimes.node).toBe(engines);
    expect((require('undici/package.json') as { engines: { node: string } }).engines.node).toBe(engines);
    expect(read('docs/clients.md')).toContain('20.18.1 or newer');
    expect(read('docs/clients.md')).not.toMatch(/20\.18(?!\.1) or newer/);
  });
});
