/**
 * Page messages: text the page put in front of the person in answer to what they did (an alert,
 * a toast, a form error, a dialog, the heading of a confirmation page). Found in a window's DOM
 * mirror where an element is added, or its text or state changes, that is (or is inside) a
 * role=alert/status/dialog element, an aria-live region, a <dialog>, or an element whose class or
 * id says alert, toast, error, notice, banner and the like; and the first h1 of a new page.
 *
 * A message that tells the person something went wrong is marked `trouble` (tellsTrouble), for the
 * triage to rank beside errors and failed requests; a status, a confirmation or a heading is not.
 *
 * A message is short, masked and budgeted: what the person typed into a field never shows, even
 * inside such text (a greeting that repeats the typed name); text the recorder masked stays as
 * it was recorded (`***`); the same text again counts on the first; and at most MESSAGES_MAX
 * messages (MESSAGE_CHARS characters) and HEADINGS_MAX headings are kept a recording.
 */

import { MESSAGE_CLASS_WORD, type MirrorNode, type NodeMirror } from '../mirror.js';
import type { Digest, TimelineItem } from '../model.js';
import { clip, plural } from '../../words.js';

/** The longest message shown, in characters. */
export const MESSAGE_MAX = 120;
/** Messages kept a recording, and the characters they may take together. */
export const MESSAGES_MAX = 10;
export const MESSAGE_CHARS = 1_000;
/** Page headings kept a recording (they share nothing with the messages' budget). */
export const HEADINGS_MAX = 5;
/** Read this far into a message's text before masking, so a value cut at MESSAGE_MAX is still seen whole. */
const READ_CHARS = 400;
/** Levels walked up from a changed node to the message element around it. */
const UP_LEVELS = 10;
/** Nodes looked at inside one mutation's added subtrees. */
const SUBTREE_NODES = 2_000;
/** Typed values remembered (the last value of each field). */
const TYPED_KEPT = 64;
const TYPED_VALUE_MAX = 200;
const MASK = '***';

export interface FoundMessage {
  text: string;
  /** what made it a message: alert, status, dialog, live region, a class word, heading */
  source: string;
  /** the element it was read from */
  id: number;
  /** it tells of trouble (tellsTrouble) */
  trouble: boolean;
}

const ROLE_SOURCES: Record<string, string> = { alert: 'alert', alertdialog: 'dialog', status: 'status', dialog: 'dialog' };

/** Why an element is a message to the person, or undefined when it is not one. */
export function messageSource(node: MirrorNode): string | undefined {
  if (!node.tag || node.tag === 'html' || node.tag === 'body' || node.tag === 'head') return undefined;
  if (node.tag === 'dialog') return 'dialog';
  const attrs = node.attrs;
  if (!attrs) return undefined;
  const role = attrs.role ? ROLE_SOURCES[attrs.role.toLowerCase()] : undefined;
  if (role) return role;
  const live = attrs['aria-live']?.toLowerCase();
  if (live === 'polite' || live === 'assertive') return 'live region';
  const word = (attrs.class !== undefined ? MESSAGE_CLASS_WORD.exec(attrs.class) : null) ?? (attrs.id !== undefined ? MESSAGE_CLASS_WORD.exec(attrs.id) : null);
  if (word) {
    const name = word[0].replace(/[\s_-]/g, '').toLowerCase();
    return name === 'errors' ? 'error' : name;
  }
  return undefined;
}

/** Class and id words that say a message tells of trouble, and words that say it does not. */
const TROUBLE_WORD = /(?:^|[\s_-])(?:error|errors|danger|fail|failed|failure|invalid|critical|destructive|negative)(?:$|[\s_-])/i;
const CALM_WORD = /(?:^|[\s_-])(?:success|info|notice|positive)(?:$|[\s_-])/i;

/**
 * Whether a message tells the person that something went wrong: its class or id says so (an
 * error, a danger, an invalid field), or it is an alert (role=alert, or an alert class word) that
 * they do not say is a success or for information. A status, toast, banner or dialog is trouble
 * only when its words say so; a page's heading never is. Read from the markup alone, not the
 * text's words, which are in the site's own language.
 */
export function tellsTrouble(node: MirrorNode, source: string): boolean {
  if (source === 'heading') return false;
  const words = `${node.attrs?.class ?? ''} ${node.attrs?.id ?? ''}`;
  if (TROUBLE_WORD.test(words)) return true;
  if (CALM_WORD.test(words)) return false;
  return source === 'alert';
}

/** The message element at or around a node, if any. */
function containerOf(mirror: NodeMirror, id: number): MirrorNode | undefined {
  let node = mirror.get(id);
  for (let depth = 0; node && depth < UP_LEVELS; depth++) {
    if (node.tag && messageSource(node)) return node;
    node = mirror.get(node.parent);
  }
  return undefined;
}

