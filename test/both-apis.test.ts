// Each of the twelve tools gives a correct result against the sandbox imitating today's PostHog
// Cloud and PostHog's 2024 API (the detailed tests of each tool are in their own files; the
// recording and project tool files run over both as well).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, type SandboxApi } from '../src/sandbox/index.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;

describe.each<SandboxApi>(['today', '2024'])('all twelve tools against %s PostHog', (api) => {
  let h: Harness;
  const called = new Set<string>();
  beforeAll(async () => {
    h = await startHarness({ sandbox: { api } });
  });
  afterAll(async () => {
    await h.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    called.add(name);
    const r = await h.call(name, args);
    expect(r.isError, `${name}: ${text(r)}`).toBeFalsy();
    return r.structuredContent as Record<string, any>;
  };

  it('recording tools', async () => {
    const list = await call('session-recordings-list', { project_id: P, date_from: '-30d', limit: 100 });
    expect(list.results.map((r: { id: string }) => r.id)).toContain(R.checkoutFailure);
    const got = await call('session-recording-get', { project_id: P, id: R.checkoutFailure });
    expect(got.recording.console_error_count).toBeGreaterThan(0);
    const snapshots = await call('session-recording-snapshots', { project_id: P, id: R.checkoutFailure, max_events: 10 });
    expect(snapshots.events).toHaveLength(10);
    const summary = await call('session-recording-summary', { project_id: P, id: R.checkoutFailure });
    expect(summary.timeline.some((line: string) => / RAGE CLICK /.test(line))).toBe(true);
    const matches = await call('session-recording-matching-events', { project_id: P, session_id: R.checkoutFailure, events: [{ id: '$exception' }] });
    expect(matches.results).toHaveLength(2);
    const properties = await call('session-recording-properties', { project_id: P, session_ids: [R.compressedMobile] });
    expect(properties.results).toEqual([{ id: R.compressedMobile, properties: expect.objectContaining({ $os: 'iOS', $geoip_country_code: 'NG' }) }]);
    const deleted = await call('session-recording-delete', { project_id: P, id: R.anonymousBounce });
    expect(deleted).toMatchObject({ deleted: true, id: R.anonymousBounce });
    // How each PostHog was asked: matching events and properties through today's query API and
    // through 2024's own endpoints; the summary's $exception events through the query API in both.
    const queries = apiRequests(h.sandbox).filter((q) => q.path.endsWith('/query/'));
    expect(queries).toHaveLength(api === 'today' ? 3 : 1);
  });

  it('project tools', async () => {
    const list = await call('projects-list', {});
    expect(list.results.map((p: { id: number }) => p.id)).toContain(DEMO.mainProjectId);
    const created = await call('project-create', { name: `Both APIs ${api}`, test_account_filters: [{ key: 'email', value: '@example.com', operator: 'not_icontains', type: 'person' }] });
    expect(created).toMatchObject({ created: true, not_applied: [], project: { name: `Both APIs ${api}` } });
    const id = created.project.id as number;
    const got = await call('project-get', { id, include_settings: true });
    expect(got.project.test_account_filters).toEqual([{ key: 'email', value: '@example.com', operator: 'not_icontains', type: 'person' }]);
    const updated = await call('project-update', { id, timezone: 'Europe/Berlin', data_attributes: ['data-testid'] });
    expect(updated).toMatchObject({ not_applied: [], project: { timezone: 'Europe/Berlin' } });
    const deleted = await call('project-delete', { id });
    expect(deleted).toMatchObject({ deleted: true, id });
  });

  it('covered the twelve tools', () => {
    // Named, not taken from ALL_TOOLS: a tool added later (triage, replay) gets its own two-mode check.
    const twelve = [
      'session-recordings-list', 'session-recording-get', 'session-recording-delete', 'session-recording-snapshots', 'session-recording-summary',
      'session-recording-matching-events', 'session-recording-properties', 'projects-list', 'project-create', 'project-get', 'project-update', 'project-delete',
    ];
    expect([...called].sort()).toEqual(twelve.sort());
  });
});
