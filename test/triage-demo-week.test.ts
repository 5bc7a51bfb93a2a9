// The demo week's triage at the defaults reads like an answer (issue 44 item 6), through the SDK
// Client against the sandbox: at most 10 problems; the symptoms of one failure one entry naming
// its parts in the order they came, each with its own counts; folded messages with the numbers they
// had; counts and session ids first. The expected problems come from the demo's own scripts (the
// recordings' console lines, captured events and the stories' failed requests), not from the tool.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { demoScripts } from '../src/sandbox/demo/dataset.js';
import { startHarness, text, type Harness } from './harness.js';

const PROJECT = String(DEMO.mainProjectId);
const CHECKOUT = DEMO.recordingIds.checkoutFailure;
const SEARCH = DEMO.recordingIds.searchRageClick;

type Part = { kind: string; signature: string; sessions: number; people?: number | null; occurrences?: number; handled?: boolean; evidence?: string; body?: string };
type Entry = { kind: string; signature: string; sessions: number; people: number | null; occurrences: number; examples?: string[]; example?: string; parts?: Part[] };
type Triage = { problems: Entry[]; evidence?: Entry[]; population?: { recordings: number } };

/**
 * A session's symptoms as its script holds them, in the order they came: console errors and
 * warnings, exceptions (captured `$exception` events) and rage clicks; the failed requests and the
 * page's message the story also shows are given (they live in the recording's rrweb data).
 */
function symptoms(id: string): Array<{ t: number; kind: string; text: string; handled?: boolean }> {
  const script = demoScripts().get(id)!;
  const found: Array<{ t: number; kind: string; text: string; handled?: boolean }> = [];
  for (const c of script.console) if (c.level === 'error' || c.level === 'warn') found.push({ t: c.t, kind: c.level === 'error' ? 'console-error' : 'console-warn', text: c.message });
  for (const e of script.analytics) {
    if (e.event === '$exception') {
      const first = (e.properties.$exception_list as Array<{ type: string; value: string; mechanism: { handled: boolean } }>)[0]!;
      found.push({ t: e.t, kind: 'exception', text: `${first.type}: ${first.value}`, handled: first.mechanism.handled });
    }
    if (e.event === '$rageclick') found.push({ t: e.t, kind: 'rage-click', text: String(e.properties.$el_text) });
  }
  return found.sort((a, b) => a.t - b.t);
}

/** Each symptom once, in the order it first came (a repeat is the same part). */
const distinct = <T extends { kind: string; text: string }>(list: T[]) => list.filter((s, i) => list.findIndex((q) => q.kind === s.kind && q.text === s.text) === i);