/** Looks inside a subtree for message elements and (when wanted) an h1, within `budget` nodes. */
function searchSubtree(mirror: NodeMirror, root: number, wantHeading: boolean, found: Map<number, string>, budget: { left: number }): void {
  const stack = [root];
  while (stack.length > 0 && budget.left-- > 0) {
    const node = mirror.get(stack.pop()!);
    if (!node?.tag) continue;
    if (node.tag === 'script' || node.tag === 'style' || node.tag === 'head' || mirror.isUserText(node)) continue;
    const source = messageSource(node);
    if (source) {
      if (!found.has(node.id)) found.set(node.id, source);
      continue;
    }
    if (node.tag === 'h1' && wantHeading && ![...found.values()].includes('heading')) {
      found.set(node.id, 'heading');
      continue;
    }
    const from = stack.length;
    for (const child of mirror.children(node.id)) stack.push(child.id);
    stack.splice(from, stack.length - from, ...stack.slice(from).reverse());
  }
}

/** Attribute changes that show or hide a message element (or make one). */
const SHOWING_ATTRIBUTES = ['class', 'style', 'hidden', 'open', 'role', 'aria-live', 'aria-hidden'];

/** The message elements an rrweb mutation (already applied to the mirror) added, filled or showed. */
export function messagesInMutation(mirror: NodeMirror, data: Record<string, unknown>, wantHeading: boolean): FoundMessage[] {
  const found = new Map<number, string>();
  const budget = { left: SUBTREE_NODES };
  const around = (id: unknown) => {
    if (typeof id !== 'number') return undefined;
    const container = containerOf(mirror, id);
    if (container) found.set(container.id, messageSource(container)!);
    return container;
  };
  for (const add of asArray(data.adds)) {
    const id = (add as { node?: { id?: unknown } }).node?.id;
    if (typeof id !== 'number' || !mirror.has(id)) continue;
    if (!around(id) && budget.left > 0) searchSubtree(mirror, id, wantHeading, found, budget);
  }
  for (const change of asArray(data.texts)) around((change as { id?: unknown }).id);
  for (const change of asArray(data.attributes)) {
    const { id, attributes } = change as { id?: unknown; attributes?: unknown };
    if (typeof attributes === 'object' && attributes !== null && SHOWING_ATTRIBUTES.some((name) => name in attributes)) around(id);
  }
  return read(mirror, found);
}

/** What a new full snapshot shows: alerts and dialogs already there, and (when wanted) the first h1. */
export function messagesInSnapshot(mirror: NodeMirror, wantHeading: boolean): FoundMessage[] {
  const found = new Map<number, string>();
  let heading: number | undefined;
  let left = 20_000;
  let root: number | undefined;
  for (const node of mirror.all()) {
    if (node.parent === -1) {
      root = node.id;
      break;
    }
  }
  if (root === undefined) return [];
  const stack = [root];
  while (stack.length > 0 && left-- > 0) {
    const node = mirror.get(stack.pop()!);
    if (!node) continue;
    if (node.tag === 'script' || node.tag === 'style' || node.tag === 'head' || (node.tag && mirror.isUserText(node))) continue;
    // Present at load: only what is plainly a message (a class word is too often layout).
    const role = node.attrs?.role?.toLowerCase();
    if (node.tag === 'dialog' ? node.attrs?.open !== undefined : role === 'alert' || role === 'alertdialog') found.set(node.id, messageSource(node)!);
    else if (wantHeading && heading === undefined && node.tag === 'h1') heading = node.id;
    const from = stack.length;
    for (const child of mirror.children(node.id)) stack.push(child.id);
    stack.splice(from, stack.length - from, ...stack.slice(from).reverse());
  }
  if (heading !== undefined) found.set(heading, 'heading');
  return read(mirror, found);
}

function read(mirror: NodeMirror, found: Map<number, string>): FoundMessage[] {
  const out: FoundMessage[] = [];
  for (const [id, source] of found) {
    const text = mirror.textOf(id, READ_CHARS);
    const node = mirror.get(id);
    if (text && node) out.push({ id, source, text, trouble: tellsTrouble(node, source) });
  }
  return out;
}

/**
 * Masks what the person typed (each value, and each word of it of 3 or more characters) and, where
 * given, other words (the person's name and email) in page text.
 */
export class TypedWords {
  private readonly values = new Map<string, string>();
  private pattern: RegExp | null | undefined;
  /** whether an input was recorded masked (rrweb writes `*` for each character) */
  masked = false;

