import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { RECORDED_DATA_NOTICE } from '../../src/tools/format.js';

/**
 * The two views of one result as clients hand them to a model (docs/design.md, "Both views"):
 * Claude.ai, Claude Desktop and ChatGPT read the text; Claude Code, Codex and OpenCode read
 * JSON.stringify(structuredContent) instead.
 */
export interface Views {
  text: string;
  json: string;
  data: Record<string, unknown>;
}

export function views(result: CallToolResult): Views {
  expect(result.isError, JSON.stringify(result.content).slice(0, 500)).toBeFalsy();
  const text = result.content
    .filter((part): part is { type: 'text'; text: string } => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
  const data = (result.structuredContent ?? {}) as Record<string, unknown>;
  return { text, json: JSON.stringify(data), data };
}

/** The structured view costs at most this many times the text (characters, as both are sent). */
export const MAX_STRUCTURED_RATIO = 1.3;

/**
 * PostHog's resources a result carries (a recording, a project, a list row), and the fields this
 * server adds inside them under names of its own (docs/design.md, "Both views": the 1.3× rule applies to what is added
 * beside the resource, not to the resource's own fields).
 */
export interface Resources {
  objects: ReadonlyArray<Record<string, unknown>>;
  added?: readonly string[];
}

/**
 * The structured view's size the 1.3× rule measures: the JSON less each resource's own fields
 * (what the tool added inside a resource, and every key and separator around it, still count).
 */
export function addedSize(v: Views, resources?: Resources): number {
  if (!resources) return v.json.length;
  const added = new Set(resources.added ?? []);
  const own = resources.objects.reduce((n, o) => n + JSON.stringify(Object.fromEntries(Object.entries(o).filter(([k]) => !added.has(k)))).length, 0);
  return v.json.length - own;
}

/**
 * What every result a model reads must hold: the structured view within 1.3× the text (past the
 * resources it carries, when it carries any), no pointer from the text to the other view, and,
 * where recorded strings are held, the notice that they are data in both views (first in the
 * structured one).
 */
export function expectTwoViews(v: Views, options: { recorded: boolean; resources?: Resources }): void {
  const size = addedSize(v, options.resources);
  expect(size / v.text.length, `structured ${size} (of ${v.json.length}) vs text ${v.text.length}`).toBeLessThanOrEqual(MAX_STRUCTURED_RATIO);
  expect(v.text).not.toMatch(/structuredContent|structured content/i);
  if (options.recorded) {
    expect(Object.keys(v.data)[0]).toBe('notice');
    expect(v.data.notice).toBe(RECORDED_DATA_NOTICE);
    expect(v.text).toContain(RECORDED_DATA_NOTICE);
  } else {
    expect(v.data.notice).toBeUndefined();
  }
}

/** Each fact is in both views: as written in the text, and as a value somewhere in the JSON. */
export function expectInBoth(v: Views, facts: Array<string | number>): void {
  for (const fact of facts) {
    expect(v.text, `text lacks ${fact}`).toContain(String(fact));
    expect(v.json, `structured view lacks ${fact}`).toContain(typeof fact === 'string' ? JSON.stringify(fact).slice(1, -1) : String(fact));
  }
}
