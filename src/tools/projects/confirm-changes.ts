import { unbidi } from '../../digest/quote.js';
import { clip } from '../format.js';
import type { Project } from '../../posthog/resources.js';
import { MERGED_FIELDS, projectLine } from './shape.js';

/** A webhook URL is a credential: answers and questions name whether it is set, not its value. */
const MASKED = new Set(['slack_incoming_webhook']);

/** One setting a write touched: its value read just before, and what PostHog's answer shows stored. */
export type FieldChange = {
  field: string;
  /** Absent for a new project. */
  before?: unknown;
  after: unknown;
  changed: boolean;
};

/**
 * Field by field, before → after. "before" is the project as read just before the write (so it
 * is what PostHog held a moment earlier, not a guess); "after" is PostHog's own answer to the
 * write, not what was sent, so a value it ignored or normalised shows as it is stored.
 */
export function fieldChanges(sent: Record<string, unknown>, before: Record<string, unknown> | undefined, after: Record<string, unknown>): FieldChange[] {
  return Object.keys(sent).map((field) => {
    const was = before?.[field] ?? null;
    const now = after[field] ?? null;
    const change: FieldChange = { field, after: masked(field, now), changed: before === undefined || !sameJson(was, now) };
    if (before !== undefined) change.before = masked(field, was);
    return change;
  });
}

/** "• field: before → after" lines (unchanged ones said so). */
export function changeLines(changes: FieldChange[]): string[] {
  return changes.map((c) =>
    'before' in c ? `• ${c.field}: ${show(c.before)} → ${show(c.after)}${c.changed ? '' : ' (unchanged)'}` : `• ${c.field}: ${show(c.after)}`,
  );
}

/**
 * The confirmation question for project-update: which project, and each field's current value →
 * the value asked for (merged settings: the keys given, merged into the current ones).
 */
export function describeProjectChanges(current: Project, body: Record<string, unknown>): string {
  const lines = Object.entries(body).map(([key, value]) => {
    const before = current[key];
    const wanted = MERGED_FIELDS.has(key) && isObject(before) && isObject(value) ? { ...before, ...value } : value;
    const same = sameJson(before ?? null, wanted ?? null);
    return `• ${key}: ${show(masked(key, before))} → ${show(masked(key, wanted))}${same ? ' (unchanged)' : ''}`;
  });
  return `Change these settings of PostHog project ${projectLine(current)}? The current values are overwritten.\n${lines.join('\n')}`;
}

function masked(key: string, value: unknown): unknown {
  if (!MASKED.has(key)) return value ?? null;
  return value === null || value === undefined || value === '' ? null : '(a URL, not shown)';
}

function show(value: unknown): string {
  if (value === undefined || value === null) return '(not set)';
  if (value === '(a URL, not shown)') return value;
  // JSON escapes line breaks; a member's bidi controls and separators are escaped as well.
  return clip(unbidi(JSON.stringify(value)), 160);
}

/** Equal as JSON values: objects by their keys whatever their order (jsonb reorders them), arrays in order. */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical(value[k])]));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
