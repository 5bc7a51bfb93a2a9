// What the OAuth server remembers (oauth.ts): codes already used, each sign-in's current refresh
// token, sign-ins revoked. Always in this process's memory; with a Redis digest cache
// (MCP_DIGEST_CACHE=redis://…) also in Redis, which then decides, so every replica knows what one
// has seen. Redis not answering leaves this replica's own memory to decide (docs/oauth.md).

import type { SharedOAuthStore } from '../cache/redis.js';

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

  /** True when the code was unspent (and is spent now); false when it had been used, here or on another replica. */
  async spendCode(id: string, untilMs: number): Promise<boolean> {
    if (!this.codes.spend(id, untilMs)) return false;
    const shared = await this.shared?.setIfAbsent(`code:${id}`, untilMs - this.now());
    return shared !== false;
  }

  /** Makes `next` the sign-in's current refresh token; false when `used` is an older one. */
  async rotate(signIn: string, used: string | undefined, next: string, untilMs: number): Promise<boolean> {
    const shared = await this.shared?.rotate(`signin:${signIn}`, used, next, untilMs - this.now());
    if (shared === false) return false;
    if (shared === true) {
      // Redis decided: this replica's memory follows it.
      this.signIns.rotate(signIn, undefined, next, untilMs);
      return true;
    }
    return this.signIns.rotate(signIn, used, next, untilMs);
  }

  async revoke(signIn: string, untilMs: number): Promise<void> {
    this.revokedSignIns.mark(signIn, untilMs);
    await this.shared?.put(`revoked:${signIn}`, untilMs - this.now());
  }

  async isRevoked(signIn: string): Promise<boolean> {
    if (this.revokedSignIns.has(signIn)) return true;
    return (await this.shared?.has(`revoked:${signIn}`)) === true;
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
