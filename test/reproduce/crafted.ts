// Recordings made by hand for the reproduce tests: a hostile one (a page nested thousands deep,
// clicked 20 times) and small journeys that show one behaviour each.

export type Line = [string, { type: number; timestamp: number; data: unknown }];
type SNode = { type: number; id: number; tagName?: string; attributes?: Record<string, string>; childNodes?: SNode[]; textContent?: string };

export const T0 = 1_700_000_000_000;

/** A page of `width` chains of `depth` nested divs, each ending in text, and 20 clicks on the chains' ends. */
export function deepDomRecording(depth = 1000, width = 90, clicks = 20): Line[] {
  let id = 1;
  const leaves: number[] = [];
  const body: SNode = { type: 2, id: id++, tagName: 'body', attributes: {}, childNodes: [] };
  for (let w = 0; w < width; w++) {
    const root: SNode = { type: 2, id: id++, tagName: 'div', attributes: {}, childNodes: [] };
    let current = root;
    for (let d = 0; d < depth; d++) {
      const next: SNode = { type: 2, id: id++, tagName: 'div', attributes: {}, childNodes: [] };
      current.childNodes!.push(next);
      current = next;
    }
    current.childNodes!.push({ type: 3, id: id++, textContent: `leaf ${w}` });
    leaves.push(current.id);
    body.childNodes!.push(root);
  }
  const doc: SNode = { type: 0, id: id++, childNodes: [{ type: 2, id: id++, tagName: 'html', attributes: {}, childNodes: [body] }] };
  const lines: Line[] = [
    ['w', { type: 4, timestamp: T0, data: { href: 'https://deep.test/', width: 1280, height: 800 } }],
    ['w', { type: 2, timestamp: T0 + 1, data: { node: doc, initialOffset: { top: 0, left: 0 } } }],
  ];
  for (let i = 0; i < clicks; i++) lines.push(['w', { type: 3, timestamp: T0 + 2_000 * (i + 1), data: { source: 2, type: 2, id: leaves[i % leaves.length], x: 1, y: 1 } }]);
  return lines;
}
