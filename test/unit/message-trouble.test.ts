// Which page messages tell the person something went wrong (rules/messages.ts tellsTrouble), read
// through the digest as a recording gives them (the DOM mirror keeps only some class words), and
// how the triage's aggregate ranks them: those that tell of trouble, grouped by their text.
import { describe, expect, it } from 'vitest';
import { aggregate, type TriageInput } from '../../src/digest/aggregate.js';
import { Digester, type Digest, type TimelineItem } from '../../src/digest/digest.js';

const T0 = Date.UTC(2026, 10, 1, 9, 0, 0);
const el = (id: number, tagName: string, attributes: Record<string, string> = {}, childNodes: unknown[] = []) => ({ type: 2, id, tagName, attributes, childNodes });
const txt = (id: number, textContent: string) => ({ type: 3, id, textContent });

/** A page with an empty container (id 9), then one element added into it per mutation, each 1 s apart. */
function messagesShown(shown: Array<[tag: string, attributes: Record<string, string>, text: string]>): TimelineItem[] {
  const d = new Digester();
  const push = (event: { type: number; timestamp: number; data: unknown }) => d.push('win-a', event);
  push({ type: 4, timestamp: T0, data: { href: 'https://shop.test/checkout', width: 1280, height: 720 } });
  push({ type: 2, timestamp: T0 + 1, data: { node: { type: 0, id: 1, childNodes: [el(2, 'html', {}, [el(3, 'body', {}, [el(9, 'main')])])] }, initialOffset: { top: 0, left: 0 } } });
  shown.forEach(([tag, attributes, text], i) => {
    const id = 100 + i * 2;
    push({ type: 3, timestamp: T0 + 1_000 * (i + 1), data: { source: 0, texts: [], attributes: [], removes: [], adds: [{ parentId: 9, nextId: null, node: el(id, tag, attributes, [txt(id + 1, text)]) }] } });
  });
  return d.finish().timeline.filter((item) => item.kind === 'message');
}

describe('page messages that tell of trouble', () => {
  it('an alert, an error toast, a form error or a danger notification tells of trouble', () => {
    const messages = messagesShown([
      ['p', { class: 'alert alert-error' }, "We couldn't process your payment."],
      ['div', { role: 'alert' }, 'Card declined'],
      ['div', { class: 'toast toast-error', role: 'status' }, 'Could not save'],
      ['div', { class: 'invalid-feedback' }, 'Enter a valid postcode'],
      ['div', { class: 'notification is-danger' }, 'Server unreachable'],
      ['span', { id: 'email-error' }, 'Email is required'],
    ]);
    expect(messages.map((m) => [m.detail, m.trouble])).toEqual([
      ["We couldn't process your payment.", true],
      ['Card declined', true],
      ['Could not save', true],
      ['Enter a valid postcode', true],
      ['Server unreachable', true],
      ['Email is required', true],
    ]);
  });

  it('a success or info alert, a status, a neutral toast, a dialog or a heading does not', () => {
    const messages = messagesShown([
      ['div', { role: 'alert', class: 'alert alert-success' }, 'Payment received'],
      ['div', { class: 'alert alert-info' }, 'Orders ship on Monday'],
      ['div', { role: 'status' }, 'Added Trail Runner 2 to your cart'],
      ['div', { class: 'toast' }, 'Your details were saved'],
      ['div', { role: 'dialog' }, 'Choose a size'],
      ['h1', {}, 'Thank you for your order'],
    ]);
    expect(messages.map((m) => m.detail)).toEqual(['Payment received', 'Orders ship on Monday', 'Added Trail Runner 2 to your cart', 'Your details were saved', 'Choose a size', 'Thank you for your order']);
    expect(messages.filter((m) => m.trouble)).toEqual([]);
  });

  it('a status that turns into an error later tells of trouble from then', () => {
    const d = new Digester();
    const push = (event: { type: number; timestamp: number; data: unknown }) => d.push('win-a', event);
    push({ type: 4, timestamp: T0, data: { href: 'https://shop.test/newsletter', width: 1280, height: 720 } });
    push({ type: 2, timestamp: T0 + 1, data: { node: { type: 0, id: 1, childNodes: [el(2, 'html', {}, [el(3, 'body', {}, [el(9, 'p', { class: 'form-status', 'aria-live': 'polite' }, [txt(10, '')])])])] }, initialOffset: { top: 0, left: 0 } } });
    push({ type: 3, timestamp: T0 + 1_000, data: { source: 0, texts: [{ id: 10, value: 'Please tick the consent box.' }], attributes: [{ id: 9, attributes: { class: 'form-status error' } }], removes: [], adds: [] } });
    push({ type: 3, timestamp: T0 + 2_000, data: { source: 0, texts: [{ id: 10, value: "You're in!" }], attributes: [{ id: 9, attributes: { class: 'form-status success' } }], removes: [], adds: [] } });
    const messages = d.finish().timeline.filter((item) => item.kind === 'message');
    expect(messages.map((m) => [m.detail, m.trouble ?? false])).toEqual([
      ['Please tick the consent box.', true],
      ["You're in!", false],
    ]);
  });
});

