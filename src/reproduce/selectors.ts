/**
 * Selectors a person would write, for the element an rrweb event names, chosen from the page's
 * DOM as rebuilt at that moment (NodeMirror) and checked to match that one element only there:
 * a test id, then a unique id that does not look generated, then role and accessible name, the
 * label of a field, its placeholder, the element's text; a CSS path only when nothing else does.
 */

import type { MirrorNode, NodeMirror } from '../digest/mirror.js';
import { cssString, lit } from './literal.js';

/** Attributes the reproduce room needs the mirror to keep, beyond the digest's. */
export const SELECTOR_ATTRIBUTES = ['data-testid', 'data-test', 'data-cy', 'aria-labelledby', 'aria-hidden', 'hidden', 'autocomplete', 'target', 'multiple', 'size', 'class'] as const;

export type SelectorKind = 'test-id' | 'id' | 'role' | 'label' | 'placeholder' | 'text' | 'css';

export interface Selector {
  /** The locator after `page.`: `getByRole('button', { name: 'Buy', exact: true })`. */
  code: string;
  kind: SelectorKind;
  /** Said in a comment above the step (a CSS path says why it is one). */
  note?: string;
}

/** Names longer than this make brittle selectors (and may be cut by the mirror). */
const NAME_MAX = 80;
const BUTTON_TYPES = new Set(['button', 'submit', 'reset', 'image']);
const TEXTBOX_TYPES = new Set(['', 'text', 'email', 'tel', 'url']);

/** An id a framework made up (`:r1:`, `ember123`, a uuid, long hex): not stable across builds. */
export function looksGenerated(id: string): boolean {
  const compact = id.replace(/[-_]/g, '');
  return (
    id.length > 40 ||
    id.includes(':') ||
    /\d{3,}/.test(id) ||
    (/^[0-9a-f]{8,}$/i.test(compact) && /\d/.test(compact)) ||
    /[a-z]\d[a-z]\d/i.test(id) ||
    GENERATED_PREFIX.test(id)
  );
}

const GENERATED_PREFIX = /^(ember|ext-|yui_|gwt-|mui-|radix-|headlessui-|react-|rc-|el-|ng-|cdk-|mat-|select2-|downshift-)/i;

/** The ARIA role Playwright's getByRole would give the element, explicit or implicit. */
export function roleOf(node: MirrorNode): string | undefined {
  const attrs = node.attrs ?? {};
  // The first role Playwright knows (a page may write anything there).
  const explicit = attrs.role?.trim().toLowerCase().split(/\s+/).find((r) => ARIA_ROLES.has(r));
  if (explicit) return explicit;
  const tag = node.tag;
  const type = (attrs.type ?? '').toLowerCase();
  switch (tag) {
    case 'a':
      return attrs.href !== undefined ? 'link' : undefined;
    case 'button':
      return 'button';
    case 'textarea':
      return 'textbox';
    case 'select':
      return attrs.multiple !== undefined || Number(attrs.size) > 1 ? 'listbox' : 'combobox';
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6':
      return 'heading';
    case 'input':
      if (BUTTON_TYPES.has(type)) return 'button';
      if (type === 'checkbox') return 'checkbox';
      if (type === 'radio') return 'radio';
      if (type === 'number') return 'spinbutton';
      if (type === 'search') return 'searchbox';
      if (type === 'range') return 'slider';
      if (TEXTBOX_TYPES.has(type)) return 'textbox';
      return undefined;
    default:
      return undefined;
  }
}

/** The roles getByRole accepts. */
const ARIA_ROLES = new Set(
  'alert alertdialog application article banner blockquote button caption cell checkbox code columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed figure form generic grid gridcell group heading img insertion link list listbox listitem log main marquee math meter menu menubar menuitem menuitemcheckbox menuitemradio navigation none note option paragraph presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem'.split(' '),
);

/** Roles whose accessible name comes from the element's content. */
const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'tab', 'menuitem', 'option', 'cell', 'columnheader', 'rowheader', 'treeitem', 'switch', 'checkbox', 'radio']);

