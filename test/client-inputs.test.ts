// Arguments as MCP clients really send them, through the SDK Client against the sandbox: fields a
// client adds to every call on its own (Gemini CLI's wait_for_previous and the others in
// tools/input.ts), and numbers and booleans as strings (MCP Inspector's CLI sends every argument as
// one). Each accepted form must send PostHog exactly what the plain form sends; each refused one,
// nothing at all.
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult, type Task } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { CLIENT_ADDED_FIELDS } from '../src/tools/input.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds.checkoutFailure;
const ACTION = DEMO.actions.find((a) => a.event === '$rageclick')!;

/** What PostHog received for one call: method, path and query of each request. */
async function sent(h: Harness, tool: string, args: Record<string, unknown>): Promise<{ result: CallToolResult; requests: unknown[] }> {
  h.sandbox.reset();
  const result = await h.call(tool, args);
  expect(result.isError, text(result)).toBeFalsy();
  const requests = apiRequests(h.sandbox).map(({ method, path, query, body }) => ({ method, path, query, body }));
  expect(requests.length).toBeGreaterThan(0);
  return { result, requests };
}

/**
 * The call with `extra` must send what the call without it sends, and (for a read) answer the same.
 * The plain call is made once before, so what the server learns on a first call (an endpoint
 * PostHog no longer serves) is known to both.
 */
async function sameAs(h: Harness, tool: string, plain: Record<string, unknown>, extra: Record<string, unknown>, { write = false } = {}): Promise<void> {
  await sent(h, tool, plain);
  const a = await sent(h, tool, plain);
  const b = await sent(h, tool, extra);
  expect(b.requests).toEqual(a.requests);
  // A write's answer carries the time of the write.
  if (!write) expect(b.result.structuredContent).toEqual(a.result.structuredContent);
}

