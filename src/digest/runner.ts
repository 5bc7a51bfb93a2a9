import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { UserInputError } from '../errors.js';
import { RemoteFetcher, type RemoteDispatch, type ToRemote } from '../posthog/remote-fetch.js';
import { FairSlots } from './slots.js';

/**
 * What runs in a worker thread, or in this thread where no worker can be started: fed a
 * recording's bytes unit by unit (the digest, a reproduction), or the bytes of one long line,
 * and asked for its result at the end. In a worker each call is synchronous; in this thread a
 * feed may return a promise to yield to other calls between slices of its work.
 */
export interface Feed<R> {
  startUnit(after?: number): void;
  data(chunk: Buffer): void | Promise<void>;
  endUnit(): void | Promise<void>;
  note(text: string): void;
  finish(input?: unknown): R;
}

/** A Feed behind an async interface: in a worker thread when one can be started. */
export interface JobRunner<R> {
  startUnit(after?: number): void;
  /** Resolves when there is room for more data (the worker has caught up). */
  data(chunk: Buffer): Promise<void>;
  endUnit(): Promise<void>;
  note(text: string): void;
  /** The result; `input` is what the feed needs besides the bytes (a reproduction's exceptions). */
  finish(input?: unknown): Promise<R>;
  /** Stops the worker; safe to call more than once, and after finish. */
  close(): void;
  /** Set once the job itself failed (not the upstream): the call cannot go on. */
  readonly failure: Error | undefined;
  /**
   * With a worker: the worker's own requests (RequestOptions.via), for block bodies it feeds
   * itself as they arrive, the main thread never holding their bytes. Undefined in-thread: the
   * bodies are then read here and handed to data().
   */
  readonly via: RemoteDispatch | undefined;
}

/** What a job is, for startJob. */
export interface JobSpec<R> {
  /** The worker's entry (built beside its caller; a job whose entry is not built runs in this thread). */
  worker: URL;
  /** Which of the entry's feeds (worker-host.ts). */
  kind: string;
  options?: unknown;
  /** The same feed, made in this thread (tests run from the TypeScript sources, with no worker built). */
  local: () => Promise<Feed<R>>;
  /** Said when the worker runs out of its memory (RESOURCE_LIMITS). */
  outOfMemory: string;
}

export type ToWorker =
  | { t: 'job'; kind: string; options?: unknown }
  | { t: 'unit'; after?: number | undefined }
  | { t: 'data'; chunk: Uint8Array }
  | { t: 'end' }
  | { t: 'note'; text: string }
  | { t: 'finish'; input?: unknown };

export type FromWorker = { t: 'ack' } | { t: 'result'; result: unknown } | { t: 'failed'; error: { message: string; user: boolean } };

/** Chunks (about 64 KB each) in the worker's queue before the reader waits. */
const MAX_IN_FLIGHT = 8;
/**
 * The worker's heap. A small young generation keeps the peak RSS of digesting hundreds of MB low
 * (V8 otherwise grows it to tens of MB under this allocation rate: measured 143-147 MB peak for a
 * 205 MB recording at 1 MB, 151-164 MB at 4-8 MB; bench/README.md). The old generation holds the
 * bounded digest state and one line of at most 8 MB being parsed (feed.ts), with room to spare;
 * a reproduction's or a long line's job, one line of at most 64 MB (MAX_LINE_BYTES): measured,
 * a 62 MB line of a page's elements, parsed and written back, held about 175 MB of it.
 */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 512 };
/** Jobs one user may run at once (each is a worker busy on one core); more of theirs wait their turn. */
const MAX_JOBS = Math.max(1, Math.min(4, availableParallelism()));
/**
 * Jobs running at once, all users together. A digest holds its slot while its blocks stream
 * in (mostly waiting on PostHog), so twice the cores: one user using all of theirs leaves as many
 * for the others, and a free slot goes to whoever has the fewest running (slots.ts).
 */
const MAX_JOBS_IN_ALL = 2 * MAX_JOBS;

/** Every job (a digest, a reproduction, a long line) holds one of these while it runs. */
const slots = new FairSlots(MAX_JOBS_IN_ALL, MAX_JOBS);

/**
 * A runner, once `user` (a hash of host and key, PostHogClient.keyIdentity) has one of its job
 * slots; the slot is released by close() and goes to the next in line, users taking turns. An
 * abort while waiting gives up the place in the line, and an abort while running stops the worker.
 */
export async function startJob<R>(spec: JobSpec<R>, signal: AbortSignal, user = ''): Promise<JobRunner<R>> {
  // The job's engine is loaded into this thread only where it runs here (no built worker: tests
  // from sources); with a worker, only the worker loads it.
  const file = fileURLToPath(spec.worker);
  const local = existsSync(file) ? undefined : await spec.local();
  const release = await slots.acquire(user, signal);
  const runner: JobRunner<R> = local ? new InThreadRunner<R>(release, local) : new WorkerRunner<R>(release, file, spec);
  // An abort stops the worker; a runner closed normally lets go of the call's signal (a triage
  // runs many digests under one call, and each listener would hold its runner until the call ends).
  const onAbort = () => runner.close();
  signal.addEventListener('abort', onAbort, { once: true });
  const close = runner.close.bind(runner);
  runner.close = () => {
    signal.removeEventListener('abort', onAbort);
    close();
  };
  return runner;
}

