// Page messages on the timeline (issue 32 item 1): what the page said to the person (an alert, a
// status, a confirmation heading), at its time, quoted as recorded data, with what the person
// typed masked, in the summary's text and its structured view alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { fixture } from '../src/sandbox/demo/recorded.js';
import { join } from 'node:path';
import { findCorpus, readEvents } from './corpus.js';
import { startHarness, text, type Harness } from './harness.js';
import { dom } from './support/rrweb-dom.js';
import { MAX_STRUCTURED_RATIO, views } from './support/views.js';

const P = String(DEMO.mainProjectId);
const FAILED_CHECKOUT = '0193a1f0-5c2e-7d41-9b8a-4e6f2a1c3d01';
const T = Date.parse('2026-11-20T10:00:00Z');
const W = 'window-1';

type Ev = { type: number; timestamp: number; data: unknown };
const el = (id: number, tagName: string, attributes: Record<string, string>, childNodes: unknown[] = []) => ({ type: 2, id, tagName, attributes, childNodes });
const txt = (id: number, textContent: string) => ({ type: 3, id, textContent });

/** A sign-up form: the person types their name, then the page greets them by it. */
function greeting(): { id: string; lines: Array<[string, Ev]> } {
  const events: Ev[] = [
    { type: 4, timestamp: T, data: { href: 'https://shop.test/signup', width: 1200, height: 800 } },
    {
      type: 2,
      timestamp: T + 10,
      data: {
        node: { type: 0, id: 1, childNodes: [el(2, 'html', {}, [el(3, 'body', {}, [el(4, 'label', { for: 'name' }, [txt(5, 'Your name')]), el(6, 'input', { id: 'name', type: 'text' }), el(7, 'button', { type: 'submit' }, [txt(8, 'Sign up')]), el(9, 'main', {})])])] },
        initialOffset: { left: 0, top: 0 },
      },
    },
    { type: 3, timestamp: T + 1_000, data: { source: 2, type: 2, id: 6, x: 5, y: 5 } },
    { type: 3, timestamp: T + 1_500, data: { source: 5, id: 6, text: 'Zephyrine Quillfeather', isChecked: false } },
    { type: 3, timestamp: T + 3_000, data: { source: 2, type: 2, id: 7, x: 5, y: 5 } },
    { type: 3, timestamp: T + 3_200, data: { source: 0, texts: [], attributes: [], removes: [], adds: [{ parentId: 9, nextId: null, node: el(20, 'h1', {}, [txt(21, 'Thank you, Zephyrine Quillfeather! Your account is ready.')]) }] } },
  ];
  return { id: 'page-messages-greeting', lines: events.map((e) => [W, e]) };
}

/** Inputs recorded masked, and a banner that names the person by the email PostHog has for them. */
function maskedInputs(): { id: string; distinctId: string; lines: Array<[string, Ev]> } {
  const events: Ev[] = [
    { type: 4, timestamp: T, data: { href: 'https://shop.test/login', width: 1200, height: 800 } },
    {
      type: 2,
      timestamp: T + 10,
      data: { node: { type: 0, id: 1, childNodes: [el(2, 'html', {}, [el(3, 'body', {}, [el(6, 'input', { id: 'email', type: 'email' }), el(9, 'div', { class: 'toast-container' })])])] }, initialOffset: { left: 0, top: 0 } },
    },
    { type: 3, timestamp: T + 1_500, data: { source: 5, id: 6, text: '*****************', isChecked: false } },
    { type: 3, timestamp: T + 3_200, data: { source: 0, texts: [], attributes: [], removes: [], adds: [{ parentId: 9, nextId: null, node: el(20, 'div', { role: 'status' }, [txt(21, 'Signed in as quill.z@example.org')]) }] } },
  ];
  return { id: 'page-messages-masked', distinctId: 'quill.z@example.org', lines: events.map((e) => [W, e]) };
}

