/**
 * A light mirror of one window's DOM, rebuilt from rrweb full snapshots and kept current by
 * mutations, so a click on node 412 can be told as `button "Place order"`. It keeps only what a
 * description needs (tag, a few attributes, text, tree links), and a node cap keeps it bounded on
 * pathological pages. Children are a linked list, so inserts and removals cost O(1) however
 * large a list grows.
 */

/** rrweb-snapshot node types. */
const ELEMENT = 2;
const TEXT = 3;

/** Attributes that name or locate an element. `value` only on buttons, radios and checkboxes: elsewhere it is user input. */
const KEPT_ATTRIBUTES = new Set(['id', 'name', 'type', 'role', 'aria-label', 'href', 'placeholder', 'title', 'alt', 'for', 'data-attr', 'value', 'contenteditable']);
const ATTRIBUTE_MAX = 200;
const TEXT_MAX = 200;
/** Nodes kept per window; past this, new nodes are not mirrored (and the digest says so). */
export const MIRROR_NODE_CAP = 150_000;

export const BUTTON_INPUT_TYPES = new Set(['button', 'submit', 'reset', 'image']);
/** Inputs whose value attribute the page wrote (a button's caption, which radio of a group): never typed. */
const AUTHORED_VALUE_TYPES = new Set([...BUTTON_INPUT_TYPES, 'radio', 'checkbox']);
const INTERACTIVE_TAGS = new Set(['button', 'a', 'input', 'select', 'textarea', 'summary', 'label']);
/** Elements whose text is what the user typed or chose: never read for a description. */
const USER_TEXT_TAGS = new Set(['textarea', 'select', 'option', 'datalist']);

export interface MirrorNode {
  id: number;
  tag?: string;
  attrs?: Record<string, string>;
  text?: string;
  parent: number;
  first?: number;
  last?: number;
  prev?: number;
  next?: number;
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

/** What a reader beyond the digest needs the mirror to keep as well. */
export interface MirrorOptions {
  /** Attributes kept besides the naming ones (test ids, `autocomplete`, `target`…). */
  extraAttributes?: readonly string[];
  /** Keep `<option value>`: the page's own choices, never typed (a select's answer is an input event). */
  optionValues?: boolean;
}

export class NodeMirror {
  private readonly nodes = new Map<number, MirrorNode>();
  private readonly kept: ReadonlySet<string>;
  private readonly optionValues: boolean;
  /** label[for] → label node, for describing form fields */
  private readonly labels = new Map<string, number>();
  title: string | undefined;
  /** Nodes that could not be added because of the cap. */
  dropped = 0;
  /** The highest node id seen: rrweb ids keep climbing within a page and restart on a new one. */
  maxId = 0;

  constructor(options: MirrorOptions = {}) {
    this.kept = options.extraAttributes ? new Set([...KEPT_ATTRIBUTES, ...options.extraAttributes]) : KEPT_ATTRIBUTES;
    this.optionValues = options.optionValues === true;
  }

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
    this.maxId = 0;
    this.add(root, -1);
  }

