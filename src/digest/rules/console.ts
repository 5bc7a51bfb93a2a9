/** Console messages (rrweb's console plugin): which are errors and warnings, and their text. */

import { consoleText } from '../../posthog/snapshots.js';
import { maskUrlSecretsInText } from '../../url-secrets.js';
import { clip } from '../../words.js';

const CONSOLE_TEXT_MAX = 300;

/** A message as the digest shows it: tokens in the URLs it names masked (url-secrets.ts), then cut. */
function shown(text: string): string {
  return clip(maskUrlSecretsInText(text.length > 4 * CONSOLE_TEXT_MAX ? text.slice(0, 4 * CONSOLE_TEXT_MAX) : text), CONSOLE_TEXT_MAX);
}

export interface ConsoleMessage {
  kind: 'console-error' | 'console-warn' | 'log';
  text: string;
}

/** One console record (`{level, payload: [args as rrweb stringified them]}`). */
export function readConsole(record: Record<string, unknown>): ConsoleMessage {
  const level = String(record.level ?? 'log');
  if (level === 'assert') {
    const assertion = readAssert(record.payload);
    if (assertion.passed) return { kind: 'log', text: '' };
    return { kind: 'console-error', text: shown(`Assertion failed: ${consoleText(assertion.message)}`) };
  }
  const kind = level === 'error' ? 'console-error' : level === 'warn' ? 'console-warn' : 'log';
  return { kind, text: kind === 'log' ? '' : shown(consoleText(record.payload)) };
}

/**
 * rrweb recorded every console.assert until mid-2024, its condition as the first argument
 * ("true" when the assertion held); since then only failed ones, without the condition.
 */
function readAssert(args: unknown): { passed: boolean; message: unknown } {
  if (!Array.isArray(args) || args.length === 0) return { passed: false, message: args };
  const first = args[0];
  if (first === 'true' || first === true) return { passed: true, message: args };
  if (first === 'false' || first === false || first === '0' || first === 'null' || first === 'undefined' || first === 'NaN' || first === '""') return { passed: false, message: args.slice(1) };
  return { passed: false, message: args };
}
