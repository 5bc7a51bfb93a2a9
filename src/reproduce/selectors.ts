/**
 * Selectors a person would write, for the element an rrweb event names, chosen from the page's
 * DOM as rebuilt at that moment (NodeMirror) and checked to match that one element only in its
 * frame there, in Playwright's order of preference (chooseSelector); a CSS path only when nothing
 * else does.
 */

import type { MirrorNode, NodeMirror } from '../digest/mirror.js';
import { UNBOUNDED, type WorkBudget } from './budget.js';
import { cssString, lit } from './literal.js';

/** Attributes the reproduce room needs the mirror to keep, beyond the digest's. */
export const SELECTOR_ATTRIBUTES = ['data-testid', 'data-test-id', 'data-test', 'data-cy', 'inputmode', 'pattern', 'min', 'max', 'step', 'minlength', 'maxlength', 'required', 'disabled', 'checked', 'selected', 'rr_width', 'rr_height', 'aria-labelledby', 'aria-hidden', 'hidden', 'autocomplete', 'target', 'multiple', 'size', 'class'] as const;

export type SelectorKind = 'test-id' | 'role' | 'placeholder' | 'label' | 'alt' | 'text' | 'title' | 'id' | 'css';

export interface Selector {
  /** The locator after `page.`: `getByRole('button', { name: 'Buy', exact: true })`. */
  code: string;
  kind: SelectorKind;
  /** Said in a comment above the step (a CSS path says why it is one). */
  note?: string;
  /** The element is inside an iframe: the locator goes through its frame. */
  frame?: boolean;
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
 * a name from content the mirror holds only in part), so no selector relies on a guess. Worked out
 * once per element and page state (PageIndex): a check of every button of a page asks for each.
 */
export function accessibleName(mirror: NodeMirror, node: MirrorNode, budget: Pick<WorkBudget, 'tick'> = UNBOUNDED): string | undefined {
  const index = pageIndex(mirror, budget);
  if (index.names.has(node.id)) return index.names.get(node.id);
  const name = nameOf(mirror, index, node);
  index.names.set(node.id, name);
  return name;
}

function nameOf(mirror: NodeMirror, index: PageIndex, node: MirrorNode): string | undefined {
  const attrs = node.attrs ?? {};
  if (attrs['aria-labelledby'] !== undefined) return undefined;
  const aria = normalize(attrs['aria-label'] ?? '');
  if (aria) return aria;
  const role = roleOf(node);
  if (!role) return undefined;
  if (node.tag === 'input' && BUTTON_TYPES.has((attrs.type ?? '').toLowerCase())) return normalize(attrs.value ?? '') || undefined;
  if (mirror.isUserText(node) || node.tag === 'input') {
    const label = fieldLabel(mirror, index, node);
    if (label) return cleanName(label);
    return normalize(attrs.title ?? '') || (role === 'textbox' || role === 'searchbox' ? normalize(attrs.placeholder ?? '') || undefined : undefined);
  }
  if (NAME_FROM_CONTENT.has(role)) return cleanName(contentName(index, node)) ?? (normalize(attrs.title ?? '') || undefined);
  return undefined;
}

/**
 * A field's label as a browser gives it: a `<label for>` names the element with that id and no
 * other, so a field inside a label whose `for` points elsewhere (or at an id nothing has) is not
 * labelled by it. The mirror's labelOf() takes label[for=id] first, else the nearest wrapping
 * label; a wrapping label with another `for` is refused here.
 */
function fieldLabel(mirror: NodeMirror, index: PageIndex, node: MirrorNode): string | undefined {
  if (index.labels.has(node.id)) return index.labels.get(node.id);
  const label = labelOf(mirror, node);
  index.labels.set(node.id, label);
  return label;
}