  /** Adds a serialized subtree under `parentId`, before `nextId` when given. Iterative: DOMs can be deep. */
  add(root: unknown, parentId: number, nextId?: number | null): void {
    const stack: Array<{ node: SerializedNode; parent: number; next?: number | null }> = [{ node: root as SerializedNode, parent: parentId, next: nextId }];
    while (stack.length > 0) {
      const { node, parent, next } = stack.pop()!;
      if (typeof node !== 'object' || node === null || typeof node.id !== 'number') continue;
      const id = node.id;
      if (id > this.maxId) this.maxId = id;
      if (this.nodes.size >= MIRROR_NODE_CAP && !this.nodes.has(id)) {
        this.dropped++;
        continue;
      }
      if (this.nodes.has(id)) this.remove(id);
      const entry: MirrorNode = { id, parent };
      if (node.type === ELEMENT && typeof node.tagName === 'string') {
        entry.tag = node.tagName.toLowerCase();
        const attrs = keptAttributes(node.attributes, this.kept);
        // An input's value attribute is what the user typed, except on buttons.
        if (attrs?.value !== undefined && !this.authoredValue(entry.tag, attrs.type)) delete attrs.value;
        if (attrs) entry.attrs = attrs;
        if (entry.tag === 'label' && attrs?.for) this.labels.set(attrs.for, id);
      } else if (node.type === TEXT && typeof node.textContent === 'string' && node.isStyle !== true) {
        entry.text = node.textContent.length > TEXT_MAX ? node.textContent.slice(0, TEXT_MAX) : node.textContent;
      }
      this.nodes.set(id, entry);
      this.link(entry, next);
      if (Array.isArray(node.childNodes)) {
        // Pushed in reverse so children are linked in document order.
        for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push({ node: node.childNodes[i] as SerializedNode, parent: id });
      }
      if (entry.tag === 'title' && this.title === undefined) {
        const child = Array.isArray(node.childNodes) ? (node.childNodes[0] as SerializedNode | undefined) : undefined;
        if (child && typeof child.textContent === 'string') this.title = child.textContent.trim().slice(0, TEXT_MAX) || undefined;
      }
    }
  }

  /** Links a node into its parent's children, before `next` when that is a child of the same parent. */
  private link(node: MirrorNode, next?: number | null): void {
    const parent = this.nodes.get(node.parent);
    if (!parent) return;
    const before = typeof next === 'number' ? this.nodes.get(next) : undefined;
    if (before && before.parent === node.parent) {
      node.next = before.id;
      node.prev = before.prev;
      if (before.prev !== undefined) this.nodes.get(before.prev)!.next = node.id;
      else parent.first = node.id;
      before.prev = node.id;
      return;
    }
    node.prev = parent.last;
    if (parent.last !== undefined) this.nodes.get(parent.last)!.next = node.id;
    else parent.first = node.id;
    parent.last = node.id;
  }

  /** Removes a node and its subtree. */
  remove(id: number): void {
    const node = this.nodes.get(id);
    if (!node) return;
    const parent = this.nodes.get(node.parent);
    if (parent) {
      if (node.prev !== undefined) this.nodes.get(node.prev)!.next = node.next;
      else parent.first = node.next;
      if (node.next !== undefined) this.nodes.get(node.next)!.prev = node.prev;
      else parent.last = node.prev;
    }
    const stack = [id];
    while (stack.length > 0) {
      const entry = this.nodes.get(stack.pop()!);
      if (!entry) continue;
      this.nodes.delete(entry.id);
      if (entry.tag === 'label' && entry.attrs?.for && this.labels.get(entry.attrs.for) === entry.id) this.labels.delete(entry.attrs.for);
      for (let child = entry.first; child !== undefined; child = this.nodes.get(child)?.next) stack.push(child);
    }
  }

  /** Applies an rrweb mutation: removals, then adds (a parent may come later in the same batch), texts, attributes. */
  mutate(data: Record<string, unknown>): void {
    for (const removal of asArray(data.removes)) {
      const id = (removal as { id?: unknown }).id;
      if (typeof id === 'number') this.remove(id);
    }
    // Adds can name a parent added later in the same batch; a second pass picks those up.
    let waiting = asArray(data.adds);
    for (let pass = 0; pass < 3 && waiting.length > 0; pass++) {
      const retry: unknown[] = [];
      for (const add of waiting) {
        const { parentId, nextId, node } = add as { parentId?: unknown; nextId?: unknown; node?: unknown };
        if (typeof parentId !== 'number') continue;
        if (!this.has(parentId)) {
          retry.push(add);
          continue;
        }
        this.add(node, parentId, typeof nextId === 'number' ? nextId : null);
      }
      if (retry.length === waiting.length) break;
      waiting = retry;
    }
    for (const change of asArray(data.texts)) {
      const { id, value } = change as { id?: unknown; value?: unknown };
      if (typeof id === 'number') this.setText(id, value);
    }
    for (const change of asArray(data.attributes)) {
      const { id, attributes } = change as { id?: unknown; attributes?: unknown };
      if (typeof id === 'number') this.setAttributes(id, attributes);
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
      if (!this.kept.has(name)) continue;
      if (name === 'value' && !this.authoredValue(node.tag, node.attrs?.type)) continue;
      if (typeof value === 'string') (node.attrs ??= {})[name] = value.slice(0, ATTRIBUTE_MAX);
      else if (value === null && node.attrs) delete node.attrs[name];
    }
  }

