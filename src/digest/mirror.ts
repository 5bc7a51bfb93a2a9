/**
 * A light mirror of one window's DOM, rebuilt from rrweb full snapshots and kept current by
 * mutations, so a click on node 412 can be told as `button "Place order"`. It keeps only what a
 * description needs (tag, a few attributes, text, parent/children links), and a node cap keeps it
 * bounded on pathological pages.
 */

/** rrweb-snapshot node types. */
const DOCUMENT = 0;
const ELEMENT = 2;
const TEXT = 3;

/** Attributes that name or locate an element. Never `value` of a text field: that is user input. */
const KEPT_ATTRIBUTES = new Set(['id', 'name', 'type', 'role', 'aria-label', 'href', 'placeholder', 'title', 'alt', 'for', 'data-attr', 'value', 'contenteditable']);
const ATTRIBUTE_MAX = 200;
const TEXT_MAX = 200;
/** Nodes kept per window; past this, new nodes are not mirrored (and the digest says so). */
export const MIRROR_NODE_CAP = 150_000;

export interface MirrorNode {
  id: number;
  tag?: string;
  attrs?: Record<string, string>;
  text?: string;
  parent: number;
  children: number[];
}

interface SerializedNode {
  type?: unknown;
  id?: unknown;
  tagName?: unknown;
  attributes?: unknown;
  childNodes?: unknown;
  textContent?: unknown;
  isStyle?: unknown;
}

export class NodeMirror {
  private readonly nodes = new Map<number, MirrorNode>();
  /** label[for] → label node, for describing form fields */
  private readonly labels = new Map<string, number>();
  title: string | undefined;
  /** Nodes that could not be added because of the cap. */
  dropped = 0;

  get size(): number {
    return this.nodes.size;
  }

  has(id: number): boolean {
    return this.nodes.has(id);
  }

  get(id: number): MirrorNode | undefined {
    return this.nodes.get(id);
  }

  /** Replaces the mirror with a full snapshot's tree. */
  reset(root: unknown): void {
    this.nodes.clear();
    this.labels.clear();
    this.title = undefined;
    this.dropped = 0;
    this.add(root, -1);
  }

  /** Adds a serialized subtree under `parentId`, before `nextId` when given. Iterative: DOMs can be deep. */
  add(root: unknown, parentId: number, nextId?: number | null): void {
    const stack: Array<{ node: SerializedNode; parent: number; next?: number | null }> = [{ node: root as SerializedNode, parent: parentId, next: nextId }];
    while (stack.length > 0) {
      const { node, parent, next } = stack.pop()!;
      if (typeof node !== 'object' || node === null || typeof node.id !== 'number') continue;
      if (this.nodes.size >= MIRROR_NODE_CAP && !this.nodes.has(node.id)) {
        this.dropped++;
        continue;
      }
      const id = node.id;
      if (this.nodes.has(id)) this.remove(id);
      const entry: MirrorNode = { id, parent, children: [] };
      if (node.type === ELEMENT && typeof node.tagName === 'string') {
        entry.tag = node.tagName.toLowerCase();
        const attrs = keptAttributes(node.attributes);
        // An input's value attribute is what the user typed, except on buttons.
        if (attrs?.value !== undefined && !(entry.tag === 'input' && BUTTON_INPUT_TYPES.has(attrs.type ?? ''))) delete attrs.value;
        if (attrs) entry.attrs = attrs;
        if (entry.tag === 'label' && attrs?.for) this.labels.set(attrs.for, id);
      } else if (node.type === TEXT && typeof node.textContent === 'string' && node.isStyle !== true) {
        entry.text = node.textContent.length > TEXT_MAX ? node.textContent.slice(0, TEXT_MAX) : node.textContent;
      }
      this.nodes.set(id, entry);
      this.link(id, parent, next);
      if (Array.isArray(node.childNodes)) {
        // Pushed in reverse so children are linked in document order.
        for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push({ node: node.childNodes[i] as SerializedNode, parent: id });
      }
      if (entry.tag === 'title' && this.title === undefined && node.type === ELEMENT) {
        const child = Array.isArray(node.childNodes) ? (node.childNodes[0] as SerializedNode | undefined) : undefined;
        if (child && typeof child.textContent === 'string') this.title = child.textContent.trim().slice(0, TEXT_MAX) || undefined;
      }
    }
  }

  private link(id: number, parent: number, next?: number | null): void {
    const parentNode = this.nodes.get(parent);
    if (!parentNode) return;
    const at = typeof next === 'number' ? parentNode.children.indexOf(next) : -1;
    if (at === -1) parentNode.children.push(id);
    else parentNode.children.splice(at, 0, id);
  }