function labelOf(mirror: NodeMirror, node: MirrorNode): string | undefined {
  const text = mirror.labelOf(node.id);
  if (text === undefined) return undefined;
  let parent = mirror.get(node.parent);
  for (let depth = 0; parent && depth < 4; depth++, parent = mirror.get(parent.parent)) {
    if (parent.tag !== 'label') continue;
    const target = parent.attrs?.for;
    if (target === undefined || target === node.attrs?.id) return text;
    // This label names another element: the text is the field's only if a label[for=id] gave it.
    return node.attrs?.id !== undefined && text !== mirror.textOf(parent.id, 60) ? text : undefined;
  }
  return text;
}

/**
 * A name from content as browsers compute it for the common cases: text and image alts in
 * document order, a descendant's aria-label in place of its content, hidden parts left out. The
 * page index holds every element's content, gathered bottom-up (contentOf), so no name walks
 * the element's subtree again: on a chain of 110,000 nested buttons, one walk of up to 400
 * descendants per button cost seconds.
 */
function contentName(index: PageIndex, node: MirrorNode): string {
  if (!node.tag || NO_NAME.has(node.tag) || hiddenNode(node)) return '';
  return normalize(index.content.get(node.id) ?? '');
}

/** Elements that give no name from content, nor any to a parent. */
const NO_NAME = new Set(['script', 'style', 'noscript']);

function hiddenNode(node: MirrorNode): boolean {
  return node.attrs?.['aria-hidden'] === 'true' || node.attrs?.hidden !== undefined;
}

/** Longer than this (whitespace collapsed), a content name is far past NAME_MAX: the rest is not gathered. */
const CONTENT_CAP = NAME_MAX * 2 + 2;

/**
 * What an element's children give its name from content, in document order, whitespace
 * collapsed and cut past CONTENT_CAP: a text, an aria-label or an image's alt in place of a
 * child's content, nothing for hidden parts and fields, else the child's own content (`content`,
 * worked out before: children are left before their parent).
 */
function contentOf(mirror: NodeMirror, node: MirrorNode, content: Map<number, string>): string {
  let out = '';
  for (const child of mirror.children(node.id)) {
    if (out.length > CONTENT_CAP) break;
    if (child.text !== undefined) {
      out += ` ${child.text}`;
      continue;
    }
    if (!child.tag || NO_NAME.has(child.tag) || hiddenNode(child)) continue;
    const label = normalize(child.attrs?.['aria-label'] ?? '');
    if (label) out += ` ${label}`;
    else if (child.tag === 'img') out += ` ${child.attrs?.alt ?? ''}`;
    else if (!mirror.isUserText(child)) out += content.get(child.id) ?? '';
  }
  out = out.replace(/\s+/g, ' ');
  return out.length > CONTENT_CAP ? out.slice(0, CONTENT_CAP + 1) : out;
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

/** What one selector search may spend (the generation's budget) and which page text it must not write. */
export interface SelectorContext {
  budget?: Pick<WorkBudget, 'tick'>;
  /** Page text that must not appear in the test (it echoes what the person typed, or an email). */
  avoid?: (text: string) => boolean;
}

/**
 * What every selector check of one page state needs, worked out once per mirror version: the
 * elements, which frame each is in (a same-origin iframe's document is mirrored under its
 * `<iframe>` element), each element's whole text (bottom-up, so a deep page costs one pass and not
 * one walk per element), and how many elements carry each id. Without this a page nested
 * thousands deep made every click cost seconds.
 */
interface PageIndex {
  elements: MirrorNode[];
  /** The innermost iframe element an element is inside; absent for the top document. */
  frame: Map<number, number>;
  text: Map<number, string>;
  /** ownText's answers, as asked (every click on an unchanged page asks again). */
  clean: Map<number, string | undefined>;
  ids: Map<string, number>;
  /** What each element's children give its name from content (contentOf). */
  content: Map<number, string>;
  /** accessibleName's and fieldLabel's answers, as asked. */
  names: Map<number, string | undefined>;
  labels: Map<number, string | undefined>;
}

const TEXT_CAP = NAME_MAX * 2 + 2;
const indexes = new WeakMap<NodeMirror, { version: number; index: PageIndex }>();

function pageIndex(mirror: NodeMirror, budget: Pick<WorkBudget, 'tick'>): PageIndex {
  const cached = indexes.get(mirror);
  if (cached && cached.version === mirror.version) return cached.index;
  const index: PageIndex = { elements: [], frame: new Map(), text: new Map(), clean: new Map(), ids: new Map(), content: new Map(), names: new Map(), labels: new Map() };
  const roots: MirrorNode[] = [];
  for (const node of mirror.all()) {
    budget.tick();
    if (!mirror.has(node.parent)) roots.push(node);
  }
  // One iterative depth-first pass: frames on the way down, texts and contents on the way up.
  const stack: Array<{ node: MirrorNode; frame: number | undefined; exit: boolean }> = roots.map((node) => ({ node, frame: undefined, exit: false }));
  const seen = new Set<number>();
  while (stack.length > 0) {
    budget.tick();
    const item = stack.pop()!;
    const node = item.node;
    if (item.exit) {
      if (!node.tag) continue;
      let raw = '';
      if (!SKIPPED_TEXT.has(node.tag) && !mirror.isUserText(node)) {
        for (const child of mirror.children(node.id)) {
          if (raw.length > TEXT_CAP) break;
          raw += child.text !== undefined ? child.text : child.tag === 'iframe' ? '' : (index.text.get(child.id) ?? '');
        }
      }
      index.text.set(node.id, raw.length > TEXT_CAP ? raw.slice(0, TEXT_CAP) : raw);
      index.content.set(node.id, contentOf(mirror, node, index.content));
      continue;
    }
    // Hostile data can make links loop: every node is entered once.
    if (seen.has(node.id)) continue;
    seen.add(node.id);
    if (node.tag) {
      index.elements.push(node);
      if (item.frame !== undefined) index.frame.set(node.id, item.frame);
      const id = node.attrs?.id;
      if (id) index.ids.set(id, (index.ids.get(id) ?? 0) + 1);
    }
    stack.push({ node, frame: item.frame, exit: true });
    const childFrame = node.tag === 'iframe' || node.tag === 'frame' ? node.id : item.frame;
    const children = [...mirror.children(node.id)];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, frame: childFrame, exit: false });
  }
  indexes.set(mirror, { version: mirror.version, index });
  return index;
}