  /** Whether an element's value attribute is the page's (a button's caption, a radio's or option's value), not typed. */
  private authoredValue(tag: string, type: string | undefined): boolean {
    return (tag === 'input' && AUTHORED_VALUE_TYPES.has(type ?? '')) || (tag === 'option' && this.optionValues);
  }

  /** Every node, in no particular order (for readers that must check a selector against the whole page). */
  all(): IterableIterator<MirrorNode> {
    return this.nodes.values();
  }

  /** An element's children, in document order. */
  *children(id: number): Generator<MirrorNode> {
    for (let child = this.nodes.get(id)?.first; child !== undefined; ) {
      const node = this.nodes.get(child);
      if (!node) return;
      yield node;
      child = node.next;
    }
  }

  /** Where users type or choose: form fields and editable regions. */
  isUserText(node: MirrorNode): boolean {
    if (!node.tag) return false;
    if (USER_TEXT_TAGS.has(node.tag)) return true;
    if (node.tag === 'input') return !BUTTON_INPUT_TYPES.has(node.attrs?.type ?? '');
    const editable = node.attrs?.contenteditable;
    return editable !== undefined && editable !== 'false';
  }

  /**
   * The text inside an element, whitespace collapsed, at most `max` characters. Scripts and styles
   * are skipped, and so is anything a user typed or chose (fields, editable regions, options).
   */
  textOf(id: number, max = 80): string {
    let text = '';
    const stack = [id];
    let visited = 0;
    while (stack.length > 0 && text.length < max * 2 && visited < 400) {
      const node = this.nodes.get(stack.pop()!);
      visited++;
      if (!node) continue;
      if (node.text !== undefined) text += ` ${node.text}`;
      if (node.tag === 'script' || node.tag === 'style' || node.tag === 'noscript' || this.isUserText(node)) continue;
      const children: number[] = [];
      for (let child = node.first; child !== undefined && children.length < 400; child = this.nodes.get(child)?.next) children.push(child);
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
    const collapsed = text.replace(/\s+/g, ' ').trim();
    return collapsed.length > max ? `${collapsed.slice(0, max - 1)}…` : collapsed;
  }

  /**
   * What a user would call the click target: a field or editable region the click landed in, else
   * the nearest button or link at or above it, else the nearest element (a click lands on a text
   * node or a span inside).
   */
  interactiveAncestor(id: number): number {
    let current: number | undefined = id;
    let element: number | undefined;
    let interactive: number | undefined;
    for (let depth = 0; current !== undefined && depth < 12; depth++) {
      const node = this.nodes.get(current);
      if (!node) break;
      if (node.tag) {
        element ??= current;
        // Inside a field (an option in its select, text in an editor), the field is the target.
        if (this.isUserText(node) && node.tag !== 'option' && node.tag !== 'datalist') return current;
        if (interactive === undefined && (INTERACTIVE_TAGS.has(node.tag) || node.attrs?.role === 'button' || node.attrs?.role === 'link')) interactive = current;
      }
      current = node.parent;
    }
    return interactive ?? element ?? id;
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

function keptAttributes(attributes: unknown, names: ReadonlySet<string>): Record<string, string> | undefined {
  if (typeof attributes !== 'object' || attributes === null) return undefined;
  let kept: Record<string, string> | undefined;
  for (const [name, value] of Object.entries(attributes as Record<string, unknown>)) {
    if (!names.has(name) || (typeof value !== 'string' && typeof value !== 'number')) continue;
    (kept ??= {})[name] = String(value).slice(0, ATTRIBUTE_MAX);
  }
  return kept;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
