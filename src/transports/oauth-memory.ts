// What the OAuth server remembers (oauth.ts): codes issued and spent, each sign-in's current
// refresh token, sign-ins revoked. Always in this process's memory; with a Redis digest cache
// (MCP_DIGEST_CACHE=redis://…) also in Redis, which then decides, so every replica knows what one
// has seen, and what Redis no longer holds (a restart without persistence, a flush, an eviction)
// is refused rather than taken as new (cache/oauth-store.ts). Redis not answering leaves this
// replica's own memory to decide (docs/oauth.md).

import { LRUCache } from 'lru-cache';
import type { SharedOAuthStore } from '../cache/oauth-store.js';

/** A code presented: good now, used before, or one the shared store no longer holds. */
export type CodeUse = 'fresh' | 'reused' | 'forgotten';
/** A refresh token presented: taken (the next is current), an older one, its sign-in revoked, or a sign-in the store no longer holds. */
export type RefreshUse = 'rotated' | 'reused' | 'revoked' | 'forgotten';
/** A sign-in behind an access token. */
export type SignInStatus = 'live' | 'revoked' | 'forgotten';

/** Entries each memory holds; past it the least recently used go first. */
const MAX_REMEMBERED = 100_000;

export class OAuthMemory {
  /** Codes spent, and sign-ins revoked, each until it expires. */
  private readonly codes: LRUCache<string, true>;
  private readonly signIns: SignIns;
  private readonly revokedSignIns: LRUCache<string, true>;

  constructor(
    private readonly shared: SharedOAuthStore | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.codes = memory(now);
    this.signIns = new SignIns(MAX_REMEMBERED, now);
    this.revokedSignIns = memory(now);
  }

  /** A code was handed out: the shared store holds it as issued until it expires. */
  async issueCode(id: string, untilMs: number): Promise<void> {
    await this.shared?.issue(id, this.ttl(untilMs));
  }

  async spendCode(id: string, untilMs: number): Promise<CodeUse> {
    if (this.codes.has(id)) return 'reused';
    this.codes.set(id, true, lifetime(untilMs, this.now));
    const shared = await this.shared?.spend(id, this.ttl(untilMs));
    return shared === 'reused' ? 'reused' : shared === 'unknown' ? 'forgotten' : 'fresh';
  }

  /** A sign-in begins (its code was just spent) with its first refresh token. */
  async startSignIn(signIn: string, refreshId: string, untilMs: number): Promise<void> {
    this.signIns.rotate(signIn, undefined, refreshId, untilMs);
    await this.shared?.start(signIn, refreshId, this.ttl(untilMs));
  }

  /** Makes `next` the sign-in's current refresh token when `used` is the current one. */
  async rotate(signIn: string, used: string, next: string, untilMs: number): Promise<RefreshUse> {
    if (this.revokedSignIns.has(signIn)) return 'revoked';
    const shared = await this.shared?.rotate(signIn, used, next, this.ttl(untilMs));
    if (shared === undefined) return this.signIns.rotate(signIn, used, next, untilMs) ? 'rotated' : 'reused';
    // Redis decided: this replica's memory follows it, for when Redis is away.
    if (shared === 'rotated') this.signIns.rotate(signIn, undefined, next, untilMs);
    if (shared === 'revoked') this.revokedSignIns.set(signIn, true, lifetime(untilMs, this.now));
    return shared === 'stale' ? 'reused' : shared === 'unknown' ? 'forgotten' : shared;
  }

  async revoke(signIn: string, untilMs: number): Promise<void> {
    this.revokedSignIns.set(signIn, true, lifetime(untilMs, this.now));
    await this.shared?.revoke(signIn, this.ttl(untilMs));
  }

  async status(signIn: string): Promise<SignInStatus> {
    if (this.revokedSignIns.has(signIn)) return 'revoked';
    const shared = await this.shared?.state(signIn);
    return shared === 'revoked' ? 'revoked' : shared === 'unknown' ? 'forgotten' : 'live';
  }

  private ttl(untilMs: number): number {
    return untilMs - this.now();
  }
}

/**
 * A bounded memory whose entries live until an instant on `now`. That is the clock the sealed
 * `exp` of codes and tokens is judged on, so a value is remembered for exactly as long as it
 * could still be presented, whichever way the wall clock moves. lru-cache takes durations.
 */
function memory<V extends {}>(now: () => number, max = MAX_REMEMBERED): LRUCache<string, V> {
  // Each entry is set with its own lifetime; ttlResolution 0: every check reads `now`, none a
  // reading cached for a millisecond. lru-cache allocates its index for `max` up front: some
  // 4 MB for 100,000 entries, in a process that serves OAuth.
  return new LRUCache<string, V>({ max, ttlResolution: 0, perf: { now } });
}

/** The milliseconds from now until `untilMs`; at least one (lru-cache reads 0 as "for ever"). */
export function lifetime(untilMs: number, now: () => number): { ttl: number } {
  return { ttl: Math.max(1, Math.ceil(untilMs - now())) };
}

/**
 * Each sign-in's current refresh token, by id, until it would expire: a refresh token is good
 * only while it is its sign-in's current one. One entry per sign-in (not per refresh), so a
 * client refreshing its own sign-in over and over never pushes another's memory out; making
 * new sign-ins is what fills it, and each costs a key check with PostHog. Bounded, least recently
 * rotated first; a sign-in not remembered (dropped, restarted, another replica) takes its token as
 * current.
 */
export class SignIns {
  private readonly current: LRUCache<string, string>;

  constructor(
    max = MAX_REMEMBERED,
    private readonly now: () => number = Date.now,
  ) {
    this.current = memory(now, max);
  }

  /** Makes `next` the sign-in's current token; false (and nothing changed) when `used` is an older one. */
  rotate(signIn: string, used: string | undefined, next: string, untilMs: number): boolean {
    // peek: a refused token must not make its sign-in recently used.
    const head = this.current.peek(signIn);
    if (head !== undefined && used !== undefined && head !== used) return false;
    this.current.set(signIn, next, lifetime(untilMs, this.now));
    return true;
  }
}