const SKIPPED_TEXT = new Set(['script', 'style', 'noscript', 'head', 'title']);

/** The text Playwright's getByText would match an element by (whole text, whitespace collapsed). */
function ownText(mirror: NodeMirror, index: PageIndex, node: MirrorNode): string | undefined {
  if (index.clean.has(node.id)) return index.clean.get(node.id);
  const text = mirror.isUserText(node) || node.tag === 'html' || SKIPPED_TEXT.has(node.tag ?? '') ? undefined : cleanName(index.text.get(node.id) ?? '');
  index.clean.set(node.id, text);
  return text;
}

/**
 * The selector for element `id` in the mirror as it is now, unique in its frame there, in the
 * order Playwright's own generator prefers (docs/reproduce.md, "Locators"): a test id, role and
 * accessible name, placeholder, label, alt text, text, title, then an id that does not look
 * generated, a CSS path last. An element inside a same-origin iframe is addressed in its frame.
 */
export function chooseSelector(mirror: NodeMirror, id: number, context: SelectorContext = {}): Selector {
  const budget = context.budget ?? UNBOUNDED;
  const node = mirror.get(id);
  if (!node?.tag) return { code: `locator(${lit('body')})`, kind: 'css', note: 'CSS path: the element is not in the rebuilt page' };
  const index = pageIndex(mirror, budget);
  const frame = index.frame.get(node.id);
  const own = inFrame(mirror, index, node, context, budget);
  if (frame === undefined) return own;
  // Frames nest: each is addressed in the frame it is in.
  const outer = chooseSelector(mirror, frame, context);
  const note = [outer.note ? `its frame: ${outer.note}` : undefined, own.note].filter(Boolean).join('; ');
  return { code: `${outer.code}.contentFrame().${own.code}`, kind: own.kind, ...(note ? { note } : {}), frame: true };
}