describe('page messages in the summary', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { recordings: [greeting(), maskedInputs()] } });
  });
  afterAll(() => h.close());

  const summary = async (id: string) => {
    const r = await h.call('session-recording-summary', { project_id: P, id });
    expect(r.isError, text(r)).toBeFalsy();
    return { text: text(r), timeline: (r.structuredContent as { timeline?: string[] }).timeline ?? [], all: JSON.stringify(r) };
  };

  it("the sandbox's failed checkout shows the payment message at its time, in both views", async () => {
    const s = await summary(FAILED_CHECKOUT);
    const line = `1:14 page showed "We couldn't process your payment. Please try again." (alert)`;
    expect(s.text.split('\n')).toContain(line);
    expect(s.timeline).toContain(line);
  });

  it('a confirmation that repeats the typed name shows with the typed part masked', async () => {
    const s = await summary('page-messages-greeting');
    const line = '0:03 page showed "Thank you, ***! Your account is ready." (heading)';
    expect(s.text.split('\n')).toContain(line);
    expect(s.timeline).toContain(line);
    expect(s.all).not.toContain('Zephyrine');
    expect(s.all).not.toContain('Quillfeather');
  });

  it("where inputs were recorded masked, the person's email is masked in page text", async () => {
    const s = await summary('page-messages-masked');
    const line = '0:03 page showed "Signed in as ***" (status)';
    expect(s.text.split('\n')).toContain(line);
    expect(s.timeline).toContain(line);
  });

  it('a real rrweb recording (fixtures/recordings/checkout-failure.jsonl) shows its alert, repeats counted', async () => {
    const s = await summary(fixture('checkout-failure').session_id);
    const shown = s.text.split('\n').filter((l) => l.includes(' page showed '));
    expect(shown.some((l) => /^\d+:\d\d page showed "We couldn't place your order \(error 500\)\. Please try again\. Attempt 1…5\." \(alert\) ×5$/.test(l)), shown.join('\n')).toBe(true);
    expect(s.timeline.filter((l) => l.includes(' page showed '))).toEqual(shown);
  });
});

/**
 * A sign-up where the address is taken: the person types their email, the page shows an error toast
 * that repeats it, a success alert ("Welcome back") and the heading of the sign-in page.
 */
function addressTaken(id: string, email: string): { id: string; distinctId: string; lines: Array<[string, Ev]> } {
  const { el, page } = dom();
  const field = el('input', { id: 'email', type: 'email' });
  const submit = el('button', { type: 'submit' }, 'Create account');
  const toasts = el('div', { class: 'toast-stack' });
  const main = el('main', {});
  const root = page(el('h1', {}, 'Create your account'), field, submit, toasts, main);
  const added = (t: number, parentId: number, node: unknown): Ev => ({ type: 3, timestamp: T + t, data: { source: 0, texts: [], attributes: [], removes: [], adds: [{ parentId, nextId: null, node }] } });
  const events: Ev[] = [
    { type: 4, timestamp: T, data: { href: 'https://shop.test/signup', width: 1200, height: 800 } },
    { type: 2, timestamp: T + 10, data: { node: root, initialOffset: { left: 0, top: 0 } } },
    { type: 3, timestamp: T + 1_000, data: { source: 2, type: 2, id: field.id, x: 5, y: 5 } },
    { type: 3, timestamp: T + 1_500, data: { source: 5, id: field.id, text: email, isChecked: false } },
    { type: 3, timestamp: T + 3_000, data: { source: 2, type: 2, id: submit.id, x: 5, y: 5 } },
    added(3_200, toasts.id, el('div', { class: 'toast toast-error', role: 'status' }, `${email} is already registered. Sign in instead?`)),
    added(9_000, main.id, el('div', { role: 'alert', class: 'alert alert-success' }, 'Welcome back')),
  ];
  return { id, distinctId: `visitor-${id}`, lines: events.map((e) => [W, e]) };
}

type TriageProblem = { kind: string; signature: string; sessions: number; people: number; occurrences: number; example?: string; parts?: TriageProblem[] };
type TriageSession = { id: string; error_messages?: number };

