import { describe, expect, it } from 'vitest';
import { Admission, type AdmissionLimits, type Outcome } from '../../src/transports/admission.js';

const limits = (over: Partial<AdmissionLimits> = {}): AdmissionLimits => ({
  maxRunning: 4,
  maxRunningPerUser: 2,
  maxQueuedPerUser: 3,
  maxQueued: 100,
  queueTimeoutMs: 60_000,
  ...over,
});

/** Enters a call and records, in `log`, when it is admitted or refused. */
function enter(a: Admission, user: string, label: string, log: string[], unverified = false) {
  const ticket = a.enter(user, unverified);
  let release: (() => void) | undefined;
  const done = ticket.outcome.then((o: Outcome) => {
    if (o.kind === 'admitted') {
      release = o.release;
      log.push(label);
    } else log.push(`${label}:${o.why}`);
  });
  return { ticket, done, release: () => release?.() };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('Admission', () => {
  it("queues a caller's calls beyond its share, first in first out, and refuses past its queue", async () => {
    const a = new Admission(limits());
    const log: string[] = [];
    const calls = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((l) => enter(a, 'A', l, log));
    await flush();
    // Two run, three wait, the sixth is refused.
    expect(log).toEqual(['a1', 'a2', 'a6:queue-full']);
    expect(a.waiting('A')).toBe(3);
    calls[0]!.release();
    await flush();
    expect(log).toEqual(['a1', 'a2', 'a6:queue-full', 'a3']);
    calls[1]!.release();
    calls[2]!.release();
    await flush();
    expect(log.slice(-2)).toEqual(['a4', 'a5']);
  });

  it("another caller is not held back by one caller's queue", async () => {
    const a = new Admission(limits());
    const log: string[] = [];
    for (const l of ['a1', 'a2', 'a3', 'a4']) enter(a, 'A', l, log);
    enter(a, 'B', 'b1', log);
    await flush();
    expect(log).toEqual(['a1', 'a2', 'b1']);
  });

  it('a free slot goes to the waiting caller with fewer running, not to the one with the burst', async () => {
    // One caller may fill the whole server (per-user cap = global cap).
    const a = new Admission(limits({ maxRunning: 3, maxRunningPerUser: 3, maxQueuedPerUser: 10 }));
    const log: string[] = [];
    const a1 = enter(a, 'A', 'a1', log);
    enter(a, 'A', 'a2', log);
    enter(a, 'A', 'a3', log);
    for (const l of ['a4', 'a5', 'a6']) enter(a, 'A', l, log);
    enter(a, 'B', 'b1', log);
    enter(a, 'C', 'c1', log);
    await flush();
    expect(log).toEqual(['a1', 'a2', 'a3']);
    a1.release();
    await flush();
    // B and C have none running; B waited first... both before A's fourth.
    expect(log).toEqual(['a1', 'a2', 'a3', 'b1']);
  });

  it('takes turns among callers with equal shares', async () => {
    const a = new Admission(limits({ maxRunning: 1, maxRunningPerUser: 1, maxQueuedPerUser: 10 }));
    const log: string[] = [];
    const calls = new Map<string, ReturnType<typeof enter>>();
    for (const [user, label] of [['A', 'a1'], ['A', 'a2'], ['A', 'a3'], ['B', 'b1'], ['B', 'b2']] as const) calls.set(label, enter(a, user, label, log));
    await flush();
    // Each time, the call that is running finishes.
    for (let i = 0; i < 4; i++) {
      calls.get(log.at(-1)!)!.release();
      await flush();
    }
    // After a1: B (served longest ago), then A, then B, then A.
    expect(log).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it('a call that waits past the timeout is refused; one that leaves gives up its place', async () => {
    const a = new Admission(limits({ maxRunning: 1, queueTimeoutMs: 50 }));
    const log: string[] = [];
    const first = enter(a, 'A', 'a1', log);
    const second = enter(a, 'A', 'a2', log);
    const third = enter(a, 'A', 'a3', log);
    await flush();
    third.ticket.cancel();
    await second.done;
    expect(log).toEqual(['a1', 'a2:timeout']);
    expect(a.queuedCount).toBe(0);
    first.release();
    await flush();
    expect(log).toEqual(['a1', 'a2:timeout']);
    expect(a.runningCount).toBe(0);
  });

  it('the server-wide queue is a backstop when callers are many', async () => {
    const a = new Admission(limits({ maxRunning: 1, maxQueued: 2 }));
    const log: string[] = [];
    for (const u of ['A', 'B', 'C', 'D']) enter(a, u, u, log);
    await flush();
    expect(log).toEqual(['A', 'D:server-queue-full']);
  });

  it('close refuses the waiting calls and every later one; the running ones keep their slot', async () => {
    const a = new Admission(limits({ maxRunning: 1 }));
    const log: string[] = [];
    const first = enter(a, 'A', 'a1', log);
    enter(a, 'B', 'b1', log);
    await flush();
    a.close();
    enter(a, 'C', 'c1', log);
    await flush();
    expect(log).toEqual(['a1', 'b1:closed', 'c1:closed']);
    first.release();
    expect(a.runningCount).toBe(0);
  });

  it('the shared-key caller is the whole server: only the global cap applies', async () => {
    const a = new Admission(limits());
    const log: string[] = [];
    for (const l of ['s1', 's2', 's3', 's4', 's5']) enter(a, '', l, log);
    await flush();
    expect(log).toEqual(['s1', 's2', 's3', 's4']);
  });

  it('callers whose key PostHog has not accepted share their part of the slots and of the line; known callers keep the rest', async () => {
    const a = new Admission(limits({ maxRunning: 4, maxRunningPerUser: 2, maxRunningUnverified: 1, maxQueuedUnverified: 2 }));
    const log: string[] = [];
    const made = ['x', 'y', 'z', 'w'].map((u) => enter(a, u, u, log, true));
    await flush();
    // One runs, two wait, the fourth is refused: their line is full, whatever the rest of the server has.
    expect(log).toEqual(['x', 'w:unverified-queue-full']);
    expect(a.unverifiedRunningCount).toBe(1);
    const k1 = enter(a, 'K', 'k1', log);
    const k2 = enter(a, 'K', 'k2', log);
    await flush();
    // A known caller runs at once, up to its own share.
    expect(log).toEqual(['x', 'w:unverified-queue-full', 'k1', 'k2']);
    // The unverified slot passes to the next unverified caller in line, in turn.
    made[0]!.release();
    await flush();
    expect(log.slice(4)).toEqual(['y']);
    made[1]!.release();
    await flush();
    expect(log.slice(4)).toEqual(['y', 'z']);
    made[2]!.release();
    k1.release();
    k2.release();
    expect(a.runningCount).toBe(0);
    expect(a.queuedCount).toBe(0);
  });

  it('says when a ticket was decided at once, and whether cancelling took it out of the line', async () => {
    const a = new Admission(limits({ maxRunning: 1, maxRunningPerUser: 1 }));
    const first = a.enter('A', false);
    expect(first.immediate?.kind).toBe('admitted');
    expect(first.cancel()).toBe(false);
    const second = a.enter('B', false);
    expect(second.immediate).toBeUndefined();
    expect(second.cancel()).toBe(true);
    expect(a.queuedCount).toBe(0);
    const third = a.enter('C', false);
    const outcome = await first.outcome;
    if (outcome.kind === 'admitted') outcome.release();
    // Admitted already: cancelling changes nothing, and its outcome says so.
    expect(third.cancel()).toBe(false);
    expect((await third.outcome).kind).toBe('admitted');
  });
});