function inFrame(mirror: NodeMirror, index: PageIndex, node: MirrorNode, context: SelectorContext, budget: Pick<WorkBudget, 'tick'>): Selector {
  const frame = index.frame.get(node.id);
  const scope = index.elements.filter((n) => index.frame.get(n.id) === frame);
  const attrs = node.attrs ?? {};
  let echoed = false;
  const avoid = (text: string) => {
    const hit = context.avoid?.(text) === true;
    echoed ||= hit;
    return hit;
  };
  const unique = (test: (n: MirrorNode) => boolean) => {
    let n = 0;
    for (const other of scope) {
      budget.tick();
      if (test(other) && ++n > 1) return false;
    }
    return n === 1;
  };

  // Test ids: Playwright's getByTestId reads data-testid; PostHog's autocapture names elements by data-attr.
  const testId = attrs['data-testid'];
  if (testId && unique((n) => n.attrs?.['data-testid'] === testId)) return { code: `getByTestId(${lit(testId)})`, kind: 'test-id' };
  for (const name of ['data-attr', 'data-test-id', 'data-test', 'data-cy'] as const) {
    const value = attrs[name];
    if (value && unique((n) => n.attrs?.[name] === value)) return { code: `locator(${lit(`[${name}=${cssString(value)}]`)})`, kind: 'test-id' };
  }

  // A frame by its name or title, as Playwright addresses frames (before anything but a test id).
  if (node.tag === 'iframe' || node.tag === 'frame') {
    for (const attribute of ['name', 'title'] as const) {
      const value = attrs[attribute];
      if (value && unique((n) => n.tag === node.tag && n.attrs?.[attribute] === value)) return { code: `locator(${lit(`${node.tag}[${attribute}=${cssString(value)}]`)})`, kind: 'css' };
    }
  }

  const role = roleOf(node);
  const name = accessibleName(mirror, node, budget);
  if (role && name && !avoid(name)) {
    const sameRole = scope.filter((n) => roleOf(n) === role);
    if (sameRole.filter((n) => (budget.tick(), accessibleName(mirror, n, budget) === name)).length === 1) {
      return { code: `getByRole(${lit(role)}, { name: ${lit(name)}, exact: true })`, kind: 'role' };
    }
  }

  const field = node.tag === 'input' || node.tag === 'select' || node.tag === 'textarea';
  const placeholder = cleanName(attrs.placeholder ?? '');
  if (placeholder && (node.tag === 'input' || node.tag === 'textarea') && !avoid(placeholder) && unique((n) => (n.tag === 'input' || n.tag === 'textarea') && cleanName(n.attrs?.placeholder ?? '') === placeholder)) {
    return { code: `getByPlaceholder(${lit(placeholder)}, { exact: true })`, kind: 'placeholder' };
  }

  if (field && attrs['aria-labelledby'] === undefined) {
    const label = cleanName(fieldLabel(mirror, index, node) ?? '') ?? cleanName(attrs['aria-label'] ?? '');
    const labelled = (n: MirrorNode) => n.attrs?.['aria-labelledby'] === undefined && (cleanName(fieldLabel(mirror, index, n) ?? '') === label || cleanName(n.attrs?.['aria-label'] ?? '') === label);
    if (label && !avoid(label) && unique(labelled)) return { code: `getByLabel(${lit(label)}, { exact: true })`, kind: 'label' };
  }

  const alt = cleanName(attrs.alt ?? '');
  if (alt && ALT_TAGS.has(node.tag!) && !avoid(alt) && unique((n) => ALT_TAGS.has(n.tag!) && cleanName(n.attrs?.alt ?? '') === alt)) {
    return { code: `getByAltText(${lit(alt)}, { exact: true })`, kind: 'alt' };
  }

  const text = ownText(mirror, index, node);
  if (text && node.tag !== 'select' && !avoid(text)) {
    // getByText matches the innermost elements whose whole text is this: a parent whose text
    // comes from one child alone is not a match of its own.
    const matches = scope.filter((n) => (budget.tick(), ownText(mirror, index, n) === text) && ![...mirror.children(n.id)].some((c) => c.tag && ownText(mirror, index, c) === text));
    if (matches.length === 1 && matches[0]!.id === node.id) return { code: `getByText(${lit(text)}, { exact: true })`, kind: 'text' };
  }

  const title = cleanName(attrs.title ?? '');
  if (title && !avoid(title) && unique((n) => cleanName(n.attrs?.title ?? '') === title)) return { code: `getByTitle(${lit(title)}, { exact: true })`, kind: 'title' };

  const elementId = attrs.id;
  if (elementId && usableId(elementId) && index.ids.get(elementId) === 1 && unique((n) => n.attrs?.id === elementId)) {
    return { code: `locator(${lit(`#${elementId}`)})`, kind: 'id' };
  }

  const why = echoed ? "its name or text echoes what the person typed, and no test id, title or stable id names it alone" : 'no test id, role and name, placeholder, label, alt text, text, title or stable id names this element alone';
  // A form control by its name attribute, as Playwright's generator does next (`input[name="email"]`).
  const formName = attrs.name;
  if (formName && NAMED_CONTROLS.has(node.tag!) && unique((n) => n.tag === node.tag && n.attrs?.name === formName)) {
    return { code: `locator(${lit(`${node.tag}[name=${cssString(formName)}]`)})`, kind: 'css' };
  }

  return { code: `locator(${lit(cssPath(mirror, node, index, scope))})`, kind: 'css', note: `CSS path (last resort): ${why}` };
}

const ALT_TAGS = new Set(['img', 'area', 'input']);
const NAMED_CONTROLS = new Set(['input', 'select', 'textarea', 'button']);

/** An id a selector may rely on: plain characters, and neither ours nor Playwright's test for made-up ids says generated. */
function usableId(id: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_-]*$/.test(id) && !looksGenerated(id) && !guidLike(id);
}

