import { UpstreamUnavailableError } from '../errors.js';
import { BudgetExceeded } from './budget.js';

/**
 * The stall breaker: an upstream that stops answering must not hold a call for one request
 * timeout after another, nor every later call of the same key.
 *
 * - Per call: after CALL_LIMIT timeouts in a row, the call sends nothing more to that upstream;
 *   its readers answer with what they have, naming what was not read.
 * - Per process: each key has a stall score on this host: a timeout adds 1, a complete answer
 *   takes ANSWER_CREDIT off (an upstream whose listings answer but whose blocks stall still
 *   climbs; one that times out now and then among many answers does not). At KEY_LIMIT the host is
 *   marked failing for that key for COOL_OFF_MS: the key's requests are refused at once, saying
 *   so. After the cool-off requests go again, one step below the mark: the next timeout marks it
 *   failing again, answers bring it down. Other keys keep their own scores: one key's stalls
 *   never hold back another.
 *
 * Only timeouts count (a request cut off after POSTHOG_TIMEOUT_MS, or a connection not made in
 * time): an error answer, however bad, shows the upstream is there.
 */

/** Timeouts in a row after which a call stops asking the upstream. */
export const CALL_LIMIT = 2;
/** A key's stall score at which its host is marked failing for that key. */
export const KEY_LIMIT = 3;
/** What a complete answer takes off a key's stall score. */
export const ANSWER_CREDIT = 0.5;
/** How long a host marked failing for a key is left alone. */
export const COOL_OFF_MS = 30_000;
/** Keys remembered (the oldest is forgotten past it; in HTTP mode every caller brings one). */
const MAX_KEYS = 1_000;

/** The call's requests to its upstream were stopped by the breaker: readers answer with what they have. */
export class UpstreamStalled extends BudgetExceeded {
  constructor(message: string, retryAfterSeconds?: number) {
    super('stalled', message, retryAfterSeconds);
  }
}

export interface StallOptions {
  callLimit?: number;
  keyLimit?: number;
  coolOffMs?: number;
  now?: () => number;
}

interface KeyState {
  /** Timeouts, less ANSWER_CREDIT per answer since (never below 0). */
  score: number;
  /** Timeouts since the last answer, for the message. */
  timeouts: number;
  /** The request timeout they were cut off at, for the message. */
  timeoutMs: number;
  /** Failing until then (the monotonic clock, ms); 0: not failing. */
  until: number;
}

/** A timeout, as the client classifies it; the call's own wall clock running out is not one. */
export function isStall(error: unknown, code?: string): boolean {
  if (error instanceof BudgetExceeded) return false;
  return (error instanceof UpstreamUnavailableError && error.kind === 'timeout') || code === 'UND_ERR_CONNECT_TIMEOUT';
}

export class StallBreaker {
  private readonly callLimit: number;
  private readonly keyLimit: number;
  private readonly coolOffMs: number;
  private readonly now: () => number;
  /** Per call (keyed by the call's budget object): timeouts in a row, and the timeout they were cut off at. */
  private readonly calls = new WeakMap<object, { timeouts: number; timeoutMs: number }>();
  private readonly keys = new Map<string, KeyState>();

  constructor(
    /** The upstream's origin, as named in messages. */
    private readonly host: string,
    options: StallOptions = {},
  ) {
    this.callLimit = options.callLimit ?? CALL_LIMIT;
    this.keyLimit = options.keyLimit ?? KEY_LIMIT;
    this.coolOffMs = options.coolOffMs ?? COOL_OFF_MS;
    // Monotonic: a wall clock stepped back must not stretch a cool-off.
    this.now = options.now ?? (() => performance.now());
  }

  /** Before each request: throws UpstreamStalled when the call, or the key on this host, is stopped. */
  check(keyId: string, call: object | undefined, where: string): void {
    const state = this.keys.get(keyId);
    const left = state ? state.until - this.now() : 0;
    if (left > 0) {
      const seconds = Math.ceil(left / 1000);
      throw new UpstreamStalled(
        `PostHog at ${this.host} keeps not answering this key's requests (the last ${state!.timeouts} cut off after ${state!.timeoutMs} ms each, POSTHOG_TIMEOUT_MS), so this server leaves it alone for this key for ${Math.round(this.coolOffMs / 1000)} s; ${where} was not sent. Retry in about ${seconds} seconds.`,
        seconds,
      );
    }
    const stalled = call ? this.calls.get(call) : undefined;
    if (stalled && stalled.timeouts >= this.callLimit) {
      throw new UpstreamStalled(`PostHog at ${this.host} did not answer this call's last ${stalled.timeouts} requests within ${stalled.timeoutMs} ms each; the call stopped asking it, and ${where} was not sent.`);
    }
  }

  /** After a request that timed out (cut off after `timeoutMs`). */
  timedOut(keyId: string, call: object | undefined, timeoutMs: number): void {
    if (call) this.calls.set(call, { timeouts: (this.calls.get(call)?.timeouts ?? 0) + 1, timeoutMs });
    const state = this.keys.get(keyId) ?? { score: 0, timeouts: 0, timeoutMs, until: 0 };
    state.timeoutMs = timeoutMs;
    this.keys.delete(keyId);
    this.keys.set(keyId, state);
    if (this.keys.size > MAX_KEYS) this.keys.delete(this.keys.keys().next().value!);
    state.timeouts++;
    state.score++;
    if (state.score >= this.keyLimit) {
      state.until = this.now() + this.coolOffMs;
      state.score = this.keyLimit - 1;
    }
  }

  /** After a request that got a complete answer (any status): the upstream is there. */
  answered(keyId: string, call: object | undefined): void {
    if (call) this.calls.delete(call);
    const state = this.keys.get(keyId);
    if (!state) return;
    state.timeouts = 0;
    state.score = Math.max(0, state.score - ANSWER_CREDIT);
    if (state.score === 0 && state.until <= this.now()) this.keys.delete(keyId);
  }

  /** The key's host is in its cool-off now (for tests and diagnostics). */
  failing(keyId: string): boolean {
    return (this.keys.get(keyId)?.until ?? 0) > this.now();
  }
}