  /** The value a field holds now (`key` names the field), as an input event recorded it. */
  typed(key: string, text: unknown): void {
    if (typeof text !== 'string' || text.length === 0) return;
    if (/^\*+$/.test(text)) {
      this.masked = true;
      return;
    }
    this.values.delete(key);
    if (this.values.size >= TYPED_KEPT) this.values.delete(this.values.keys().next().value!);
    this.values.set(key, text.slice(0, TYPED_VALUE_MAX));
    this.pattern = undefined;
  }

  /** Text with every typed value and word masked. */
  mask(text: string): string {
    if (this.pattern === undefined) this.pattern = maskPattern([...this.values.values()]);
    return this.pattern ? text.replace(this.pattern, MASK) : text;
  }
}

/** One pattern for a list of values: each value anywhere, each word of 3+ characters as a whole word. */
export function maskPattern(values: readonly string[]): RegExp | null {
  const whole = new Set<string>();
  const words = new Set<string>();
  for (const value of values) {
    const trimmed = value.trim();
    if ([...trimmed].length >= 3) whole.add(trimmed.toLowerCase());
    for (const word of trimmed.split(/[^\p{L}\p{N}]+/u)) if ([...word].length >= 3) words.add(word.toLowerCase());
  }
  if (whole.size === 0 && words.size === 0) return null;
  const alternation = (set: Set<string>) => [...set].sort((a, b) => b.length - a.length).map(escape).join('|');
  const parts = [...(whole.size ? [`(?:${alternation(whole)})`] : []), ...(words.size ? [`(?<![\\p{L}\\p{N}])(?:${alternation(words)})(?![\\p{L}\\p{N}])`] : [])];
  return new RegExp(parts.join('|'), 'giu');
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * What is kept of the messages a recording shows: each text once (a repeat counts on the first;
 * digits do not make a text new, so "Attempt 2" repeats "Attempt 1"), within the budgets.
 */
export class MessageBook {
  private readonly seen = new Map<string, TimelineItem>();
  private messages = 0;
  private headings = 0;
  private chars = 0;
  private readonly droppedKeys = new Set<string>();

  constructor(readonly typed: TypedWords) {}

  /**
   * The entry to add for a found message, or undefined when it repeats one (counted on it) or the
   * budget is spent (counted as left out).
   */
  accept(found: FoundMessage, add: (item: Omit<TimelineItem, 't' | 'w'>) => TimelineItem): void {
    const text = clip(this.typed.mask(found.text), MESSAGE_MAX);
    const key = text.toLowerCase().replace(/\d+/g, '#');
    const earlier = this.seen.get(key);
    if (earlier) {
      earlier.count = (earlier.count ?? 1) + 1;
      if (found.trouble) earlier.trouble = true;
      // Its numbers as they last were ("Attempt 5."), so the repeat reads as a range, not as the first five times.
      if (text !== earlier.detail) earlier.last_detail = text;
      else delete earlier.last_detail;
      return;
    }
    const heading = found.source === 'heading';
    if (heading ? this.headings >= HEADINGS_MAX : this.messages >= MESSAGES_MAX || this.chars + text.length > MESSAGE_CHARS) {
      if (this.droppedKeys.size < 1_000) this.droppedKeys.add(key);
      return;
    }
    if (heading) this.headings++;
    else {
      this.messages++;
      this.chars += text.length;
    }
    this.seen.set(key, add({ kind: 'message', target: found.source, detail: text, ...(found.trouble ? { trouble: true as const } : {}) }));
  }

  /** A note on the messages left out, if any. */
  note(): string | undefined {
    const n = this.droppedKeys.size;
    return n > 0 ? `${plural(n, 'more page message')} not kept (at most ${MESSAGES_MAX} messages and ${HEADINGS_MAX} page headings a recording).` : undefined;
  }
}

/**
 * The digest with `words` (the person's name and email as PostHog has them) masked in its page
 * messages, where an input was recorded masked: the site masks what people type, so the page
 * text that repeats it is masked too. A copy when anything changes.
 */
export function maskPersonWords(digest: Digest, words: ReadonlyArray<string | null | undefined>): Digest {
  if (!digest.inputs_masked) return digest;
  const pattern = maskPattern(words.filter((w): w is string => typeof w === 'string' && w.length > 0).map((w) => w.slice(0, TYPED_VALUE_MAX)));
  if (!pattern) return digest;
  let changed = false;
  const timeline = digest.timeline.map((item) => {
    if (item.kind !== 'message' || !item.detail) return item;
    const detail = item.detail.replace(pattern, MASK);
    const last = item.last_detail?.replace(pattern, MASK);
    if (detail === item.detail && last === item.last_detail) return item;
    changed = true;
    return { ...item, detail, ...(last !== undefined ? { last_detail: last } : {}) };
  });
  return changed ? { ...digest, timeline } : digest;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
