/**
 * What the page, as a tab's DOM mirror rebuilt it at a moment, says about an element (the field a
 * label serves, a field's facts, a select's options, a link's target, whether the recorder blocked
 * it) and about itself (its heading, its blocked elements and other sites' frames).
 */

import type { MirrorNode, NodeMirror } from '../digest/mirror.js';
import type { WorkBudget } from './budget.js';
import type { FieldFacts } from './privacy.js';
import { accessibleName, roleOf } from './selectors.js';

/** A label of a field (by `for`, or holding it): clicking it only toggles or focuses that field. */
export function labelsField(mirror: NodeMirror, label: MirrorNode): boolean {
  const target = label.attrs?.for;
  if (target) {
    for (const node of mirror.all()) if (node.attrs?.id === target && (node.tag === 'input' || node.tag === 'select' || node.tag === 'textarea')) return true;
  }
  const stack = [...mirror.children(label.id)];
  for (let seen = 0; stack.length > 0 && seen < 200; seen++) {
    const node = stack.pop()!;
    if (node.tag === 'input' || node.tag === 'select' || node.tag === 'textarea') return true;
    stack.push(...mirror.children(node.id));
  }
  return false;
}

/** What a field says about itself (name, type, label, hints): privacy.ts picks from it the placeholder for what was typed, and tells a secret. */
export function fieldFacts(mirror: NodeMirror, node: MirrorNode): FieldFacts {
  const attrs = node.attrs ?? {};
  return {
    tag: node.tag!,
    type: attrs.type,
    name: attrs.name,
    id: attrs.id,
    autocomplete: attrs.autocomplete,
    label: mirror.labelOf(node.id),
    placeholder: attrs.placeholder,
    ariaLabel: attrs['aria-label'],
    inputmode: attrs.inputmode,
    pattern: attrs.pattern,
    min: attrs.min,
    max: attrs.max,
    step: attrs.step,
    minlength: attrs.minlength,
    maxlength: attrs.maxlength,
    required: attrs.required !== undefined,
  };
}

/** One option of a select as the page holds it: its `value` attribute (absent when it has none) and its text. */
export interface SelectOption {
  value?: string;
  label: string;
  /** Disabled or hidden: no person can choose it. */
  disabled?: true;
}

/** A select's options, in page order (options in groups too), at most 200. */
export function selectOptions(mirror: NodeMirror, select: MirrorNode): SelectOption[] {
  const options: SelectOption[] = [];
  const stack = [...mirror.children(select.id)].reverse().map((node) => ({ node, off: false }));
  while (stack.length > 0 && options.length < 200) {
    const { node, off } = stack.pop()!;
    const attrs = node.attrs ?? {};
    const disabled = off || attrs.disabled !== undefined || attrs.hidden !== undefined;
    if (node.tag === 'option') options.push({ ...(attrs.value !== undefined ? { value: attrs.value } : {}), label: optionText(mirror, node), ...(disabled ? { disabled: true as const } : {}) });
    else if (node.tag === 'optgroup') stack.push(...[...mirror.children(node.id)].reverse().map((child) => ({ node: child, off: disabled })));
  }
  return options;
}

/** An option's own text (the mirror's textOf skips what a person chooses, options included). */
function optionText(mirror: NodeMirror, option: MirrorNode): string {
  let text = '';
  for (const child of mirror.children(option.id)) if (child.text !== undefined) text += child.text;
  return text.replace(/\s+/g, ' ').trim().slice(0, 120);
}

/** The page's first heading (h1 before h2…) whose name is usable and names it alone. */
export function headingOf(mirror: NodeMirror, budget: WorkBudget): { heading?: string } {
  const headings: Array<{ level: number; name: string }> = [];
  for (const node of mirror.all()) {
    budget.tick();
    if (!node.tag || roleOf(node) !== 'heading') continue;
    const name = accessibleName(mirror, node, budget);
    if (name) headings.push({ level: /^h[1-6]$/.test(node.tag) ? Number(node.tag[1]) : 2, name });
  }
  const counts = new Map<string, number>();
  for (const h of headings) counts.set(h.name, (counts.get(h.name) ?? 0) + 1);
  const best = headings.filter((h) => counts.get(h.name) === 1).sort((a, b) => a.level - b.level)[0];
  return best ? { heading: best.name } : {};
}

/** An element the recorder blocked (posthog-js's ph-no-capture, rrweb's rr-block): rrweb keeps only its size. */
export function blockedElement(mirror: NodeMirror, node: MirrorNode): boolean {
  let current: MirrorNode | undefined = node;
  for (let depth = 0; current?.tag && depth < 12; depth++, current = mirror.get(current.parent)) {
    const attrs = current.attrs ?? {};
    if (attrs.rr_width !== undefined || /(?:^|\s)(?:ph-no-capture|rr-block)(?:\s|$)/.test(attrs.class ?? '')) return true;
  }
  return false;
}

const facts = new WeakMap<NodeMirror, { version: number; blocked: number; foreignFrames: number }>();

/** How many blocked elements and frames of another site (not mirrored: cross-origin) the page holds now. */
export function pageFacts(mirror: NodeMirror, budget: WorkBudget): { blocked: number; foreignFrames: number } {
  const cached = facts.get(mirror);
  if (cached && cached.version === mirror.version) return cached;
  let blocked = 0;
  let foreignFrames = 0;
  for (const node of mirror.all()) {
    budget.tick();
    if (!node.tag) continue;
    const attrs = node.attrs ?? {};
    if (attrs.rr_width !== undefined) blocked++;
    else if ((node.tag === 'iframe' || node.tag === 'frame') && node.first === undefined) foreignFrames++;
  }
  const out = { version: mirror.version, blocked, foreignFrames };
  facts.set(mirror, out);
  return out;
}

/** A link's target, absolute, from the page it is on; undefined for javascript:, mailto: and the like. */
export function linkHref(href: string, origin: string | null, current: string | undefined): string | undefined {
  try {
    const url = new URL(href, new URL(current ?? '/', origin ?? 'http://invalid.test'));
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
