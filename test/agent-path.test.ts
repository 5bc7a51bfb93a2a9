// The question set of bench/agent-path.mjs (issue 44 item 8) stays answerable: three of its
// questions run here through the SDK Client against the sandbox, and their facts must be in both
// views; every question's calls must still name tools and inputs the server lists.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { checkFacts, runQuestion, type Question } from '../bench/agent-path-core.mjs';
import { startHarness, type Harness } from './harness.js';

const { questions } = JSON.parse(readFileSync(new URL('../bench/agent-path-questions.json', import.meta.url), 'utf8')) as { questions: Question[] };
const question = (id: string) => questions.find((q) => q.id === id)!;

describe('the agent-path questions', () => {
  let h: Harness;
  let tools: Tool[];
  beforeAll(async () => {
    // As `--sandbox` starts it: the demo shop is the default project.
    h = await startHarness({ defaultProjectId: '1001' });
    tools = (await h.client.listTools()).tools;
  });
  afterAll(() => h.close());

  it('are 10 to 14, each with calls, facts and where the facts come from', () => {
    expect(questions.length).toBeGreaterThanOrEqual(10);
    expect(questions.length).toBeLessThanOrEqual(14);
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    for (const q of questions) {
      expect(q.calls.length, q.id).toBeGreaterThan(0);
      expect(q.facts.length, q.id).toBeGreaterThan(0);
      expect(q.where, q.id).toMatch(/src\/sandbox|fixtures\/recordings|stories\.ts|catalog\.ts/);
    }
  });

  it('call only tools the server lists, with inputs their schemas name', () => {
    const unknown = questions.flatMap((q) =>
      q.calls.flatMap(([name, args]) => {
        const tool = tools.find((t) => t.name === name);
        if (!tool) return [`${q.id}: no tool ${name}`];
        const fields = Object.keys(tool.inputSchema.properties ?? {});
        return Object.keys(args).filter((key) => !fields.includes(key)).map((key) => `${q.id}: ${name} has no input ${key}`);
      }),
    );
    expect(unknown).toEqual([]);
  });

  // The failing request's reason (item 1), a sequence with an absent step, and a project setting.
  for (const id of ['olivia-checkout', 'jacket-never-added', 'marketing-sample-rate']) {
    it(`${id}: the ideal calls answer it, with its facts in the text view and in the JSON view`, async () => {
      const row = await runQuestion(h.client, question(id));
      expect(row.errors).toEqual([]);
      expect(row.calls).toBe(question(id).calls.length);
      expect(row.text).toEqual({ ok: true, missing: [], wrong: [] });
      expect(row.json).toEqual({ ok: true, missing: [], wrong: [] });
      expect(row.textChars).toBeGreaterThan(0);
      expect(row.jsonChars).toBeGreaterThan(0);
    });
  }

  it('the fact check fails a view that lacks a fact or says what must be absent', () => {
    expect(checkFacts('POST /api/checkout → 500', [['/api/checkout'], ['500'], ['timed out']])).toEqual({ ok: false, missing: ['timed out'], wrong: [] });
    expect(checkFacts('"sample_rate":0.5', [['50%', '"sample_rate":0.5']])).toEqual({ ok: true, missing: [], wrong: [] });
    expect(checkFacts('lena.fischer@example.de, sam.okafor@example.org', [['lena.fischer@example.de']], ['sam.okafor@example.org'])).toEqual({ ok: false, missing: [], wrong: ['sam.okafor@example.org'] });
  });
});
