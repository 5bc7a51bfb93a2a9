// Confirmation before destruction (issue 14): a client that declared elicitation is asked, through
// elicitation/create, before session-recording-delete, project-delete and project-update, with a
// question naming exactly what will change; declining or dismissing changes nothing. Clients
// without elicitation, servers with confirmation off and transports that cannot ask keep the old
// behaviour. The upstream is the sandbox over HTTP; what it received shows what happened.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { TOOLSETS } from '../src/settings.js';
import { PostHogClient } from '../src/posthog/client.js';
import { clientOptionsFrom } from '../src/posthog/from-config.js';
import { DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { createServer } from '../src/server.js';
import { duration } from '../src/tools/format.js';
import { defaultConfig, text } from './harness.js';

type Answer = ElicitResult | 'throw';

interface Setup {
  sandbox: Sandbox;
  /** The questions the user was asked. */
  asked: ElicitRequest['params'][];
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** API requests the sandbox received with this method. */
  upstream(method: string): { method: string; path: string; body: string }[];
  close(): Promise<void>;
}

let current: Setup | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

/** A server on the sandbox, and an SDK Client that supports elicitation (answering `answer`) or not. */
async function start(options: { answer?: Answer; confirmDestructive?: boolean; interactive?: boolean }): Promise<Setup> {
  const sandbox = await startSandbox();
  const config = defaultConfig(sandbox.url, sandbox.apiKey);
  const posthog = new PostHogClient(clientOptionsFrom(config, { baseUrl: config.baseUrl, apiKey: sandbox.apiKey }));
  const server = createServer({
    client: posthog,
    settings: { readOnly: false, toolsets: [...TOOLSETS], defaultProjectId: undefined, confirmDestructive: options.confirmDestructive },
    interactive: options.interactive,
  });
  const elicits = options.answer !== undefined;
  const client = new Client({ name: 'confirm-test', version: '1.0.0' }, { capabilities: elicits ? { elicitation: { form: {} } } : {} });
  const asked: ElicitRequest['params'][] = [];
  if (elicits) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      if (options.answer === 'throw') throw new Error('the user interface crashed');
      return options.answer as ElicitResult;
    });
  }
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  current = {
    sandbox,
    asked,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    upstream: (method) => sandbox.requests.filter((r) => r.method === method && r.path.startsWith('/api/')),
    close: async () => {
      await client.close();
      await server.close();
      await posthog.close();
      await sandbox.close();
    },
  };
  return current;
}

const P = DEMO.mainProjectId;
const RECORDING = DEMO.recordingIds.checkoutFailure;
const ACCEPT: ElicitResult = { action: 'accept', content: { confirm: true } };
const recordingPath = `/api/projects/${P}/session_recordings/${RECORDING}/`;

describe('session-recording-delete asks first', () => {
  it('names the recording (start time, duration, person) and deletes it once the user accepts', async () => {
    const s = await start({ answer: ACCEPT });
    const { recording: info } = (await s.call('session-recording-get', { project_id: P, id: RECORDING })).structuredContent as {
      recording: { start_time: string; recording_duration: number; person: { name: string } };
    };
    const r = await s.call('session-recording-delete', { project_id: P, id: RECORDING });
    expect(r.isError, text(r)).toBeFalsy();
    expect(s.asked).toHaveLength(1);
    const question = s.asked[0]!.message;
    expect(question).toContain(RECORDING);
    expect(question).toContain(`project ${P}`);
    expect(question).toContain(info.start_time.slice(0, 10));
    expect(question).toContain(info.person.name);
    expect(question).toContain(duration(info.recording_duration));
    expect(question).toMatch(/cannot be undone/);
    expect(s.upstream('DELETE').map((q) => q.path)).toEqual([recordingPath]);
    expect((await s.call('session-recording-get', { project_id: P, id: RECORDING })).isError).toBe(true);
  });

  it('deletes nothing when the user declines, and says so without counting it as done', async () => {
    const s = await start({ answer: { action: 'decline' } });
    const r = await s.call('session-recording-delete', { project_id: P, id: RECORDING });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/user declined to delete recording .* Nothing was deleted\. Do not retry/);
    expect(r.structuredContent).toBeUndefined();
    expect(s.upstream('DELETE')).toEqual([]);
    expect((await s.call('session-recording-get', { project_id: P, id: RECORDING })).isError).toBeFalsy();
  });

  it('deletes nothing when the user dismisses the question, or unticks the box and accepts', async () => {
    const s = await start({ answer: { action: 'cancel' } });
    const r = await s.call('session-recording-delete', { project_id: P, id: RECORDING });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/dismissed the confirmation .* Nothing was deleted/);
    await s.close();
    const unticked = await start({ answer: { action: 'accept', content: { confirm: false } } });
    const r2 = await unticked.call('session-recording-delete', { project_id: P, id: RECORDING });
    expect(text(r2)).toMatch(/declined/);
    expect([...s.upstream('DELETE'), ...unticked.upstream('DELETE')]).toEqual([]);
  });

  it('deletes nothing when the question gets no answer (the client fails it)', async () => {
    const s = await start({ answer: 'throw' });
    const r = await s.call('session-recording-delete', { project_id: P, id: RECORDING });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Could not get the user's confirmation .* Nothing was deleted/);
    expect(s.upstream('DELETE')).toEqual([]);
  });

  it('an unknown id is not found before anyone is asked', async () => {
    const s = await start({ answer: ACCEPT });
    const r = await s.call('session-recording-delete', { project_id: P, id: 'no-such-recording' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Nothing was deleted/);
    expect(s.asked).toEqual([]);
    expect(s.upstream('DELETE')).toEqual([]);
  });
});