describe('page messages in the triage', () => {
  // The week read whole (max_recordings above its 15 recordings): the digests' own ranking, which a
  // query-first triage shows for what only recordings hold (session-recordings-triage, triage-scale.test.ts).
  describe("the sandbox's week", () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness();
    });
    afterAll(() => h.close());

    it("ranks the failed checkout's payment message, with its example, in both views; no confirmation, status or heading", async () => {
      const v = views(await h.call('session-recordings-triage', { project_id: P, date_from: '-7d', max_recordings: 50 }));
      const problems = v.data.problems as TriageProblem[];
      // The message is a part of the failed checkout's one failure (the 500 before it, the rage click after), with its own counts.
      const failure = problems.find((p) => p.kind === 'chain' && p.parts!.some((q) => q.kind === 'message' && q.signature === "We couldn't process your payment. Please try again."));
      expect(failure, v.text).toBeDefined();
      const payment = failure!.parts!.find((q) => q.kind === 'message')!;
      expect(payment).toMatchObject({ sessions: 1, people: 1, occurrences: 1 });
      expect(failure!.parts!.map((q) => q.kind).slice(0, 5)).toEqual(['request-failed', 'console-error', 'exception', 'message', 'rage-click']);
      // Its example: the failed checkout, at the failure's first symptom (the 500, 1:11).
      expect(failure!.example!.endsWith(`/replay/${FAILED_CHECKOUT}?t=71`), failure!.example).toBe(true);
      expect(v.text).toContain(`- 1 session, 1 person, 1×, in ${FAILED_CHECKOUT}: one failure, in one session within seconds: failed request`);
      expect(v.text).toContain(`→ page showed "We couldn't process your payment. Please try again." (1 session, 1 person, 1×) → rage click`);
      expect(v.text).toContain(`e.g. ${failure!.example}`);
      // Ranked as the others are: by sessions hit.
      const sessions = problems.map((p) => p.sessions);
      expect(sessions).toEqual([...sessions].sort((a, b) => b - a));
      // What the week showed that told of nothing wrong is not a problem.
      for (const p of problems.flatMap((p) => p.parts ?? [p]).filter((p) => p.kind === 'message')) expect(p.signature).not.toMatch(/Thank you|Added |saved|Gear up|Your cart|Checkout$/);
      // The bound of max_chars (4,000 by default) and of the two views holds.
      expect(v.text.length).toBeLessThanOrEqual(4_000);
      expect(v.json.length).toBeLessThanOrEqual(4_000);
      expect(v.json.length / v.text.length).toBeLessThanOrEqual(MAX_STRUCTURED_RATIO);
    });

    it('counts the messages shown on each session, in both views', async () => {
      const v = views(await h.call('session-recordings-triage', { project_id: P, date_from: '-7d', max_chars: 20_000, max_recordings: 50 }));
      const failed = (v.data.sessions as TriageSession[]).find((s) => s.id === FAILED_CHECKOUT);
      expect(failed?.error_messages, v.text).toBe(1);
      expect(v.text.split('\n').find((l) => l.startsWith(`- ${FAILED_CHECKOUT} `))).toContain(', 1 error message shown, ');
      // The account settings' session showed a message that told of nothing wrong: it counts none.
      const settings = DEMO.recordingIds.accountSettings;
      const shown = text(await h.call('session-recording-summary', { project_id: P, id: settings }));
      expect(shown).toContain('page showed "Your details were saved" (status)');
      const entry = (v.data.sessions as TriageSession[]).find((s) => s.id === settings);
      expect(entry, v.text).toBeDefined();
      expect(entry!.error_messages).toBeUndefined();
      expect(v.text.split('\n').find((l) => l.startsWith(`- ${settings} `))).not.toContain('message');
    });
  });

  describe('recordings made for it', () => {
    let h: Harness;
    const a = addressTaken('page-messages-taken-a', 'zephyrine@example.org');
    const b = addressTaken('page-messages-taken-b', 'quill.z@example.net');
    beforeAll(async () => {
      h = await startHarness({ sandbox: { recordings: [a, b, greeting()] } });
    });
    afterAll(() => h.close());

    it('groups one error toast shown to two people by its masked text; the success alert and the headings are no problem', async () => {
      const v = views(await h.call('session-recordings-triage', { project_id: P, session_ids: [a.id, b.id, 'page-messages-greeting'], max_chars: 20_000 }));
      const messages = (v.data.problems as TriageProblem[]).filter((p) => p.kind === 'message');
      expect(messages.map(({ signature, sessions, people, occurrences }) => ({ signature, sessions, people, occurrences }))).toEqual([{ signature: '*** is already registered. Sign in instead?', sessions: 2, people: 2, occurrences: 2 }]);
      expect(v.text).toMatch(/- 2 sessions, 2 people, 2×, in page-messages-taken-[ab]: page showed "\*\*\* is already registered\. Sign in instead\?"/);
      expect(messages[0]!.example).toMatch(/\/replay\/page-messages-taken-[ab]\?t=3$/);
      for (const typed of ['zephyrine', 'quill.z', 'example.org', 'example.net', 'Zephyrine']) expect(v.text + v.json).not.toContain(typed);
      expect(v.text + v.json).not.toMatch(/Welcome back|Thank you|Create your account/);
      expect(v.json.length / v.text.length).toBeLessThanOrEqual(MAX_STRUCTURED_RATIO);
    });
  });
});

// A real recording of another project (rrweb 0.5, a select2 search box), read from the shared
// corpus where it is (never copied here): its aria-live status region's announcement.
const corpus = findCorpus();
if (!corpus) process.stderr.write('test/page-messages.test.ts: corpus part skipped, no shared/corpus/recordings above the checkout and no REPLAY_CORPUS_DIR\n');
describe.skipIf(!corpus)('page messages in a real recording from the corpus', () => {
  let h: Harness;
  const id = 'rrweb05-select2-2018';
  beforeAll(async () => {
    const lines = readEvents(join(corpus!, `${id}.jsonl`)).map((event) => [W, event] as [string, Ev]);
    h = await startHarness({ sandbox: { recordings: [{ id, lines }] } });
  });
  afterAll(() => h?.close());

  it('shows the live region\'s announcement', async () => {
    const r = await h.call('session-recording-summary', { project_id: P, id });
    expect(r.isError, text(r)).toBeFalsy();
    const line = '0:00 page showed "2 results are available, use up and down arrow keys to navigate." (status)';
    expect(text(r).split('\n')).toContain(line);
    expect((r.structuredContent as { timeline?: string[] }).timeline).toContain(line);
  });
});
