import { UpstreamUnavailableError } from '../errors.js';

import type { CallLimits } from '../call-limits.js';


/** Tells the MCP client what a long call is doing (notifications/progress). */
export type ProgressReporter = (message: string) => void;

/** 'stalled': the upstream stopped answering (stall.ts). */
export type BudgetReason = 'requests' | 'time' | 'throttle' | 'stalled';

/**
 * A call stopped short of its work: the request budget is spent, the wall clock is up, or
 * PostHog's throttle asks for a longer wait than the call may make. Tools that read many pieces
 * (snapshots, summary) catch it and return what they have, marked partial; for any other tool
 * its message is the answer.
 */
export class BudgetExceeded extends UpstreamUnavailableError {
  constructor(
    readonly reason: BudgetReason,
    message: string,
    /** For 'throttle': seconds after which PostHog accepts the next request. */
    readonly retryAfterSeconds?: number,
  ) {
    super('budget', message);
  }
}

/**
 * One tool call's allowance, shared by every request the call makes. Its times are the process's
 * monotonic clock (performance.now()): a wall clock stepped back or forward changes no deadline.
 */
export class CallBudget {
  readonly startedAt = performance.now();
  requests = 0;
  /** Wall-clock time this call has spent waiting for the throttle (waits that overlap count once). */
  throttleWaitedMs = 0;
  /** The end of the latest throttle wait counted so far. */
  private waitingUntil = 0;

  constructor(
    readonly limits: CallLimits,
    readonly progress?: ProgressReporter,
  ) {}

  get deadline(): number {
    return this.startedAt + this.limits.wallClockMs;
  }

  remainingMs(): number {
    return this.deadline - performance.now();
  }

  /**
   * How long a wait starting now may last. The part of it that overlaps a wait already counted
   * (another of this call's requests waiting for the same window, e.g. triage's recordings read
   * side by side) is free: the call waits once, not once per request.
   */
  throttleAllowanceMs(now = performance.now()): number {
    const overlap = Math.max(0, this.waitingUntil - now);
    return Math.max(0, Math.min(this.limits.throttleWaitMs - this.throttleWaitedMs + overlap, this.remainingMs()));
  }

  /** Counts a throttle wait of `ms` starting now, less what overlaps waits counted before. */
  recordThrottleWait(ms: number, now = performance.now()): void {
    const end = now + ms;
    const from = Math.max(now, this.waitingUntil);
    if (end <= from) return;
    this.throttleWaitedMs += end - from;
    this.waitingUntil = end;
  }

  /** Requests kept back for a last step of the call (triage's exception query): only a request that says so may spend them. */
  private held = 0;

  /** Keeps `n` of the call's requests for a step that spends them with `reserved` (nothing when the call has too few to spare). */
  holdBack(n: number): void {
    this.held = this.limits.maxRequests - this.requests > n + 1 ? n : 0;
  }

  /** Requests the call may still make, less those held back. */
  available(): number {
    return this.limits.maxRequests - this.held - this.requests;
  }

  /** Counts one upstream request, or throws when the call has spent its allowance (`reserved`: the held-back part too). */
  spend(where: string, reserved = false): void {
    if (this.requests >= this.limits.maxRequests - (reserved ? 0 : this.held)) {
      throw new BudgetExceeded(
        'requests',
        `This call reached its budget of ${this.limits.maxRequests} upstream requests (POSTHOG_CALL_MAX_REQUESTS) before ${where}.`,
      );
    }
    if (this.remainingMs() <= 0) throw this.timeUp(where);
    this.requests++;
  }

  timeUp(where: string): BudgetExceeded {
    return new BudgetExceeded('time', `This call reached its time budget of ${Math.round(this.limits.wallClockMs / 1000)} s (POSTHOG_CALL_TIMEOUT_MS) at ${where}.`);
  }
}
