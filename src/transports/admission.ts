// Who runs next in HTTP mode: each caller's calls beyond its share wait in its own line (first in,
// first out), and a free slot goes to the waiting caller with the fewest calls running, taking
// turns among equals. Callers whose key PostHog has not accepted yet (anyone can make one up)
// together run and wait within a bounded part of the capacity, so they can never take the slots of
// users PostHog already knows. Pure bookkeeping (no sockets), so the rules can be read and tested alone.

export interface AdmissionLimits {
  /** Calls running at once, all callers together (MCP_MAX_CONCURRENCY). */
  maxRunning: number;
  /** Calls one caller may have running (MCP_MAX_CONCURRENCY_PER_USER). */
  maxRunningPerUser: number;
  /** Calls one caller may have waiting; past it, refused (MCP_MAX_QUEUE_PER_USER). 0: no waiting. */
  maxQueuedPerUser: number;
  /** Calls waiting, all callers together: the backstop when callers are many (keys cost nothing to make up). */
  maxQueued: number;
  /** How long a call may wait for its turn before it is refused (MCP_QUEUE_TIMEOUT_MS). */
  queueTimeoutMs: number;
  /** Calls running at once for all callers whose key PostHog has not accepted yet, together (default: maxRunning). */
  maxRunningUnverified?: number | undefined;
  /** Calls waiting for all such callers together (default: maxQueued). */
  maxQueuedUnverified?: number | undefined;
}

export type Refusal = 'queue-full' | 'server-queue-full' | 'unverified-queue-full' | 'timeout' | 'closed';

export type Outcome = { kind: 'admitted'; release: () => void } | { kind: 'refused'; why: Refusal };

export interface Ticket {
  /** Settles once: admitted (call release() when done) or refused. */
  readonly outcome: Promise<Outcome>;
  /** The caller left while waiting: its place is given up (a no-op once admitted or refused). */
  cancel(): void;
}

interface Waiting {
  settle: (outcome: Outcome) => void;
  timer: NodeJS.Timeout | undefined;
  /** Counted in the unverified callers' waiting line. */
  unverified: boolean;
}

interface Caller {
  running: number;
  queue: Waiting[];
  /** PostHog has not accepted this caller's key yet (as of its latest call). */
  unverified: boolean;
  /** When it last got a slot (a counter; 0: never), for taking turns among equals. */
  servedAt: number;
}

export class Admission {
  /** Callers with calls running or waiting. */
  private readonly callers = new Map<string, Caller>();
  private served = 0;
  private running = 0;
  private queued = 0;
  private unverifiedRunning = 0;
  private unverifiedQueued = 0;
  private closed = false;

  constructor(
    private readonly limits: AdmissionLimits,
    /** Per-user keys tell callers apart; the shared-key caller ('') is the whole server. */
    private readonly perUser: (user: string) => boolean = (user) => user !== '',
  ) {}

  get runningCount(): number {
    return this.running;
  }

  get queuedCount(): number {
    return this.queued;
  }

  /** Calls waiting for this caller. */
  waiting(user: string): number {
    return this.callers.get(user)?.queue.length ?? 0;
  }

  /** Calls running for callers whose key PostHog has not accepted yet. */
  get unverifiedRunningCount(): number {
    return this.unverifiedRunning;
  }

