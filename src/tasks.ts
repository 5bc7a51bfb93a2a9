import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, type CallToolResult, type CreateTaskResult, type Request, type RequestId, type Result, type ServerNotification, type ServerRequest, type Task } from '@modelcontextprotocol/sdk/types.js';
import { protocolError } from './errors.js';

/**
 * Long tool calls as MCP tasks (protocol revision 2025-11-25, the SDK's experimental tasks API):
 * a client that asks for a task gets one at once, polls it (tasks/get), takes its result
 * (tasks/result) and may cancel it (tasks/cancel), which aborts the work and its upstream
 * requests. Clients that do not ask call the tool as before, with progress and cancellation.
 *
 * Tasks live in this server's memory: stdio (one client, one process) keeps them for the session.
 * Stateless HTTP makes a server per request, so a task could not be polled on the next one:
 * there the server does not offer tasks at all (server.ts).
 */

/** Tools that may run as a task: those that read many recordings. */
export const TASK_TOOLS: ReadonlySet<string> = new Set(['session-recordings-triage']);

/** What tools/list adds to such a tool when tasks are offered. */
export const TASK_EXECUTION = { taskSupport: 'optional' } as const;

/** The capability a server with tasks declares: tools/call may be a task; tasks can be listed and cancelled. */
export const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/** How long a finished task's result is kept, when the client asks for no ttl or a longer one. */
const DEFAULT_TTL_MS = 15 * 60_000;
const MAX_TTL_MS = 60 * 60_000;
/** A shorter ttl is raised to this (the spec lets the server choose): a result must outlive the first poll. */
const MIN_TTL_MS = 60_000;
/** Tasks one session may have running at once: each reads many recordings. */
const MAX_RUNNING = 4;
/**
 * Tasks one session's store holds at once, running or finished and kept for their ttl: each
 * holds a whole result (up to a triage's), so a client that starts tasks and never collects them
 * cannot grow the server's memory without bound.
 */
export const MAX_KEPT = 100;
/** What tasks/get advises between polls. */
const POLL_INTERVAL_MS = 1_000;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * The task store of one server, and the work behind each task: cancelling a task (tasks/cancel
 * sets its status through this store) aborts its work.
 */
export class ToolTasks implements TaskStore {
  private readonly store = new InMemoryTaskStore();
  private readonly running = new Map<string, AbortController>();

  /**
   * Starts `work` as a task and answers at once. The work gets a signal of its own (the request
   * that created the task is over when it is answered); its result becomes the task's.
   */
  async start(extra: Extra, requested: { ttl?: number | undefined }, work: (signal: AbortSignal) => Promise<CallToolResult>): Promise<CreateTaskResult> {
    if (!extra.taskStore) throw protocolError(ErrorCode.InternalError, 'Tasks are not enabled on this server.');
    if (this.running.size >= MAX_RUNNING) {
      throw protocolError(ErrorCode.InvalidRequest, `${MAX_RUNNING} tasks are already running in this session: wait for one to finish (tasks/get) or cancel one (tasks/cancel).`);
    }
    if (this.store.getAllTasks().length >= MAX_KEPT) {
      throw protocolError(
        ErrorCode.InvalidRequest,
        `This session already keeps ${MAX_KEPT} tasks (running, or finished and kept for their ttl): start the next once the oldest's ttl has run out (ask a short ttl, from one minute, for tasks you collect at once), or call without "task".`,
      );
    }
    const asked = requested.ttl;
    if (asked !== undefined && (typeof asked !== 'number' || !Number.isFinite(asked) || asked < 0)) {
      throw protocolError(ErrorCode.InvalidParams, `task.ttl must be a number of milliseconds, 0 or more (got ${String(asked).slice(0, 40)}); leave it out for ${DEFAULT_TTL_MS / 60_000} minutes.`);
    }
    const ttl = Math.min(Math.max(asked ?? DEFAULT_TTL_MS, MIN_TTL_MS), MAX_TTL_MS);
    const task = await extra.taskStore.createTask({ ttl, pollInterval: POLL_INTERVAL_MS });
    const controller = new AbortController();
    this.running.set(task.taskId, controller);
    const taskStore = extra.taskStore;
    void (async () => {
      let result: CallToolResult;
      try {
        result = await work(controller.signal);
      } catch (error) {
        result = { isError: true, content: [{ type: 'text', text: `The task failed: ${error instanceof Error ? error.message : String(error)}` }] };
      } finally {
        this.running.delete(task.taskId);
      }
      // Cancelled meanwhile: the task is terminal and keeps no result.
      if (controller.signal.aborted) return;
      if (result.isError) {
        // The spec's "failed" for a tool result with isError, and tasks/get SHOULD say why.
        const why = result.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ');
        await taskStore.updateTaskStatus(task.taskId, 'working', why.length > 300 ? `${why.slice(0, 300)}…` : why).catch(() => {});
      }
      await taskStore.storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result).catch(() => {});
    })();
    return { task };
  }

  /** Aborts every running task (the server is closing). */
  close(): void {
    for (const controller of this.running.values()) controller.abort();
    this.running.clear();
    this.store.cleanup();
  }

  // TaskStore: the SDK's in-memory store, with cancellation reaching the work.
  createTask(params: CreateTaskOptions, requestId: RequestId, request: Request, sessionId?: string): Promise<Task> {
    return this.store.createTask(params, requestId, request, sessionId);
  }
  getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    return this.store.getTask(taskId, sessionId);
  }
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result, sessionId?: string): Promise<void> {
    return this.store.storeTaskResult(taskId, status, result, sessionId);
  }
  getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    return this.store.getTaskResult(taskId, sessionId);
  }
  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, sessionId?: string): Promise<void> {
    await this.store.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === 'cancelled') {
      this.running.get(taskId)?.abort();
      this.running.delete(taskId);
    }
  }
  listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    return this.store.listTasks(cursor, sessionId);
  }
}
