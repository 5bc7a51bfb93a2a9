import { describe, expect, it } from 'vitest';
import { Digester, type Digest } from '../../src/digest/digest.js';
import { NodeMirror } from '../../src/digest/mirror.js';

// The digest keeps element and field names between changes of the DOM mirror (digest.ts NameCache)
// and stores nodes by id in an array or a Map (mirror.ts NodeStore): these tests pin what that
// must not change, and a hostile recording that once made the mirror's links loop.
const T0 = Date.UTC(2026, 10, 1, 9, 0, 0);
const el = (id: number, tagName: string, attributes: Record<string, string> = {}, childNodes: unknown[] = []) => ({ type: 2, id, tagName, attributes, childNodes });
const txt = (id: number, textContent: string) => ({ type: 3, id, textContent });
const full = (t: number, node: unknown) => ({ type: 2, timestamp: T0 + t, data: { node } });
const meta = (t: number) => ({ type: 4, timestamp: T0 + t, data: { href: 'https://shop.test/checkout' } });
const inc = (t: number, data: Record<string, unknown>) => ({ type: 3, timestamp: T0 + t, data });
const click = (t: number, id: number) => inc(t, { source: 2, type: 2, id });
const input = (t: number, id: number, text: string) => inc(t, { source: 5, id, text, isChecked: false });
const mutation = (t: number, data: Record<string, unknown>) => inc(t, { source: 0, adds: [], removes: [], texts: [], attributes: [], ...data });

function digestOf(events: Array<{ type: number; timestamp: number; data?: unknown }>): Digest {
  const digester = new Digester();
  for (const event of events) digester.push('w', event);
  return digester.finish();
}

const page = (buttonId: number) => ({
  type: 0,
  id: 1,
  childNodes: [
    el(2, 'html', {}, [
      el(3, 'body', {}, [
        el(buttonId, 'button', {}, [txt(buttonId + 1, 'Pay now')]),
        el(6, 'label', { for: 'email' }, [txt(7, 'Email')]),
        el(8, 'input', { id: 'email', type: 'email' }),
      ]),
    ]),
  ],
});

const targets = (digest: Digest, kind: string) => digest.timeline.filter((item) => item.kind === kind).map((item) => item.target);

describe('element names between DOM changes', () => {
  it('names an element anew after its text, its attributes or the page changed', () => {
    const digest = digestOf([
      meta(0),
      full(0, page(4)),
      click(1_000, 4),
      mutation(2_000, { texts: [{ id: 5, value: 'Paying…' }] }),
      click(4_000, 4),
      mutation(5_000, { attributes: [{ id: 4, attributes: { 'aria-label': 'Retry payment' } }] }),
      click(7_000, 4),
      mutation(8_000, { removes: [{ id: 5 }], adds: [{ parentId: 4, nextId: null, node: txt(9, 'Pay again') }] }),
      click(10_000, 4),
    ]);
    expect(targets(digest, 'click')).toEqual(['button "Pay now"', 'button "Paying…"', 'button "Retry payment"', 'button "Retry payment"']);
  });

  it('names a field anew when its label changes between keystrokes, and the same while it does not', () => {
    const digest = digestOf([
      meta(0),
      full(0, page(4)),
      input(1_000, 8, 'a'),
      input(1_200, 8, 'ab'),
      mutation(1_300, { texts: [{ id: 7, value: 'Work email' }] }),
      input(1_400, 8, 'abc'),
    ]);
    expect(targets(digest, 'input')).toEqual(['input[email]#email "Email"', 'input[email]#email "Work email"']);
  });

  it('names the same id by the page it is on after a new full snapshot', () => {
    const digest = digestOf([meta(0), full(0, page(4)), click(1_000, 4), full(3_000, { type: 0, id: 1, childNodes: [el(2, 'html', {}, [el(3, 'body', {}, [el(4, 'a', {}, [txt(5, 'Home')])])])] }), click(5_000, 4)]);
    expect(targets(digest, 'click').map((t) => t?.split(' ')[0])).toEqual(['button', 'a']);
  });
});

describe('the mirror by id', () => {
  it('keeps nodes whose ids are not small integers (negative, fractional, huge) like any other', () => {
    const mirror = new NodeMirror();
    const ids = [0, -3, 2.5, 1e9, 262_143, 262_144, 2 ** 40];
    mirror.reset({ type: 0, id: 1, childNodes: ids.map((id) => el(id, 'div', { id: `n${id}` })) });
    expect(mirror.size).toBe(ids.length + 1);
    for (const id of ids) expect(mirror.get(id)?.attrs?.id).toBe(`n${id}`);
    mirror.remove(1e9);
    mirror.remove(-3);
    expect(mirror.has(1e9)).toBe(false);
    expect(mirror.has(-3)).toBe(false);
    expect(mirror.size).toBe(ids.length - 1);
    expect(mirror.get(1)?.first).toBe(0);
    expect(mirror.get(1)?.last).toBe(2 ** 40);
  });

  it('survives a node added "before itself" and its removal (the links once looped and the process died)', () => {
    const mirror = new NodeMirror();
    mirror.reset({ type: 0, id: 1, childNodes: [el(4, 'div', {}, [txt(5, 'a')])] });
    mirror.add(txt(5, 'b'), 4, 5);
    mirror.add(el(6, 'span'), 4, null);
    expect(mirror.get(5)?.next).toBe(6);
    mirror.remove(4);
    expect(mirror.size).toBe(1);
    // The same through the digest: the recording is read to its end.
    const digest = digestOf([meta(0), full(0, page(4)), mutation(1_000, { adds: [{ parentId: 4, nextId: 5, node: txt(5, ' ') }] }), mutation(2_000, { removes: [{ id: 4 }] }), click(3_000, 8)]);
    expect(digest.counts.events).toBe(5);
    expect(targets(digest, 'click')).toEqual(['input[email]#email "Email"']);
  });
});