  /**
   * A call wants its turn. `unverified`: PostHog has not accepted the caller's key yet (it may be
   * made up); such calls share the unverified part of the capacity.
   */
  enter(user: string, unverified = false): Ticket {
    if (this.closed) return settled({ kind: 'refused', why: 'closed' });
    const caller = this.callers.get(user) ?? { running: 0, queue: [], servedAt: 0, unverified };
    caller.unverified = unverified;
    this.callers.set(user, caller);
    if (caller.queue.length === 0 && this.admissible(user, caller)) {
      return settled({ kind: 'admitted', release: this.start(user, caller) });
    }
    const refused = (why: Refusal): Ticket => {
      this.forgetIfIdle(user, caller);
      return settled({ kind: 'refused', why });
    };
    if (caller.queue.length >= this.limits.maxQueuedPerUser) return refused('queue-full');
    if (this.queued >= this.limits.maxQueued) return refused('server-queue-full');
    if (unverified && this.unverifiedQueued >= (this.limits.maxQueuedUnverified ?? this.limits.maxQueued)) return refused('unverified-queue-full');

    let settle!: (outcome: Outcome) => void;
    const outcome = new Promise<Outcome>((resolve) => (settle = resolve));
    const entry: Waiting = { settle, timer: undefined, unverified };
    const leave = (why: Refusal | undefined) => {
      const at = caller.queue.indexOf(entry);
      if (at === -1) return;
      caller.queue.splice(at, 1);
      this.dequeued(entry);
      clearTimeout(entry.timer);
      this.forgetIfIdle(user, caller);
      if (why) settle({ kind: 'refused', why });
    };
    entry.timer = setTimeout(() => leave('timeout'), this.limits.queueTimeoutMs);
    caller.queue.push(entry);
    this.queued++;
    if (unverified) this.unverifiedQueued++;
    return { outcome, cancel: () => leave(undefined) };
  }

  /** Refuses everything waiting and anything that comes later (the server is shutting down). */
  close(): void {
    this.closed = true;
    for (const [user, caller] of this.callers) {
      for (const entry of caller.queue.splice(0)) {
        clearTimeout(entry.timer);
        this.dequeued(entry);
        entry.settle({ kind: 'refused', why: 'closed' });
      }
      this.forgetIfIdle(user, caller);
    }
  }

  private admissible(user: string, caller: Caller): boolean {
    const cap = this.perUser(user) ? this.limits.maxRunningPerUser : this.limits.maxRunning;
    if (caller.unverified && this.unverifiedRunning >= (this.limits.maxRunningUnverified ?? this.limits.maxRunning)) return false;
    return this.running < this.limits.maxRunning && caller.running < cap;
  }

  private dequeued(entry: Waiting): void {
    this.queued--;
    if (entry.unverified) this.unverifiedQueued--;
  }

  /** Counts a call as running; the returned release (idempotent) frees its slot for the next in line. */
  private start(user: string, caller: Caller): () => void {
    const unverified = caller.unverified;
    this.running++;
    if (unverified) this.unverifiedRunning++;
    caller.running++;
    caller.servedAt = ++this.served;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      if (unverified) this.unverifiedRunning--;
      caller.running--;
      this.forgetIfIdle(user, caller);
      this.dispatch();
    };
  }

  /**
   * Fills free slots: each goes to the waiting caller with the fewest calls running (ties: whoever
   * was served longest ago), so a caller with a burst gets a slot only when nobody with fewer
   * running is waiting. Within a caller, first in, first out.
   */
  private dispatch(): void {
    while (this.running < this.limits.maxRunning) {
      let best: [string, Caller] | undefined;
      for (const [user, caller] of this.callers) {
        if (caller.queue.length === 0 || !this.admissible(user, caller)) continue;
        if (!best || caller.running < best[1].running || (caller.running === best[1].running && caller.servedAt < best[1].servedAt)) best = [user, caller];
      }
      if (!best) return;
      const [user, caller] = best;
      const entry = caller.queue.shift()!;
      this.dequeued(entry);
      clearTimeout(entry.timer);
      entry.settle({ kind: 'admitted', release: this.start(user, caller) });
    }
  }

  private forgetIfIdle(user: string, caller: Caller): void {
    if (caller.running === 0 && caller.queue.length === 0 && this.callers.get(user) === caller) this.callers.delete(user);
  }
}

function settled(outcome: Outcome): Ticket {
  return { outcome: Promise.resolve(outcome), cancel: () => {} };
}