/**
 * The accessible name, as far as the mirror can tell; undefined when it cannot (aria-labelledby,
 * a name from content the mirror holds only in part), so no selector relies on a guess.
 */
export function accessibleName(mirror: NodeMirror, node: MirrorNode): string | undefined {
  const attrs = node.attrs ?? {};
  if (attrs['aria-labelledby'] !== undefined) return undefined;
  const aria = normalize(attrs['aria-label'] ?? '');
  if (aria) return aria;
  const role = roleOf(node);
  if (!role) return undefined;
  if (node.tag === 'input' && BUTTON_TYPES.has((attrs.type ?? '').toLowerCase())) return normalize(attrs.value ?? '') || undefined;
  if (mirror.isUserText(node) || node.tag === 'input') {
    const label = mirror.labelOf(node.id);
    if (label) return cleanName(label);
    return normalize(attrs.title ?? '') || (role === 'textbox' || role === 'searchbox' ? normalize(attrs.placeholder ?? '') || undefined : undefined);
  }
  if (NAME_FROM_CONTENT.has(role)) return cleanName(contentName(mirror, node)) ?? (normalize(attrs.title ?? '') || undefined);
  return undefined;
}

/**
 * A name from content as browsers compute it for the common cases: text and image alts in
 * document order, a descendant's aria-label in place of its content, hidden parts left out.
 */
function contentName(mirror: NodeMirror, node: MirrorNode): string {
  let out = '';
  let visited = 0;
  const walk = (current: MirrorNode, top: boolean): void => {
    if (++visited > 400 || out.length > NAME_MAX * 2) return;
    if (current.text !== undefined) {
      out += ` ${current.text}`;
      return;
    }
    if (!current.tag || current.tag === 'script' || current.tag === 'style' || current.tag === 'noscript') return;
    const attrs = current.attrs ?? {};
    if (attrs['aria-hidden'] === 'true' || attrs.hidden !== undefined) return;
    if (!top) {
      const label = normalize(attrs['aria-label'] ?? '');
      if (label) {
        out += ` ${label}`;
        return;
      }
      if (current.tag === 'img') {
        out += ` ${attrs.alt ?? ''}`;
        return;
      }
      if (mirror.isUserText(current)) return;
    }
    for (const child of mirror.children(current.id)) walk(child, false);
  };
  walk(node, true);
  return normalize(out);
}