let h: Harness;
let data: Triage;
let body: string;
beforeAll(async () => {
  h = await startHarness({ defaultProjectId: PROJECT });
  const r = await h.call('session-recordings-triage', {});
  expect(r.isError, text(r)).toBeFalsy();
  data = r.structuredContent as unknown as Triage;
  body = text(r);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('the demo week\'s triage at the defaults', () => {
  it('lists its two failures, each one entry naming its parts in the order they came, and nothing else', () => {
    // From the scripts: of the period's recordings, only these two have a rage click, and every error is theirs.
    const inPeriod = new Set(data.problems.flatMap((p) => p.examples ?? []));
    expect(inPeriod).toEqual(new Set([CHECKOUT, SEARCH]));
    expect(data.problems.length).toBeLessThanOrEqual(10);
    expect(data.problems.map((p) => ({ kind: p.kind, sessions: p.sessions, people: p.people, examples: p.examples }))).toEqual([
      { kind: 'chain', sessions: 1, people: 1, examples: [CHECKOUT] },
      { kind: 'chain', sessions: 1, people: 1, examples: [SEARCH] },
    ]);
    // What only the recordings show is a part of those failures, not listed again.
    expect(data.evidence ?? []).toEqual([]);

    const [checkout, search] = data.problems as [Entry, Entry];
    // The checkout (stories.ts checkoutFailure): its 500 first, then what the scripts say came, the rage click after the page's message.
    const checkoutParts = distinct(symptoms(CHECKOUT));
    const expectedCheckout = [
      { kind: 'request-failed', text: 'POST shop.example.com/api/checkout → 500' },
      ...checkoutParts.filter((s) => s.t < checkoutParts.find((q) => q.kind === 'rage-click')!.t),
      { kind: 'message', text: "We couldn't process your payment. Please try again." },
      ...checkoutParts.filter((s) => s.t >= checkoutParts.find((q) => q.kind === 'rage-click')!.t),
    ];
    expect(checkout.parts!.map((p) => p.kind)).toEqual(expectedCheckout.map((p) => p.kind));
    checkout.parts!.forEach((part, i) => {
      const want = expectedCheckout[i]!;
      if (want.kind === 'rage-click') expect(part.signature).toBe(`/checkout: ${want.text}`);
      else expect(part.signature).toBe(want.text);
      if ('handled' in want) expect(part.handled).toBe(want.handled);
    });
    // Each part with its own counts: over the period (one session) or over the recordings read.
    for (const part of checkout.parts!) expect(part.evidence ?? `${part.sessions} session`).toMatch(/^(1 session|in 1 of the 1 recording of this chain read)$/);
    expect(checkout.parts![0]!.body).toBe('{"error":"payment_intent_failed","message":"Upstream payment provider timed out"}');

    // The search (stories.ts searchRageClick): the 503, the console error it caused, the rage click on Search.
    const searchParts = distinct(symptoms(SEARCH));
    expect(searchParts.map((s) => s.kind)).toEqual(['console-error', 'rage-click']);
    expect(search.parts!.map((p) => [p.kind, p.signature])).toEqual([
      ['request-failed', 'GET shop.example.com/api/search → 503'],
      ['console-error', searchParts[0]!.text],
      ['rage-click', `/: ${searchParts[1]!.text}`],
    ]);
  });

  it('says the same in the text: counts and session ids first, each part with its counts, no bare N', () => {
    const lines = body.split('\n').filter((l) => l.startsWith('- 1 session'));
    expect(lines[0]).toMatch(new RegExp(`^- 1 session, 1 person, 1×, in ${CHECKOUT}: one failure, in one session within seconds: failed request "POST shop\\.example\\.com/api/checkout → 500" body .* → uncaught exception "TypeError: Cannot read properties of undefined \\(reading 'id'\\)" \\(1 session, 1 person\\) → page showed "We couldn't process your payment\\. Please try again\\." \\(in 1 of the 1 recording of this chain read\\) → rage click "/checkout: Place order" \\(1 session, 1 person\\) → `));
    expect(lines[0]).toContain('handled exception "Error: Checkout failed: payment_intent_failed" (1 session, 1 person)');
    expect(lines[1]).toMatch(new RegExp(`^- 1 session, 1 person, 1×, in ${SEARCH}: one failure, in one session within seconds: failed request "GET shop\\.example\\.com/api/search → 503" body .* → console error "Search request failed: 503 Service Unavailable" \\(1 session, 1 person\\) → rage click "/: Search" \\(1 session, 1 person\\)`));
    // A folded number is never shown as its placeholder: "(attempt 2 of 3)", "503".
    expect(body).toContain('"[checkout] payment intent failed, retrying (attempt 2 of 3)"');
    expect(body).not.toMatch(/"[^"]*\bN\b[^"]*"/);
  });
});

describe('the demo week\'s triage without query:read (digests only)', () => {
  it('obeys the same rules: failures one entry, at most 10 problems, numbers as logged, ids first', async () => {
    const d = await startHarness({ defaultProjectId: PROJECT, sandbox: { scopes: ['session_recording:read', 'project:read'] } });
    try {
      const r = await d.call('session-recordings-triage', { max_chars: 20_000 });
      expect(r.isError, text(r)).toBeFalsy();
      const triage = r.structuredContent as unknown as Triage;
      const t = text(r);
      expect(triage.problems.length).toBeLessThanOrEqual(10);
      const [checkout, search] = triage.problems as [Entry, Entry];
      // No exceptions without the query API: the rest of the checkout's symptoms, in order, one entry.
      expect(checkout.kind).toBe('chain');
      expect(checkout.example).toContain(`/replay/${CHECKOUT}?t=`);
      expect(checkout.parts!.map((p) => p.kind)).toEqual(['request-failed', 'console-error', 'message', 'rage-click', 'console-warn', 'console-error']);
      expect(checkout.parts!.map((p) => p.occurrences)).toEqual([2, 1, 1, 1, 1, 1]);
      expect(search.kind).toBe('chain');
      expect(search.parts!.map((p) => [p.kind, p.occurrences])).toEqual([['request-failed', 2], ['console-error', 2], ['rage-click', 1]]);
      expect(search.parts![1]!.signature).toBe('Search request failed: 503 Service Unavailable');
      // No part is listed again on its own.
      const parts = new Set(triage.problems.flatMap((p) => (p.parts ?? []).map((q) => `${q.kind} ${q.signature}`)));
      for (const p of triage.problems.filter((q) => q.kind !== 'chain')) expect(parts.has(`${p.kind} ${p.signature}`), p.signature).toBe(false);
      expect(t).toMatch(new RegExp(`\\n- 1 session, 1 person, 1×, in ${CHECKOUT}: one failure`));
      expect(t).toContain('(attempt 2 of 3)');
      expect(t).not.toMatch(/"[^"]*\bN\b[^"]*"/);
    } finally {
      await d.close();
    }
  });
});
