import { FairQueue } from '../posthog/fair-queue.js';

/**
 * Digest slots shared fairly between users, by the same rule as HTTP call slots
 * (posthog/fair-queue.ts): one user may hold at most `perUser` of the `total`, and a slot that
 * frees goes to the waiting user with the fewest running. A digest holds its slot while its blocks
 * stream in, so without this one user's slow recordings made every other user's quick summary
 * wait behind them.
 */
export class FairSlots {
  private readonly queue: FairQueue;

  constructor(
    readonly total: number,
    readonly perUser: number,
  ) {
    this.queue = new FairQueue({ total, perUser });
  }

  get runningCount(): number {
    return this.queue.runningCount;
  }

  /** Resolves with a release function (idempotent) once the user has a slot; rejects if `signal` aborts first. */
  acquire(user: string, signal: AbortSignal): Promise<() => void> {
    const granted = this.queue.acquire(user, signal);
    if (typeof granted === 'function') return Promise.resolve(granted);
    return granted.catch((reason: unknown) => {
      throw reason instanceof Error ? reason : new Error('cancelled');
    });
  }
}