/** A name usable in a selector: not cut, not masked (posthog-js writes masked text as `*`). */
function cleanName(text: string): string | undefined {
  const name = normalize(text);
  if (!name || name.length > NAME_MAX || name.endsWith('…') || /^[*\s]+$/.test(name)) return undefined;
  return name;
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function elements(mirror: NodeMirror): MirrorNode[] {
  const out: MirrorNode[] = [];
  for (const node of mirror.all()) if (node.tag) out.push(node);
  return out;
}

/** The text Playwright's getByText would match an element by (whole text, whitespace collapsed). */
function ownText(mirror: NodeMirror, node: MirrorNode): string | undefined {
  if (mirror.isUserText(node) || node.tag === 'script' || node.tag === 'style' || node.tag === 'html' || node.tag === 'head') return undefined;
  return cleanName(mirror.textOf(node.id, NAME_MAX + 1));
}

/**
 * The selector for element `id` in the mirror as it is now, unique there. `fieldLabel` is the
 * field's label text when the element is a form field (getByLabel).
 */
export function chooseSelector(mirror: NodeMirror, id: number): Selector {
  const node = mirror.get(id);
  if (!node?.tag) return { code: `locator(${lit('body')})`, kind: 'css', note: 'CSS path: the element is not in the rebuilt page' };
  const all = elements(mirror);
  const attrs = node.attrs ?? {};

  const testId = attrs['data-testid'];
  if (testId && count(all, (n) => n.attrs?.['data-testid'] === testId) === 1) return { code: `getByTestId(${lit(testId)})`, kind: 'test-id' };
  for (const name of ['data-test', 'data-cy'] as const) {
    const value = attrs[name];
    if (value && count(all, (n) => n.attrs?.[name] === value) === 1) return { code: `locator(${lit(`[${name}=${cssString(value)}]`)})`, kind: 'test-id' };
  }

  const elementId = attrs.id;
  if (elementId && /^[A-Za-z][A-Za-z0-9_-]*$/.test(elementId) && !looksGenerated(elementId) && count(all, (n) => n.attrs?.id === elementId) === 1) {
    return { code: `locator(${lit(`#${elementId}`)})`, kind: 'id' };
  }

  const role = roleOf(node);
  const name = accessibleName(mirror, node);
  if (role && name && count(all, (n) => roleOf(n) === role && accessibleName(mirror, n) === name) === 1) {
    return { code: `getByRole(${lit(role)}, { name: ${lit(name)}, exact: true })`, kind: 'role' };
  }

  const field = node.tag === 'input' || node.tag === 'select' || node.tag === 'textarea';
  if (field && attrs['aria-labelledby'] === undefined) {
    const label = cleanName(mirror.labelOf(node.id) ?? '') ?? cleanName(attrs['aria-label'] ?? '');
    if (label && count(all, (n) => (n.tag === 'input' || n.tag === 'select' || n.tag === 'textarea') && (cleanName(mirror.labelOf(n.id) ?? '') === label || cleanName(n.attrs?.['aria-label'] ?? '') === label)) === 1) {
      return { code: `getByLabel(${lit(label)}, { exact: true })`, kind: 'label' };
    }
  }

  const placeholder = cleanName(attrs.placeholder ?? '');
  if (placeholder && count(all, (n) => cleanName(n.attrs?.placeholder ?? '') === placeholder) === 1) {
    return { code: `getByPlaceholder(${lit(placeholder)}, { exact: true })`, kind: 'placeholder' };
  }

  const text = ownText(mirror, node);
  if (text && !field) {
    // getByText matches the innermost elements whose whole text is this: a parent whose text
    // comes from one child alone is not a match of its own.
    const matches = all.filter((n) => ownText(mirror, n) === text && ![...mirror.children(n.id)].some((c) => c.tag && ownText(mirror, c) === text));
    if (matches.length === 1 && matches[0]!.id === node.id) return { code: `getByText(${lit(text)}, { exact: true })`, kind: 'text' };
  }

  return { code: `locator(${lit(cssPath(mirror, node, all))})`, kind: 'css', note: 'CSS path (last resort): no test id, stable id, role and name, label, placeholder or text names this element alone' };
}

function count(nodes: MirrorNode[], test: (node: MirrorNode) => boolean): number {
  let n = 0;
  for (const node of nodes) if (test(node) && ++n > 1) return n;
  return n;
}

/** `tag:nth-of-type(k)` steps from the nearest ancestor with a usable unique id, or from the root. */
function cssPath(mirror: NodeMirror, node: MirrorNode, all: MirrorNode[]): string {
  const steps: string[] = [];
  let current: MirrorNode | undefined = node;
  for (let depth = 0; current?.tag && depth < 40; depth++) {
    const id = current.attrs?.id;
    if (current !== node && id && /^[A-Za-z][A-Za-z0-9_-]*$/.test(id) && !looksGenerated(id) && count(all, (n) => n.attrs?.id === id) === 1) {
      steps.unshift(`#${id}`);
      break;
    }
    const parent = mirror.get(current.parent);
    const tag = current.tag.replace(/[^a-z0-9-]/gi, '') || '*';
    if (!parent?.tag || tag === 'html') {
      steps.unshift(tag);
      break;
    }
    let index = 0;
    let same = 0;
    for (const sibling of mirror.children(parent.id)) {
      if (sibling.tag !== current.tag) continue;
      same++;
      if (sibling.id === current.id) index = same;
    }
    steps.unshift(same > 1 ? `${tag}:nth-of-type(${index})` : tag);
    current = parent;
  }
  return steps.join(' > ');
}
