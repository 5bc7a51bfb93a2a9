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
const KEPT_ATTRIBUTES = new Set(['id', 'name', 'type', 'role', 'aria-label', 'href', 'placeholder', 'title', 'alt', 'for', 'data-attr', 'value', 'contenteditable', 'aria-live']);
/**
 * Class words that mark an element as a message to the person (an alert, a toast, a form error).
 * Unless a reader asks for whole classes, only these words of an element's class are kept, and
 * the TONE_CLASS_WORDs beside them.
 */
export const MESSAGE_CLASS_WORD = /(?:^|[\s_-])(?:alert|toast|error|errors|notice|notification|banner|snackbar|flash|feedback|warning|success)(?:$|[\s_-])/i;
/**
 * Class words that say what a message is about (`is-danger` beside `notification`, `bg-danger`
 * beside `toast`): kept too, but only in a class that has a message word (rules/messages.ts reads them).
 */
export const TONE_CLASS_WORD = /(?:^|[\s_-])(?:danger|fail|failed|failure|invalid|critical|destructive|negative|info|positive)(?:$|[\s_-])/i;
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

/**
 * A mirrored node. Every field is set in the constructor so all nodes share one shape (V8 keeps
 * property access on them monomorphic); absent parts are undefined, as in MirrorNode.
 */
class Entry implements MirrorNode {
  tag: string | undefined = undefined;
  attrs: Record<string, string> | undefined = undefined;
  text: string | undefined = undefined;
  first: number | undefined = undefined;
  last: number | undefined = undefined;
  prev: number | undefined = undefined;
  next: number | undefined = undefined;
  constructor(
    readonly id: number,
    public parent: number,
  ) {}
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

/** Ids below this are kept in an array (rrweb numbers nodes 1, 2, 3…); others, and odd values, in a Map. */
const DENSE_IDS = 1 << 18;

/**
 * The mirror's nodes by id: a Map's semantics, an array's speed for the ids rrweb hands out. The
 * array part stays within DENSE_IDS slots (2 MB), however far ids climb in a long session.
 */
class NodeStore {
  private dense: Array<Entry | undefined> = [];
  private readonly sparse = new Map<number, Entry>();
  size = 0;

  get(id: number): Entry | undefined {
    return id >>> 0 === id && id < DENSE_IDS ? this.dense[id] : this.sparse.get(id);
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  set(id: number, entry: Entry): void {
    if (id >>> 0 === id && id < DENSE_IDS) {
      if (this.dense[id] === undefined) this.size++;
      this.dense[id] = entry;
    } else {
      if (!this.sparse.has(id)) this.size++;
      this.sparse.set(id, entry);
    }
  }

  delete(id: number): void {
    if (id >>> 0 === id && id < DENSE_IDS) {
      if (this.dense[id] !== undefined) {
        this.size--;
        this.dense[id] = undefined;
      }
    } else if (this.sparse.delete(id)) this.size--;
  }

  clear(): void {
    this.dense = [];
    this.sparse.clear();
    this.size = 0;
  }

  /** Every node, dense ids first. */
  *values(): Generator<Entry> {
    for (const entry of this.dense) if (entry !== undefined) yield entry;
    yield* this.sparse.values();
  }
}

/** What a reader beyond the digest needs the mirror to keep as well. */
export interface MirrorOptions {
  /** Attributes kept besides the naming ones (test ids, `autocomplete`, `target`…). */
  extraAttributes?: readonly string[];
  /** Keep `<option value>`: the page's own choices, never typed (a select's answer is an input event). */
  optionValues?: boolean;
}

export class NodeMirror {
  private readonly nodes = new NodeStore();
  private readonly kept: ReadonlySet<string>;
  private readonly optionValues: boolean;
  /** whether a reader asked for whole class attributes (else only message words are kept) */
  private readonly wholeClass: boolean;
  /** label[for] → label node, for describing form fields */
  private readonly labels = new Map<string, number>();
  title: string | undefined;
  /** Nodes that could not be added because of the cap. */
  dropped = 0;
  /** The highest node id seen: rrweb ids keep climbing within a page and restart on a new one. */
  maxId = 0;
  /**
   * Counts every change (a snapshot, an add, a removal, a text or attribute change), so a reader
   * can keep what it derived from the mirror (an element's description) until the next change.
   */
  version = 0;

  constructor(options: MirrorOptions = {}) {
    this.kept = options.extraAttributes ? new Set([...KEPT_ATTRIBUTES, ...options.extraAttributes]) : KEPT_ATTRIBUTES;
    this.optionValues = options.optionValues === true;
    this.wholeClass = this.kept.has('class');
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
    this.version++;
    this.nodes.clear();
    this.labels.clear();
    this.title = undefined;
    this.dropped = 0;
    this.maxId = 0;
    this.add(root, -1);
  }

