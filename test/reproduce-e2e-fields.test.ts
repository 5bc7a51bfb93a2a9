// Placeholders that a site of our own accepts, end to end: a person, recorded through Debian's
// Chromium by a recorder that keeps typed text in clear, searches a restaurant by one word and
// clicks the result, books a table three days ahead on a form whose date field starts today,
// picks a seating from a select whose options have no value, and gives the name "QA", which the
// confirmation page shows as "QA Bot". The spec the tool writes holds nothing typed, not even
// two letters; run with its defaults (no REPRO_* set) on the working site it passes — its search
// finds the result, its date is inside the page's bounds on the day it runs, its seating is
// answered — and it fails when the booking request breaks, or when given a date the page refuses.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { harbourSite } from './fixtures/sites/harbour.js';
import { serveSite, type ServedSite } from './fixtures/sites/serve.js';
import { startHarness, type Harness } from './harness.js';
import { runSpec } from './reproduce/run-spec.js';
import { CHROMIUM, recordSession, type RecordedSession } from './support/record-session.js';

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`reproduce field e2e tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);

interface Reproduced {
  code: string;
  filename: string;
  steps: Array<{ action: string; selector: string | null; note: string | null }>;
  asserts: Array<{ kind: string; says: string }>;
  placeholders: Array<{ env: string; default: string; source: string; expression?: string }>;
}

/** The person's day, `days` ahead, as the page counts it (the browser's local day). */
function localDay(days: number): string {
  const d = new Date();
  d.setDate(d.getDate() + days);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

describe.skipIf(!hasChromium)('session-recording-reproduce: placeholders a site of our own accepts', () => {
  let good: ServedSite;
  let broken: ServedSite;
  let h: Harness;
  let booking: RecordedSession;
  const picked = localDay(3);

  beforeAll(async () => {
    [good, broken] = await Promise.all([serveSite(harbourSite({})), serveSite(harbourSite({ broken: true }))]);
    booking = await recordSession({
      siteUrl: good.url,
      host: 'harbour-tables.test',
      maskAllInputs: false,
      drive: async (page, person) => {
        await page.goto('http://harbour-tables.test/');
        await person.type(page, 'input[name=q]', 'oyster');
        await person.click(page, 'button[type=submit]');
        await page.waitForURL('**/search?q=*');
        await person.click(page, 'a[href="/r/saltmarsh"]');
        await page.waitForURL('**/r/saltmarsh');
        await page.fill('#day', picked);
        await page.waitForTimeout(100);
        await person.choose(page, '#seating', 'Terrace');
        await person.type(page, '#guest', 'QA');
        await person.click(page, 'button[type=submit]');
        await page.waitForURL('**/booked');
        await page.getByRole('heading', { name: 'QA Bot' }).waitFor();
      },
    });
    h = await startHarness({ sandbox: { recordings: [{ id: booking.sessionId, lines: booking.lines, captured: booking.captured }] } });
  }, 120_000);

  afterAll(async () => {
    await h?.close();
    await Promise.all([good, broken].map((s) => s?.close()));
  });

  it('writes a spec with nothing typed in it, whose defaults the page accepts: passes on the working site, fails when booking breaks or the date is refused', async () => {
    // The recording holds what was typed, in clear: the search word, the day, the name.
    const recorded = JSON.stringify(booking.lines);
    for (const typed of ['"oyster"', `"${picked}"`, '"QA"']) expect(recorded).toContain(typed);

    const result = await h.call('session-recording-reproduce', { project_id: String(DEMO.mainProjectId), id: booking.sessionId });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as unknown as Reproduced;
    expect(data.steps.map((s) => s.action)).toEqual(['goto', 'fill', 'click', 'click', 'fill', 'select', 'fill', 'click']);

    // Nothing typed, in any case, not even the two letters of the name; in the result neither.
    expect(JSON.stringify(data).toLowerCase()).not.toContain('oyster');
    expect(JSON.stringify(data)).not.toContain(picked);
    expect(data.code).not.toMatch(/\bQA\b/i);
    // The name's echo ("QA Bot") is not asserted: only the booking request and where the journey ends.
    expect(data.asserts.map((a) => a.kind)).toEqual(['final-request', 'final-url']);

    expect(data.placeholders.map((p) => [p.env, p.default, p.source])).toEqual([
      ['REPRO_Q', 'Saltmarsh', 'page-text'],
      ['REPRO_DAY', 'fromToday(3)', 'neutral'],
      ['REPRO_SEATING', 'Window', 'page-option'],
      ['REPRO_GUEST', 'Test User', 'neutral'],
    ]);
    // The day is counted from the day the test runs, three days past the page's min as recorded.
    expect(data.code).toContain('const REPRO_DAY = process.env.REPRO_DAY ?? fromToday(3);');
    expect(data.code).toContain(".selectOption({ label: REPRO_SEATING });");
    expect(data.code).not.toContain("selectOption('')");

    const passing = await runSpec(data, good.url);
    expect(passing, passing.message).toMatchObject({ status: 'passed' });
    expect(good.requests).toContain('POST /api/bookings');

    const failing = await runSpec(data, broken.url);
    expect(failing.status).toBe('failed');
    expect(failing.message).toContain('the journey ends at /booked');

    // The neutral date the test once used is refused by the page: the form is never sent.
    const before = good.requests.filter((r) => r === 'POST /api/bookings').length;
    const refused = await runSpec(data, good.url, { REPRO_DAY: '2024-01-01' });
    expect(refused.status).toBe('failed');
    expect(good.requests.filter((r) => r === 'POST /api/bookings').length).toBe(before);
  }, 180_000);
});
