// Triage as an MCP task (2025-11-25, the SDK's experimental tasks API): started, polled, its
// result taken, or cancelled, through the SDK Client over the in-memory transport; and as a plain
// call for clients that do not ask for a task. The upstream is the sandbox over HTTP.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, CreateTaskResultSchema, McpError, type CallToolResult, type Task } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TOOLSETS } from '../src/settings.js';
import { PostHogClient } from '../src/posthog/client.js';
import { DEMO, startSandbox } from '../src/sandbox/index.js';
import { createServer } from '../src/server.js';
import { MAX_KEPT } from '../src/tasks.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const TRIAGE = { name: 'session-recordings-triage', arguments: { project_id: P, date_from: '-30d', max_recordings: 5 } };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls tasks/get until the task is terminal (bounded). */
async function settle(h: Harness, taskId: string): Promise<Task> {
  for (let i = 0; i < 300; i++) {
    const task = await h.client.experimental.tasks.getTask(taskId);
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return task;
    await sleep(50);
  }
  throw new Error(`task ${taskId} did not finish`);
}

describe('session-recordings-triage as a task', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('is offered: the tasks capability, and execution.taskSupport "optional" on triage alone', async () => {
    expect(h.client.getServerCapabilities()?.tasks).toMatchObject({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await h.client.listTools();
    expect(tools.filter((t) => t.execution).map((t) => [t.name, t.execution?.taskSupport])).toEqual([['session-recordings-triage', 'optional']]);
  });

  it('starts at once, is polled to completion, and its result is the triage', async () => {
    const created = await h.client.request({ method: 'tools/call', params: { ...TRIAGE, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    expect(created.task).toMatchObject({ status: 'working', ttl: 60_000 });
    const done = await settle(h, created.task.taskId);
    expect(done.status).toBe('completed');
    const result = (await h.client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.isError, text(result)).toBeFalsy();
    const problems = (result.structuredContent as { problems: Array<{ kind: string }> }).problems;
    expect(problems.length).toBeGreaterThan(0);
    // The same answer a plain call gives.
    const plain = (await h.client.callTool(TRIAGE)) as CallToolResult;
    expect((plain.structuredContent as { problems: unknown[] }).problems).toEqual(problems);
    const listed = await h.client.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(created.task.taskId);
  });

  it('streams through the SDK\'s callToolStream: task created, statuses, then the result', async () => {
    const kinds: string[] = [];
    let result: CallToolResult | undefined;
    for await (const message of h.client.experimental.tasks.callToolStream(TRIAGE, CallToolResultSchema, { task: { ttl: 60_000 } })) {
      kinds.push(message.type);
      if (message.type === 'result') result = message.result as CallToolResult;
      if (message.type === 'error') throw message.error;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(kinds.at(-1)).toBe('result');
    expect((result!.structuredContent as { problems: unknown[] }).problems.length).toBeGreaterThan(0);
  });

  it('a cancelled task stops its upstream work and stays cancelled', async () => {
    // The recordings' snapshot listings answer after 600 ms: the task is surely still reading when
    // it is cancelled, and a triage still running would go on to fetch their blocks.
    h.sandbox.injectFault({ path: /\/snapshots\/?$/, query: { blob_v2: 'true' }, delayMs: 600, times: Infinity });
    const created = await h.client.request({ method: 'tools/call', params: { ...TRIAGE, task: {} } }, CreateTaskResultSchema);
    for (let i = 0; i < 200 && !apiRequests(h.sandbox).some((q) => q.path.includes('/snapshots')); i++) await sleep(25);
    expect(apiRequests(h.sandbox).some((q) => q.path.includes('/snapshots'))).toBe(true);
    const cancelled = await h.client.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled.status).toBe('cancelled');
    const atCancel = apiRequests(h.sandbox).length;
    // Past the listings' delay: a live triage would now be fetching blocks.
    await sleep(1_500);
    expect(apiRequests(h.sandbox).filter((q) => q.query.source !== undefined)).toEqual([]);
    expect(apiRequests(h.sandbox).length).toBe(atCancel);
    expect((await h.client.experimental.tasks.getTask(created.task.taskId)).status).toBe('cancelled');
    await expect(h.client.experimental.tasks.cancelTask(created.task.taskId)).rejects.toThrow(/terminal status: cancelled/);
  });

  it('refuses a task for a tool that does not run as one (-32601), and bad arguments before any task or request (-32602)', async () => {
    const wrongTool = await h.client.request({ method: 'tools/call', params: { name: 'session-recordings-list', arguments: { project_id: P }, task: {} } }, CreateTaskResultSchema).catch((e: unknown) => e);
    expect(wrongTool).toBeInstanceOf(McpError);
    expect((wrongTool as McpError).code).toBe(-32601);
    expect((wrongTool as McpError).message).toMatch(/"session-recordings-list" does not run as a task \(only session-recordings-triage does/);
    const badArgs = await h.client.request({ method: 'tools/call', params: { name: TRIAGE.name, arguments: { project_id: P, max_recordings: 500 }, task: {} } }, CreateTaskResultSchema).catch((e: unknown) => e);
    expect((badArgs as McpError).code).toBe(-32602);
    expect((badArgs as McpError).message).toMatch(/Invalid arguments for session-recordings-triage: max_recordings/);
    expect(h.sandbox.requests).toHaveLength(0);
    expect((await h.client.experimental.tasks.listTasks()).tasks.filter((t) => t.status === 'working')).toEqual([]);
  });

  it('refuses a negative ttl before any task or request, and keeps a short one at least a minute', async () => {
    const before = (await h.client.experimental.tasks.listTasks()).tasks.length;
    const negative = await h.client.request({ method: 'tools/call', params: { ...TRIAGE, task: { ttl: -5 } } }, CreateTaskResultSchema).catch((e: unknown) => e);
    expect((negative as McpError).code).toBe(-32602);
    expect((negative as McpError).message).toMatch(/^MCP error -32602: task\.ttl must be a number of milliseconds, 0 or more \(got -5\)/);
    expect(h.sandbox.requests).toHaveLength(0);
    expect((await h.client.experimental.tasks.listTasks()).tasks).toHaveLength(before);
    const short = await h.client.request({ method: 'tools/call', params: { ...TRIAGE, task: { ttl: 0 } } }, CreateTaskResultSchema);
    expect(short.task.ttl).toBe(60_000);
    const done = await settle(h, short.task.taskId);
    expect(done.status).toBe('completed');
  });

  it('a triage that fails is a failed task whose status says why, and whose result is the tool\'s error', async () => {
    const created = await h.client.request({ method: 'tools/call', params: { name: TRIAGE.name, arguments: { project_id: '987654' }, task: {} } }, CreateTaskResultSchema);
    const done = await settle(h, created.task.taskId);
    expect(done.status).toBe('failed');
    expect(done.statusMessage).toMatch(/PostHog answered 404/);
    const result = (await h.client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/PostHog answered 404/);
  });

  it('still runs as a plain tools/call for clients that do not ask for a task', async () => {
    const result = (await h.client.callTool(TRIAGE)) as CallToolResult;
    expect(result.isError, text(result)).toBeFalsy();
    expect((result.structuredContent as { problems: unknown[] }).problems.length).toBeGreaterThan(0);
  });
});

describe('a session that starts tasks and never collects them', () => {
  it(`keeps at most ${MAX_KEPT} tasks, then refuses a new one saying how to go on, and a plain call still runs`, async () => {
    // A fresh server: the store's count is the subject. Failing triages (an unknown project) end at once.
    const h = await startHarness();
    try {
      const start = () => h.client.request({ method: 'tools/call', params: { name: TRIAGE.name, arguments: { project_id: '987654' }, task: {} } }, CreateTaskResultSchema);
      const ids: string[] = [];
      while (ids.length < MAX_KEPT) {
        const created = await start();
        ids.push(created.task.taskId);
        // Never more than the running cap at once.
        if (ids.length % 4 === 0) for (const id of ids.slice(-4)) await settle(h, id);
      }
      for (const id of ids) await settle(h, id);
      const refused = await start().catch((e: unknown) => e);
      expect((refused as McpError).code).toBe(-32600);
      expect((refused as McpError).message).toMatch(new RegExp(`^MCP error -32600: This session already keeps ${MAX_KEPT} tasks .*start the next once the oldest's ttl has run out .*, or call without "task"`));
      const plain = (await h.client.callTool(TRIAGE)) as CallToolResult;
      expect(plain.isError, text(plain)).toBeFalsy();
    } finally {
      await h.close();
    }
  }, 60_000);
});

describe('servers that cannot keep a task between requests', () => {
  it('stateless HTTP servers (not interactive) declare no tasks and mark no tool', async () => {
    const sandbox = await startSandbox();
    const posthog = new PostHogClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey, timeoutMs: 5_000 });
    // interactive: false is what the HTTP transport passes (cli.ts); the in-memory pair stands in for it.
    const server = createServer({ client: posthog, settings: { readOnly: false, toolsets: [...TOOLSETS], defaultProjectId: undefined }, interactive: false });
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    await client.connect(a);
    try {
      expect(client.getServerCapabilities()?.tasks).toBeUndefined();
      expect((await client.listTools()).tools.some((t) => t.execution)).toBe(false);
    } finally {
      await client.close();
      await server.close();
      await posthog.close();
      await sandbox.close();
    }
  });
});
