// session-recording-reproduce through an MCP client, on the sandbox's recordings (real browser
// fixtures and scripted ones): which failure is asserted at which step, what is never copied,
// choosing a failure, exceptions through the query API (and a key that may not query), a read
// cut short by the call's budget, and bad input.
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../src/sandbox/demo/recorded.js';
import { BIG_RECORDING_ID, DEMO } from '../src/sandbox/index.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

const project = String(DEMO.mainProjectId);

interface Reproduced {
  code: string;
  steps: Array<{ action: string; selector: string | null; note: string | null; tab: number }>;
  asserts: Array<{ n: number; step: number; kind: string; says: string }>;
  failures: Array<{ n: number; step: number; kind: string; says: string }>;
  placeholders: Array<{ env: string; default: string; source: string; withheld?: string }>;
  skipped: string[];
  partial?: { reason: string; not_read?: string };
}

function parses(code: string): boolean {
  const out = ts.transpileModule(code, { reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.ESNext } });
  return (out.diagnostics ?? []).length === 0;
}

describe('session-recording-reproduce', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const reproduce = async (args: Record<string, unknown>, harness = h) => {
    const result = await harness.call('session-recording-reproduce', { project_id: project, ...args });
    expect(result.isError, text(result)).toBeFalsy();
    return result.structuredContent as unknown as Reproduced;
  };

  it('asserts a request a new tab made on load at the click that opened the tab', async () => {
    const data = await reproduce({ id: DEMO.recordingIds.recordedSearchTabs });
    const opener = data.steps.findIndex((s) => s.note?.includes('opens tab 2')) + 1;
    expect(opener).toBeGreaterThan(0);
    expect(data.steps[opener - 1]!.selector).toBe("getByRole('link', { name: 'Shipping & returns', exact: true })");
    expect(data.asserts).toEqual([{ n: 1, step: opener, kind: 'request', says: `/api/chat/status answered 503 in the recording (step ${opener})` }]);
    // posthog-js's default masking: the search was recorded as stars, and is not in the test.
    expect(data.code).not.toMatch(/desk lamp|\*\*\*/);
    expect(parses(data.code)).toBe(true);
  });

  it('on a recording made by posthog-js itself: the failing save at its step, its exception, and not one typed value', async () => {
    const truth = fixture('posthog-js-signup').expected as { secret_values: string[] };
    for (const copy of [false, true]) {
      const data = await reproduce({ id: DEMO.recordingIds.recordedSdkSignup, copy_typed_values: copy });
      expect(data.steps.map((s) => s.action)).toEqual(['goto', 'fill', 'fill', 'click', 'fill', 'fill', 'click']);
      expect(data.steps[6]!.selector).toBe("getByRole('button', { name: 'Save profile', exact: true })");
      expect(data.asserts.map((a) => [a.kind, a.step])).toEqual([
        ['request', 7],
        ['console', 7],
        ['exception', 7],
      ]);
      expect(data.asserts[0]!.says).toBe('POST /api/profile answered 500 in the recording (step 7)');
      expect(data.asserts[2]!.says).toContain(`uncaught exception "TypeError: Cannot read properties of undefined (reading 'first_name')"`);
      // posthog-js masked every input, and request bodies (which hold them in clear) are never read.
      expect(truth.secret_values.length).toBeGreaterThan(0);
      for (const secret of truth.secret_values) expect(data.code).not.toContain(secret);
      expect(parses(data.code)).toBe(true);
    }
  });

  it('copies clear typed values only when asked, and never the card number', async () => {
    const plain = await reproduce({ id: DEMO.recordingIds.recordedCheckout });
    for (const value of ['Ada Lovelace', 'ada@example.com', '4242 4242 4242 4242']) expect(plain.code).not.toContain(value);
    const copied = await reproduce({ id: DEMO.recordingIds.recordedCheckout, copy_typed_values: true });
    // This fixture was recorded with masking off: the values are there to copy. Only the email
    // is: the name field is the card holder's (autocomplete="cc-name"), the card number is one.
    expect(copied.code).toContain("process.env.REPRO_EMAIL ?? 'ada@example.com'");
    expect(copied.code).not.toContain('Ada Lovelace');
    expect(copied.code).not.toContain('4242 4242 4242 4242');
    expect(copied.placeholders.map((p) => [p.env, p.source, p.withheld])).toEqual([
      ['REPRO_NAME', 'neutral', 'not copied: a payment card field (autocomplete)'],
      ['REPRO_EMAIL', 'copied', undefined],
      ['REPRO_CARD_NUMBER', 'neutral', 'not copied: a payment card field (autocomplete)'],
    ]);
    expect(copied.asserts[0]).toMatchObject({ kind: 'request', says: expect.stringMatching(/^POST \/api\/orders answered 500/) });
  });

  it('asserts the session\'s uncaught exceptions, read through the query API, at the first failure\'s step, and lists every failure', async () => {
    const data = await reproduce({ id: DEMO.recordingIds.checkoutFailure });
    expect(data.failures.map((f) => [f.n, f.kind, f.step])).toEqual([
      [1, 'request', 18],
      [2, 'console', 18],
      [3, 'exception', 18],
      [4, 'console', 19],
      [5, 'exception', 19],
    ]);
    expect(data.failures[2]!.says).toBe(`uncaught exception "TypeError: Cannot read properties of undefined (reading 'id')"`);
    expect(data.failures[4]!.says).toBe('handled exception "Error: Checkout failed: payment_intent_failed"');
    // The test ends at the first failure: step 19 was the person clicking again.
    expect(data.asserts.map((a) => [a.kind, a.step])).toEqual([
      ['request', 18],
      ['console', 18],
      ['exception', 18],
    ]);
    expect(data.steps).toHaveLength(18);
    expect(data.skipped).toContain('The test ends at step 18, the first failure: the 1 later step(s) were the person\'s reaction to it, and 2 later failure(s) can be targeted with `failure` (see failures).');
    expect(data.code).toContain('expect(seen.errors,');
    expect(apiRequests(h.sandbox).some((r) => r.method === 'POST' && r.path.endsWith('/query/'))).toBe(true);
  });

  it('targets a chosen failure, ending the test at its step; names the failures when the choice is not one', async () => {
    const one = await reproduce({ id: DEMO.recordingIds.checkoutFailure, failure: 5 });
    expect(one.asserts).toEqual([{ n: 1, step: 19, kind: 'exception', says: 'handled exception "Error: Checkout failed: payment_intent_failed" in the recording after step 19' }]);
    expect(one.steps).toHaveLength(19);
    const wrong = await h.call('session-recording-reproduce', { project_id: project, id: DEMO.recordingIds.checkoutFailure, failure: 40 });
    expect(wrong.isError).toBe(true);
    expect(text(wrong)).toMatch(/failure 40 is not in this recording: its failures are 1\. POST \/api\/checkout answered 500 \(2 times\) \(step 18\); 2\. console error .*; 5\. handled exception "Error: Checkout failed: payment_intent_failed" \(step 19\)\.$/);
  });

  it('takes the replay URL people copy from PostHog', async () => {
    const byId = await reproduce({ id: DEMO.recordingIds.recordedSearchTabs });
    const byUrl = await reproduce({ project_id: undefined, id: `https://us.posthog.com/project/${project}/replay/${DEMO.recordingIds.recordedSearchTabs}?t=12` });
    expect(byUrl.code).toBe(byId.code);
  });

  it('refuses a bad id before any request, and names a missing recording', async () => {
    const before = apiRequests(h.sandbox).length;
    const bad = await h.call('session-recording-reproduce', { project_id: project, id: '../../etc' });
    expect(bad.isError).toBe(true);
    expect(apiRequests(h.sandbox).length).toBe(before);
    const missing = await h.call('session-recording-reproduce', { project_id: project, id: 'no-such-recording' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/no-such-recording/);
  });
});

