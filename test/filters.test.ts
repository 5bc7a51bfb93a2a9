import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

// Issue 31: the questions people bring to a replay tool, each answered by one call with PostHog's
// recording filters, against the sandbox's demo week (src/sandbox/demo/catalog.ts, stories.ts).
const P = String(DEMO.mainProjectId);
const ID = DEMO.recordingIds;
const WEEK = { project_id: P, date_from: '-7d' };

type Row = { id: string };
const ids = (r: { structuredContent?: unknown }) => ((r.structuredContent as { results: Row[] }).results ?? []).map((row) => row.id).sort();

describe('session-recordings-list answers "which recordings…" in one call', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  const list = async (args: Record<string, unknown>) => {
    const r = await h.call('session-recordings-list', { ...WEEK, ...args });
    expect(r.isError, text(r)).toBeFalsy();
    return r;
  };

  it('someone viewed a product page: a $pageview entity with $current_url icontains', async () => {
    const r = await list({ events: [{ id: '$pageview', properties: [{ type: 'event', key: '$current_url', operator: 'icontains', value: '/products/alpine-down-jacket' }] }] });
    // Sam (mobile), Hiroshi (two tabs), Chloé (ongoing) and Lena (long browse) opened the jacket's page.
    expect(ids(r)).toEqual([ID.compressedMobile, ID.twoTabs, ID.ongoing, ID.longBrowse].sort());
    // Sent as PostHog reads it: the entity JSON-encoded, its type filled in.
    const sent = JSON.parse(apiRequests(h.sandbox)[0]!.query.events!);
    expect(sent).toEqual([{ id: '$pageview', type: 'events', order: 0, properties: [{ type: 'event', key: '$current_url', operator: 'icontains', value: '/products/alpine-down-jacket' }] }]);
  });

  it('completed orders without test accounts: an order_completed entity and filter_test_accounts', async () => {
    const all = await list({ events: [{ id: 'order_completed' }] });
    expect(ids(all)).toEqual([ID.successfulPurchase, ID.internalQa].sort());
    const customers = await list({ events: [{ id: 'order_completed' }], filter_test_accounts: true });
    expect(ids(customers)).toEqual([ID.successfulPurchase]);
    // The list requests only: each page's matched-events query comes between them.
    const lists = apiRequests(h.sandbox).filter((r) => /\/session_recordings\/?$/.test(r.path));
    expect(lists[1]!.query.filter_test_accounts).toBe('true');
  });

  it('visitors from one country: person $geoip_country_code', async () => {
    const r = await list({ properties: [{ type: 'person', key: '$geoip_country_code', operator: 'exact', value: ['DE'] }] });
    expect(ids(r)).toEqual([ID.longBrowse]);
  });

  it('mobile sessions: event $device_type exact Mobile', async () => {
    const r = await list({ properties: [{ type: 'event', key: '$device_type', operator: 'exact', value: ['Mobile'] }] });
    expect(ids(r)).toEqual([ID.compressedMobile, ID.anonymousBounce].sort());
  });

  it('sessions with an uncaught exception: a $exception entity', async () => {
    const r = await list({ events: [{ id: '$exception' }] });
    expect(ids(r)).toEqual([ID.checkoutFailure, ID.recordedSdkSignup].sort());
  });

  it('console errors containing a word: level and message console filters on one entry', async () => {
    const r = await list({
      console_log_filters: [
        { key: 'level', operator: 'exact', value: ['error'] },
        { key: 'message', operator: 'icontains', value: 'PAYMENT' },
      ],
    });
    expect(ids(r)).toEqual([ID.checkoutFailure, ID.recordedCheckout].sort());
    expect(JSON.parse(apiRequests(h.sandbox)[0]!.query.console_log_filters!)[0]).toMatchObject({ type: 'log_entry' });
  });

  it('sessions longer than a given time: a duration having predicate', async () => {
    const r = await list({ having_predicates: [{ key: 'duration', operator: 'gt', value: 600 }] });
    expect(ids(r)).toEqual([ID.longBrowse]);
  });

  it('takes the filters as JSON text too (how hosts without free-form objects send them)', async () => {
    const r = await list({ properties: JSON.stringify([{ type: 'person', key: 'email', operator: 'icontains', value: 'lena' }]) });
    expect(ids(r)).toEqual([ID.longBrowse]);
  });

  it('combines with operand OR', async () => {
    const r = await list({ operand: 'OR', events: [{ id: '$exception' }], having_predicates: [{ key: 'duration', operator: 'gt', value: 600 }], properties: [{ type: 'person', key: '$geoip_country_code', operator: 'exact', value: ['CA'] }] });
    // Having predicates are always ANDed (here: only the long browse lasts 10 minutes): OR joins the rest.
    expect(ids(r)).toEqual([]);
    const either = await list({ operand: 'OR', events: [{ id: '$exception' }], properties: [{ type: 'person', key: '$geoip_country_code', operator: 'exact', value: ['CA'] }] });
    expect(ids(either)).toEqual([ID.checkoutFailure, ID.recordedSdkSignup, ID.searchRageClick].sort());
  });

  it('refuses a bad filter before any request, naming the near miss', async () => {
    const r = await h.call('session-recordings-list', {
      ...WEEK,
      properties: [
        { type: 'persn', key: 'email', operator: 'icontains', value: '@example.com' },
        { type: 'person', key: 'email', operator: 'contains', value: '@example.com' },
        { type: 'event', key: '$browser', operator: 'equals', value: ['Chrome'] },
      ],
      console_log_filters: [{ key: 'level', operator: 'exact', value: ['warning'] }],
      having_predicates: [{ key: 'duration', operator: 'gt', value: 'long' }],
    });
    expect(r.isError).toBe(true);
    const message = text(r);
    expect(message).toMatch(/properties\.0\.type: "persn" is not a filter type.*Did you mean "person"\?/);
    expect(message).toMatch(/properties\.1\.operator: "contains" is not an operator.*Did you mean "icontains"\?/);
    expect(message).toMatch(/properties\.2\.operator: .*Did you mean "exact"\?/);
    expect(message).toMatch(/console_log_filters\.0\.value: "warning" .*Did you mean "warn"\?/);
    expect(message).toMatch(/having_predicates\.0\.value: gt takes one number/);
    expect(h.sandbox.requests).toHaveLength(0);
  });
});