const START = Date.parse('2026-11-20T10:00:00Z');
function digest(timeline: TimelineItem[]): Digest {
  return {
    start: START,
    end: START + 60_000,
    duration_ms: 60_000,
    active_ms: 30_000,
    windows: [{ w: 'w1', window_id: 'a', pages: 1 }],
    pages: [{ t: 0, w: 'w1', url: 'https://shop.example.com/checkout' }],
    timeline,
    counts: {} as Digest['counts'],
    timing: { frozen: false, stray: 0 },
    notes: [],
  };
}

describe('the aggregate ranks page messages that tell of trouble', () => {
  const inputs: TriageInput[] = [
    {
      id: 's1',
      person: 'p1',
      digest: digest([
        { t: 2_000, w: 'w1', kind: 'console-error', detail: 'Payment failed: 402', count: 3 },
        { t: 2_100, w: 'w1', kind: 'message', target: 'alert', detail: 'Payment of 42.00 EUR failed. Please try again.', trouble: true },
        { t: 9_000, w: 'w1', kind: 'message', target: 'heading', detail: 'Thank you for your order' },
      ]),
    },
    {
      id: 's2',
      person: 'p2',
      digest: digest([
        { t: 4_000, w: 'w1', kind: 'message', target: 'alert', detail: 'Payment of 7.50 EUR failed. Please try again.', trouble: true, count: 2 },
        { t: 5_000, w: 'w1', kind: 'message', target: 'status', detail: 'Added Trail Runner 2 to your cart' },
      ]),
    },
  ];

  it('grouped by their folded text, counted like console messages, neutral ones left out', () => {
    const { problems, sessions, pages } = aggregate(inputs);
    const messages = problems.filter((p) => p.kind === 'message');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ signature: 'Payment of N EUR failed. Please try again.', sample: 'Payment of 42.00 EUR failed. Please try again.', sessions: 2, people: 2, occurrences: 3 });
    expect(messages[0]!.examples).toEqual([
      { session_id: 's1', at_s: 2, link: undefined },
      { session_id: 's2', at_s: 4, link: undefined },
    ]);
    expect(problems.some((p) => /Thank you|Added Trail/.test(p.signature))).toBe(false);
    expect(sessions.find((s) => s.id === 's1')!.error_messages).toBe(1);
    expect(sessions.find((s) => s.id === 's2')!.error_messages).toBe(2);
    expect(pages[0]).toMatchObject({ page: 'shop.example.com/checkout', sessions: 2 });
  });

  it('ranked by sessions hit first; among problems of as many sessions, what the person was told first', () => {
    const { problems } = aggregate(inputs);
    expect(problems.map((p) => [p.kind, p.sessions, p.occurrences])).toEqual([
      ['message', 2, 3],
      ['console-error', 1, 3],
    ]);
    const oneSession = aggregate([inputs[0]!]).problems;
    expect(oneSession.map((p) => [p.kind, p.occurrences])).toEqual([
      ['message', 1],
      ['console-error', 3],
    ]);
  });
});
