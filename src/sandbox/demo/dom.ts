// A tiny virtual DOM for the demo pages and its serializer to rrweb's node format.
// Interactive elements carry a `$key` (so a script can click "place-order" without
// knowing node ids) and a `$at` position (page coordinates of their centre, used for
// mouse positions). Node ids are assigned in document order, starting at 1 for the
// document, as rrweb does for each new page load.

import { NodeType, type SerializedNode } from './rrweb.js';

export type AttrValue = string | number | boolean;
export interface Point {
  x: number;
  y: number;
}

export interface VElement {
  tag: string;
  attrs: Record<string, AttrValue>;
  children: VNode[];
  key?: string;
  at?: Point;
}
export interface VComment {
  comment: string;
}
export type VNode = VElement | VComment | string;

type Child = VNode | readonly Child[] | null | undefined | false;
export type Props = Record<string, AttrValue | null | undefined | readonly [number, number]>;

export function h(tag: string, props?: Props | null, ...children: Child[]): VElement {
  const attrs: Record<string, AttrValue> = {};
  let key: string | undefined;
  let at: Point | undefined;
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === '$key') key = String(value);
    else if (name === '$at' && Array.isArray(value)) at = { x: value[0] as number, y: value[1] as number };
    else if (typeof value !== 'object') attrs[name] = value;
  }
  const el: VElement = { tag, attrs, children: flatten(children) };
  if (key !== undefined) el.key = key;
  if (at !== undefined) el.at = at;
  return el;
}

export function comment(text: string): VComment {
  return { comment: text };
}

function flatten(children: readonly Child[]): VNode[] {
  const out: VNode[] = [];
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) out.push(...flatten(child as readonly Child[]));
    else out.push(child as VNode);
  }
  return out;
}

export interface KeyedElement {
  id: number;
  tag: string;
  attrs: Record<string, AttrValue>;
  text: string;
  /** Id of the element's first text child, for text mutations. */
  textId?: number;
  at?: Point;
  /** Tag chain from the element up to <body>, for autocapture's $elements_chain. */
  ancestors: Array<{ tag: string; attrs: Record<string, AttrValue> }>;
}

/** The serialized form of one page load, plus what a script needs to act on it. */
export interface PageDom {
  root: SerializedNode;
  keyed: Map<string, KeyedElement>;
  parents: Map<number, number>;
  nextId: number;
}

export function serializePage(html: VElement): PageDom {
  const page: PageDom = {
    root: { type: NodeType.Document, id: 1, childNodes: [] },
    keyed: new Map(),
    parents: new Map(),
    nextId: 2,
  };
  const doctype: SerializedNode = { type: NodeType.DocumentType, name: 'html', publicId: '', systemId: '', id: page.nextId++ };
  page.parents.set(doctype.id, 1);
  const htmlNode = serializeInto(page, 1, html);
  page.root.childNodes = [doctype, htmlNode];
  return page;
}

/** Serializes `node` as a new child of `parentId`, taking fresh ids from the page. */
export function serializeInto(page: PageDom, parentId: number, node: VNode, ancestors: KeyedElement['ancestors'] = []): SerializedNode {
  const id = page.nextId++;
  page.parents.set(id, parentId);
  if (typeof node === 'string') {
    return { type: NodeType.Text, textContent: node, id };
  }
  if ('comment' in node) {
    return { type: NodeType.Comment, textContent: node.comment, id };
  }
  const attributes: Record<string, string | boolean> = {};
  const classes = typeof node.attrs.class === 'string' ? node.attrs.class.split(/\s+/) : [];
  if (classes.includes('ph-no-capture')) {
    // posthog-js' blockClass: rrweb records only the element's box, never its content or input.
    const blocked: SerializedNode = {
      type: NodeType.Element,
      tagName: node.tag,
      attributes: { class: String(node.attrs.class), rr_width: '320px', rr_height: '44px' },
      childNodes: [],
      id,
    };
    if (node.key !== undefined) {
      const keyed: KeyedElement = { id, tag: node.tag, attrs: node.attrs, text: '', ancestors: [{ tag: node.tag, attrs: node.attrs }, ...ancestors] };
      if (node.at) keyed.at = node.at;
      page.keyed.set(node.key, keyed);
    }
    return blocked;
  }
  for (const [name, value] of Object.entries(node.attrs)) {
    // rrweb keeps checked/selected as booleans and every other attribute as a string.
    if (value === true) attributes[name] = name === 'checked' || name === 'selected' ? true : '';
    else attributes[name] = String(value);
  }
  const chain = [{ tag: node.tag, attrs: node.attrs }, ...ancestors];
  const childNodes = node.children.map((child) => {
    const serialized = serializeInto(page, id, child, chain);
    if (node.tag === 'style' && serialized.type === NodeType.Text) serialized.isStyle = true;
    return serialized;
  });
  const out: SerializedNode = { type: NodeType.Element, tagName: node.tag, attributes, childNodes, id };
  if (node.tag === 'svg') out.isSVG = true;
  if (node.key !== undefined) {
    const firstText = childNodes.find((c) => c.type === NodeType.Text);
    const keyed: KeyedElement = { id, tag: node.tag, attrs: node.attrs, text: textOf(node).trim(), ancestors: chain };
    if (firstText) keyed.textId = firstText.id;
    if (node.at) keyed.at = node.at;
    page.keyed.set(node.key, keyed);
  }
  return out;
}

export function textOf(node: VNode): string {
  if (typeof node === 'string') return node;
  if ('comment' in node) return '';
  return node.children.map(textOf).join(' ').replace(/\s+/g, ' ');
}

/**
 * PostHog's `$elements_chain` string for an autocaptured element: one entry per element from
 * the target up the tree, `tag.class1.class2:` followed by its attributes sorted by key
 * (`attr__…`, `attr_id`, `href`, `nth-child`, `nth-of-type`, `text`), entries joined by `;`.
 */
export function elementsChain(el: KeyedElement): string {
  const quote = (v: unknown) => `"${String(v).replace(/"/g, '\\"')}"`;
  return el.ancestors
    .filter((a) => a.tag !== 'html')
    .slice(0, 6)
    .map((a, i) => {
      const classes = typeof a.attrs.class === 'string' ? a.attrs.class.split(/\s+/).filter(Boolean) : [];
      const attrs: Record<string, unknown> = { 'nth-child': 1, 'nth-of-type': 1 };
      for (const [name, value] of Object.entries(a.attrs)) {
        if (name === 'style' || name === 'value') continue;
        attrs[`attr__${name}`] = value;
      }
      if (a.attrs.id !== undefined) attrs.attr_id = a.attrs.id;
      if (a.tag === 'a' && a.attrs.href !== undefined) attrs.href = a.attrs.href;
      if (i === 0 && el.text) attrs.text = el.text.slice(0, 400);
      const body = Object.keys(attrs)
        .sort()
        .map((k) => `${k}=${quote(attrs[k])}`)
        .join('');
      return `${[a.tag, ...classes].join('.')}:${body}`;
    })
    .join(';');
}
