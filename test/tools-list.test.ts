import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { TIMEZONES } from '../src/posthog/timezones.js';
import { startHarness, type Harness, type HarnessOptions } from './harness.js';

const ALL = [
  'session-recordings-list',
  'session-recording-get',
  'session-recording-delete',
  'session-recording-snapshots',
  'session-recording-summary',
  'session-recordings-triage',
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

describe('tools/list', () => {
  let h: Harness;
  let tools: Tool[];
  beforeAll(async () => {
    h = await startHarness();
    tools = (await h.client.listTools()).tools;
  });
  afterAll(() => h.close());

  it('lists the eleven tools of SPEC §1 and the recording summary, by name', () => {
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
      for (const [field, schema] of Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>)) {
        expect(schema.description, `${tool.name}.${field} needs a description`).toBeTruthy();
      }
    }
  });

  it('marks safety as SPEC §1 says', () => {
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    for (const name of ['session-recordings-list', 'session-recording-get', 'session-recording-snapshots', 'session-recording-summary', 'session-recording-replay', 'session-recording-reproduce', 'session-recording-matching-events', 'session-recording-properties', 'projects-list', 'project-get']) {
      expect(hints[name], name).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    expect(hints['session-recording-delete']).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(hints['project-delete']).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(hints['project-update']).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(hints['project-create']).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
  });

  it('offers exactly the §2.5 timezones on project-create and project-update', () => {
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
 * What the tool list costs every conversation (issue 25). Measured as a client receives it: the
 * tools/list result through the SDK Client, compact JSON, in bytes; each input schema in
 * characters (Claude's web and desktop apps silently drop a tool whose input schema reaches
 * 16,384). The budgets hold with room for the session-recording-reproduce tool being built beside
 * this one (about 1,000-1,500 B), so the figure it is checked against counts it once merged.
 */
// Issue 25 asks 40,000 B in all and 1,200 B a tool outside the two timezone enums; text alone
// does not reach that (bench/README.md, "Definition size, issue 25": 42,060 B and 1,852 B a tool
// at the defaults today, the advertised nulls of optional fields being 3.1 KB of it). These are
// today's largest figures plus the reproduce tool's allowance: the list may not grow past them.
const LIST_BUDGET_BYTES = 45_000;
const AVERAGE_BUDGET_BYTES = 1_900;
const SCHEMA_BUDGET_CHARS = 14_000;
/** The 439-value timezone enum, in project-create and project-update alike (SPEC §1 demands all of it). */
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
    it(`${label}: within ${LIST_BUDGET_BYTES} B and ${AVERAGE_BUDGET_BYTES} B a tool outside the timezone enums, no input schema at ${SCHEMA_BUDGET_CHARS} characters`, async () => {
      const h = await startHarness(options);
      try {
        const result = await h.client.listTools();
        const bytes = Buffer.byteLength(JSON.stringify(result));
        expect(bytes, `tools/list is ${bytes} B`).toBeLessThanOrEqual(LIST_BUDGET_BYTES);
        for (const tool of result.tools) {
          const chars = JSON.stringify(tool.inputSchema).length;
          expect(chars, `${tool.name}'s input schema is ${chars} characters`).toBeLessThan(SCHEMA_BUDGET_CHARS);
        }
        const enums = JSON.stringify(result).match(TIMEZONE_ENUM) ?? [];
        expect(enums).toHaveLength(2);
        const outside = bytes - enums.reduce((n, e) => n + Buffer.byteLength(e), 0);
        const average = Math.round(outside / result.tools.length);
        expect(average, `${average} B a tool outside the timezone enums`).toBeLessThanOrEqual(AVERAGE_BUDGET_BYTES);
      } finally {
        await h.close();
      }
    });
  }
});
