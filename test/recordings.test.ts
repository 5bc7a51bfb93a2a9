import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, type SandboxApi } from '../src/sandbox/index.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;

// Every recording tool against both PostHogs the sandbox imitates: today's Cloud and 2024's API.
describe.each<SandboxApi>(['today', '2024'])('recording tools against the sandbox (%s PostHog)', (api) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { api } });
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('session-recordings-list echoes the period it applied, in both views', async () => {
    const given = await h.call('session-recordings-list', { project_id: P, limit: 1, date_from: '-30d', date_to: '2030-01-01' });
    expect((given.structuredContent as { period: unknown }).period).toEqual({ date_from: '-30d', date_to: '2030-01-01', time_zone: 'project' });
    expect(text(given)).toContain("Period: -30d to 2030-01-01, in the project's time zone.");
    expect(apiRequests(h.sandbox).at(-1)!.query.date_from).toBe('-30d');
    const defaulted = await h.call('session-recordings-list', { project_id: P, limit: 1 });
    expect((defaulted.structuredContent as { period: unknown }).period).toEqual({ date_from: '-3d', date_to: 'now', time_zone: 'project' });
    expect(text(defaulted)).toContain("Period: -3d to now, in the project's time zone.");
    // Not sent: "-3d" is PostHog's own default, which the echo names.
    expect(apiRequests(h.sandbox).at(-1)!.query).not.toHaveProperty('date_from');
  });

  it('filter_test_accounts says how many recordings of the period it left out, in both views, in any envelope', async () => {
    const ids = async (args: Record<string, unknown>) => ((await h.call('session-recordings-list', { project_id: P, date_from: '-30d', limit: 100, ...args })).structuredContent as { results: Array<{ id: string }> }).results.map((r) => r.id);
    const all = await ids({});
    const kept = await ids({ filter_test_accounts: true });
    const removed = all.filter((id) => !kept.includes(id));
    expect(removed).toContain(R.internalQa);
    const drf = await startHarness({ sandbox: { api, recordingsEnvelope: 'drf' } });
    try {
      for (const [harness, limit] of [[h, 100], [h, 1], [drf, 1]] as const) {
        const before = apiRequests(harness.sandbox).length;
        const r = await harness.call('session-recordings-list', { project_id: P, date_from: '-30d', limit, filter_test_accounts: true });
        expect(r.isError, text(r)).toBeFalsy();
        expect((r.structuredContent as { test_accounts: unknown }).test_accounts, `limit ${limit}`).toEqual({ left_out: removed.length, exact: true });
        expect(text(r)).toContain(`filter_test_accounts left out ${removed.length} recording${removed.length === 1 ? '' : 's'} of the period.`);
        // The listing, then the count: one page without the filter and, when the filtered page was not all of them, those asked again with it.
        expect(apiRequests(harness.sandbox).length - before, `limit ${limit}`).toBe(limit === 100 ? 2 : harness === drf ? 2 : 3);
      }
    } finally {
      await drf.close();
    }
    const unasked = await h.call('session-recordings-list', { project_id: P, date_from: '-30d', limit: 1 });
    expect(unasked.structuredContent).not.toHaveProperty('test_accounts');
  });

  it('session-recordings-list returns a trimmed page with has_more/next_offset and pages to the end', async () => {
    const first = await h.call('session-recordings-list', { project_id: P, limit: 3, date_from: '-30d' });
    expect(first.isError).toBeFalsy();
    const page = first.structuredContent as { results: Array<Record<string, unknown>>; has_more: boolean; next_offset: number | null };
    expect(page.results).toHaveLength(3);
    expect(page.has_more).toBe(true);
    expect(page.next_offset).toBe(3);
    // PostHog's recording under its own names and types, beside it what this server adds.
    expect(page.results[0]).toMatchObject({ start_time: expect.any(String), recording_duration: expect.any(Number), click_count: expect.any(Number), person: expect.any(Object) });
    for (const renamed of ['start', 'duration_s', 'clicks', 'url', 'person_properties']) expect(page.results[0]).not.toHaveProperty(renamed);
    // Without include_person_properties, the person's properties are cut to who they are and where they were.
    for (const row of page.results) {
      const keys = Object.keys((row.person as { properties: object }).properties);
      expect(keys.every((key) => ['email', 'name'].includes(key) || /^\$(initial_)?(browser|os|device_type|geoip_country_code)$/.test(key)), keys.join()).toBe(true);
    }

    const ids = new Set<string>();
    let offset: number | null = 0;
    for (let i = 0; i < 20 && offset !== null; i++) {
      const r = await h.call('session-recordings-list', { project_id: P, limit: 4, offset, date_from: '-30d' });
      const p = r.structuredContent as { results: Array<{ id: string }>; next_offset: number | null };
      for (const rec of p.results) ids.add(rec.id);
      offset = p.next_offset;
    }
    expect(offset).toBeNull();
    const expected = DEMO.recordings.filter((r) => r.projectId === DEMO.mainProjectId).map((r) => r.id);
    expect([...ids].sort()).toEqual([...expected].sort());
    expect(text(first)).toMatch(/More: call again with offset=3/);
  });

  it('sends only the filters given, JSON-encoded where PostHog expects JSON', async () => {
    await h.call('session-recordings-list', {
      project_id: P,
      limit: 5,
      date_from: '-7d',
      order: 'console_error_count',
      order_direction: 'DESC',
      session_ids: [R.checkoutFailure, R.successfulPurchase],
    });
    const [req] = apiRequests(h.sandbox);
    expect(req!.headers['user-agent']).toMatch(/^posthog-replay-mcp\/\d+\.\d+\.\d+ /);
    expect(req!.path).toBe(`/api/projects/${P}/session_recordings/`);
    expect(req!.query).toEqual({
      limit: '5',
      offset: '0',
      date_from: '-7d',
      order: 'console_error_count',
      order_direction: 'DESC',
      session_ids: JSON.stringify([R.checkoutFailure, R.successfulPurchase]),
    });
  });

  it('reads the DRF envelope too', async () => {
    const drf = await startHarness({ sandbox: { api, recordingsEnvelope: 'drf' } });
    try {
      const r = await drf.call('session-recordings-list', { project_id: P, limit: 2, date_from: '-30d' });
      const page = r.structuredContent as { results: unknown[]; has_more: boolean; next_offset: number; count?: number };
      expect(page.results).toHaveLength(2);
      expect(page.has_more).toBe(true);
      expect(page.next_offset).toBe(2);
      expect(page.count).toBeGreaterThan(2);
    } finally {
      await drf.close();
    }
  });

  it('session-recording-get returns the recording, person properties only on request', async () => {
    const plain = await h.call('session-recording-get', { project_id: P, id: R.checkoutFailure });
    expect(plain.isError).toBeFalsy();
    const rec = (plain.structuredContent as { recording: Record<string, unknown> & { person: { uuid: string; properties: Record<string, unknown> } } }).recording;
    expect(rec.id).toBe(R.checkoutFailure);
    expect(rec.console_error_count).toBeGreaterThan(0);
    expect(rec.person.uuid).toEqual(expect.any(String));
    const cut = Object.keys(rec.person.properties).length;
    expect(rec.person_properties_left_out).toBeGreaterThan(0);
    expect(text(plain)).toContain(`${rec.person_properties_left_out as number} other keys left out); include_person_properties=true gives them all.`);
    const withProps = await h.call('session-recording-get', { project_id: Number(P), id: R.checkoutFailure, include_person_properties: true });
    const whole = (withProps.structuredContent as { recording: Record<string, unknown> & { person: { properties: Record<string, unknown> } } }).recording;
    const properties = whole.person.properties;
    expect(Object.keys(properties).length).toBe(cut + (rec.person_properties_left_out as number));
    expect(whole.person_properties_left_out).toBeUndefined();
    // What was asked for is in the text too (docs/design.md, "Both views").
    for (const [key, value] of Object.entries(properties)) if (typeof value === 'string') expect(text(withProps)).toContain(`"${key}":${JSON.stringify(value)}`);
    expect(text(plain)).toContain(R.checkoutFailure);
  });

  it('session-recording-get on an unknown id says which id and which tool lists valid ones', async () => {
    const r = await h.call('session-recording-get', { project_id: P, id: 'does-not-exist' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/404/);
    expect(text(r)).toMatch(/does-not-exist/);
    expect(text(r)).toMatch(/session-recordings-list/);
  });

  it('session-recording-delete deletes, says what it deleted, and a second delete is a clear not-found', async () => {
    const r = await h.call('session-recording-delete', { project_id: P, id: R.anonymousBounce });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ deleted: true, id: R.anonymousBounce, project_id: P, recording: { id: R.anonymousBounce } });
    expect(text(r)).toMatch(/Deleted recording \S+ from project \d+ \(permanent\)/);
    expect(apiRequests(h.sandbox).map((q) => q.method)).toEqual(['GET', 'DELETE']);
    const gone = await h.call('session-recording-get', { project_id: P, id: R.anonymousBounce });
    expect(gone.isError).toBe(true);
    const again = await h.call('session-recording-delete', { project_id: P, id: R.anonymousBounce });
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(/Nothing was deleted/);
  });

  it('session-recording-properties returns properties per session', async () => {
    const r = await h.call('session-recording-properties', { project_id: P, session_ids: [R.checkoutFailure, R.successfulPurchase] });
    expect(r.isError, text(r)).toBeFalsy();
    const results = (r.structuredContent as { results: Array<{ id: string; properties: Record<string, unknown> }> }).results;
    expect(results.map((x) => x.id).sort()).toEqual([R.checkoutFailure, R.successfulPurchase].sort());
    expect(results[0]!.properties).toHaveProperty('$browser');
    expect(apiRequests(h.sandbox)[0]!.query.session_ids).toBe(JSON.stringify([R.checkoutFailure, R.successfulPurchase]));
  });

  it('session-recording-matching-events finds the events, trying the documented endpoint first with session_ids and filters JSON-encoded', async () => {
    const r = await h.call('session-recording-matching-events', { project_id: P, session_id: R.checkoutFailure, events: [{ id: '$pageview' }] });
    expect(r.isError, text(r)).toBeFalsy();
    const results = (r.structuredContent as { results: Array<{ uuid: string; timestamp: string }> }).results;
    expect(results.length).toBeGreaterThan(0);
    expect(results[0]!.uuid).toBeTruthy();
    const first = apiRequests(h.sandbox)[0]!;
    expect(first.path).toBe(`/api/projects/${P}/session_recordings/matching_events/`);
    expect(JSON.parse(first.query.session_ids!)).toEqual([R.checkoutFailure]);
    expect(JSON.parse(first.query.events!)[0]).toMatchObject({ id: '$pageview', type: 'events' });
  });

  it('session-recording-matching-events by action gives the same events either way', async () => {
    const action = DEMO.actions.find((a) => a.event === '$rageclick')!;
    const r = await h.call('session-recording-matching-events', { project_id: P, session_id: R.checkoutFailure, actions: [{ id: action.id }] });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { results: unknown[] }).results).toHaveLength(1);
  });
});