describe('fields clients add to every call on their own', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('a Gemini CLI call with wait_for_previous succeeds and sends the same request as without it', async () => {
    await sameAs(h, 'session-recordings-list', { project_id: P, limit: 2 }, { project_id: P, limit: 2, wait_for_previous: true });
    await sameAs(h, 'projects-list', {}, { wait_for_previous: false });
    await sameAs(h, 'session-recording-get', { project_id: P, id: R }, { wait_for_previous: true, project_id: P, id: R });
  });

  it('each field a client is known to add is accepted and ignored', async () => {
    for (const field of CLIENT_ADDED_FIELDS) {
      await sameAs(h, 'project-get', { id: DEMO.mainProjectId }, { id: DEMO.mainProjectId, [field]: field === 'wait_for_previous' ? true : 'call_0BCIShth4lxZ' });
    }
  });

  it('a triage task started with wait_for_previous is accepted (task start reads arguments the same way)', async () => {
    const created = await h.client.request(
      { method: 'tools/call', params: { name: 'session-recordings-triage', arguments: { project_id: P, date_from: '-30d', max_recordings: '3', wait_for_previous: true }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    let task: Task = created.task;
    for (let i = 0; i < 300 && !['completed', 'failed', 'cancelled'].includes(task.status); i++) {
      await new Promise((r) => setTimeout(r, 50));
      task = await h.client.experimental.tasks.getTask(created.task.taskId);
    }
    expect(task.status).toBe('completed');
    const result = (await h.client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.isError, text(result)).toBeFalsy();
  });

  it('any other unknown field is still refused, naming the field meant, with nothing sent', async () => {
    const r = await h.call('session-recordings-list', { project_id: P, limt: 2 });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/unrecognized field "limt"; this tool does not take it\. Did you mean "limit"\?/);
    const two = await h.call('projects-list', { limt: 2, ofset: 1 });
    expect(text(two)).toMatch(/Did you mean "limit" for "limt", "offset" for "ofset"\?/);
    const nested = await h.call('project-update', { id: DEMO.mainProjectId, session_replay_config: { record_canvs: true } });
    expect(text(nested)).toMatch(/session_replay_config: unrecognized field "record_canvs"; this tool does not take it\. Did you mean "record_canvas"\?/);
    const far = await h.call('session-recordings-list', { project_id: P, colour: 'red' });
    expect(text(far)).toMatch(/unrecognized field "colour"; this tool does not take it\.$/);
    expect(h.sandbox.requests).toHaveLength(0);
  });
});

describe('numbers and booleans sent as strings', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('session-recordings-list: limit, offset and a boolean as strings send what the values send', async () => {
    await sameAs(h, 'session-recordings-list', { project_id: P, limit: 2, offset: 0, include_person_properties: true }, { project_id: P, limit: '2', offset: '0', include_person_properties: 'true' });
    await sameAs(h, 'session-recordings-list', { project_id: P, limit: 1, offset: 1, include_person_properties: false }, { project_id: P, limit: '1', offset: '1', include_person_properties: 'false' });
  });

  it('projects-list, project-get (id and include_settings) and session-recording-get take string forms', async () => {
    await sameAs(h, 'projects-list', { limit: 2, offset: 1 }, { limit: '2', offset: '1' });
    await sameAs(h, 'project-get', { id: DEMO.mainProjectId, include_settings: true }, { id: String(DEMO.mainProjectId), include_settings: 'true' });
    await sameAs(h, 'session-recording-get', { project_id: P, id: R, include_person_properties: true }, { project_id: P, id: R, include_person_properties: 'true' });
  });

  it('numbers inside arrays and nested objects: an action id, project-update\'s settings (a float, and an object of booleans)', async () => {
    await sameAs(h, 'session-recording-matching-events', { project_id: P, session_id: R, actions: [{ id: ACTION.id }] }, { project_id: P, session_id: R, actions: [{ id: String(ACTION.id) }] });
    await sameAs(
      h,
      'project-update',
      { id: DEMO.marketingProjectId, session_recording_sample_rate: 0.5, session_recording_network_payload_capture_config: { recordHeaders: true, recordBody: false } },
      { id: String(DEMO.marketingProjectId), session_recording_sample_rate: '0.5', session_recording_network_payload_capture_config: { recordHeaders: 'true', recordBody: 'false' } },
      { write: true },
    );
    await sameAs(h, 'project-update', { id: DEMO.marketingProjectId, session_replay_config: { record_canvas: true } }, { id: DEMO.marketingProjectId, session_replay_config: { record_canvas: 'true' } }, { write: true });
  });

  it('project_id stays a string (a number or "@current"), and "clear" stays the word it is', async () => {
    await sameAs(h, 'session-recordings-list', { project_id: Number(P), limit: 2 }, { project_id: P, limit: '2' });
    await sameAs(h, 'project-update', { id: DEMO.marketingProjectId, session_recording_sample_rate: 'clear' }, { id: String(DEMO.marketingProjectId), session_recording_sample_rate: 'clear' }, { write: true });
  });

  /** Strings that are not exactly a number or boolean of the field's kind: refused naming the field and its type. */
  const REFUSED: Array<[string, string, Record<string, unknown>, RegExp]> = [
    ['a word for a limit', 'session-recordings-list', { project_id: P, limit: 'ten' }, /limit: expected a whole number like 10, got the string "ten"/],
    ['a number past the float range', 'projects-list', { limit: '1e999' }, /limit: expected a whole number like 10, got the string "1e999"/],
    ['an empty string', 'projects-list', { offset: '' }, /offset: expected a whole number like 10, got the string ""/],
    ['a number with spaces around it', 'projects-list', { limit: ' 2 ' }, /limit: expected a whole number like 10, got the string " 2 "/],
    ['a number with a plus sign', 'projects-list', { limit: '+2' }, /limit: expected a whole number/],
    // Read as the number it is, then refused as the schema refuses 1.5.
    ['a fraction where a whole number goes', 'projects-list', { limit: '1.5' }, /limit: Invalid input: expected int, received number/],
    ['a negative offset', 'projects-list', { offset: '-1' }, /offset: .*>=0/],
    ['a boolean in capitals', 'session-recordings-list', { project_id: P, include_person_properties: 'TRUE' }, /include_person_properties: expected true or false, got the string "TRUE"/],
    ['yes for a boolean', 'project-get', { id: DEMO.mainProjectId, include_settings: 'yes' }, /include_settings: expected true or false, got the string "yes"/],
    ['a word for a nested boolean', 'project-update', { id: DEMO.marketingProjectId, session_replay_config: { record_canvas: 'on' } }, /session_replay_config\.record_canvas: expected true or false, got the string "on"/],
    ['a word for an action id', 'session-recording-matching-events', { project_id: P, session_id: R, actions: [{ id: 'rage' }] }, /actions\.0\.id: expected a whole number like 10, got the string "rage"/],
    ['a word for a setting that also takes "clear"', 'project-update', { id: DEMO.marketingProjectId, session_recording_sample_rate: 'half' }, /session_recording_sample_rate: expected a number like 10 or 0\.5 or "clear", got the string "half"/],
  ];
  for (const [what, tool, args, message] of REFUSED) {
    it(`${tool}: ${what} is refused before any request`, async () => {
      const r = await h.call(tool, args);
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(message);
      expect(h.sandbox.requests).toHaveLength(0);
    });
  }
});
