import { describe, expect, it } from 'vitest';
import { SignIns } from '../../src/transports/oauth-memory.js';

// A refresh token is good only while it is its sign-in's current one (src/transports/oauth-memory.ts).
describe('SignIns: which refresh token of a sign-in is current', () => {
  const later = Date.now() + 60_000;

  it('takes the current token once; the one it replaced is refused after', () => {
    const signIns = new SignIns();
    expect(signIns.rotate('a', undefined, 't1', later)).toBe(true);
    expect(signIns.rotate('a', 't1', 't2', later)).toBe(true);
    expect(signIns.rotate('a', 't1', 't3', later)).toBe(false);
    // Refused changes nothing: t2 is still current.
    expect(signIns.rotate('a', 't2', 't3', later)).toBe(true);
  });

  it('one client refreshing its own sign-in any number of times never pushes another sign-in out', () => {
    const signIns = new SignIns(3);
    signIns.rotate('victim', undefined, 'v1', later);
    signIns.rotate('victim', 'v1', 'v2', later);
    signIns.rotate('attacker', undefined, 'x0', later);
    for (let i = 0; i < 1_000; i++) expect(signIns.rotate('attacker', `x${i}`, `x${i + 1}`, later)).toBe(true);
    // The stolen, already rotated v1 is still known to be old.
    expect(signIns.rotate('victim', 'v1', 'v9', later)).toBe(false);
  });

  it('is bounded: past its size the oldest sign-in is forgotten, and its token then taken as current', () => {
    const signIns = new SignIns(2);
    signIns.rotate('a', undefined, 'a1', later);
    signIns.rotate('a', 'a1', 'a2', later);
    signIns.rotate('b', undefined, 'b1', later);
    signIns.rotate('c', undefined, 'c1', later);
    expect(signIns.rotate('a', 'a1', 'a3', later)).toBe(true);
  });

  it('forgets a sign-in whose token would have expired anyway', () => {
    let now = 1_000;
    const signIns = new SignIns(10, () => now);
    signIns.rotate('a', undefined, 'a1', 2_000);
    signIns.rotate('a', 'a1', 'a2', 2_000);
    now = 3_000;
    expect(signIns.rotate('a', 'a1', 'a3', 4_000)).toBe(true);
  });

  it('a sign-in set with an expiry already past is not kept for ever (lru-cache reads a lifetime of 0 as none)', () => {
    let now = 5_000;
    const signIns = new SignIns(10, () => now);
    signIns.rotate('a', undefined, 'a1', 4_000);
    signIns.rotate('a', 'a1', 'a2', 4_000);
    now = 5_002;
    expect(signIns.rotate('a', 'a1', 'a3', 9_000)).toBe(true);
  });
});
