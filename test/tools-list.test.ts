import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { TIMEZONES } from '../src/posthog/timezones.js';
import { startHarness, type Harness } from './harness.js';

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
