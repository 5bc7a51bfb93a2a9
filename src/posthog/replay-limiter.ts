import type { UpstreamError } from '../errors.js';
import { BudgetExceeded, type CallBudget, type ProgressReporter } from './budget.js';
import { LearnedLimits, decodeShared, encodeShared, type KeyLimits } from './learned-limits.js';
import { describeRates, type Rate, type ReplayPolicy } from '../replay-rates.js';
import { ReplayPacer } from './throttle.js';
import { sleep } from './sleep.js';

/**
 * The replay throttle as the client meets it (POSTHOG_REPLAY_RATE_LIMITS; docs/throttling.md):
 *
 * - `auto` (the default): requests go at full speed until PostHog answers 429. Each 429 blocks
 *   the key until the time PostHog named and teaches a rate (learned-limits.ts) that paces every
 *   call with that key from then on, for an hour after the last 429 that taught it.
 * - a plan or explicit rates: paced up front; a 429 that comes anyway still blocks until the
 *   time PostHog named.
 * - `off` ([]): nothing is paced or learned; a 429 is retried like any other (retry.ts).
 *
 * With a shared store (the Redis digest cache), what one replica learns (the block and the
 * rates) is read by every replica within a second, before its next replay request with that key.
 */

/**
 * A small key-value store shared by replicas (the Redis digest cache provides one). Entries expire
 * after their TTL, which the store counts down itself: what is shared through it holds durations
 * only, never an instant of one replica's clock for another to compare with its own.
 */
export interface SharedLimitStore {
  /** The value and how long it has left to live (ms). */
  get(id: string): Promise<{ value: string; ttlMs: number } | undefined>;
  set(id: string, value: string, ttlMs: number): Promise<void>;
}

export interface Admission {
  /** The reserved send time: settle() or throttled() it once the answer is in. */
  slot: number;
  /** How long the request waited. */
  waitedMs: number;
}

export interface AdmitRequest {
  /** "GET /api/…", for messages. */
  where: string;
  signal?: AbortSignal | undefined;
  budget?: CallBudget | undefined;
  /** May wait up to the call's throttle allowance (digest, snapshots, triage), reporting progress. */
  patient: boolean;
  /** Otherwise: what is left of the 10 s retry budget. */
  retryAllowanceMs: number;
  /** PostHog's last 429 for this request, quoted when the wait is too long. */
  lastThrottle?: UpstreamError | undefined;
}

/** While waiting for a throttle, a progress notification at least this often. */
const PROGRESS_EVERY_MS = 5_000;
/** How often a key's shared state is read back from the store, at most. */
const REFRESH_MS = 1_000;
const STORE_PREFIX = 'posthog-replay-mcp:throttle:';
const MAX_REFRESHED = 2_000;

export class ReplayLimiter {
  private readonly pacer = new ReplayPacer();
  private readonly learned = new LearnedLimits();
  private readonly refreshedAt = new Map<string, number>();

  constructor(
    readonly policy: ReplayPolicy,
    private readonly store?: SharedLimitStore | undefined,
  ) {}

  /** Whether replay requests go through admit() at all (`off` sends them as any other). */
  get active(): boolean {
    return this.policy === 'auto' || this.policy.length > 0;
  }

  /** The rates this key is paced by now: configured, or learned ([] before any 429 in `auto`). */
  rates(key: string, now = performance.now()): Rate[] {
    return this.policy === 'auto' ? this.learned.rates(key, now) : this.policy;
  }

  /** Whether this key's replay requests are being paced now (triage reads one recording at a time then). */
  paces(key: string): boolean {
    return this.rates(key).length > 0 || this.pacer.blockedUntil(key) > performance.now();
  }

  /**
   * How many replay requests this key may still send now without waiting: under the rates it is
   * paced by, or, before any are known, under `assumed` (a caller's own budget per window); none
   * while PostHog's block lasts; unbounded when nothing paces it (`off`, or nothing assumed).
   */
  room(key: string, assumed: readonly Rate[], now = performance.now()): number {
    if (!this.active) return Infinity;
    if (this.pacer.blockedUntil(key) > now) return 0;
    const known = this.rates(key, now);
    const rates = known.length > 0 ? known : assumed;
    let room = Infinity;
    for (const rate of rates) room = Math.min(room, Math.max(0, rate.count - this.pacer.sentSince(key, now - rate.windowMs)));
    return room;
  }

  /** What is known of a key (for tests and diagnostics). */
  known(key: string): KeyLimits | undefined {
    return this.learned.get(key);
  }