  /** Removes a node and its subtree. */
  remove(id: number): void {
    const node = this.nodes.get(id);
    if (!node) return;
    const parent = this.nodes.get(node.parent);
    if (parent) {
      const at = parent.children.indexOf(id);
      if (at !== -1) parent.children.splice(at, 1);
    }
    const stack = [id];
    while (stack.length > 0) {
      const current = stack.pop()!;
      const entry = this.nodes.get(current);
      if (!entry) continue;
      this.nodes.delete(current);
      for (const child of entry.children) stack.push(child);
    }
  }

  setText(id: number, value: unknown): void {
    const node = this.nodes.get(id);
    if (node && typeof value === 'string') node.text = value.slice(0, TEXT_MAX);
  }

  setAttributes(id: number, changes: unknown): void {
    const node = this.nodes.get(id);
    if (!node || !node.tag || typeof changes !== 'object' || changes === null) return;
    for (const [name, value] of Object.entries(changes as Record<string, unknown>)) {
      if (!KEPT_ATTRIBUTES.has(name)) continue;
      if (name === 'value' && !(node.tag === 'input' && BUTTON_INPUT_TYPES.has(node.attrs?.type ?? ''))) continue;
      if (typeof value === 'string') (node.attrs ??= {})[name] = value.slice(0, ATTRIBUTE_MAX);
      else if (value === null && node.attrs) delete node.attrs[name];
    }
  }

  /** The text inside an element, whitespace collapsed, at most `max` characters; script/style skipped. */
  textOf(id: number, max = 80): string {
    let text = '';
    const stack = [id];
    let visited = 0;
    while (stack.length > 0 && text.length < max * 2 && visited < 400) {
      const node = this.nodes.get(stack.pop()!);
      visited++;
      if (!node) continue;
      if (node.text !== undefined) text += ` ${node.text}`;
      if (node.tag === 'script' || node.tag === 'style' || node.tag === 'noscript') continue;
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
    const collapsed = text.replace(/\s+/g, ' ').trim();
    return collapsed.length > max ? `${collapsed.slice(0, max - 1)}…` : collapsed;
  }

  /**
   * What a user would call the click target: the nearest button, link or form control at or
   * above `id`, else the nearest element (a click lands on a text node or a span inside).
   */
  interactiveAncestor(id: number): number {
    let current: number | undefined = id;
    let element: number | undefined;
    for (let depth = 0; current !== undefined && depth < 8; depth++) {
      const node = this.nodes.get(current);
      if (!node) break;
      if (node.tag) {
        element ??= current;
        if (INTERACTIVE_TAGS.has(node.tag) || node.attrs?.role === 'button' || node.attrs?.role === 'link') return current;
      }
      current = node.parent;
    }
    return element ?? id;
  }

  /** The label text of a form field: label[for=id], a wrapping label, aria-label, placeholder or name. */
  labelOf(id: number): string | undefined {
    const node = this.nodes.get(id);
    if (!node) return undefined;
    const elementId = node.attrs?.id;
    const labelId = elementId === undefined ? undefined : this.labels.get(elementId);
    if (labelId !== undefined && this.nodes.has(labelId)) {
      const text = this.textOf(labelId, 60);
      if (text) return text;
    }
    let parent = this.nodes.get(node.parent);
    for (let depth = 0; parent && depth < 4; depth++) {
      if (parent.tag === 'label') {
        const text = this.textOf(parent.id, 60);
        if (text) return text;
      }
      parent = this.nodes.get(parent.parent);
    }
    return undefined;
  }

  isDocument(id: number): boolean {
    const node = this.nodes.get(id);
    return node !== undefined && (node.parent === -1 || node.tag === 'html' || node.tag === 'body');
  }
}

export const BUTTON_INPUT_TYPES = new Set(['button', 'submit', 'reset', 'image']);
const INTERACTIVE_TAGS = new Set(['button', 'a', 'input', 'select', 'textarea', 'summary', 'option', 'label']);

function keptAttributes(attributes: unknown): Record<string, string> | undefined {
  if (typeof attributes !== 'object' || attributes === null) return undefined;
  let kept: Record<string, string> | undefined;
  for (const [name, value] of Object.entries(attributes as Record<string, unknown>)) {
    if (!KEPT_ATTRIBUTES.has(name) || (typeof value !== 'string' && typeof value !== 'number')) continue;
    (kept ??= {})[name] = String(value).slice(0, ATTRIBUTE_MAX);
  }
  return kept;
}

export const NODE_TYPES = { DOCUMENT, ELEMENT, TEXT };
