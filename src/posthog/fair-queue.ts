/**
 * Slots shared fairly between users: the one rule behind the per-key gate of upstream requests
 * (shared-pool.ts), the digest slots (digest/slots.ts) and the HTTP call slots
 * (transports/admission.ts). One user may run at most its own cap and everyone together at most
 * `total`; a user's requests beyond that wait in its own line, first in, first out; a slot that
 * frees goes to the waiting user with the fewest running, taking turns among equals (whoever was
 * served longest ago first), so one user's burst never makes another user's single request wait
 * behind it. Users on the restricted share (in HTTP mode, callers whose key PostHog has not
 * accepted yet) also run within a bound of their own, together.
 *
 * Bookkeeping only: what a waiter is and how it learns its turn is its owner's (a promise that a
 * signal may abort, a ticket with a timer).
 */

export interface FairLimits {
  /** Slots in all (Infinity: no bound but each user's). */
  total: number;
  /** Slots one user may hold. */
  perUser: number | ((user: string) => number);
  /** Slots the users on the restricted share may hold together (default: `total`). */
  restrictedTotal?: number | undefined;
}

/** One place in a user's line, told its release when its turn comes. */
export interface Waiter {
  admit(release: () => void): void;
}

interface Line<W> {
  running: number;
  queue: W[];
  /** When it last got a slot (a counter; 0: never), for taking turns among equals. */
  servedAt: number;
  /** On the restricted share, as its latest request said. */
  restricted: boolean;
}

export class FairQueue<W extends Waiter = Waiter> {
  /** Users with requests running or waiting. */
  private readonly lines = new Map<string, Line<W>>();
  private running = 0;
  private restrictedRunning = 0;
  private queued = 0;
  private served = 0;

  constructor(private readonly limits: FairLimits) {}

  get runningCount(): number {
    return this.running;
  }

  get queuedCount(): number {
    return this.queued;
  }

  get restrictedRunningCount(): number {
    return this.restrictedRunning;
  }

  /** Requests waiting in this user's line. */
  waiting(user: string): number {
    return this.lines.get(user)?.queue.length ?? 0;
  }

  /**
   * A slot for `user` now, when it may have one without passing anyone (none of its own
   * requests waits): its release (idempotent), else undefined, and the caller then waits or refuses.
   * `restricted` is the user's share from this request on.
   */
  tryStart(user: string, restricted = false): (() => void) | undefined {
    const line = this.lines.get(user);
    if (line) line.restricted = restricted;
    const candidate = line ?? { running: 0, queue: [], servedAt: 0, restricted };
    if (candidate.queue.length > 0 || !this.admissible(user, candidate)) return undefined;
    if (!line) this.lines.set(user, candidate);
    return this.start(user, candidate);
  }

  /** Puts `waiter` at the end of its user's line (after tryStart said no). */
  wait(user: string, waiter: W, restricted = false): void {
    let line = this.lines.get(user);
    if (!line) this.lines.set(user, (line = { running: 0, queue: [], servedAt: 0, restricted }));
    line.queue.push(waiter);
    this.queued++;
  }

  /** Takes `waiter` out of its line (it left or gave up): false when it is no longer there (admitted, or gone already). */
  leave(user: string, waiter: W): boolean {
    const line = this.lines.get(user);
    const at = line ? line.queue.indexOf(waiter) : -1;
    if (at === -1) return false;
    line!.queue.splice(at, 1);
    this.queued--;
    this.forgetIfIdle(user, line!);
    return true;
  }

  /** Takes every waiter out of every line, in order, for its owner to refuse (the server is closing). */
  clear(): W[] {
    const all: W[] = [];
    for (const [user, line] of this.lines) {
      all.push(...line.queue.splice(0));
      this.forgetIfIdle(user, line);
    }
    this.queued -= all.length;
    return all;
  }

  /**
   * The usual way in: the release at once (no promise, no extra tick) when a slot is free, else a
   * promise of it that rejects with the signal's reason if `signal` aborts first.
   */
  acquire(this: FairQueue<Waiter>, user: string, signal: AbortSignal): (() => void) | Promise<() => void> {
    const now = this.tryStart(user);
    if (now) return now;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const waiter: Waiter = {
        admit: (release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = () => {
        this.leave(user, waiter);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.wait(user, waiter);
    });
  }

  private admissible(user: string, line: Line<W>): boolean {
    const { total, perUser, restrictedTotal } = this.limits;
    if (line.restricted && this.restrictedRunning >= (restrictedTotal ?? total)) return false;
    return this.running < total && line.running < (typeof perUser === 'number' ? perUser : perUser(user));
  }

  /** Counts a request as running; its release (idempotent) frees the slot for the next in line. */
  private start(user: string, line: Line<W>): () => void {
    const restricted = line.restricted;
    this.running++;
    if (restricted) this.restrictedRunning++;
    line.running++;
    line.servedAt = ++this.served;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      if (restricted) this.restrictedRunning--;
      line.running--;
      this.forgetIfIdle(user, line);
      this.dispatch();
    };
  }

  /** Fills free slots, each to the waiting user with the fewest running (ties: served longest ago). */
  private dispatch(): void {
    while (this.queued > 0 && this.running < this.limits.total) {
      let best: [string, Line<W>] | undefined;
      for (const [user, line] of this.lines) {
        if (line.queue.length === 0 || !this.admissible(user, line)) continue;
        if (!best || line.running < best[1].running || (line.running === best[1].running && line.servedAt < best[1].servedAt)) best = [user, line];
      }
      if (!best) return;
      const [user, line] = best;
      const waiter = line.queue.shift()!;
      this.queued--;
      waiter.admit(this.start(user, line));
    }
  }

  private forgetIfIdle(user: string, line: Line<W>): void {
    if (line.running === 0 && line.queue.length === 0 && this.lines.get(user) === line) this.lines.delete(user);
  }
}
