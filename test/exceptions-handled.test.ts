// Exceptions as PostHog recorded them (issue 32 item 3): each `$exception` event says whether it
// was uncaught or handled (`$exception_list[0].mechanism.handled`, docs/posthog-exceptions.md).
// Olivia's failed checkout has both: an uncaught TypeError (unhandledrejection) and the site's own
// captureException of "Checkout failed: payment_intent_failed" (handled). Neither view calls the
// handled one uncaught; the triage counts them apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const CHECKOUT = '0193a1f0-5c2e-7d41-9b8a-4e6f2a1c3d01';

describe('exceptions: uncaught or handled, as the event says', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('the summary labels each in both views, and heads the block with both counts', async () => {
    expect(CHECKOUT).toBe(DEMO.recordingIds.checkoutFailure);
    const r = await h.call('session-recording-summary', { project_id: P, id: CHECKOUT });
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as { exceptions: Array<{ at: string; type: string; message: string; handled?: boolean }> };
    const byMessage = new Map(data.exceptions.map((e) => [e.message, e]));
    expect(byMessage.get('Checkout failed: payment_intent_failed')!.handled).toBe(true);
    expect(byMessage.get("Cannot read properties of undefined (reading 'id')")!.handled).toBe(false);
    const t = text(r);
    expect(t).toContain('Exceptions (2 $exception events: 1 uncaught, 1 handled; recorded data):');
    expect(t).not.toContain('Uncaught exceptions (');
    const line = (message: string) => t.split('\n').find((l) => l.includes(JSON.stringify(message)) && /^ {2}\d/.test(l))!;
    expect(line('Checkout failed: payment_intent_failed')).toMatch(/ \(handled\)$/);
    expect(line("Cannot read properties of undefined (reading 'id')")).toMatch(/ \(uncaught\)$/);
  });

  it('the triage never calls the handled one uncaught, in either view', async () => {
    const r = await h.call('session-recordings-triage', { project_id: P, session_ids: [CHECKOUT], max_chars: 20_000 });
    expect(r.isError, text(r)).toBeFalsy();
    type Problem = { kind: string; signature: string; handled?: boolean; parts?: Problem[] };
    const data = r.structuredContent as { problems: Problem[]; sessions: Array<{ id: string; exceptions?: number; exceptions_uncaught?: number; exceptions_handled?: number }> };
    // The symptoms of the one failure are parts of one entry.
    const problems = data.problems.flatMap((p) => p.parts ?? [p]);
    const checkout = problems.find((p) => p.kind === 'exception' && /payment_intent_failed/.test(p.signature))!;
    expect(checkout.handled).toBe(true);
    expect(problems.find((p) => p.kind === 'exception' && /reading 'id'/.test(p.signature))!.handled).toBe(false);
    const t = text(r);
    expect(t).toMatch(/handled exception "Error: Checkout failed: payment_intent_failed"/);
    expect(t).not.toMatch(/uncaught exception "Error: Checkout failed/);
    expect(t).toMatch(/2 exceptions \(1 uncaught, 1 handled\)/);
    expect(data.sessions[0]).toMatchObject({ id: CHECKOUT, exceptions: 2, exceptions_uncaught: 1, exceptions_handled: 1 });
  });
});
