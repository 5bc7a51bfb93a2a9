import { describe, expect, it } from 'vitest';
import { FairSlots } from '../../src/digest/slots.js';

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('FairSlots (digest slots)', () => {
  it("caps one user's share, gives a free slot to the user with the fewest running, and lets a waiter leave", async () => {
    const slots = new FairSlots(3, 2);
    const never = new AbortController().signal;
    const log: string[] = [];
    const take = (user: string, label: string, signal = never) =>
      slots.acquire(user, signal).then(
        (release) => (log.push(label), release),
        () => (log.push(`${label}:left`), () => {}),
      );
    const a1 = take('A', 'a1');
    const a2 = take('A', 'a2');
    const a3 = take('A', 'a3');
    const leaving = new AbortController();
    const a4 = take('A', 'a4', leaving.signal);
    await flush();
    // A has its two; its third waits although a slot is free.
    expect(log).toEqual(['a1', 'a2']);
    const b1 = take('B', 'b1');
    const b2 = take('B', 'b2');
    await flush();
    expect(log).toEqual(['a1', 'a2', 'b1']);
    leaving.abort();
    await a4;
    // A slot frees: A and B both have one running and wait; A was served longer ago (a2 before b1).
    (await a1)();
    await flush();
    expect(log).toEqual(['a1', 'a2', 'b1', 'a4:left', 'a3']);
    // Now A has two (its share): B's next waits only for a slot.
    (await b1)();
    await flush();
    expect(log.at(-1)).toBe('b2');
    for (const release of [a2, a3, b2]) (await release)();
    expect(slots.runningCount).toBe(0);
  });
});
