import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { startHarness, text, type Harness } from './harness.js';

/**
 * Every tool's inputs against its own advertised schema, from the tools/list the server serves
 * (so a tool added later is fuzzed too). Inputs valid by that schema must never give an Internal
 * error or a protocol error; inputs that break it (an unknown field, a missing required field, a
 * wrong type, a bound, an enum or a pattern broken) must get a clear validation error and cause no
 * upstream request. `npm test` runs a bounded count with a fixed seed; `npm run test:fuzz` (or
 * FUZZ_RUNS=n, FUZZ_SEED=s) runs more.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 8);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

type Schema = { [key: string]: unknown };
const isRecord = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Values a schema of our listing's dialect accepts (tools/listing-portable.ts keeps it small). */
function valid(schema: Schema): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Schema[]).map(valid));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: num(schema.minimum, -1_000_000), max: num(schema.maximum, 1_000_000) });
    case 'number':
      return fc.double({ min: num(schema.minimum, -1e6), max: num(schema.maximum, 1e6), noNaN: true });
    case 'string':
      if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
      if (typeof schema.description === 'string' && schema.description.includes('JSON text')) {
        return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }).map((v) => JSON.stringify(v));
      }
      return fc.string({ maxLength: 40 });
    case 'array': {
      const items = isRecord(schema.items) ? valid(schema.items) : fc.jsonValue({ maxDepth: 1 });
      const minLength = num(schema.minItems, 0);
      return fc.array(items, { minLength, maxLength: Math.max(minLength, Math.min(num(schema.maxItems, 4), 4)) });
    }
    case 'object': {
      const properties = isRecord(schema.properties) ? schema.properties : {};
      const shape = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, valid(v as Schema)]));
      return fc.record(shape, { requiredKeys: (schema.required as string[] | undefined) ?? [] });
    }
    default:
      throw new Error(`the fuzzer does not know schema ${JSON.stringify(schema).slice(0, 200)}: extend valid() in test/fuzz.test.ts`);
  }
}

const num = (value: unknown, fallback: number) => (typeof value === 'number' ? value : fallback);

/** The JSON types a property schema admits. */
function typesOf(schema: Schema): Set<string> {
  if (Array.isArray(schema.anyOf)) return new Set((schema.anyOf as Schema[]).flatMap((b) => [...typesOf(b)]));
  return new Set(typeof schema.type === 'string' ? [schema.type] : ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
}

const branches = (schema: Schema): Schema[] => (Array.isArray(schema.anyOf) ? (schema.anyOf as Schema[]) : [schema]);

/** Ways to break one valid input of a tool's schema, each invalid by construction. */
function invalid(tool: Tool): fc.Arbitrary<{ how: string; args: Record<string, unknown> }> {
  const schema = tool.inputSchema as Schema;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = (schema.required as string[] | undefined) ?? [];
  const base = valid(schema) as fc.Arbitrary<Record<string, unknown>>;
  const breakers: Array<fc.Arbitrary<{ how: string; args: Record<string, unknown> }>> = [];

  const unknownKey = fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !(k in properties) && k !== '__proto__');
  breakers.push(fc.tuple(base, unknownKey, fc.jsonValue({ maxDepth: 1 })).map(([args, key, value]) => ({ how: `unknown field ${JSON.stringify(key)}`, args: { ...args, [key]: value } })));
  for (const field of required) {
    breakers.push(base.map((args) => ({ how: `without required ${field}`, args: Object.fromEntries(Object.entries(args).filter(([k]) => k !== field)) })));
  }
  for (const [field, property] of Object.entries(properties)) {
    const types = typesOf(property);
    // A field advertised as JSON text also takes the JSON value itself (tools/input.ts).
    if (branches(property).some((b) => typeof b.description === 'string' && b.description.includes('JSON text')) || String(property.description ?? '').includes('JSON text')) {
      types.add('object');
      types.add('array');
    }
    const wrong = [true, 12345.5, 'not-a-valid-value', [1], { k: 1 }, null].filter((v) => {
      const type = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v;
      return !types.has(type);
    });
    if (wrong.length) breakers.push(fc.tuple(base, fc.constantFrom(...wrong)).map(([args, value]) => ({ how: `${field} of a wrong type`, args: { ...args, [field]: value } })));
    for (const branch of branches(property)) {
      if (branch.type === 'integer' && typeof branch.maximum === 'number') breakers.push(base.map((args) => ({ how: `${field} above its maximum`, args: { ...args, [field]: (branch.maximum as number) + 1 } })));
      if (branch.type === 'integer' && typeof branch.minimum === 'number') breakers.push(base.map((args) => ({ how: `${field} below its minimum`, args: { ...args, [field]: (branch.minimum as number) - 1 } })));
      if (branch.type === 'integer') breakers.push(base.map((args) => ({ how: `${field} not an integer`, args: { ...args, [field]: 1.5 } })));
      if (Array.isArray(branch.enum)) breakers.push(base.map((args) => ({ how: `${field} outside its enum`, args: { ...args, [field]: 'zz-not-listed' } })));
      if (typeof branch.pattern === 'string') {
        const pattern = new RegExp(branch.pattern);
        const misfits = ['', ' ', '../x', 'a/b?c=1', '-1', '\u0000'].filter((s) => !pattern.test(s));
        if (misfits.length) breakers.push(fc.tuple(base, fc.constantFrom(...misfits)).map(([args, value]) => ({ how: `${field} not matching its pattern`, args: { ...args, [field]: value } })));
      }
      if (branch.type === 'array' && typeof branch.maxItems === 'number' && isRecord(branch.items)) {
        const over = (branch.maxItems as number) + 1;
        breakers.push(fc.tuple(base, fc.array(valid(branch.items), { minLength: over, maxLength: over })).map(([args, items]) => ({ how: `${field} over maxItems`, args: { ...args, [field]: items } })));
      }
    }
  }
  return fc.oneof(...breakers);
}

describe('fuzzing every tool against its own advertised input schema', () => {
  let h: Harness;
  let tools: Tool[];
  beforeAll(async () => {
    h = await startHarness();
    tools = (await h.client.listTools()).tools;
  });
  afterAll(() => h.close());

  it(`valid inputs never give an Internal error or a protocol error (${RUNS} runs per tool, seed ${SEED})`, { timeout: 60_000 + RUNS * 12 * 500 }, async () => {
    for (const tool of tools) {
      await fc.assert(
        fc.asyncProperty(valid(tool.inputSchema as Schema), async (args) => {
          h.sandbox.reset();
          const result = await h.call(tool.name, args as Record<string, unknown>);
          expect(Array.isArray(result.content), tool.name).toBe(true);
          expect(text(result), `${tool.name} ${JSON.stringify(args).slice(0, 300)}`).not.toMatch(/Internal error/);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    }
  });

  it(`invalid inputs get a clear validation error and no upstream request (${RUNS} runs per tool, seed ${SEED})`, { timeout: 60_000 + RUNS * 12 * 500 }, async () => {
    for (const tool of tools) {
      await fc.assert(
        fc.asyncProperty(invalid(tool), async ({ how, args }) => {
          h.sandbox.reset();
          const result = await h.call(tool.name, args);
          const said = `${tool.name}, ${how}: ${JSON.stringify(args).slice(0, 300)} → ${text(result).slice(0, 300)}`;
          expect(result.isError, said).toBe(true);
          expect(text(result), said).toMatch(new RegExp(`^Invalid arguments for ${tool.name}: \\S`));
          expect(text(result).length, said).toBeLessThan(2000);
          expect(h.sandbox.requests, said).toHaveLength(0);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    }
  });
});
