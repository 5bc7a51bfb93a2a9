/**
 * Per-key concurrency for the shared upstream pool. In HTTP mode with per-user keys every user
 * shares one client; without a cap, one user's slow calls take every connection and everyone
 * else's calls wait behind them. Each key may have at most `perKey` requests in flight; the
 * rest of that key's requests queue in order, while other keys go straight through.
 */
export class KeyGate {
  private readonly keys = new Map<string, { active: number; queue: Array<() => void> }>();

  constructor(readonly perKey: number) {}

  /**
   * A release function once the key has a free slot: at once (no promise, no extra tick) when
   * one is free, else a promise that rejects if `signal` aborts first.
   */
  acquire(key: string, signal: AbortSignal): (() => void) | Promise<() => void> {
    let entry = this.keys.get(key);
    if (!entry) this.keys.set(key, (entry = { active: 0, queue: [] }));
    const slot = entry;
    const release = once(() => {
      slot.active--;
      const next = slot.queue.shift();
      if (next) next();
      else if (slot.active === 0) this.keys.delete(key);
    });
    if (slot.active < this.perKey) {
      slot.active++;
      return release;
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const index = slot.queue.indexOf(grant);
        if (index !== -1) slot.queue.splice(index, 1);
        reject(signal.reason);
      };
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        slot.active++;
        resolve(release);
      };
      if (signal.aborted) return reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      slot.queue.push(grant);
    });
  }

  /** Requests in flight for a key (for tests and diagnostics). */
  active(key: string): number {
    return this.keys.get(key)?.active ?? 0;
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
