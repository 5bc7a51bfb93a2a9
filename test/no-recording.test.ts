// session-recording-get of a session that has events but no recording (issue 40 item 4): the
// reason, in both views, from the session's events and the project's settings, against the
// sandbox at scale, whose unrecorded sessions and their causes scaleTruth() lists.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCALE, scaleTruth, type ScaleTruth } from '../src/sandbox/index.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';
import { expectTwoViews, views } from './support/views.js';

const NOW = new Date();
const truth: ScaleTruth = scaleTruth({ now: NOW });
const DAY = 86_400_000;
const startOf = (id: string) => Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

/** One unrecorded session of the cause, at least a day old (nothing about it is still on its way). */
function unrecorded(cause: ScaleTruth['unrecorded'][number]['cause']) {
  const found = truth.unrecorded.find((u) => u.cause === cause && startOf(u.sessionId) < NOW.getTime() - DAY);
  if (!found) throw new Error(`the scale week has no ${cause} session a day old`);
  return found;
}

interface NoRecording {
  cause: string;
  detail: string;
  next_step: string;
  session_events: number;
  first_seen: string | null;
  last_seen: string | null;
  sample_rate?: number | null;
}

describe('session-recording-get of a session without a recording', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scale: true, now: NOW } });
  });
  afterAll(() => h.close());

  async function explained(projectId: number, id: string): Promise<{ why: NoRecording; shown: string }> {
    const r = await h.call('session-recording-get', { project_id: String(projectId), id });
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as { project_id: string; recording: unknown; no_recording: NoRecording };
    expect(data.project_id).toBe(String(projectId));
    expect(data.recording).toBeNull();
    const shown = text(r);
    expectTwoViews(views(r), { recorded: true });
    // The text says what the structured view says: the cause, the detail, the counts and times, the next step.
    for (const part of [data.no_recording.cause, data.no_recording.detail, data.no_recording.next_step, `${data.no_recording.session_events} events`, data.no_recording.first_seen!, data.no_recording.last_seen!, id]) expect(shown).toContain(part);
    return { why: data.no_recording, shown };
  }

  it('says a session was sampled out, with the rate, in both views', async () => {
    const session = unrecorded('sampled_out');
    const { why } = await explained(SCALE.projectId, session.sessionId);
    expect(why.cause).toBe('sampled_out');
    expect(why.sample_rate).toBe(truth.sampleRate);
    expect(why.detail).toContain('90 % of sessions');
    expect(why.session_events).toBeGreaterThan(0);
    expect(Date.parse(why.last_seen!) - Date.parse(why.first_seen!)).toBe(session.durationMs);
    // One bounded query and the project's settings, beside the 404.
    const queries = apiRequests(h.sandbox).filter((q) => q.path.endsWith('/query/') && q.body.includes(session.sessionId));
    expect(queries).toHaveLength(1);
    const sent = JSON.parse(queries[0]!.body) as { query: { query: string; values: Record<string, string> } };
    expect(sent.query.query).not.toContain(session.sessionId);
    expect(sent.query.values.session_id).toBe(session.sessionId);
    const from = Date.parse(sent.query.values.date_from!);
    const to = Date.parse(sent.query.values.date_to!);
    expect(startOf(session.sessionId) - from).toBe(3 * DAY);
    expect(to - startOf(session.sessionId)).toBe(3 * DAY);
  });

  it('says a session was shorter than the minimum duration, in both views', async () => {
    const session = unrecorded('too_short');
    const { why } = await explained(SCALE.projectId, session.sessionId);
    expect(why.cause).toBe('too_short');
    expect(why.detail).toContain('session_recording_minimum_duration_milliseconds 2000');
    expect(why.detail).toContain(`${(session.durationMs / 1000).toFixed(1)} s`);
    expect(why.sample_rate).toBeUndefined();
  });

  it('says replay is off in the help centre, in both views', async () => {
    const session = unrecorded('replay_off');
    expect(session.projectId).toBe(SCALE.replayOffProjectId);
    const { why } = await explained(SCALE.replayOffProjectId, session.sessionId);
    expect(why.cause).toBe('replay_off');
    expect(why.detail).toMatch(/session_recording_opt_in is false/);
    expect(why.detail).toMatch(/every event says the recorder was disabled/);
  });

  it('gets every unrecorded session of the week the cause scaleTruth planted', async () => {
    // A handful of each cause, oldest and newest: the rules hold across the week, not for one example.
    for (const cause of ['sampled_out', 'too_short', 'replay_off'] as const) {
      const all = truth.unrecorded.filter((u) => u.cause === cause && startOf(u.sessionId) < NOW.getTime() - DAY);
      for (const session of [all[0]!, all[Math.floor(all.length / 2)]!, all.at(-1)!]) {
        const r = await h.call('session-recording-get', { project_id: String(session.projectId), id: session.sessionId });
        expect((r.structuredContent as { no_recording?: NoRecording } | undefined)?.no_recording?.cause, `${session.sessionId}: ${text(r)}`).toBe(cause);
      }
    }
  });

  it('keeps a made-up session id with no events a plain not-found', async () => {
    const made = `${(NOW.getTime() - 2 * DAY).toString(16).padStart(12, '0').replace(/^(.{8})(.{4})$/, '$1-$2')}-7abc-8def-0123456789ab`;
    const r = await h.call('session-recording-get', { project_id: String(SCALE.projectId), id: made });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(text(r)).toMatch(new RegExp(`PostHog answered 404 .*No recording "${made}" in project ${SCALE.projectId}: it may have expired`));
    expect(text(r)).not.toMatch(/could not be checked/);
    // It looked: one query over the id's window found nothing.
    expect(apiRequests(h.sandbox).filter((q) => q.path.endsWith('/query/') && q.body.includes(made))).toHaveLength(1);
  });

  it('says the reason could not be checked where PostHog has no query API', async () => {
    h.sandbox.injectFault({ method: 'POST', path: `/api/projects/${SCALE.projectId}/query/`, status: 404, body: { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null } });
    const r = await h.call('session-recording-get', { project_id: String(SCALE.projectId), id: unrecorded('too_short').sessionId });
    h.sandbox.clearFaults();
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/No recording ".*" in project \d+: it may have expired.*could not be checked: this PostHog has no query API \(it answered 404\)\.$/);
  });

  it('leaves a recorded session as it was', async () => {
    const id = [...truth.recorded.sessionIds][0]!;
    const before = apiRequests(h.sandbox).length;
    const r = await h.call('session-recording-get', { project_id: String(SCALE.projectId), id });
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as { recording: { id: string }; no_recording?: unknown };
    expect(data.recording.id).toBe(id);
    expect(data).not.toHaveProperty('no_recording');
    expect(text(r)).not.toMatch(/No recording/);
    // One request, the recording's own: nothing is looked up for a recording that is there.
    expect(apiRequests(h.sandbox).slice(before).map((q) => q.path)).toEqual([`/api/projects/${SCALE.projectId}/session_recordings/${id}/`]);
  });
});

describe('session-recording-get without query:read', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scale: true, now: NOW, scopes: ['session_recording:read', 'project:read'] } });
  });
  afterAll(() => h.close());

  it('answers the plain not-found and says the reason could not be checked, and why', async () => {
    const r = await h.call('session-recording-get', { project_id: String(SCALE.projectId), id: unrecorded('sampled_out').sessionId });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/PostHog answered 404 .*No recording ".*" in project \d+: it may have expired/);
    expect(text(r)).toMatch(/why it has no recording, could not be checked: the key lacks the query:read scope/);
  });
});