  /** Adds a serialized subtree under `parentId`, before `nextId` when given. Iterative: DOMs can be deep. */
  add(root: unknown, parentId: number, nextId?: number | null): void {
    this.version++;
    // Two parallel stacks (node, parent id) rather than an object per node: a full snapshot is
    // thousands of nodes, and this is the digest's busiest loop. Only the root has a `next`.
    const stack: unknown[] = [root];
    const parents: number[] = [parentId];
    let next = nextId;
    while (stack.length > 0) {
      const node = stack.pop() as SerializedNode;
      const parent = parents.pop()!;
      const before = next;
      next = undefined;
      if (typeof node !== 'object' || node === null || typeof node.id !== 'number') continue;
      const id = node.id;
      if (id > this.maxId) this.maxId = id;
      const present = this.nodes.has(id);
      if (!present && this.nodes.size >= MIRROR_NODE_CAP) {
        this.dropped++;
        continue;
      }
      if (present) this.remove(id);
      const entry = new Entry(id, parent);
      const type = node.type;
      if (type === ELEMENT && typeof node.tagName === 'string') {
        const tag = node.tagName.toLowerCase();
        entry.tag = tag;
        const attrs = keptAttributes(node.attributes, this.kept, this.wholeClass);
        if (attrs !== undefined) {
          // An input's value attribute is what the user typed, except on buttons.
          if (attrs.value !== undefined && !this.authoredValue(tag, attrs.type)) delete attrs.value;
          entry.attrs = attrs;
          if (tag === 'label' && attrs.for) this.labels.set(attrs.for, id);
        }
      } else if (type === TEXT && typeof node.textContent === 'string' && node.isStyle !== true) {
        entry.text = node.textContent.length > TEXT_MAX ? node.textContent.slice(0, TEXT_MAX) : node.textContent;
      }
      this.nodes.set(id, entry);
      this.link(entry, before);
      const children = node.childNodes;
      if (Array.isArray(children)) {
        // Pushed in reverse so children are linked in document order.
        for (let i = children.length - 1; i >= 0; i--) {
          stack.push(children[i]);
          parents.push(id);
        }
        if (entry.tag === 'title' && this.title === undefined) {
          const child = children[0] as SerializedNode | undefined;
          if (child && typeof child.textContent === 'string') this.title = child.textContent.trim().slice(0, TEXT_MAX) || undefined;
        }
      }
    }
  }

  /** Links a node into its parent's children, before `next` when that is a child of the same parent. */
  private link(node: MirrorNode, next?: number | null): void {
    const parent = this.nodes.get(node.parent);
    if (!parent) return;
    // A node "before itself" (a hostile recording's nextId) is appended: linking it to itself
    // would make its siblings a loop.
    const before = typeof next === 'number' && next !== node.id ? this.nodes.get(next) : undefined;
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
    this.version++;
    const parent = this.nodes.get(node.parent);
    if (parent) {
      if (node.prev !== undefined) this.nodes.get(node.prev)!.next = node.next;
      else parent.first = node.next;
      if (node.next !== undefined) this.nodes.get(node.next)!.prev = node.prev;
      else parent.last = node.prev;
    }
    const stack = [id];
    // Each node is reached through at most two links (its parent's first, its sibling's next):
    // more steps than that means the links loop, which a hostile recording can make, and the
    // walk stops rather than growing its stack until the process dies.
    let steps = 2 * this.nodes.size;
    while (stack.length > 0) {
      const entry = this.nodes.get(stack.pop()!);
      if (!entry) continue;
      this.nodes.delete(entry.id);
      if (entry.tag === 'label' && entry.attrs?.for && this.labels.get(entry.attrs.for) === entry.id) this.labels.delete(entry.attrs.for);
      for (let child = entry.first; child !== undefined && steps > 0; child = this.nodes.get(child)?.next, steps--) stack.push(child);
    }
  }

  setText(id: number, value: unknown): void {
    const node = this.nodes.get(id);
    if (node && typeof value === 'string') {
      this.version++;
      node.text = value.slice(0, TEXT_MAX);
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

  setAttributes(id: number, changes: unknown): void {
    const node = this.nodes.get(id);
    if (!node || !node.tag || typeof changes !== 'object' || changes === null) return;
    this.version++;
    for (const [name, value] of Object.entries(changes as Record<string, unknown>)) {
      if (name === 'class' && !this.wholeClass) {
        const words = typeof value === 'string' ? messageClass(value) : undefined;
        if (words !== undefined) (node.attrs ??= {}).class = words;
        else if (node.attrs) delete node.attrs.class;
        continue;
      }
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
    // Bounded by the nodes there are, as remove() is: hostile data can make sibling links loop.
    let left = this.nodes.size;
    for (let child = this.nodes.get(id)?.first; child !== undefined && left-- > 0; ) {
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
      // The first 400 children, pushed and then turned around so they come off in document order.
      const from = stack.length;
      for (let child = node.first, n = 0; child !== undefined && n < 400; child = this.nodes.get(child)?.next, n++) stack.push(child);
      for (let i = from, j = stack.length - 1; i < j; i++, j--) {
        const swap = stack[i]!;
        stack[i] = stack[j]!;
        stack[j] = swap;
      }
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

/** The message and tone words of a class attribute (`alert alert-error`), or undefined when it has no message word. */
export function messageClass(value: string): string | undefined {
  if (!MESSAGE_CLASS_WORD.test(value)) return undefined;
  const words = value.slice(0, 4 * ATTRIBUTE_MAX).split(/\s+/).filter((word) => MESSAGE_CLASS_WORD.test(word) || TONE_CLASS_WORD.test(word));
  return words.length > 0 ? words.join(' ').slice(0, ATTRIBUTE_MAX) : undefined;
}

function keptAttributes(attributes: unknown, names: ReadonlySet<string>, wholeClass: boolean): Record<string, string> | undefined {
  if (typeof attributes !== 'object' || attributes === null) return undefined;
  let kept: Record<string, string> | undefined;
  // for…in rather than Object.entries: no array per element; own properties only, as before.
  const record = attributes as Record<string, unknown>;
  for (const name in record) {
    if (name === 'class' && !wholeClass) {
      const value = record[name];
      const words = typeof value === 'string' && Object.hasOwn(record, name) ? messageClass(value) : undefined;
      if (words !== undefined) (kept ??= {}).class = words;
      continue;
    }
    if (!names.has(name) || !Object.hasOwn(record, name)) continue;
    const value = record[name];
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    (kept ??= {})[name] = String(value).slice(0, ATTRIBUTE_MAX);
  }
  return kept;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
