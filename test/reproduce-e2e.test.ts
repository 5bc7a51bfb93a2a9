// session-recording-reproduce end to end: a person's session on a site with a flaw is recorded
// through Debian's Chromium into the sandbox; the tool's spec, written to disk, is run with
// @playwright/test against that site (it must fail at the step that set the failure off, naming
// the request) and against the same site fixed (it must pass). A second, different site where
// nothing fails checks the journey's end instead.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { lumenSite } from './fixtures/sites/lumen.js';
import { newsletterSite } from './fixtures/sites/newsletter.js';
import { railSite } from './fixtures/sites/rail.js';
import { serveSite, type ServedSite } from './fixtures/sites/serve.js';
import { startHarness, text, type Harness } from './harness.js';
import { runSpec } from './reproduce/run-spec.js';
import { CHROMIUM, recordSession, type RecordedSession } from './support/record-session.js';

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`reproduce e2e tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);

interface Reproduced {
  filename: string;
  code: string;
  base_url: string | null;
  steps: Array<{ at_ms: number; tab: number; page: string; action: string; selector: string | null; note: string | null }>;
  asserts: Array<{ n: number; step: number; kind: string; says: string }>;
  failures: Array<{ n: number; step: number; kind: string; says: string }>;
  placeholders: Array<{ env: string; default: string; field: string; source: string; withheld?: string }>;
  skipped: string[];
}

/** The file's lines that are code, not comments: where a recorded origin must never appear. */
function codeLines(code: string): string[] {
  return code.split('\n').filter((line) => !line.trim().startsWith('//'));
}

describe.skipIf(!hasChromium)('session-recording-reproduce on sessions recorded in a browser', () => {
  const sites: ServedSite[] = [];
  let h: Harness;
  let newsletter: RecordedSession;
  let rail: RecordedSession;
  let throwing: RecordedSession;
  let railThrows: ServedSite;
  let flawed: ServedSite;
  let fixed: ServedSite;
  let railGood: ServedSite;
  let railBroken: ServedSite;
  let lumenGood: ServedSite;
  let lumenBroken: ServedSite;
  let shopping: RecordedSession;
  let shoppingFails: RecordedSession;

  beforeAll(async () => {
    [flawed, fixed, railGood, railBroken, railThrows, lumenGood, lumenBroken] = await Promise.all([
      serveSite(newsletterSite({ fixed: false })),
      serveSite(newsletterSite({ fixed: true })),
      serveSite(railSite({})),
      serveSite(railSite({ broken: true })),
      serveSite(railSite({ throws: true })),
      serveSite(lumenSite({})),
      serveSite(lumenSite({ broken: true })),
    ]);
    sites.push(flawed, fixed, railGood, railBroken, railThrows, lumenGood, lumenBroken);
    newsletter = await recordSession({
      siteUrl: flawed.url,
      host: 'brightwave.test',
      drive: async (page, person) => {
        await page.goto('http://brightwave.test/');
        await person.click(page, 'a[href="/subscribe"]');
        await page.waitForURL('**/subscribe');
        await person.type(page, 'input[name=fullname]', 'Ada Lovelace');
        await person.type(page, 'input[name=email]', 'ada@example.com');
        await person.click(page, 'input[name=weekly]');
        await person.click(page, 'button[type=submit]');
        await page.getByText('Something went wrong').waitFor();
      },
    });
    rail = await recordSession({
      siteUrl: railGood.url,
      host: 'northwind-rail.test',
      drive: async (page, person) => {
        await page.goto('http://northwind-rail.test/');
        await person.click(page, 'a[href="/book"]');
        await page.waitForURL('**/book');
        await person.choose(page, '#destination', 'porto');
        await person.type(page, 'input[name=traveller]', 'Grace Hopper');
        await person.click(page, 'input[value=first]');
        await person.click(page, 'input[name=insurance]');
        await person.click(page, 'button[type=submit]');
        await page.waitForURL('**/book/review');
        await person.click(page, '#confirm');
        await page.waitForURL('**/book/done');
        await page.getByRole('heading', { name: 'Booking confirmed' }).waitFor();
      },
    });
    // The same journey where confirming throws: nothing happens, the person clicks again and leaves.
    throwing = await recordSession({
      siteUrl: railThrows.url,
      host: 'northwind-rail.test',
      drive: async (page, person) => {
        await page.goto('http://northwind-rail.test/book');
        await person.choose(page, '#destination', 'faro');
        await person.click(page, 'button[type=submit]');
        await page.waitForURL('**/book/review');
        await person.click(page, '#confirm');
        await page.waitForTimeout(1_200);
        await person.click(page, '#confirm');
        await page.waitForTimeout(300);
      },
    });
    expect(throwing.captured.map((e) => e.properties.$exception_message)).toEqual([
      "Cannot read properties of undefined (reading 'name')",
      "Cannot read properties of undefined (reading 'name')",
    ]);
    // A shopper searches, sets a quantity, gives a name the thank-you page echoes: on the working
    // shop, and on the one whose order endpoint fails.
    const shop = (site: ServedSite) =>
      recordSession({
        siteUrl: site.url,
        host: 'lumen.test',
        drive: async (page, person) => {
          await page.goto('http://lumen.test/');
          await person.type(page, 'input[name=q]', 'desk lamp');
          await page.keyboard.press('Enter');
          await page.waitForURL('**/search?q=*');
          await person.click(page, 'a[href="/p/1042"]');
          await page.waitForURL('**/p/1042');
          await page.fill('#qty', '');
          await person.type(page, '#qty', '2');
          await person.click(page, 'button[type=submit]');
          await page.waitForURL('**/checkout');
          await person.type(page, '#fullname', 'Marcus Chen');
          await person.click(page, 'button[type=submit]');
          if (site === lumenGood) await page.getByRole('heading', { name: 'Thank you, Marcus!' }).waitFor();
          else await page.getByText('We could not place your order.').waitFor();
        },
      });
    shopping = await shop(lumenGood);
    shoppingFails = await shop(lumenBroken);
    h = await startHarness({
      sandbox: {
        recordings: [
          { id: newsletter.sessionId, lines: newsletter.lines, captured: newsletter.captured },
          { id: rail.sessionId, lines: rail.lines, captured: rail.captured },
          { id: throwing.sessionId, lines: throwing.lines, captured: throwing.captured },
          // The same session where the site sent no $exception events: only the recording's console saw the error.
          { id: `${throwing.sessionId}-console`, lines: throwing.lines },
          { id: shopping.sessionId, lines: shopping.lines, captured: shopping.captured },
          { id: shoppingFails.sessionId, lines: shoppingFails.lines, captured: shoppingFails.captured },
        ],
      },
    });
  }, 120_000);

  afterAll(async () => {
    await h?.close();
    await Promise.all(sites.map((s) => s.close()));
  });

  const reproduce = async (id: string, extra: Record<string, unknown> = {}) => {
    const result = await h.call('session-recording-reproduce', { project_id: String(DEMO.mainProjectId), id, ...extra });
    expect(result.isError, text(result)).toBeFalsy();
    return { data: result.structuredContent as unknown as Reproduced, text: text(result) };
  };

  it('writes a test that fails at the submit step on the flawed site, naming the request, and passes once it is fixed', async () => {
    // The recording really holds what must not be copied: the request body, in clear.
    expect(JSON.stringify(newsletter.lines)).toContain('ada@example.com');
    const { data, text: summary } = await reproduce(newsletter.sessionId);
    expect(data.base_url).toBe('http://brightwave.test');
    expect(data.steps.map((s) => s.action)).toEqual(['goto', 'click', 'fill', 'fill', 'check', 'click']);
    const submit = data.steps.findIndex((s) => s.selector === "getByTestId('subscribe-submit')") + 1;
    expect(submit).toBe(6);
    const request = data.asserts.find((a) => a.kind === 'request')!;
    expect(request).toMatchObject({ step: submit, says: `POST /api/subscribe answered 500 in the recording (step ${submit})` });
    expect(data.asserts.some((a) => a.kind === 'console' && a.step === submit && a.says.includes('Subscription failed: the server answered 500'))).toBe(true);
    expect(summary).toContain(data.code);
    // posthog-js's network data shows the POST after the click: a dialog there would be accepted, as docs/reproduce.md's example says.
    expect(data.code).toContain('  // A dialog this step shows is accepted: POST /api/subscribe followed it in the recording.\n  await page.getByTestId(\'subscribe-submit\').click();');

    const flawedRun = await runSpec(data, flawed.url);
    expect(flawedRun.status).toBe('failed');
    expect(flawedRun.message).toContain(`POST /api/subscribe answered 500 in the recording (step ${submit})`);
    expect(flawedRun.message).toMatch(/Received:\s+500/);
    // It failed at the assertion of the submit step's request, not anywhere earlier.
    const failingLine = data.code.split('\n')[flawedRun.line! - 1]!;
    expect(failingLine).toContain(`expect(response${submit}!.status()`);
    expect(flawed.requests).toContain('POST /api/subscribe');

    const fixedRun = await runSpec(data, fixed.url);
    expect(fixedRun, fixedRun.message).toMatchObject({ status: 'passed' });
    expect(fixed.requests).toContain('POST /api/subscribe');
  }, 120_000);

  it('copies no typed value, request body or recorded origin into the test, even when asked to copy', async () => {
    for (const copy of [false, true]) {
      const { data } = await reproduce(newsletter.sessionId, { copy_typed_values: copy });
      for (const secret of ['Ada', 'Lovelace', 'ada@example.com', 'database unavailable']) expect(data.code).not.toContain(secret);
      expect(codeLines(data.code).join('\n')).not.toContain('brightwave.test');
      expect(data.placeholders.map((p) => [p.env, p.default])).toEqual([
        ['REPRO_FULLNAME', 'Test User'],
        ['REPRO_EMAIL', 'user@example.test'],
      ]);
      expect(data.code).toContain("process.env.REPRO_EMAIL ?? 'user@example.test'");
      // posthog-js masks inputs by default: nothing in the recording could have been copied.
      if (copy) expect(data.placeholders.every((p) => p.withheld === 'not copied: masked in the recording')).toBe(true);
    }
  }, 60_000);

  it('on a multi-page journey where nothing fails, asserts where it ended: passes there, fails when the end changes', async () => {
    const { data } = await reproduce(rail.sessionId);
    expect(data.base_url).toBe('http://northwind-rail.test');
    expect(data.steps.map((s) => s.action)).toEqual(['goto', 'click', 'select', 'fill', 'check', 'check', 'click', 'click']);
    expect(data.asserts.map((a) => [a.kind, a.says])).toEqual([
      ['final-request', "POST /api/bookings answered 201 in the recording: the journey's request must succeed"],
      ['final-url', 'the journey ends at /book/done'],
      ['final-heading', 'the heading "Booking confirmed" is visible'],
    ]);
    expect(data.code).not.toContain('Grace');
    expect(data.code).toContain("getByRole('radio', { name: 'First', exact: true }).check()");

    const good = await runSpec(data, railGood.url);
    expect(good, good.message).toMatchObject({ status: 'passed' });
    expect(railGood.requests.filter((r) => r === 'POST /api/bookings').length).toBeGreaterThanOrEqual(2);

    const broken = await runSpec(data, railBroken.url);
    expect(broken.status, data.code).toBe('failed');
    expect(data.code.split('\n')[broken.line! - 1]).toContain("toHaveURL((url) => url.pathname === '/book/done', { timeout: 15_000 })");
  }, 120_000);

  it('on another site, an uncaught exception the session had (read through the query API) fails the test at its step; fixed, it passes', async () => {
    const { data } = await reproduce(throwing.sessionId);
    // The second click on Confirm was the person trying again: the test ends at the first.
    expect(data.steps.map((s) => s.action)).toEqual(['goto', 'select', 'click', 'click']);
    const confirm = 4;
    // Playwright's order: role and name before an id.
    expect(data.steps[confirm - 1]!.selector).toBe("getByRole('button', { name: 'Confirm booking', exact: true })");
    const says = `uncaught exception "TypeError: Cannot read properties of undefined (reading 'name')" in the recording after step ${confirm}`;
    // The recording's console saw it too ("Uncaught …"), and its passed console.assert is no failure.
    expect(data.asserts.map((a) => [a.kind, a.step])).toEqual([
      ['console', confirm],
      ['exception', confirm],
    ]);
    expect(data.asserts[1]!.says).toBe(says);
    expect(data.failures.map((f) => [f.kind, f.step])).toEqual([
      ['console', confirm],
      ['exception', confirm],
      ['console', confirm + 1],
      ['exception', confirm + 1],
    ]);

    const failing = await runSpec(data, railThrows.url);
    expect(failing.status).toBe('failed');
    expect(failing.message).toContain(says);
    expect(failing.message).toContain("TypeError: Cannot read properties of undefined (reading 'name')");
    expect(data.code.split('\n')[failing.line! - 1]).toContain('expect(seen.errors,');

    const passing = await runSpec(data, railGood.url);
    expect(passing, passing.message).toMatchObject({ status: 'passed' });
  }, 120_000);

  it('where only the console saw an uncaught error ("Uncaught …"), the test still fails on it, which the browser reports as a pageerror', async () => {
    const { data } = await reproduce(`${throwing.sessionId}-console`);
    const says = `console error "Uncaught TypeError: Cannot read properties of undefined (reading 'name')" in the recording after step 4`;
    expect(data.asserts.map((a) => [a.kind, a.says])).toEqual([['console', says]]);
    const failing = await runSpec(data, railThrows.url);
    expect(failing.status).toBe('failed');
    expect(failing.message).toContain(says);
    expect(failing.message).toContain("uncaught TypeError: Cannot read properties of undefined (reading 'name')");
    const passing = await runSpec(data, railGood.url);
    expect(passing, passing.message).toMatchObject({ status: 'passed' });
  }, 120_000);

  it('a shopping journey: nothing typed in the test, placeholders that replay, the greeting asserted by its start; passes with REPRO_Q set, fails when ordering breaks', async () => {
    const { data } = await reproduce(shopping.sessionId);
    // Enter in a form is recorded as the browser's click on its submit button.
    expect(data.steps.map((s) => s.action)).toEqual(['goto', 'fill', 'click', 'click', 'fill', 'click', 'fill', 'click']);
    for (const typed of ['desk', 'lamp', 'Marcus', 'Chen']) expect(data.code.toLowerCase()).not.toContain(typed.toLowerCase());
    expect(data.placeholders.map((p) => [p.env, p.default])).toEqual([
      ['REPRO_Q', 'Brass'],
      ['REPRO_QTY', '1'],
      ['REPRO_FULLNAME', 'Test User'],
    ]);
    expect(data.code).toContain("getByRole('heading', { name: new RegExp('^Thank you, .+$') })");
    // The result link is named like the search: not by its name. Playwright's order elsewhere: role and name.
    expect(data.steps[3]!.note).toMatch(/echoes what the person typed/);
    expect(data.steps[7]!.selector).toBe("getByRole('button', { name: 'Place order', exact: true })");

    const good = await runSpec(data, lumenGood.url, { REPRO_Q: 'desk lamp' });
    expect(good, good.message).toMatchObject({ status: 'passed' });
    const broken = await runSpec(data, lumenBroken.url, { REPRO_Q: 'desk lamp' });
    expect(broken.status).toBe('failed');
    expect(broken.message).toContain('the journey ends at /thanks');
  }, 180_000);

  it('the same journey recorded where ordering failed: fails there naming the request, passes on the working shop', async () => {
    const { data } = await reproduce(shoppingFails.sessionId);
    for (const typed of ['desk', 'lamp', 'Marcus', 'Chen']) expect(data.code.toLowerCase()).not.toContain(typed.toLowerCase());
    expect(data.asserts.map((a) => a.says)).toEqual([
      'POST /api/orders answered 500 in the recording (step 8)',
      'console error "Order failed: the server answered 500" in the recording after step 8',
    ]);
    const failing = await runSpec(data, lumenBroken.url, { REPRO_Q: 'desk lamp' });
    expect(failing.status).toBe('failed');
    expect(failing.message).toContain('POST /api/orders answered 500 in the recording (step 8)');
    const passing = await runSpec(data, lumenGood.url, { REPRO_Q: 'desk lamp' });
    expect(passing, passing.message).toMatchObject({ status: 'passed' });
  }, 180_000);
});