/**
 * Playwright's own test for an id made by a machine: many switches between lower case, upper
 * case, digits and other characters for the id's length (a run of upper then lower, as in
 * `Main`, is not a switch).
 */
function guidLike(id: string): boolean {
  let last: string | undefined;
  let switches = 0;
  for (const c of id) {
    if (c === '-' || c === '_') continue;
    const kind = c >= 'a' && c <= 'z' ? 'lower' : c >= 'A' && c <= 'Z' ? 'upper' : c >= '0' && c <= '9' ? 'digit' : 'other';
    if (kind === 'lower' && last === 'upper') {
      last = kind;
      continue;
    }
    if (last && last !== kind) switches++;
    last = kind;
  }
  return switches >= id.length / 4;
}

/** `tag:nth-of-type(k)` steps from the nearest ancestor with a usable unique id, or from the frame's root. */
function cssPath(mirror: NodeMirror, node: MirrorNode, index: PageIndex, scope: MirrorNode[]): string {
  const steps: string[] = [];
  let current: MirrorNode | undefined = node;
  const inScope = (id: string) => index.ids.get(id) === 1 || scope.filter((n) => n.attrs?.id === id).length === 1;
  for (let depth = 0; current?.tag && depth < 40; depth++) {
    const id = current.attrs?.id;
    if (current !== node && id && usableId(id) && inScope(id)) {
      steps.unshift(`#${id}`);
      break;
    }
    const parent = mirror.get(current.parent);
    const tag = current.tag.replace(/[^a-z0-9-]/gi, '') || '*';
    if (!parent?.tag || tag === 'html') {
      steps.unshift(tag);
      break;
    }
    let position = 0;
    let same = 0;
    for (const sibling of mirror.children(parent.id)) {
      if (sibling.tag !== current.tag) continue;
      same++;
      if (sibling.id === current.id) position = same;
    }
    steps.unshift(same > 1 ? `${tag}:nth-of-type(${position})` : tag);
    current = parent;
  }
  return steps.join(' > ');
}
