/**
 * Digest slots shared fairly between users, as HTTP call slots are (transports/admission.ts): one
 * user may hold at most `perUser` of the `total`, and a slot that frees goes to the waiting user
 * with the fewest running, taking turns among equals; within one user, first in, first out. A
 * digest holds its slot while its blocks stream in, so without this one user's slow recordings
 * made every other user's quick summary wait behind them.
 */

interface Waiting {
  grant: () => void;
}

interface User {
  running: number;
  queue: Waiting[];
  /** When it last got a slot (a counter; 0: never). */
  servedAt: number;
}

export class FairSlots {
  private readonly users = new Map<string, User>();
  private running = 0;
  private served = 0;

  constructor(
    readonly total: number,
    readonly perUser: number,
  ) {}

  get runningCount(): number {
    return this.running;
  }

  /** Resolves with a release function (idempotent) once the user has a slot; rejects if `signal` aborts first. */
  acquire(user: string, signal: AbortSignal): Promise<() => void> {
    const entry = this.users.get(user) ?? { running: 0, queue: [], servedAt: 0 };
    this.users.set(user, entry);
    if (entry.queue.length === 0 && this.admissible(entry)) return Promise.resolve(this.start(user, entry));
    return new Promise((resolve, reject) => {
      const waiting: Waiting = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(this.start(user, entry));
        },
      };
      const onAbort = () => {
        const at = entry.queue.indexOf(waiting);
        if (at !== -1) entry.queue.splice(at, 1);
        this.forgetIfIdle(user, entry);
        reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      entry.queue.push(waiting);
    });
  }

  private admissible(entry: User): boolean {
    return this.running < this.total && entry.running < this.perUser;
  }

  private start(user: string, entry: User): () => void {
    this.running++;
    entry.running++;
    entry.servedAt = ++this.served;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      entry.running--;
      this.forgetIfIdle(user, entry);
      this.dispatch();
    };
  }

  private dispatch(): void {
    while (this.running < this.total) {
      let best: User | undefined;
      for (const entry of this.users.values()) {
        if (entry.queue.length === 0 || !this.admissible(entry)) continue;
        if (!best || entry.running < best.running || (entry.running === best.running && entry.servedAt < best.servedAt)) best = entry;
      }
      if (!best) return;
      best.queue.shift()!.grant();
    }
  }

  private forgetIfIdle(user: string, entry: User): void {
    if (entry.running === 0 && entry.queue.length === 0 && this.users.get(user) === entry) this.users.delete(user);
  }
}
