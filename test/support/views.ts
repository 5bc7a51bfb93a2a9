import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { RECORDED_DATA_NOTICE } from '../../src/tools/format.js';

/**
 * The two views of one result as clients hand them to a model (SPEC §1 "What the model reads"):
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
 * What every result a model reads must hold: the structured view within 1.3× the text, no
 * pointer from the text to the other view, and, where recorded strings are held, the notice
 * that they are data in both views (first in the structured one).
 */
export function expectTwoViews(v: Views, options: { recorded: boolean }): void {
  expect(v.json.length / v.text.length, `structured ${v.json.length} vs text ${v.text.length}`).toBeLessThanOrEqual(MAX_STRUCTURED_RATIO);
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