describe('session-recordings-triage takes the same filters', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('reads only the recordings the filters choose, and sends them on every list request', async () => {
    // Room for the sessions after the problems (at the default 4,000 they are left out, said so).
    const r = await h.call('session-recordings-triage', { ...WEEK, events: [{ id: '$exception' }], max_chars: 8_000 });
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as { read: number; sessions: Row[] };
    expect(data.read).toBe(2);
    expect(data.sessions.map((s) => s.id).sort()).toEqual([ID.checkoutFailure, ID.recordedSdkSignup].sort());
    const listed = apiRequests(h.sandbox).filter((q) => /\/session_recordings\/?$/.test(q.path));
    expect(listed.length).toBeGreaterThan(0);
    for (const q of listed) expect(JSON.parse(q.query.events!)).toEqual([{ id: '$exception', type: 'events', order: 0 }]);
  });
});

describe('recording-filter-options', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it("lists the project's event names, with how to use them", async () => {
    const r = await h.call('recording-filter-options', { project_id: P });
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as { names: string[]; has_more: boolean };
    for (const name of ['$pageview', '$exception', 'order_completed', 'product_added_to_cart', 'checkout_started']) expect(data.names).toContain(name);
    expect(data.names).not.toContain('plan_cta_clicked'); // the marketing site's, another project
    expect(text(r)).toContain('order_completed');
    expect(text(r)).toContain('events=[{"id":"<name>"}]');
    expect(apiRequests(h.sandbox).at(-1)!.path).toBe(`/api/projects/${P}/event_definitions/`);
  });

  it('finds an event by a word of its name', async () => {
    const r = await h.call('recording-filter-options', { project_id: P, search: 'order' });
    expect((r.structuredContent as { names: string[] }).names).toEqual(['order_completed']);
  });

  it('lists person property keys by type', async () => {
    const r = await h.call('recording-filter-options', { project_id: P, kind: 'person_properties' });
    expect(r.isError, text(r)).toBeFalsy();
    const byType = (r.structuredContent as { by_type: Record<string, string[]> }).by_type;
    expect(byType.String).toEqual(expect.arrayContaining(['email', 'name', '$geoip_country_code']));
    expect(byType.Numeric).toContain('orders_count');
    expect(text(r)).toMatch(/^String: .*\$geoip_country_code/m);
    expect(apiRequests(h.sandbox).at(-1)!.query.type).toBe('person');
  });

  it("gives a property's common values", async () => {
    const r = await h.call('recording-filter-options', { project_id: P, kind: 'person_properties', values_of: '$geoip_country_code' });
    expect(r.isError, text(r)).toBeFalsy();
    const values = (r.structuredContent as { values: Array<[string, number]> }).values.map(([v]) => v);
    expect(values).toEqual(expect.arrayContaining(['GB', 'DE', 'US', 'NG']));
    expect(text(r)).toContain('"DE"');
  });

  it('values_of alone means an event property; kind names a person property instead; a kind without values refuses it', async () => {
    const r = await h.call('recording-filter-options', { project_id: P, values_of: '$device_type' });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { values: string[] }).values).toEqual(expect.arrayContaining(['Desktop', 'Mobile']));
    expect(text(r)).toMatch(/common values? of event property "\$device_type"/);
    expect(apiRequests(h.sandbox).at(-1)!.path).toBe(`/api/projects/${P}/events/values/`);
    const before = apiRequests(h.sandbox).length;
    for (const kind of ['events', 'session_properties']) {
      const refused = await h.call('recording-filter-options', { project_id: P, kind, values_of: '$device_type' });
      expect(refused.isError, kind).toBe(true);
      expect(text(refused)).toMatch(/values_of works with kind "event_properties" \(its default\) or "person_properties"/);
    }
    expect(apiRequests(h.sandbox)).toHaveLength(before);
  });

  it('keeps the structured result within 1.3 times the text', async () => {
    for (const args of [{}, { kind: 'event_properties' }, { kind: 'person_properties', values_of: '$geoip_country_code' }]) {
      const r = await h.call('recording-filter-options', { project_id: P, ...args });
      const json = JSON.stringify(r.structuredContent).length;
      expect(json, JSON.stringify(args)).toBeLessThanOrEqual(1.3 * text(r).length);
    }
  });

  it('names the missing scope when the key lacks it', async () => {
    const scoped = await startHarness({ sandbox: { scopes: ['session_recording:read'] } });
    try {
      const r = await scoped.call('recording-filter-options', { project_id: P, kind: 'session_properties' });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/property_definition:read/);
    } finally {
      await scoped.close();
    }
  });
});

describe('session-recording-matching-events names each match', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('gives the event and, for a page view, its URL (through the query API on today\'s PostHog)', async () => {
    const r = await h.call('session-recording-matching-events', { project_id: P, session_id: ID.checkoutFailure, events: [{ id: '$pageview' }, { id: '$exception' }] });
    expect(r.isError, text(r)).toBeFalsy();
    const results = (r.structuredContent as { results: Array<{ event: string; url: string | null }> }).results;
    expect(results.filter((m) => m.event === '$exception')).toHaveLength(2);
    expect(results.filter((m) => m.event === '$pageview').map((m) => m.url)).toContain('https://shop.example.com/products/trail-runner-2');
    expect(text(r)).toMatch(/"\$pageview" "https:\/\/shop\.example\.com\/products\/trail-runner-2"/);
  });
});
