// The order a sequence's middle steps are checked in (population.followsInOrder): the earliest
// completion of each step, so a later repeat of an earlier step never hides a match.
import { describe, expect, it } from 'vitest';
import { followsInOrder } from '../../src/posthog/operations/segments.js';

const NEVER = 0; // what maxIf gives a session without the last step (1970)

describe('followsInOrder', () => {
  it('two steps: the last after the first, or (absent) none after it', () => {
    expect(followsInOrder(10, [], 20, false)).toBe(true);
    expect(followsInOrder(10, [], 5, false)).toBe(false);
    expect(followsInOrder(10, [], NEVER, false)).toBe(false);
    expect(followsInOrder(10, [], NEVER, true)).toBe(true);
    expect(followsInOrder(10, [], 5, true)).toBe(true);
    expect(followsInOrder(10, [], 20, true)).toBe(false);
    // At the same instant is not after.
    expect(followsInOrder(10, [], 10, false)).toBe(false);
    expect(followsInOrder(10, [], 10, true)).toBe(true);
  });

  it('middle steps: each the earliest after the one before', () => {
    expect(followsInOrder(10, [[5, 15, 30]], 20, false)).toBe(true);
    expect(followsInOrder(10, [[5]], 20, false)).toBe(false);
    expect(followsInOrder(10, [[15], [12, 18]], 25, false)).toBe(true);
    expect(followsInOrder(10, [[15], [12]], 25, false)).toBe(false);
    expect(followsInOrder(10, [[15], []], 25, false)).toBe(false);
    // Absent last: none after the earliest completion of the others.
    expect(followsInOrder(10, [[15, 40]], 12, true)).toBe(true);
    expect(followsInOrder(10, [[15, 40]], 20, true)).toBe(false);
    expect(followsInOrder(10, [[15]], 20, true)).toBe(false);
    expect(followsInOrder(10, [[5]], NEVER, true)).toBe(false);
  });
});
