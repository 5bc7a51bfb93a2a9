import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { TIMEZONES } from '../src/posthog/timezones.js';
import { shownBytes, shownToModel } from '../src/tools/listing-shown.js';
import { startHarness, text, type Harness, type HarnessOptions } from './harness.js';

const ALL = [
  'session-recordings-list',
  'session-recording-get',
  'session-recording-delete',
  'session-recording-snapshots',
  'session-recording-summary',
  'session-recordings-triage',
  'recording-filter-options',
  'session-recording-replay',
  'session-recording-reproduce',
  'session-recording-matching-events',
  'session-recording-properties',
  'projects-list',
  'project-create',
  'project-get',
  'project-update',
  'project-delete',
];

/**
 * Every field an input schema names, at any depth (properties of nested objects, of array items, of
 * union branches), with its description if it has one. docs/design.md, "Tools": every field is described.
 */
function fieldsOf(schema: unknown, path = ''): Array<{ path: string; description: unknown }> {
  if (schema === null || typeof schema !== 'object') return [];
  const node = schema as Record<string, unknown>;
  const out: Array<{ path: string; description: unknown }> = [];
  for (const key of ['properties', 'patternProperties']) {
    for (const [name, field] of Object.entries((node[key] ?? {}) as Record<string, Record<string, unknown>>)) {
      out.push({ path: `${path}.${name}`, description: field.description }, ...fieldsOf(field, `${path}.${name}`));
    }
  }
  // Where a schema's fields can hide besides properties: union branches, array items (one schema or
  // a tuple's), a map's values, and definitions a $ref points to.
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) for (const branch of (node[key] ?? []) as unknown[]) out.push(...fieldsOf(branch, key === 'prefixItems' ? `${path}[]` : path));
  for (const items of [node.items].flat()) out.push(...fieldsOf(items, `${path}[]`));
  if (typeof node.additionalProperties === 'object') out.push(...fieldsOf(node.additionalProperties, `${path}.*`));
  for (const key of ['$defs', 'definitions']) for (const [name, definition] of Object.entries((node[key] ?? {}) as Record<string, unknown>)) out.push(...fieldsOf(definition, `${path}#${name}`));
  return out;
}

describe('tools/list', () => {
  let h: Harness;
  let tools: Tool[];
  beforeAll(async () => {
    h = await startHarness();
    tools = (await h.client.listTools()).tools;
  });
  afterAll(() => h.close());

  it('lists the eleven tools of docs/design.md, "Tools" and the recording summary, by name', () => {
    expect(tools.map((t) => t.name)).toEqual(ALL);
  });

  it('gives every tool a title, a description, strict input, an output schema and all four annotations', () => {
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description!.length, tool.name).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
      expect((tool.inputSchema as { additionalProperties?: unknown }).additionalProperties, tool.name).toBe(false);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      // Output schemas accept fields PostHog adds later.
      expect((tool.outputSchema as { additionalProperties?: unknown }).additionalProperties, tool.name).not.toBe(false);
      const a = tool.annotations!;
      expect(typeof a.readOnlyHint, tool.name).toBe('boolean');
      expect(typeof a.destructiveHint, tool.name).toBe('boolean');
      expect(typeof a.idempotentHint, tool.name).toBe('boolean');
      expect(a.openWorldHint, tool.name).toBe(true);
    }
  });

  it('describes every input field, at every depth, in every tool', () => {
    const undescribed = tools.flatMap((tool) => fieldsOf(tool.inputSchema, tool.name).filter((f) => typeof f.description !== 'string' || f.description.trim() === '').map((f) => f.path));
    expect(undescribed).toEqual([]);
  });

  it('the description check finds an undescribed field deep in a schema', () => {
    const schema = { type: 'object', properties: { a: { description: 'A.', anyOf: [{ type: 'object', properties: { b: { type: 'string' } } }, { type: 'null' }] }, c: { description: 'C.', type: 'array', items: { type: 'object', properties: { d: { type: 'integer' } } } } } };
    expect(fieldsOf(schema, 't').filter((f) => !f.description).map((f) => f.path)).toEqual(['t.a.b', 't.c[].d']);
    const elsewhere = { type: 'object', properties: { m: { description: 'M.', type: 'object', additionalProperties: { type: 'object', properties: { e: { type: 'string' } } } }, t: { description: 'T.', type: 'array', prefixItems: [{ type: 'object', properties: { f: { type: 'string' } } }] } }, $defs: { D: { type: 'object', properties: { g: { type: 'string' } } } } };
    expect(fieldsOf(elsewhere, 't').filter((f) => !f.description).map((f) => f.path)).toEqual(['t.m.*.e', 't.t[].f', 't#D.g']);
  });

  it('marks safety as docs/design.md, "Tools" says', () => {
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    for (const name of ['session-recordings-list', 'session-recording-get', 'session-recording-snapshots', 'session-recording-summary', 'session-recording-replay', 'session-recording-reproduce', 'session-recording-matching-events', 'session-recording-properties', 'projects-list', 'project-get']) {
      expect(hints[name], name).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    expect(hints['session-recording-delete']).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(hints['project-delete']).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(hints['project-update']).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(hints['project-create']).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
  });

  it('offers exactly the timezones of docs/posthog-api.md, "Time zones", on project-create and project-update', () => {
    for (const name of ['project-create', 'project-update']) {
      const tool = tools.find((t) => t.name === name)!;
      // Optional, so advertised nullable: the values are in the non-null branch.
      const timezone = (tool.inputSchema.properties as Record<string, { anyOf?: Array<{ enum?: string[] }> }>).timezone;
      expect(timezone?.anyOf?.[0]?.enum).toEqual([...TIMEZONES]);
      expect(timezone?.anyOf?.[1]).toEqual({ type: 'null' });
    }
  });

  it('requires project_id on recording tools when no default project is configured', () => {
    const list = tools.find((t) => t.name === 'session-recordings-list')!;
    expect(list.inputSchema.required).toContain('project_id');
    const create = tools.find((t) => t.name === 'project-create')!;
    expect(create.inputSchema.required).toEqual(['name']);
  });

  it('matches the committed snapshot, so interface changes are deliberate', async () => {
    await expect(JSON.stringify(tools, null, 1) + '\n').toMatchFileSnapshot('./__snapshots__/tools-list.json');
  });
});

