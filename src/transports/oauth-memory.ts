// What the OAuth server remembers (oauth.ts): codes already used, each sign-in's current refresh
// token, sign-ins revoked. Always in this process's memory; with a Redis digest cache
// (MCP_DIGEST_CACHE=redis://…) also in Redis, which then decides, so every replica knows what one
// has seen. Redis not answering leaves this replica's own memory to decide (docs/oauth.md).

import type { SharedOAuthStore } from '../cache/redis.js';
import { SignIns, SpentValues } from './oauth-seal.js';

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
