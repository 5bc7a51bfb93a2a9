import { FairQueue, type Waiter } from '../posthog/fair-queue.js';

// Who runs next in HTTP mode: each caller's calls beyond its share wait in its own line (first in,
// first out), and a free slot goes to the waiting caller with the fewest calls running, taking
// turns among equals (posthog/fair-queue.ts). Callers whose key PostHog has not accepted yet
// (anyone can make one up) together run and wait within a bounded part of the capacity, so they can
// never take the slots of users PostHog already knows. Pure bookkeeping (no sockets), so the rules
// can be read and tested alone.

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
  /** The outcome when it was decided at once (no waiting); undefined while in line. */
  readonly immediate?: Outcome | undefined;
  /** The caller left while waiting: its place is given up. False (and nothing done) once admitted or refused: the outcome says which. */
  cancel(): boolean;
}

interface Waiting extends Waiter {
  settle: (outcome: Outcome) => void;
  timer: NodeJS.Timeout | undefined;
  /** Counted in the unverified callers' waiting line. */
  unverified: boolean;
}

export class Admission {
  /** Callers' lines; unverified callers are on its restricted share. */
  private readonly slots: FairQueue<Waiting>;
  private unverifiedQueued = 0;
  private closed = false;

  constructor(
    private readonly limits: AdmissionLimits,
    /** Per-user keys tell callers apart; the shared-key caller ('') is the whole server. */
    perUser: (user: string) => boolean = (user) => user !== '',
  ) {
    this.slots = new FairQueue({
      total: limits.maxRunning,
      perUser: (user) => (perUser(user) ? limits.maxRunningPerUser : limits.maxRunning),
      restrictedTotal: limits.maxRunningUnverified,
    });
  }

  get runningCount(): number {
    return this.slots.runningCount;
  }

  get queuedCount(): number {
    return this.slots.queuedCount;
  }

  /** Calls waiting for this caller. */
  waiting(user: string): number {
    return this.slots.waiting(user);
  }

  /** Calls running for callers whose key PostHog has not accepted yet. */
  get unverifiedRunningCount(): number {
    return this.slots.restrictedRunningCount;
  }

  /**
   * A call wants its turn. `unverified`: PostHog has not accepted the caller's key yet (it may be
   * made up); such calls share the unverified part of the capacity.
   */
  enter(user: string, unverified = false): Ticket {
    if (this.closed) return settled({ kind: 'refused', why: 'closed' });
    const release = this.slots.tryStart(user, unverified);
    if (release) return settled({ kind: 'admitted', release });
    if (this.slots.waiting(user) >= this.limits.maxQueuedPerUser) return settled({ kind: 'refused', why: 'queue-full' });
    if (this.slots.queuedCount >= this.limits.maxQueued) return settled({ kind: 'refused', why: 'server-queue-full' });
    if (unverified && this.unverifiedQueued >= (this.limits.maxQueuedUnverified ?? this.limits.maxQueued)) return settled({ kind: 'refused', why: 'unverified-queue-full' });

    let settle!: (outcome: Outcome) => void;
    const outcome = new Promise<Outcome>((resolve) => (settle = resolve));
    const entry: Waiting = {
      settle,
      timer: undefined,
      unverified,
      admit: (release) => {
        this.dequeued(entry);
        settle({ kind: 'admitted', release });
      },
    };
    const leave = (why: Refusal | undefined) => {
      if (!this.slots.leave(user, entry)) return false;
      this.dequeued(entry);
      if (why) settle({ kind: 'refused', why });
      return true;
    };
    entry.timer = setTimeout(() => leave('timeout'), this.limits.queueTimeoutMs);
    this.slots.wait(user, entry, unverified);
    if (unverified) this.unverifiedQueued++;
    return { outcome, cancel: () => leave(undefined) };
  }

  /** Refuses everything waiting and anything that comes later (the server is shutting down). */
  close(): void {
    this.closed = true;
    for (const entry of this.slots.clear()) {
      this.dequeued(entry);
      entry.settle({ kind: 'refused', why: 'closed' });
    }
  }

  /** A call left the waiting line (admitted, refused or gone). */
  private dequeued(entry: Waiting): void {
    clearTimeout(entry.timer);
    if (entry.unverified) this.unverifiedQueued--;
  }
}

function settled(outcome: Outcome): Ticket {
  return { outcome: Promise.resolve(outcome), immediate: outcome, cancel: () => false };
}