/**
 * What the tool list costs every conversation (issues 25, 30): what a model is shown of it. Measured
 * on the tools/list result through the SDK Client, compact JSON, in bytes (as bench/tool-sizes.mjs
 * measures), without each tool's outputSchema and _meta: clients keep those (to validate
 * structuredContent, to render a view) and do not hand them to the model (issue 39). Each input
 * schema in characters (Claude's web and desktop apps silently drop a tool whose input schema
 * reaches 16,384). With every field described, the defaults list 42,692 B before issue 31's
 * filters and recording-filter-options (+4,090 B); 48,000 B holds both.
 */
const LIST_BUDGET_BYTES = 48_000;
const SCHEMA_BUDGET_CHARS = 14_000;
/** What Codex keeps of an input schema whole (docs/mcp-features.md); the compact listing stays under it. */
const COMPACT_SCHEMA_BYTES = 5_000;
/** The 439-value timezone enum, in project-create and project-update alike (docs/design.md, "Tools" demands all of it). */
const TIMEZONE_ENUM = /"enum":\[[^\]]{4000,}\]/g;

const APPS: HarnessOptions['clientCapabilities'] = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

describe('tools/list stays within its budget', () => {
  // The defaults, and the largest configurations: every toolset, not read-only, with and without
  // a default project, to a client that renders MCP Apps (which is also shown the app-only tool).
  const configurations: Array<[string, HarnessOptions]> = [
    ['the defaults', {}],
    ['all toolsets, MCP Apps client', { toolsets: ['recordings', 'projects'], readOnly: false, clientCapabilities: APPS }],
    ['all toolsets, MCP Apps client, default project', { toolsets: ['recordings', 'projects'], readOnly: false, clientCapabilities: APPS, defaultProjectId: '1' }],
  ];
  for (const [label, options] of configurations) {
    it(`${label}: within ${LIST_BUDGET_BYTES} B with every field described and both timezone enums, no input schema at ${SCHEMA_BUDGET_CHARS} characters`, async () => {
      const h = await startHarness(options);
      try {
        const result = await h.client.listTools();
        const shown = JSON.stringify(shownToModel(result));
        expect(shown).not.toMatch(/"outputSchema"|"_meta"/);
        const bytes = shownBytes(result);
        expect(bytes).toBe(Buffer.byteLength(shown));
        expect(bytes, `tools/list is ${bytes} B`).toBeLessThanOrEqual(LIST_BUDGET_BYTES);
        for (const tool of result.tools) {
          const chars = JSON.stringify(tool.inputSchema).length;
          expect(chars, `${tool.name}'s input schema is ${chars} characters`).toBeLessThan(SCHEMA_BUDGET_CHARS);
          expect(fieldsOf(tool.inputSchema, tool.name).filter((f) => typeof f.description !== 'string' || f.description.trim() === '').map((f) => f.path)).toEqual([]);
        }
        // Both enums whole, in what the model is shown (not only in what the client keeps).
        expect(shown.match(TIMEZONE_ENUM) ?? []).toHaveLength(2);
        for (const name of ['project-create', 'project-update']) {
          const timezone = (result.tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, { anyOf?: Array<{ enum?: string[] }> }>).timezone;
          expect(timezone?.anyOf?.[0]?.enum, name).toEqual([...TIMEZONES]);
        }
      } finally {
        await h.close();
      }
    });
  }

  // Clients cache the prompt that holds the tool list: a list that changes order, or any byte,
  // between two asks or two starts of the same configuration misses the cache every time.
  it('lists the tools in the same order, byte for byte, on two lists and across two server starts', async () => {
    const options: HarnessOptions = { toolsets: ['recordings', 'projects'], readOnly: false, clientCapabilities: APPS, defaultProjectId: '1' };
    const lists: string[] = [];
    for (let start = 0; start < 2; start++) {
      const h = await startHarness(options);
      try {
        lists.push(JSON.stringify((await h.client.listTools()).tools), JSON.stringify((await h.client.listTools()).tools));
      } finally {
        await h.close();
      }
    }
    expect(new Set(lists).size).toBe(1);
    // The order is the registry's (the first test pins it at the defaults), the app-only tool among them.
    const names = (JSON.parse(lists[0]!) as Tool[]).map((t) => t.name);
    expect(names.filter((name) => ALL.includes(name))).toEqual(ALL);
    expect(names).toContain('session-recording-replay-events');
  });
});