  /**
   * Holds a replay request back until the key's window has room, within what the call may wait
   * (a patient call: its throttle allowance, with progress; another: the rest of the 10 s retry
   * budget). A longer wait stops the call with when to continue (BudgetExceeded 'throttle').
   */
  async admit(key: string, request: AdmitRequest): Promise<Admission> {
    await this.refresh(key);
    const { budget, where } = request;
    if (budget && budget.remainingMs() <= 0) throw budget.timeUp(where);
    const patient = request.patient && budget !== undefined;
    const allowance = patient ? budget.throttleAllowanceMs() : request.retryAllowanceMs;
    const rates = this.rates(key);
    const { waitMs, reserved, slot } = this.pacer.reserve(key, rates, Math.min(allowance, budget ? budget.remainingMs() : Infinity));
    if (!reserved) {
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      const said = request.lastThrottle?.detail ? ` PostHog said: "${request.lastThrottle.detail.slice(0, 160)}"` : '';
      throw new BudgetExceeded(
        'throttle',
        `PostHog limits replay list and snapshot requests per key${this.explain(rates)}.${said} The next one (${where}) can go in about ${seconds} s, longer than this call may wait: retry in about ${seconds} seconds.`,
        seconds,
      );
    }
    if (waitMs > 0) {
      if (patient) budget.recordThrottleWait(waitMs);
      try {
        await waitWithProgress(waitMs, request.signal, patient ? budget.progress : undefined, `Waiting ${Math.ceil(waitMs / 1000)} s for PostHog's replay rate limit${this.explain(rates)} before ${where}`);
      } catch (err) {
        // Cancelled while waiting: the slot goes back.
        this.pacer.drop(key, slot);
        throw err;
      }
    }
    return { slot, waitedMs: waitMs };
  }

  /** The request was not sent after all (the call's budget was spent): its slot goes back. */
  release(key: string, admission: Admission): void {
    this.pacer.drop(key, admission.slot);
  }

  /** The answer is in and PostHog counted the request. */
  settle(key: string, admission: Admission): void {
    this.pacer.settle(key, admission.slot);
  }

  /**
   * PostHog answered 429. A named wait blocks the key until then and (in `auto`) teaches its
   * budget; no wait named (ClickHouse at capacity) backs off, longer each time. Resolves once
   * what was learned is shared (a replica that answers next already knows), never rejects.
   */
  throttled(key: string, admission: Admission | undefined, error: UpstreamError, now = performance.now()): Promise<void> {
    if (admission) this.pacer.drop(key, admission.slot);
    let limits: KeyLimits;
    if (error.retryAfterSeconds !== undefined) {
      const waitMs = Math.ceil(error.retryAfterSeconds * 1000);
      if (this.policy === 'auto') limits = this.learned.throttled(key, this.pacer.passed(key, now), waitMs, now);
      else limits = { rates: [], learnedAt: now, blockedUntil: now + waitMs, expiresAt: now + waitMs };
    } else {
      limits = this.learned.backOff(key, now);
    }
    this.pacer.blockUntil(key, limits.blockedUntil, now);
    return this.publish(key, limits, now);
  }

  private explain(rates: readonly Rate[]): string {
    if (rates.length === 0) return '';
    return this.policy === 'auto' ? ` (learned from its 429 answers: ${describeRates(rates)})` : ` (${describeRates(rates)}, POSTHOG_REPLAY_RATE_LIMITS)`;
  }

  /** Reads what other replicas learned of this key, at most once a second; a store that fails is skipped. */
  private async refresh(key: string): Promise<void> {
    if (!this.store) return;
    const now = performance.now();
    if (now - (this.refreshedAt.get(key) ?? -Infinity) < REFRESH_MS) return;
    this.refreshedAt.delete(key);
    if (this.refreshedAt.size >= MAX_REFRESHED) this.refreshedAt.delete(this.refreshedAt.keys().next().value!);
    this.refreshedAt.set(key, now);
    let entry: { value: string; ttlMs: number } | undefined;
    try {
      entry = await this.store.get(STORE_PREFIX + key);
    } catch {
      return;
    }
    const shared = entry === undefined ? undefined : decodeShared(entry.value, entry.ttlMs);
    if (!shared) return;
    this.learned.merge(key, shared);
    this.pacer.blockUntil(key, shared.blockedUntil);
  }

  private async publish(key: string, limits: KeyLimits, now: number): Promise<void> {
    if (!this.store) return;
    const shared = encodeShared(limits, now);
    if (!shared) return;
    try {
      await this.store.set(STORE_PREFIX + key, shared.text, shared.ttlMs);
    } catch {
      // Not shared this time; this replica still knows.
    }
  }
}

/** Sleeps, telling the MCP client every few seconds what it is waiting for. */
async function waitWithProgress(ms: number, signal: AbortSignal | undefined, progress: ProgressReporter | undefined, message: string): Promise<void> {
  const until = performance.now() + ms;
  while (true) {
    const left = until - performance.now();
    if (left <= 0) return;
    progress?.(`${message}: ${Math.ceil(left / 1000)} s left.`);
    await sleep(Math.min(left, progress ? PROGRESS_EVERY_MS : left), signal);
  }
}
