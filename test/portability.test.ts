import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';
import { geminiFindings, inspectorStrictFindings, openAiStrictFindings } from './support/dialects.js';

type Schema = { [key: string]: unknown };

/**
 * Every tool the server lists (whoever adds it), as served, with and without a default project:
 * the MCP Inspector's --strict lint, OpenAI strict mode and Gemini function declarations take
 * their schemas as they are (test/support/dialects.ts has each host's rules).
 */
describe.each([
  ['without a default project', undefined],
  ['with a default project', String(DEMO.mainProjectId)],
])('tools/list converts cleanly for every host, %s', (_, defaultProjectId) => {
  let h: Harness;
  let tools: Tool[];
  beforeAll(async () => {
    h = await startHarness(defaultProjectId ? { defaultProjectId } : {});
    tools = (await h.client.listTools()).tools;
  });
  afterAll(() => h.close());

  it('gives the MCP Inspector --strict lint nothing to report, in input and output schemas', () => {
    const findings = tools.flatMap((t) => [
      ...inspectorStrictFindings(t.inputSchema as Schema).map((f) => `${t.name} input ${f}`),
      ...inspectorStrictFindings((t.outputSchema ?? {}) as Schema).map((f) => `${t.name} output ${f}`),
    ]);
    expect(findings).toEqual([]);
  });

  it('converts to OpenAI strict mode with every optional field nullable and no unsupported keyword', () => {
    expect(tools.flatMap((t) => openAiStrictFindings(t.inputSchema as Schema).map((f) => `${t.name} ${f}`))).toEqual([]);
  });

  it('converts to Gemini function declarations (one type, nullable, no stray format, no empty object)', () => {
    expect(tools.flatMap((t) => geminiFindings(t.inputSchema as Schema).map((f) => `${t.name} ${f}`))).toEqual([]);
  });

  it('the rules themselves catch what the issue reported', () => {
    // The checks must be able to fail: schemas shaped like the ones before this change.
    const before = {
      type: 'object',
      properties: { project_id: { type: ['string', 'integer'] }, person_uuid: { type: 'string', format: 'uuid' }, filters: { type: 'object' }, limit: { type: 'integer' } },
      required: ['project_id'],
      additionalProperties: false,
    };
    expect(inspectorStrictFindings(before)).toEqual(['.properties.project_id: type list ["string","integer"]']);
    expect(inspectorStrictFindings({ type: 'array', items: {} })).toEqual(['.items: schema with no validation keyword']);
    expect(openAiStrictFindings(before)).toEqual(expect.arrayContaining([expect.stringMatching(/limit: optional but not nullable/)]));
    expect(geminiFindings(before)).toEqual(
      expect.arrayContaining([expect.stringMatching(/project_id: type .* is not one Gemini type/), expect.stringMatching(/person_uuid: format "uuid"/), expect.stringMatching(/filters: object without properties/)]),
    );
  });
});

/** A value for each required field, by name; a tool added later with a new one fails here until given one. */
const SAMPLES: Record<string, unknown> = {
  project_id: String(DEMO.mainProjectId),
  id: DEMO.recordingIds.checkoutFailure,
  session_id: DEMO.recordingIds.checkoutFailure,
  session_ids: [DEMO.recordingIds.checkoutFailure],
  name: 'Null test',
};
const PROJECT_IDS: Record<string, unknown> = { id: DEMO.emptyProjectId };

describe('every optional field accepts null as "not given" (docs/design.md, "Inputs as hosts send them")', () => {
  let h: Harness;
  let tools: Tool[];
  beforeAll(async () => {
    h = await startHarness();
    tools = (await h.client.listTools()).tools;
  });
  afterAll(() => h.close());

  it('answers each tool called with every optional field null exactly as when they are left out', async () => {
    let nulls = 0;
    for (const tool of tools) {
      const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
      const required = schema.required ?? [];
      const base: Record<string, unknown> = {};
      for (const field of required) {
        const sample = tool.name.startsWith('project') && field in PROJECT_IDS ? PROJECT_IDS[field] : SAMPLES[field];
        expect(sample, `${tool.name}: add a sample value for required field ${field}`).toBeDefined();
        base[field] = sample;
      }
      const optional = Object.keys(schema.properties ?? {}).filter((f) => !required.includes(f));
      const withNulls = { ...base, ...Object.fromEntries(optional.map((f) => [f, null])) };
      nulls += optional.length;

      h.sandbox.reset();
      const without = await h.call(tool.name, base);
      h.sandbox.reset();
      const withNull = await h.call(tool.name, withNulls);
      expect(text(withNull), `${tool.name} with nulls`).not.toMatch(/Internal error|received null/);
      // Recorded data is fenced with a random nonce per call, each project created gets a new
      // public token, and the triage says how much of the key's replay minute the earlier calls
      // left it: the only differences allowed.
      const same = (t: string) =>
        t
          .replace(/recorded-data [0-9a-f]+/g, 'recorded-data <nonce>')
          .replace(/phc_\w+/g, 'phc_<token>')
          .replace(/Only \d+ of this key's replay requests (was|were) left/g, "Only <n> of this key's replay requests were left");
      expect({ isError: withNull.isError ?? false, text: same(text(withNull)) }, tool.name).toEqual({ isError: without.isError ?? false, text: same(text(without)) });
    }
    expect(nulls).toBeGreaterThan(40);
  });

  it('still refuses null for a required field, before any upstream request', async () => {
    h.sandbox.reset();
    const r = await h.call('session-recording-get', { project_id: String(DEMO.mainProjectId), id: null });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Invalid arguments for session-recording-get: id: /);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('accepts JSON text where the listing advertises it for a free-form value', async () => {
    h.sandbox.reset();
    const config = { excluded_person_property_names: ['$browser'] };
    const r = await h.call('project-update', { id: DEMO.emptyProjectId, correlation_config: JSON.stringify(config) });
    expect(r.isError, text(r)).toBeFalsy();
    const sent = h.sandbox.requests.find((q) => q.method === 'PATCH');
    expect(JSON.parse(sent!.body)).toEqual({ correlation_config: config });
    // A list of free-form filters is one JSON text too.
    const properties = [{ key: '$browser', value: ['Chrome'], operator: 'exact', type: 'event' }];
    const events = await h.call('session-recordings-list', { project_id: String(DEMO.mainProjectId), date_from: '-30d', properties: JSON.stringify(properties) });
    expect(text(events)).not.toMatch(/Invalid arguments|Internal error/);
    const asValue = await h.call('session-recordings-list', { project_id: String(DEMO.mainProjectId), date_from: '-30d', properties });
    expect(text(asValue)).toEqual(text(events));
  });
});
