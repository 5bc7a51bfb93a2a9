import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ALL_TOOLS } from '../../src/tools/index.js';
import { DEFAULT_PROJECT_PLACEHOLDER, PREBUILT_FILE, buildListing, buildListings, lean, loadListing, type Prebuilt } from '../../src/tools/listing.js';
import { COMPACT_LIMIT_BYTES, compactInput, shorter, size } from '../../src/tools/listing-compact.js';
import { portableInput, portableOutput } from '../../src/tools/listing-portable.js';

const DIST_LISTING = new URL(`../../dist/tools/${PREBUILT_FILE}`, import.meta.url);

describe('lean JSON Schema', () => {
  it('drops what says nothing: $schema, additionalProperties {}, string propertyNames, ±2^53-1 integer bounds', () => {
    const schema = z.toJSONSchema(z.looseObject({ n: z.number().int(), m: z.number().int().min(1).max(100), tags: z.record(z.string(), z.unknown()) }), { target: 'draft-7', io: 'output' });
    expect(lean(schema)).toEqual({
      type: 'object',
      properties: { n: { type: 'integer' }, m: { type: 'integer', minimum: 1, maximum: 100 }, tags: { type: 'object' } },
      required: ['n', 'm', 'tags'],
    });
  });

  it('keeps additionalProperties: false, which strict input relies on', () => {
    expect(lean(z.toJSONSchema(z.strictObject({ a: z.string() }), { target: 'draft-7', io: 'input' })).additionalProperties).toBe(false);
  });

  it('keeps unions as anyOf branches of one type each, never a type list', () => {
    const union = z.toJSONSchema(z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]), { target: 'draft-7' });
    expect(lean(union)).toEqual({ anyOf: [{ type: 'string', pattern: '^\\d+$' }, { type: 'integer', minimum: 0 }] });
  });

  it('leaves enum values untouched', () => {
    const values = ['$schema', 'additionalProperties', 'UTC'];
    expect(lean({ type: 'string', enum: values }).enum).toEqual(values);
  });
});

describe('the tools/list entries', () => {
  it('are written by the build exactly as the tools convert now, without and with a default project, full and compact', async () => {
    const prebuilt = JSON.parse(await readFile(DIST_LISTING, 'utf8')) as Prebuilt;
    expect(prebuilt.plain).toEqual(buildListings(ALL_TOOLS, {}));
    const pinned = JSON.parse(JSON.stringify(prebuilt.pinned).replaceAll(DEFAULT_PROJECT_PLACEHOLDER, '1002'));
    expect(pinned).toEqual(buildListings(ALL_TOOLS, { defaultProjectId: '1002' }));
    expect(prebuilt.plain.full).toEqual(buildListing(ALL_TOOLS, {}));
    expect(prebuilt.plain.compact.map((t) => t.name)).toEqual(prebuilt.plain.full.map((t) => t.name));
  });

  it('are read for the configured tools and default project, and converted on the spot without the file', async () => {
    const dist = (await import(new URL('../../dist/tools/listing.js', import.meta.url).href)) as typeof import('../../src/tools/listing.js');
    const some = ALL_TOOLS.filter((tool) => tool.toolset === 'projects');
    expect(await dist.loadListing(some, { defaultProjectId: '@current' })).toEqual(buildListings(some, { defaultProjectId: '@current' }));
    // From source there is no prebuilt file next to the module: the same entries, converted now.
    expect(await loadListing(ALL_TOOLS, {})).toEqual(buildListings(ALL_TOOLS, {}));
  });
});

describe('compact input schemas (MCP_TOOL_SCHEMAS=compact)', () => {
  const zones = Array.from({ length: 60 }, (_, i) => `Zone/${i}`);
  const big = (words: number) => ({
    type: 'object',
    properties: {
      timezone: { description: 'IANA, e.g. Europe/Berlin.', anyOf: [{ type: 'string', enum: zones }, { type: 'null' }] },
      order: { description: 'Order.', anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] },
      flag: {
        description: 'Flag.',
        anyOf: [{ type: 'object', properties: { id: { type: 'integer', description: 'Id.' }, variant: { description: 'V.', anyOf: [{ type: 'string' }, { type: 'null' }] } }, required: ['id'], additionalProperties: false }, { type: 'null' }],
      },
      filters: { description: `Filters, e.g. [${'"x",'.repeat(words)}"y"]. JSON text.`, anyOf: [{ type: 'string' }, { type: 'null' }] },
    },
    required: [],
    additionalProperties: false,
  });

  it('lists a long enum as its type and keeps short ones; a small schema changes no further', () => {
    const out = compactInput(big(0));
    expect(out.properties).toMatchObject({ timezone: { description: 'IANA, e.g. Europe/Berlin.', anyOf: [{ type: 'string' }, { type: 'null' }] }, order: { anyOf: [{ enum: ['a', 'b'] }, { type: 'null' }] } });
    expect((out.properties as Record<string, unknown>).flag).toEqual(big(0).properties.flag);
  });

  it('past the limit, nested objects become a shape line, then examples go, longest first, null branches kept', () => {
    const schema = big(1_000);
    expect(size(schema)).toBeGreaterThan(COMPACT_LIMIT_BYTES);
    const out = compactInput(schema);
    expect(size(out)).toBeLessThan(COMPACT_LIMIT_BYTES);
    expect(out.properties).toMatchObject({
      flag: { description: 'Flag.', anyOf: [{ type: 'object', description: '{id: integer, variant?: string}' }, { type: 'null' }] },
      filters: { description: 'Filters. JSON text.', anyOf: [{ type: 'string' }, { type: 'null' }] },
    });
  });

  it('cuts a description to what it says without its example, else its first clause', () => {
    expect(shorter('Internal users, e.g. [{"key":"$host"}]. JSON text.')).toBe('Internal users. JSON text.');
    expect(shorter('Kept this long; plan may cap it.')).toBe('Kept this long.');
    expect(shorter('Record sessions.')).toBeUndefined();
  });
});

