import type { UpstreamError } from '../errors.js';
import { BudgetExceeded } from './budget.js';
import type { Failure } from './failure.js';

/**
 * When one call asks PostHog again (docs/design.md, "Retries and partial answers"): a few times, and only while the waits together stay
 * within the call's retry allowance (under 10 s). A request that got no answer is asked again when
 * the failure may pass (a reset, a refused connection) and sending it twice is harmless (GET and
 * DELETE; any method when it never connected). An error answer is asked again, for GET and DELETE,
 * when it is a throttle or a gateway's failure: after the wait PostHog named, else a backoff.
 * Replay requests that PostHog throttles are paced instead (replay-limiter.ts): see throttled().
 */

/** Answers worth asking again: throttled, or a gateway that could not reach PostHog in time. */
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

export interface RetrySettings {
  /** Attempts after the first. */
  maxRetries: number;
  /** Upper bound on the sum of one call's retry waits. */
  maxRetryWaitMs: number;
  /** Base of the exponential backoff when upstream names no wait. */
  backoffMs: number;
}

/** One call's retries: how many it made and how long they waited. */
export class Retries {
  private waitedMs = 0;

  constructor(private readonly settings: RetrySettings) {}

  /** What the call may still wait (pacing may spend it too). */
  get allowanceMs(): number {
    return Math.max(0, this.settings.maxRetryWaitMs - this.waitedMs);
  }

  /** Counts a wait spent before a request (pacing) against the allowance. */
  waited(ms: number): void {
    this.waitedMs += ms;
  }

  /** Another attempt may follow attempt `attempt` (0 the first). */
  another(attempt: number): boolean {
    return attempt < this.settings.maxRetries;
  }

  /** The wait before asking again after a request that got no answer, or undefined: give up. */
  afterFailure(attempt: number, failure: Failure, idempotent: boolean): number | undefined {
    // A request that never connected (ECONNREFUSED) cannot have reached PostHog, so even a POST may go again.
    const neverSent = failure.code === 'ECONNREFUSED';
    const wait = this.backoff(attempt);
    if (!failure.retryable || !(idempotent || neverSent) || !this.another(attempt)) return undefined;
    return this.take(wait);
  }

  /** The wait before asking again after an error answer, or undefined: give up. */
  afterAnswer(attempt: number, error: UpstreamError, idempotent: boolean): number | undefined {
    // PostHog could not load these blocks: asking again gets the same answer (docs/posthog-api.md, "Snapshots").
    if (error.status === 502 && error.code === 'recording_blocks_unavailable') return undefined;
    if (!idempotent || !RETRYABLE_STATUS.has(error.status) || !this.another(attempt)) return undefined;
    return this.take(error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : this.backoff(attempt));
  }

  /** The wait, counted, when it fits in what is left of the allowance. */
  private take(wait: number): number | undefined {
    if (this.waitedMs + wait >= this.settings.maxRetryWaitMs) return undefined;
    this.waitedMs += wait;
    return wait;
  }

  /** Exponential backoff with a little jitter, for failures that name no wait. */
  private backoff(attempt: number): number {
    return Math.round(this.settings.backoffMs * 2 ** attempt * (1 + Math.random() * 0.2));
  }
}

/** A paced replay request PostHog still refused after every retry: the call stops with when to continue, as for a long wait. */
export function stillThrottled(error: UpstreamError): BudgetExceeded {
  const seconds = Math.max(1, Math.ceil(error.retryAfterSeconds ?? 60));
  return new BudgetExceeded('throttle', `PostHog kept refusing replay requests for this key (429).${error.detail ? ` PostHog said: "${error.detail.slice(0, 160)}"` : ''} Retry in about ${seconds} seconds.`, seconds);
}
