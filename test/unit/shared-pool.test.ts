import { describe, expect, it } from 'vitest';
import { ReplayLimiter } from '../../src/posthog/replay-limiter.js';
import { SharedPool } from '../../src/posthog/shared-pool.js';

const pool = (origin: string) => new SharedPool(origin, 4, 1_000, 2, new ReplayLimiter([]));

describe('SharedPool', () => {
  it("a key's identity is made once, is a hash of host and key (never the key), and is '' without a key", () => {
    const here = pool('https://us.posthog.com');
    const first = here.identity('phx_one');
    expect(here.identity('phx_one')).toBe(first);
    expect(first.keyId).toMatch(/^[0-9a-f]{32}$/);
    expect(here.identity('phx_two').keyId).not.toBe(first.keyId);
    // The same key on another host is another identity: what is learned of it is about that host.
    expect(pool('https://eu.posthog.com').identity('phx_one').keyId).not.toBe(first.keyId);
    expect(first.redactor.text('key phx_one here')).not.toContain('phx_one');
    expect(here.identity(undefined).keyId).toBe('');
  });

  it('remembers the keys PostHog accepted', () => {
    const here = pool('https://us.posthog.com');
    const { keyId } = here.identity('phx_one');
    expect(here.accepted(keyId)).toBe(false);
    here.accept(keyId);
    expect(here.accepted(keyId)).toBe(true);
    expect(here.accepted(here.identity('phx_two').keyId)).toBe(false);
  });

  it("gates each key's requests in flight at its share", () => {
    const here = pool('https://us.posthog.com');
    const never = new AbortController().signal;
    expect(here.gate.acquire('a', never)).toBeTypeOf('function');
    expect(here.gate.acquire('a', never)).toBeTypeOf('function');
    expect(here.gate.acquire('a', never)).toBeInstanceOf(Promise);
    expect(here.gate.acquire('b', never)).toBeTypeOf('function');
  });
});