describe('clients that cannot be asked keep today\'s behaviour', () => {
  it('a client without elicitation: deleted at once, no question', async () => {
    const s = await start({});
    const r = await s.call('session-recording-delete', { project_id: P, id: RECORDING });
    expect(r.isError, text(r)).toBeFalsy();
    expect(s.upstream('DELETE')).toHaveLength(1);
  });

  it('confirmation turned off (POSTHOG_CONFIRM_DESTRUCTIVE=0): an elicitation client is not asked', async () => {
    const s = await start({ answer: { action: 'decline' }, confirmDestructive: false });
    const r = await s.call('project-delete', { id: DEMO.emptyProjectId });
    expect(r.isError, text(r)).toBeFalsy();
    expect(s.asked).toEqual([]);
    expect(s.upstream('DELETE')).toHaveLength(1);
  });

  it('a transport that cannot carry the question (stateless HTTP): not asked', async () => {
    const s = await start({ answer: { action: 'decline' }, interactive: false });
    const r = await s.call('project-delete', { id: DEMO.emptyProjectId });
    expect(r.isError, text(r)).toBeFalsy();
    expect(s.asked).toEqual([]);
  });

  it('project-update without elicitation asks nobody: one read (the answer\'s "before"), then the PATCH', async () => {
    const s = await start({});
    const r = await s.call('project-update', { id: DEMO.marketingProjectId, anonymize_ips: true });
    expect(r.isError, text(r)).toBeFalsy();
    expect(s.upstream('GET')).toHaveLength(1);
    expect(s.upstream('PATCH')).toHaveLength(1);
  });
});

describe('project-delete asks first', () => {
  const staging = DEMO.projects.find((p) => p.id === DEMO.emptyProjectId)!;

  it('names the project and deletes it once the user accepts', async () => {
    const s = await start({ answer: ACCEPT });
    const r = await s.call('project-delete', { id: staging.id });
    expect(r.isError, text(r)).toBeFalsy();
    expect(s.asked[0]!.message).toContain(`${staging.id} "${staging.name}"`);
    expect(s.asked[0]!.message).toMatch(/all its data/);
    expect(s.upstream('DELETE').map((q) => q.path)).toEqual([`/api/projects/${staging.id}/`]);
  });

  it('deletes nothing when the user declines', async () => {
    const s = await start({ answer: { action: 'decline' } });
    const r = await s.call('project-delete', { id: staging.id });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(new RegExp(`declined to delete project ${staging.id} "${staging.name}"\\. Nothing was deleted`));
    expect(s.upstream('DELETE')).toEqual([]);
    expect((await s.call('project-get', { id: staging.id })).isError).toBeFalsy();
  });
});

describe('project-update asks first', () => {
  const marketing = DEMO.projects.find((p) => p.id === DEMO.marketingProjectId)!;

  it('shows each field\'s current value and the new one, then PATCHes once the user accepts', async () => {
    const s = await start({ answer: ACCEPT });
    const r = await s.call('project-update', { id: marketing.id, name: 'Acme Web', timezone: 'Asia/Tokyo', slack_incoming_webhook: 'https://hooks.slack.com/services/T000/B000/secretpart' });
    expect(r.isError, text(r)).toBeFalsy();
    const question = s.asked[0]!.message;
    expect(question).toContain(`${marketing.id} "${marketing.name}"`);
    expect(question).toContain(`name: "${marketing.name}" → "Acme Web"`);
    expect(question).toContain(`timezone: "${marketing.timezone}" → "Asia/Tokyo"`);
    // The webhook is a credential: its value is not repeated.
    expect(question).toMatch(/slack_incoming_webhook: .* → \(a URL, not shown\)/);
    expect(question).not.toContain('secretpart');
    expect(s.upstream('PATCH')).toHaveLength(1);
    expect(JSON.parse(s.upstream('PATCH')[0]!.body)).toMatchObject({ name: 'Acme Web', timezone: 'Asia/Tokyo' });
  });

  it('changes nothing when the user declines', async () => {
    const s = await start({ answer: { action: 'decline' } });
    const r = await s.call('project-update', { id: marketing.id, name: 'Acme Web' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/declined to change name of project .* Nothing was changed/);
    expect(s.upstream('PATCH')).toEqual([]);
    const after = await s.call('project-get', { id: marketing.id });
    expect(after.structuredContent).toMatchObject({ project: { name: marketing.name } });
  });

  it('an unknown project is not found before anyone is asked', async () => {
    const s = await start({ answer: ACCEPT });
    const r = await s.call('project-update', { id: 987_654, name: 'X' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/987654/);
    expect(s.asked).toEqual([]);
    expect(s.upstream('PATCH')).toEqual([]);
  });
});
