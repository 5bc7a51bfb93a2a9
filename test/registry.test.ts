// server.json, our entry for the official MCP Registry, checked against the registry's published
// schema. The schema lives in the workplace's shared/schemas folder beside the repository (found by
// walking up from the repository root), never copied into it; without it these checks are skipped.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parseCli } from '../src/config.js';
import { SETTINGS } from '../src/settings.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCHEMA_FILE = 'mcp-registry-server.schema.2025-12-11.json';

function findSharedSchema(): string | undefined {
  for (let dir = dirname(ROOT); ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared', 'schemas', SCHEMA_FILE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

const read = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));
const serverJson = read('server.json');
const pkg = read('package.json');
const schemaPath = findSharedSchema();
if (!schemaPath) console.warn(`registry.test: shared/schemas/${SCHEMA_FILE} not found above ${ROOT}; schema validation skipped.`);

type EnvVar = { name: string; isSecret?: boolean; isRequired?: boolean; default?: string };
const envVars = (): EnvVar[] => serverJson.packages[0].environmentVariables;

describe.skipIf(!schemaPath)('server.json against the MCP Registry schema (2025-12-11)', () => {
  const validator = () => {
    // ajv-formats is CommonJS; its default export is the plugin itself or sits on .default.
    const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    return ajv.compile(JSON.parse(readFileSync(schemaPath!, 'utf8')));
  };

  it('validates', () => {
    const validate = validator();
    expect(validate(serverJson), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('would catch a broken entry (the validator is not a formality)', () => {
    const validate = validator();
    expect(validate({ ...serverJson, name: 'no-namespace' })).toBe(false);
    expect(validate({ ...serverJson, description: 'x'.repeat(101) })).toBe(false);
    const { version: _version, ...withoutVersion } = serverJson;
    expect(validate(withoutVersion)).toBe(false);
  });
});

describe('server.json and package.json agree', () => {
  it('names this npm package at package.json\'s version, and the registry name is package.json\'s mcpName', () => {
    expect(serverJson.version).toBe(pkg.version);
    expect(serverJson.packages).toHaveLength(1);
    expect(serverJson.packages[0]).toMatchObject({ registryType: 'npm', identifier: pkg.name, version: pkg.version, transport: { type: 'stdio' } });
    // The registry checks npm ownership through this field of the published package.json.
    expect(pkg.mcpName).toBe(serverJson.name);
  });

  it('marks the API key, and only it, as secret', () => {
    expect(envVars().filter((v) => v.isSecret).map((v) => v.name)).toEqual(['POSTHOG_PERSONAL_API_KEY']);
  });

  it('lists only variables the server reads, with defaults it accepts', () => {
    const read = Object.values(SETTINGS).map((s) => (s as { env?: string }).env);
    for (const variable of envVars()) expect(read, variable.name).toContain(variable.name);
    const defaults = Object.fromEntries(envVars().flatMap((v) => (v.default === undefined ? [] : [[v.name, v.default]])));
    const action = parseCli([], { ...defaults, POSTHOG_PERSONAL_API_KEY: 'phx_registry_test_key' });
    expect(action.kind).toBe('run');
  });

  it('offers every setting the MCP Bundle offers (one list of settings for both routes)', () => {
    const manifest = read('bundle/manifest.json');
    const bundleVars = Object.keys(manifest.server.mcp_config.env).filter((name) => name !== 'POSTHOG_SANDBOX');
    expect(envVars().map((v) => v.name)).toEqual(expect.arrayContaining(bundleVars));
    expect(manifest.version).toBe(pkg.version);
  });
});