describe('portable JSON Schema for every host', () => {
  it('splits type lists into anyOf, makes optional inputs nullable, keeps required ones as they are', () => {
    const input = portableInput({
      type: 'object',
      properties: { a: { type: ['string', 'null'], pattern: 'x', description: 'A.' }, b: { type: 'integer', minimum: 1, default: 5, description: 'B.' }, c: { type: 'string' } },
      required: ['c'],
      additionalProperties: false,
    });
    expect(input.properties).toEqual({
      a: { description: 'A.', anyOf: [{ type: 'string', pattern: 'x' }, { type: 'null' }] },
      b: { description: 'B.', default: 5, anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] },
      c: { type: 'string' },
    });
    expect(input.additionalProperties).toBe(false);
  });

  it('leaves array counts out of the listing (the server still checks them), keeping the items', () => {
    const input = portableInput({
      type: 'object',
      properties: { ids: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string' }, description: 'Ids.' } },
      required: ['ids'],
      additionalProperties: false,
    });
    expect(input.properties).toEqual({ ids: { type: 'array', items: { type: 'string' }, description: 'Ids.' } });
  });

  it('advertises free-form values (and lists of them) as JSON text, and drops what strict dialects lack', () => {
    const input = portableInput({
      type: 'object',
      properties: {
        filters: { type: 'object', description: 'F.' },
        list: { type: 'array', items: { type: 'object' } },
        uuid: { type: 'string', format: 'uuid', pattern: '^u$', maxLength: 36 },
        when: { type: 'string', format: 'date-time' },
        n: { type: 'integer', exclusiveMinimum: 0 },
        k: { const: 'only' },
      },
      required: ['filters', 'list', 'uuid', 'when', 'n', 'k'],
      additionalProperties: false,
    });
    expect(input.properties).toEqual({
      filters: { type: 'string', description: 'F. JSON text.' },
      list: { type: 'string', description: 'JSON text.' },
      uuid: { type: 'string', pattern: '^u$' },
      when: { type: 'string', format: 'date-time' },
      n: { type: 'integer', minimum: 1 },
      k: { enum: ['only'] },
    });
  });

  it('advertises an output schema whole, one type per schema, no schema without a keyword, nothing that refuses a field it does not name', () => {
    const full = lean(
      z.toJSONSchema(
        z.looseObject({ project: z.looseObject({ id: z.number().int(), name: z.string().nullish() }), changes: z.array(z.unknown()), plain: z.object({ a: z.boolean() }), note: z.string().optional() }),
        { target: 'draft-7', io: 'output' },
      ),
    );
    const anyJson = [{ type: 'object' }, { type: 'array' }, { type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }];
    expect(portableOutput(full)).toEqual({
      type: 'object',
      properties: {
        project: { type: 'object', properties: { id: { type: 'integer' }, name: { anyOf: [{ type: 'string' }, { type: 'null' }] } }, required: ['id'] },
        changes: { type: 'array', items: { anyOf: anyJson } },
        plain: { type: 'object', properties: { a: { type: 'boolean' } }, required: ['a'] },
        note: { type: 'string' },
      },
      required: ['project', 'changes', 'plain'],
    });
  });

  it('lists a union member once when two became the same JSON text', () => {
    const filters = z.union([z.array(z.record(z.string(), z.unknown())), z.record(z.string(), z.unknown())]).describe('Filters.');
    const schema = z.toJSONSchema(z.strictObject({ f: filters, g: filters.optional() }), { target: 'draft-7', io: 'input' });
    expect(portableInput(lean(schema)).properties).toEqual({
      f: { type: 'string', description: 'Filters. JSON text.' },
      g: { description: 'Filters. JSON text.', anyOf: [{ type: 'string' }, { type: 'null' }] },
    });
  });
});