/** A field that may be left out: listed with a null branch, as OpenAI strict-mode hosts need. */
function optionalFieldsWithoutNull(schema: Tool['inputSchema']): string[] {
  const required = new Set(schema.required ?? []);
  return Object.entries((schema.properties ?? {}) as Record<string, { anyOf?: Array<{ type?: string }> }>)
    .filter(([key, field]) => !required.has(key) && !field.anyOf?.some((branch) => branch.type === 'null'))
    .map(([key]) => key);
}

describe('MCP_TOOL_SCHEMAS: input schemas per client', () => {
  const listFor = async (options: HarnessOptions) => {
    const h = await startHarness({ clientCapabilities: APPS, ...options });
    try {
      return (await h.client.listTools()).tools;
    } finally {
      await h.close();
    }
  };
  const timezoneOf = (tools: Tool[], name: string) => (tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, { anyOf?: Array<{ type?: string; enum?: string[] }> }>).timezone;

  it('to Codex (clientInfo codex-mcp-client) under auto: every input schema under 5,000 B, timezone a string, optional fields still nullable', async () => {
    const tools = await listFor({ clientName: 'codex-mcp-client' });
    expect(tools.map((t) => t.name)).toContain('project-update');
    for (const tool of tools) {
      const bytes = Buffer.byteLength(JSON.stringify(tool.inputSchema));
      expect(bytes, `${tool.name}'s input schema is ${bytes} B`).toBeLessThan(COMPACT_SCHEMA_BYTES);
      expect(optionalFieldsWithoutNull(tool.inputSchema), tool.name).toEqual([]);
    }
    for (const name of ['project-create', 'project-update']) expect(timezoneOf(tools, name)?.anyOf).toEqual([{ type: 'string' }, { type: 'null' }]);
  });

  it('compact for any client with MCP_TOOL_SCHEMAS=compact; the same tools, titles and descriptions', async () => {
    const compact = await listFor({ toolSchemas: 'compact' });
    const full = await listFor({});
    expect(compact.map((t) => [t.name, t.title, t.description])).toEqual(full.map((t) => [t.name, t.title, t.description]));
    for (const tool of compact) expect(Buffer.byteLength(JSON.stringify(tool.inputSchema)), tool.name).toBeLessThan(COMPACT_SCHEMA_BYTES);
    expect(timezoneOf(compact, 'project-update')?.anyOf?.[0]).toEqual({ type: 'string' });
  });

  it('the whole timezone enum for every other client, and for Codex too with MCP_TOOL_SCHEMAS=full', async () => {
    for (const options of [{}, { clientName: 'codex-mcp-client', toolSchemas: 'full' as const }, { clientName: 'claude-code' }]) {
      const tools = await listFor(options);
      for (const name of ['project-create', 'project-update']) expect(timezoneOf(tools, name)?.anyOf?.[0]?.enum, JSON.stringify(options)).toEqual([...TIMEZONES]);
    }
  });

  it('validates timezone the same way in both modes: a near miss refused with a did-you-mean, before any request to PostHog', async () => {
    for (const options of [{ toolSchemas: 'full' as const }, { toolSchemas: 'compact' as const }, { clientName: 'codex-mcp-client' }]) {
      const h = await startHarness(options);
      try {
        const before = h.sandbox.requests.length;
        const result = await h.call('project-update', { id: 1, timezone: 'europe/berlin' });
        expect(result.isError, JSON.stringify(options)).toBe(true);
        expect(text(result)).toMatch(/timezone must be an IANA name.*Did you mean "Europe\/Berlin"/i);
        const created = await h.call('project-create', { name: 'Mars base', timezone: 'Mars/Olympus' });
        expect(created.isError).toBe(true);
        expect(text(created)).toMatch(/timezone must be an IANA name/);
        expect(h.sandbox.requests.length).toBe(before);
      } finally {
        await h.close();
      }
    }
  });
});
