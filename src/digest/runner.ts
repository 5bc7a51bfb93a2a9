import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { UserInputError } from '../errors.js';
import { RemoteFetcher, type RemoteDispatch, type ToRemote } from '../posthog/remote-fetch.js';
import type { Digest } from './digest.js';
import type { DigestFeed } from './feed.js';
import { FairSlots } from './slots.js';

/** A DigestFeed behind an async interface: in a worker thread when one can be started. */
export interface DigestRunner {
  startUnit(after?: number): void;
  /** Resolves when there is room for more data (the worker has caught up). */
  data(chunk: Buffer): Promise<void>;
  endUnit(): void;
  note(text: string): void;
  finish(): Promise<Digest>;
  /** Stops the worker; safe to call more than once, and after finish. */
  close(): void;
  /** Set once the digest itself failed (not the upstream): the call cannot go on. */
  readonly failure: Error | undefined;
  /**
   * With a worker: the worker's own requests (RequestOptions.via), for block bodies it digests
   * as they arrive, the main thread never holding their bytes. Undefined in-thread: the bodies
   * are then read here and handed to data().
   */
  readonly via: RemoteDispatch | undefined;
}

export type ToWorker =
  | { t: 'unit'; after?: number | undefined }
  | { t: 'data'; chunk: Uint8Array }
  | { t: 'end' }
  | { t: 'note'; text: string }
  | { t: 'finish' };

type FromWorker = { t: 'ack' } | { t: 'digest'; digest: Digest };

/** Chunks (about 64 KB each) in the worker's queue before the reader waits. */
const MAX_IN_FLIGHT = 8;
/**
 * The worker's heap. A small young generation keeps the peak RSS of digesting hundreds of MB low
 * (V8 otherwise grows it to tens of MB under this allocation rate: measured 143-147 MB peak for a
 * 205 MB recording at 1 MB, 151-164 MB at 4-8 MB; bench/README.md). The old generation holds the
 * bounded digest state and one line of at most 8 MB being parsed (feed.ts), with room to spare.
 */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 512 };
/** Digests one user may run at once (each is a worker busy on one core); more of theirs wait their turn. */
const MAX_DIGESTS = Math.max(1, Math.min(4, availableParallelism()));
/**
 * Digests running at once, all users together. A digest holds its slot while its blocks stream
 * in (mostly waiting on PostHog), so twice the cores: one user using all of theirs leaves as many
 * for the others, and a free slot goes to whoever has the fewest running (slots.ts).
 */
const MAX_DIGESTS_IN_ALL = 2 * MAX_DIGESTS;

/** The built worker next to this module; absent when running from TypeScript sources (tests). */
const WORKER_FILE = fileURLToPath(new URL('./worker.js', import.meta.url));

const slots = new FairSlots(MAX_DIGESTS_IN_ALL, MAX_DIGESTS);

/**
 * A runner, once `user` (a hash of host and key, PostHogClient.keyIdentity) has one of its digest
 * slots; the slot is released by close() and goes to the next in line, users taking turns. An
 * abort while waiting gives up the place in the line, and an abort while running stops the worker.
 */
export async function startDigest(signal: AbortSignal, user = ''): Promise<DigestRunner> {
  // The digest engine is loaded into this thread only where it runs here (no built worker: tests
  // from sources); with a worker, only the worker loads it.
  const inThread = existsSync(WORKER_FILE) ? undefined : await import('./feed.js');
  const release = await slots.acquire(user, signal);
  const runner = inThread ? new InThreadRunner(release, new inThread.DigestFeed()) : new WorkerRunner(release);
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

class InThreadRunner implements DigestRunner {
  readonly failure = undefined;
  readonly via = undefined;
  constructor(
    private readonly release: () => void,
    private readonly feed: DigestFeed,
  ) {}
  startUnit(after?: number): void {
    this.feed.startUnit(after);
  }
  async data(chunk: Buffer): Promise<void> {
    this.feed.data(chunk);
  }
  endUnit(): void {
    this.feed.endUnit();
  }
  note(text: string): void {
    this.feed.note(text);
  }
  async finish(): Promise<Digest> {
    return this.feed.finish();
  }
  close(): void {
    this.release();
  }
}

/**
 * Workers that finished a digest cleanly wait here for the next one (a triage digests dozens in a
 * row; starting a worker and loading the digest modules costs tens of ms of CPU each time). They
 * do not keep the process alive, and leave after IDLE_WORKER_MS without work.
 */
const idleWorkers: Array<{ worker: Worker; timer: NodeJS.Timeout }> = [];
const IDLE_WORKER_MS = 30_000;

/** Only our own listeners: Worker keeps internal ones (its message port's ref count) on itself. */
function dropListeners(worker: Worker): void {
  for (const event of ['message', 'error', 'exit'] as const) worker.removeAllListeners(event);
}

function takeWorker(): Worker {
  const idle = idleWorkers.pop();
  if (!idle) return new Worker(WORKER_FILE, { resourceLimits: RESOURCE_LIMITS });
  clearTimeout(idle.timer);
  dropListeners(idle.worker);
  idle.worker.ref();
  return idle.worker;
}

function parkWorker(worker: Worker): void {
  dropListeners(worker);
  if (idleWorkers.length >= MAX_DIGESTS) {
    void worker.terminate();
    return;
  }
  const entry = {
    worker,
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

class WorkerRunner implements DigestRunner {
  private readonly worker = takeWorker();
  /** The worker's own block requests, which this thread still gatekeeps (client.ts). */
  readonly via = new RemoteFetcher((message: ToRemote) => {
    // A failed runner sends no new request; an abort after the failure has nothing left to stop.
    if (message.t === 'req' || !this.failure) this.post(message);
  });
  private inFlight = 0;
  /** The digest came back and nothing failed: the worker may serve the next one. */
  private finished = false;
  failure: Error | undefined;
  private waiting: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private result: { resolve: (digest: Digest) => void; reject: (error: Error) => void } | undefined;

  constructor(private readonly release: () => void) {
    this.worker.on('message', (message: FromWorker) => {
      if (this.via.receive(message)) return;
      if (message.t === 'ack') {
        this.inFlight--;
        if (this.waiting && this.inFlight < MAX_IN_FLIGHT) {
          this.waiting.resolve();
          this.waiting = undefined;
        }
      } else {
        this.finished = this.failure === undefined;
        this.result?.resolve(message.digest);
      }
    });
    this.worker.on('error', (error: Error & { code?: string }) =>
      this.fail(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new UserInputError('This recording is too large to digest within the memory the digest may use. Read it in pages with session-recording-snapshots instead.')
          : error,
      ),
    );
    this.worker.on('exit', () => this.fail(new Error('the digest worker stopped unexpectedly')));
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

  endUnit(): void {
    this.post({ t: 'end' });
  }

  note(text: string): void {
    this.post({ t: 'note', text });
  }

  finish(): Promise<Digest> {
    const digest = new Promise<Digest>((resolve, reject) => (this.result = { resolve, reject }));
    this.post({ t: 'finish' });
    return digest;
  }

  close(): void {
    const reusable = this.finished && this.failure === undefined;
    this.fail(new Error('the digest was stopped'));
    if (reusable) parkWorker(this.worker);
    else {
      this.worker.removeAllListeners('exit');
      void this.worker.terminate();
    }
    this.release();
  }
}
