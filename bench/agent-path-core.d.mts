// Types of agent-path-core.mjs for the test that runs it (test/agent-path.test.ts).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export interface Question {
  id: string;
  question: string;
  calls: Array<[string, Record<string, unknown>]>;
  facts: string[][];
  absent?: string[];
  where: string;
}

export interface FactCheck {
  ok: boolean;
  missing: string[];
  wrong: string[];
}

export interface QuestionRow {
  id: string;
  calls: number;
  textChars: number;
  jsonChars: number;
  text: FactCheck;
  json: FactCheck;
  errors: string[];
}

export function textView(result: { content?: Array<{ type: string; text?: string }> }): string;
export function jsonView(result: { content?: Array<{ type: string; text?: string }>; structuredContent?: unknown }): string;
export function checkFacts(view: string, facts: string[][], absent?: string[]): FactCheck;
export function runQuestion(client: Client, question: Question): Promise<QuestionRow>;
export function table(rows: QuestionRow[]): string;
