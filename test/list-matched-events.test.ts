// session-recordings-list's rows name which requested events and actions each recording has
// (issue 44 item 4), through the SDK Client against the sandbox's demo week: the expected
// answer is read from the demo's own scripts (their captured events), the query count from the
// sandbox's request log, and without query:read the rows carry nothing and the list says why.

import { describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { demoScripts } from '../src/sandbox/demo/dataset.js';
import { apiRequests, harnessesPerTest, text, type Harness } from './harness.js';

const PROJECT = String(DEMO.mainProjectId);
const JACKET_URL = 'alpine-down-jacket';
const JACKET_NAME = 'Alpine Down Jacket';
/** "Who viewed the jacket, who added it": its product page viewed, or it added to the cart. */
const JACKET = {
  date_from: '-30d',
  operand: 'OR',
  limit: 100,
  events: [
    { id: '$pageview', properties: [{ type: 'event', key: '$current_url', operator: 'icontains', value: JACKET_URL }] },
    { id: 'product_added_to_cart', properties: [{ type: 'event', key: 'product_name', operator: 'exact', value: [JACKET_NAME] }] },
  ],
};

type Row = { id: string; matched_events?: string[]; events_not_checked?: string[] };
type ListData = { results: Row[]; matched_events_note?: string; has_more: boolean };

/** What the demo's scripts say each main-project recording has of the two requested events. */
function expectedMatches(): Map<string, string[]> {
  const expected = new Map<string, string[]>();
  for (const [id, script] of demoScripts()) {
    if (script.seed.projectId !== DEMO.mainProjectId) continue;
    const has: string[] = [];
    if (script.analytics.some((e) => e.event === '$pageview' && String(e.properties.$current_url ?? '').toLowerCase().includes(JACKET_URL))) has.push('$pageview');
    if (script.analytics.some((e) => e.event === 'product_added_to_cart' && e.properties.product_name === JACKET_NAME)) has.push('product_added_to_cart');
    expected.set(id, has);
  }
  return expected;
}

const queries = (h: Harness) => apiRequests(h.sandbox).filter((r) => /\/query\/?$/.test(r.path)).length;

const open = harnessesPerTest({ defaultProjectId: PROJECT });

describe('session-recordings-list: which requested events each row has', () => {
  it('"who viewed the jacket, who added it" (operand OR): each row says which, in both views, with one query for the page', async () => {
    const expected = expectedMatches();
    const either = [...expected].filter(([, has]) => has.length > 0);
    // The demo has both kinds: a viewer who added it, and one who only looked (else the test proves little).
    expect(either.some(([, has]) => has.length === 2)).toBe(true);
    expect(either.some(([, has]) => has.length === 1)).toBe(true);

    const h = await open();
    const before = queries(h);
    const result = await h.call('session-recordings-list', JACKET);
    expect(result.isError, text(result)).toBeFalsy();
    expect(queries(h) - before).toBe(1);
    const data = result.structuredContent as ListData;
    expect(data.has_more).toBe(false);
    expect(data.matched_events_note).toBeUndefined();
    expect(Object.fromEntries(data.results.map((r) => [r.id, r.matched_events]))).toEqual(Object.fromEntries(either));

    // The text row carries the same facts, in its compact form.
    const lines = text(result).split('\n');
    for (const row of data.results) {
      const line = lines.find((l) => l.startsWith(row.id))!;
      expect(line, row.id).toContain(`has ${row.matched_events!.map((name) => `"${name}"`).join(', ')}`);
    }
  });

  it('one query per page, each page\'s rows answered; an action by id is named as given or by its id', async () => {
    const h = await open();
    const action = DEMO.actions[0]!;
    const args = { date_from: '-30d', operand: 'OR', limit: 2, events: [{ id: '$pageview' }], actions: [{ id: action.id }] };
    const withAction = new Set([...demoScripts()].filter(([, s]) => s.seed.projectId === DEMO.mainProjectId && s.analytics.some((e) => e.event === action.event)).map(([id]) => id));
    for (const offset of [0, 2]) {
      const before = queries(h);
      const result = await h.call('session-recordings-list', { ...args, offset });
      expect(result.isError, text(result)).toBeFalsy();
      expect(queries(h) - before).toBe(1);
      const rows = (result.structuredContent as ListData).results;
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(row.matched_events, row.id).toEqual(['$pageview', ...(withAction.has(row.id) ? [`action ${action.id}`] : [])]);
    }
  });

  it('an event whose filter the query cannot apply is said not checked, for each row, never guessed', async () => {
    const h = await open();
    const events = [JACKET.events[0], { id: 'product_added_to_cart', properties: [{ type: 'person', key: 'email', operator: 'icontains', value: '@' }] }];
    const result = await h.call('session-recordings-list', { ...JACKET, events });
    expect(result.isError, text(result)).toBeFalsy();
    const data = result.structuredContent as ListData;
    expect(data.results.length).toBeGreaterThan(0);
    for (const row of data.results) {
      expect(row.events_not_checked).toEqual(['product_added_to_cart']);
      expect(row.matched_events!.includes('product_added_to_cart')).toBe(false);
    }
    expect(data.matched_events_note).toMatch(/"product_added_to_cart" not checked in rows: its person filter on "email"/);
    expect(text(result)).toContain(data.matched_events_note!);
    expect(text(result)).toContain('not checked "product_added_to_cart"');
  });

  it('without query:read the rows carry no such field and the list says why, once', async () => {
    const h = await open({ sandbox: { scopes: ['session_recording:read', 'project:read'] } });
    const result = await h.call('session-recordings-list', JACKET);
    expect(result.isError, text(result)).toBeFalsy();
    const data = result.structuredContent as ListData;
    expect(data.results.length).toBeGreaterThan(0);
    for (const row of data.results) expect(row).not.toHaveProperty('matched_events');
    expect(data.matched_events_note).toMatch(/^Rows do not say which requested events each has: the key may not use the query API \(add the query:read scope/);
    expect(text(result).split(data.matched_events_note!).length - 1).toBe(1);
  });
});
