import { describe, expect, it } from 'vitest';
import { FairQueue, type Waiter } from '../../src/posthog/fair-queue.js';

/** A waiter that records, in `log`, when its turn comes, and keeps its release. */
function waiter(label: string, log: string[]) {
  const w: Waiter & { release?: () => void } = {
    admit(release) {
      log.push(label);
      w.release = release;
    },
  };
  return w;
}

describe('FairQueue', () => {
  it("holds one user's requests beyond its cap in its own line, first in first out, while others go straight through", () => {
    const q = new FairQueue({ total: Infinity, perUser: 2 });
    const log: string[] = [];
    const a1 = q.tryStart('A')!;
    const a2 = q.tryStart('A')!;
    expect(q.tryStart('A')).toBeUndefined();
    const a3 = waiter('a3', log);
    const a4 = waiter('a4', log);
    q.wait('A', a3);
    q.wait('A', a4);
    expect(q.waiting('A')).toBe(2);
    // B is not behind A's line.
    expect(q.tryStart('B')).toBeTypeOf('function');
    a1();
    a1(); // a second release frees nothing more
    expect(log).toEqual(['a3']);
    expect(q.runningCount).toBe(3);
    a2();
    expect(log).toEqual(['a3', 'a4']);
    expect(q.queuedCount).toBe(0);
  });

  it('gives a free slot to the waiting user with the fewest running, taking turns among equals', () => {
    const q = new FairQueue({ total: 3, perUser: 3 });
    const log: string[] = [];
    const a1 = q.tryStart('A')!;
    q.tryStart('A');
    q.tryStart('A');
    // The server is full: A's burst and B's single request wait.
    for (const l of ['a4', 'a5']) q.wait('A', waiter(l, log));
    expect(q.tryStart('B')).toBeUndefined();
    const b1 = waiter('b1', log);
    q.wait('B', b1);
    a1();
    // B has none running, A three: B goes first though A asked earlier.
    expect(log).toEqual(['b1']);
    // Now A (two running) and nobody else waits: A's next, in its order.
    b1.release!();
    expect(log).toEqual(['b1', 'a4']);
  });

  it('a waiter that leaves gives up its place, and a user with nothing left is forgotten', () => {
    const q = new FairQueue({ total: 1, perUser: 1 });
    const log: string[] = [];
    const a1 = q.tryStart('A')!;
    const b1 = waiter('b1', log);
    const b2 = waiter('b2', log);
    q.wait('B', b1);
    q.wait('B', b2);
    expect(q.leave('B', b1)).toBe(true);
    expect(q.leave('B', b1)).toBe(false);
    a1();
    expect(log).toEqual(['b2']);
    expect(q.leave('B', b2)).toBe(false);
    b2.release!();
    expect(q.runningCount).toBe(0);
    expect(q.waiting('B')).toBe(0);
  });

  it('users on the restricted share run within its bound together, and the others are not held by it', () => {
    const q = new FairQueue({ total: 4, perUser: 2, restrictedTotal: 1 });
    const log: string[] = [];
    const x1 = q.tryStart('X', true)!;
    expect(q.restrictedRunningCount).toBe(1);
    // Another restricted user waits for the restricted slot although the server has room.
    expect(q.tryStart('Y', true)).toBeUndefined();
    q.wait('Y', waiter('y1', log), true);
    expect(q.tryStart('K')).toBeTypeOf('function');
    x1();
    expect(log).toEqual(['y1']);
    expect(q.restrictedRunningCount).toBe(1);
  });

  it('clear() hands back every waiter in order for its owner to refuse', () => {
    const q = new FairQueue({ total: 1, perUser: 1 });
    const log: string[] = [];
    q.tryStart('A');
    const waiters = [waiter('a2', log), waiter('b1', log), waiter('a3', log)];
    q.wait('A', waiters[0]!);
    q.wait('B', waiters[1]!);
    q.wait('A', waiters[2]!);
    expect(q.clear()).toEqual([waiters[0], waiters[2], waiters[1]]);
    expect(q.queuedCount).toBe(0);
    expect(log).toEqual([]);
  });

  it('acquire(): a release at once when free, else a promise that an abort rejects with its reason', async () => {
    const q = new FairQueue({ total: Infinity, perUser: 1 });
    const never = new AbortController().signal;
    const first = q.acquire('A', never);
    expect(first).toBeTypeOf('function');
    const leaving = new AbortController();
    const gone = q.acquire('A', leaving.signal);
    const next = q.acquire('A', never);
    leaving.abort(new Error('left'));
    await expect(gone).rejects.toThrow('left');
    (first as () => void)();
    const release = await next;
    expect(q.runningCount).toBe(1);
    release();
    expect(q.runningCount).toBe(0);
    // An aborted signal does not queue.
    const held = q.acquire('A', never) as () => void;
    const aborted = new AbortController();
    aborted.abort(new Error('already'));
    await expect(q.acquire('A', aborted.signal)).rejects.toThrow('already');
    expect(q.queuedCount).toBe(0);
    held();
  });
});
