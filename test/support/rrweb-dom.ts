/** An rrweb serialized node, as a full snapshot carries it. */
export type Node = { type: number; id: number; tagName?: string; attributes?: Record<string, string>; childNodes?: Node[]; textContent?: string };

/**
 * A small builder of rrweb full-snapshot DOMs for tests: `el(tag, attributes, ...children)` (a
 * string child is a text node), and `page(...body)`, a document with a title and that body. Ids
 * are numbered in order of creation, one counter a builder.
 */
export function dom() {
  let next = 1;
  const el = (tagName: string, attributes: Record<string, string> = {}, ...children: Array<Node | string>): Node => ({
    type: 2,
    id: next++,
    tagName,
    attributes,
    childNodes: children.map((c) => (typeof c === 'string' ? { type: 3, id: next++, textContent: c } : c)),
  });
  const page = (...body: Node[]): Node => ({ type: 0, id: next++, childNodes: [el('html', {}, el('head', {}, el('title', {}, 'T')), el('body', {}, ...body))] });
  return { el, page, doc: page };
}
