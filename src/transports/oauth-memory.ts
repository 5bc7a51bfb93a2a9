// What the OAuth server remembers (oauth.ts): codes issued and spent, each sign-in's current
// refresh token, sign-ins revoked. Always in this process's memory; with a Redis digest cache
// (MCP_DIGEST_CACHE=redis://…) also in Redis, which then decides, so every replica knows what one
// has seen, and what Redis no longer holds (a restart without persistence, a flush, an eviction)
// is refused rather than taken as new (cache/oauth-store.ts). Redis not answering leaves this
// replica's own memory to decide (docs/oauth.md).

import type { SharedOAuthStore } from '../cache/oauth-store.js';

/** A code presented: good now, used before, or one the shared store no longer holds. */
export type CodeUse = 'fresh' | 'reused' | 'forgotten';
/** A refresh token presented: taken (the next is current), an older one, its sign-in revoked, or a sign-in the store no longer holds. */
export type RefreshUse = 'rotated' | 'reused' | 'revoked' | 'forgotten';
/** A sign-in behind an access token. */
export type SignInStatus = 'live' | 'revoked' | 'forgotten';

export class OAuthMemory {
  private readonly codes: SpentValues;
  private readonly signIns: SignIns;
  private readonly revokedSignIns: SpentValues;

  constructor(
    private readonly shared: SharedOAuthStore | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.codes = new SpentValues(100_000, now);
    this.signIns = new SignIns(100_000, now);
    this.revokedSignIns = new SpentValues(100_000, now);
  }

  /** A code was handed out: the shared store holds it as issued until it expires. */
  async issueCode(id: string, untilMs: number): Promise<void> {
    await this.shared?.issue(id, this.ttl(untilMs));
  }

  async spendCode(id: string, untilMs: number): Promise<CodeUse> {
    if (!this.codes.spend(id, untilMs)) return 'reused';
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
    if (shared === 'revoked') this.revokedSignIns.mark(signIn, untilMs);
    return shared === 'stale' ? 'reused' : shared === 'unknown' ? 'forgotten' : shared;
  }

  async revoke(signIn: string, untilMs: number): Promise<void> {
    this.revokedSignIns.mark(signIn, untilMs);
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
 * Ids marked (codes used, sign-ins revoked) until they expire, in this process's memory. Bounded:
 * past its size the oldest go first.
 */
class SpentValues {
  private readonly spent = new Map<string, number>();

  constructor(
    private readonly max = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when it was unspent (and is spent now); false when it had been spent already. */
  spend(id: string, expiresAtMs: number): boolean {
    this.sweep();
    if (this.spent.has(id)) return false;
    this.mark(id, expiresAtMs);
    return true;
  }

  has(id: string): boolean {
    const until = this.spent.get(id);
    return until !== undefined && until > this.now();
  }

  /** Records the id (both uses go through here, so expired entries are dropped for either). */
  mark(id: string, expiresAtMs: number): void {
    this.sweep();
    this.spent.set(id, expiresAtMs);
    while (this.spent.size > this.max) this.spent.delete(this.spent.keys().next().value!);
  }

  private sweep(): void {
    const now = this.now();
    // Insertion order is roughly expiry order for values of one lifetime; stop at the first live one.
    for (const [id, until] of this.spent) {
      if (until > now) break;
      this.spent.delete(id);
    }
  }
}

/**
 * Each sign-in's current refresh token, by id, until it would expire: a refresh token is good
 * only while it is its sign-in's current one. One entry per sign-in (not per refresh), so a
 * client refreshing its own sign-in over and over never pushes another's memory out; making
 * new sign-ins is what fills it, and each costs a key check with PostHog. Bounded, oldest first;
 * a sign-in not remembered (dropped, restarted, another replica) takes its token as current.
 */
export class SignIns {
  private readonly current = new Map<string, { id: string; until: number }>();

  constructor(
    private readonly max = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Makes `next` the sign-in's current token; false (and nothing changed) when `used` is an older one. */
  rotate(signIn: string, used: string | undefined, next: string, untilMs: number): boolean {
    const head = this.current.get(signIn);
    if (head && head.until > this.now() && used !== undefined && head.id !== used) return false;
    this.current.delete(signIn);
    this.current.set(signIn, { id: next, until: untilMs });
    while (this.current.size > this.max) this.current.delete(this.current.keys().next().value!);
    return true;
  }
}
