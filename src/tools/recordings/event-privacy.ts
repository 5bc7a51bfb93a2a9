/**
 * How a recorded rrweb event may leave the snapshots tool as data: what users typed masked, and
 * nothing nested too deep to serialize. Both walks are iterative (a hostile DOM can be 10,000
 * elements deep) and change the event in place: each event is a fresh parse of its line.
 */

import { FULL_SNAPSHOT, INCREMENTAL_SNAPSHOT, INPUT, MUTATION } from '../../posthog/rrweb.js';

/** Deeper than this, an event is summarized instead of returned (JSON.stringify recurses, and overflows near 2,500). */
export const MAX_EVENT_DEPTH = 200;

/** rrweb-snapshot node types. */
const ELEMENT = 2;
const TEXT = 3;

/** Inputs whose value the page wrote (a caption, which radio of a group), not the user. */
const AUTHORED_VALUE_TYPES = new Set(['button', 'submit', 'reset', 'image', 'radio', 'checkbox']);

/** A typed value as the text shows it: its length, nothing of its content. */
export function maskValue(value: string): string {
  return '*'.repeat(value.length);
}

/** Whether `value` nests objects and arrays more than `max` levels deep. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ v: unknown; d: number }> = [{ v: value, d: 0 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === 'object' && child !== null) stack.push({ v: child, d: d + 1 });
  }
  return false;
}

/**
 * Masks what a user typed or chose: the text of Input events, and in DOM snapshots and mutations
 * the value of fields (not of buttons, radios and checkboxes) and the text inside a textarea.
 */
export function maskTypedValues(event: { type: number; data?: unknown }): void {
  const data = event.data as Record<string, unknown> | undefined;
  if (typeof data !== 'object' || data === null) return;
  if (event.type === FULL_SNAPSHOT) maskTree(data.node);
  if (event.type !== INCREMENTAL_SNAPSHOT) return;
  if (data.source === INPUT && typeof data.text === 'string') data.text = maskValue(data.text);
  if (data.source !== MUTATION) return;
  if (Array.isArray(data.adds)) for (const add of data.adds) if (typeof add === 'object' && add !== null) maskTree((add as { node?: unknown }).node);
  // An attribute change names only the node: any `value` change is masked, a button's included.
  if (Array.isArray(data.attributes)) {
    for (const change of data.attributes) {
      const attributes = (change as { attributes?: unknown } | null)?.attributes as Record<string, unknown> | undefined;
      if (typeof attributes === 'object' && attributes !== null && typeof attributes.value === 'string') attributes.value = maskValue(attributes.value);
    }
  }
}

function maskTree(root: unknown, insideField = false): void {
  const stack: Array<{ node: unknown; field: boolean }> = [{ node: root, field: insideField }];
  while (stack.length > 0) {
    const { node, field } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    const n = node as Record<string, unknown>;
    let childField = field;
    if (n.type === ELEMENT && typeof n.tagName === 'string') {
      const tag = n.tagName.toLowerCase();
      const attributes = typeof n.attributes === 'object' && n.attributes !== null ? (n.attributes as Record<string, unknown>) : undefined;
      const type = typeof attributes?.type === 'string' ? attributes.type.toLowerCase() : '';
      const typed = tag === 'textarea' || tag === 'select' || (tag === 'input' && !AUTHORED_VALUE_TYPES.has(type));
      if (typed && attributes && typeof attributes.value === 'string') attributes.value = maskValue(attributes.value);
      if (tag === 'textarea') childField = true;
    } else if (n.type === TEXT && field && typeof n.textContent === 'string') {
      n.textContent = maskValue(n.textContent);
    }
    if (Array.isArray(n.childNodes)) for (const child of n.childNodes) stack.push({ node: child, field: childField });
  }
}