describe('session-recording-reproduce at the edges', () => {
  it('without query:read, still writes the test and says the exceptions were not read', async () => {
    // The sandbox key's scopes are the setting under test.
    const h = await startHarness({ sandbox: { scopes: ['session_recording:read', 'project:read'] } });
    try {
      const result = await h.call('session-recording-reproduce', { project_id: project, id: DEMO.recordingIds.checkoutFailure });
      expect(result.isError, text(result)).toBeFalsy();
      const data = result.structuredContent as unknown as Reproduced;
      expect(data.asserts.some((a) => a.kind === 'exception')).toBe(false);
      expect(data.asserts.some((a) => a.kind === 'request')).toBe(true);
      expect(data.skipped).toContain("Exceptions not asserted: the key may not use the query API (add the query:read scope to read the session's $exception events).");
    } finally {
      await h.close();
    }
  });

  it('labels a test made from a recording read only in part', async () => {
    // A request budget this small is the setting under test: 38 blocks need two block requests,
    // after the metadata, the listing and the exceptions query.
    const h = await startHarness({ sandbox: { bigRecording: { copies: 60 } }, callLimits: { maxRequests: 4, wallClockMs: 60_000, throttleWaitMs: 10_000 } });
    try {
      const result = await h.call('session-recording-reproduce', { project_id: project, id: BIG_RECORDING_ID });
      expect(result.isError, text(result)).toBeFalsy();
      const data = result.structuredContent as unknown as Reproduced;
      expect(data.partial).toMatchObject({ reason: 'requests' });
      expect(data.skipped[0]).toMatch(/^PARTIAL: .*POSTHOG_CALL_MAX_REQUESTS/);
      expect(text(result)).toContain('\n- PARTIAL:');
      // What was not read is said in both views.
      expect(data.partial!.not_read).toEqual(expect.any(String));
      expect(text(result)).toContain(`Not read: ${data.partial!.not_read}.`);
      expect(data.steps.length).toBeGreaterThan(0);
      expect(parses(data.code)).toBe(true);
    } finally {
      await h.close();
    }
  }, 60_000);
});