class InThreadRunner<R> implements JobRunner<R> {
  failure: Error | undefined;
  readonly via = undefined;
  constructor(
    private readonly release: () => void,
    private readonly feed: Feed<R>,
  ) {}
  startUnit(after?: number): void {
    this.feed.startUnit(after);
  }
  data(chunk: Buffer): Promise<void> {
    return this.run(() => this.feed.data(chunk));
  }
  endUnit(): Promise<void> {
    return this.run(() => this.feed.endUnit());
  }
  note(text: string): void {
    this.feed.note(text);
  }
  async finish(input?: unknown): Promise<R> {
    return this.feed.finish(input);
  }
  close(): void {
    this.release();
  }
  /** A feed that throws (a reproduction past its work budget) fails the job, as in a worker. */
  private async run(step: () => void | Promise<void>): Promise<void> {
    if (this.failure) throw this.failure;
    try {
      await step();
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      throw this.failure;
    }
  }
}

/**
 * Workers that finished a job cleanly wait here for the next one (a triage digests dozens in a
 * row; starting a worker and loading the digest modules costs tens of ms of CPU each time). They
 * do not keep the process alive, and leave after IDLE_WORKER_MS without work.
 */
const idleWorkers: Array<{ worker: Worker; file: string; timer: NodeJS.Timeout }> = [];
const IDLE_WORKER_MS = 30_000;

/** Only our own listeners: Worker keeps internal ones (its message port's ref count) on itself. */
function dropListeners(worker: Worker): void {
  for (const event of ['message', 'error', 'exit'] as const) worker.removeAllListeners(event);
}

function takeWorker(file: string): Worker {
  const at = idleWorkers.findLastIndex((idle) => idle.file === file);
  if (at === -1) return new Worker(file, { resourceLimits: RESOURCE_LIMITS });
  const idle = idleWorkers.splice(at, 1)[0]!;
  clearTimeout(idle.timer);
  dropListeners(idle.worker);
  idle.worker.ref();
  return idle.worker;
}

function parkWorker(worker: Worker, file: string): void {
  dropListeners(worker);
  if (idleWorkers.length >= MAX_JOBS) {
    void worker.terminate();
    return;
  }
  const entry = {
    worker,
    file,
    timer: setTimeout(() => {
      const at = idleWorkers.indexOf(entry);
      if (at !== -1) idleWorkers.splice(at, 1);
      void worker.terminate();
    }, IDLE_WORKER_MS).unref(),
  };
  // A parked worker that dies (it should not) just leaves the pool.
  worker.once('exit', () => {
    const at = idleWorkers.indexOf(entry);
    if (at !== -1) idleWorkers.splice(at, 1);
    clearTimeout(entry.timer);
  });
  worker.on('error', () => {});
  worker.unref();
  idleWorkers.push(entry);
}

class WorkerRunner<R> implements JobRunner<R> {
  private readonly worker: Worker;
  /** The worker's own block requests, which this thread still gatekeeps (client.ts). */
  readonly via = new RemoteFetcher((message: ToRemote) => {
    // A failed runner sends no new request; an abort after the failure has nothing left to stop.
    if (message.t === 'req' || !this.failure) this.post(message);
  });
  private inFlight = 0;
  /** The result came back and nothing failed: the worker may serve the next job. */
  private finished = false;
  failure: Error | undefined;
  private waiting: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private result: { resolve: (result: R) => void; reject: (error: Error) => void } | undefined;

  constructor(
    private readonly release: () => void,
    private readonly file: string,
    spec: JobSpec<R>,
  ) {
    this.worker = takeWorker(file);
    this.worker.on('message', (message: FromWorker) => {
      if (this.via.receive(message)) return;
      if (message.t === 'ack') {
        this.inFlight--;
        if (this.waiting && this.inFlight < MAX_IN_FLIGHT) {
          this.waiting.resolve();
          this.waiting = undefined;
        }
      } else if (message.t === 'failed') {
        // The feed threw (a reproduction past its work budget): said as the feed said it.
        this.fail(message.error.user ? new UserInputError(message.error.message) : new Error(message.error.message));
      } else {
        this.finished = this.failure === undefined;
        this.result?.resolve(message.result as R);
      }
    });
    this.worker.on('error', (error: Error & { code?: string }) => this.fail(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new UserInputError(spec.outOfMemory) : error));
    this.worker.on('exit', () => this.fail(new Error('the digest worker stopped unexpectedly')));
    this.post({ t: 'job', kind: spec.kind, options: spec.options });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.waiting?.reject(this.failure);
    this.result?.reject(this.failure);
    this.waiting = undefined;
    this.via.failAll(this.failure);
  }

  private post(message: ToWorker | ToRemote): void {
    if (this.failure) throw this.failure;
    this.worker.postMessage(message);
  }

  startUnit(after?: number): void {
    this.post({ t: 'unit', after });
  }

  async data(chunk: Buffer): Promise<void> {
    // A copy of exactly these bytes, moved (not cloned) to the worker.
    const copy = new Uint8Array(chunk);
    if (this.failure) throw this.failure;
    this.worker.postMessage({ t: 'data', chunk: copy } satisfies ToWorker, [copy.buffer]);
    this.inFlight++;
    if (this.inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  async endUnit(): Promise<void> {
    this.post({ t: 'end' });
  }

  note(text: string): void {
    this.post({ t: 'note', text });
  }

  finish(input?: unknown): Promise<R> {
    const result = new Promise<R>((resolve, reject) => (this.result = { resolve, reject }));
    this.post({ t: 'finish', input });
    return result;
  }

  close(): void {
    const reusable = this.finished && this.failure === undefined;
    this.fail(new Error("the worker's job was stopped"));
    if (reusable) parkWorker(this.worker, this.file);
    else {
      this.worker.removeAllListeners('exit');
      void this.worker.terminate();
    }
    this.release();
  }
}
