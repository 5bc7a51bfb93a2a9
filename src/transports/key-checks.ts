// Asking PostHog whether a key is real, for the consent page (oauth.ts) and for HTTP callers whose
// key PostHog has not accepted yet (newcomers.ts). Anyone can type or send a made-up key, and each
// check is a request to PostHog in this server's name, so who may check when is decided here: the
// consent page's checks take turns per client registration and per consent request, a failed
// check keeps its place for a while (the rate at which made-up keys reach PostHog is bounded),
// and a check waits for its turn instead of being refused, so a flood of made-up keys delays
// itself, not the person behind it.

import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { UpstreamError } from '../errors.js';
import type { PostHogClient } from '../posthog/client.js';
import { FairQueue } from '../posthog/fair-queue.js';
import { operationsOver } from '../posthog/operations/index.js';
import { lifetime } from './oauth-memory.js';

/** What PostHog made of a key: taken, refused (401), or no answer worth trusting (5xx, timeout…). */
export type Verdict = { kind: 'accepted' } | { kind: 'refused' } | { kind: 'unknown'; why: string };

/** How long one check may take; PostHog answers in well under a second. */
const CHECK_TIMEOUT_MS = 15_000;

/**
 * `GET /api/users/@me/` with the key: 401 means no; 403 (a scope the user endpoint needs, which no
 * tool does) still means yes. A success also marks the key accepted for the shared client's pool.
 */
export async function askPostHog(client: PostHogClient, key: string, signal?: AbortSignal): Promise<Verdict> {
  const timeout = AbortSignal.timeout(CHECK_TIMEOUT_MS);
  try {
    await operationsOver(client.withApiKey(key)).projects.currentUser({ signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    return { kind: 'accepted' };
  } catch (error) {
    if (error instanceof UpstreamError && error.status === 401) return { kind: 'refused' };
    if (error instanceof UpstreamError && error.status === 403) return { kind: 'accepted' };
    return { kind: 'unknown', why: error instanceof UpstreamError ? String(error.status) : error instanceof Error ? error.name : 'error' };
  }
}

export interface ConsentCheckLimits {
  /** Checks running at once, server-wide. */
  slots: number;
  /** Of those, how many one client registration may hold. */
  perClient: number;
  /** A check that did not end in "accepted" keeps its place this long after it started. */
  failedHoldMs: number;
  /** How long a post may wait for its turn before the page asks to try again. */
  waitMs: number;
  /** Keys one consent page may have checked in all; then the person starts again from the app. */
  triesPerRequest: number;
}

/** The defaults: at most 8 made-up keys a second reach PostHog, 2 a second from one client registration, 1 from one page. */
export const CONSENT_CHECK_LIMITS: ConsentCheckLimits = { slots: 8, perClient: 2, failedHoldMs: 1_000, waitMs: 30_000, triesPerRequest: 10 };

/** Why a key was not checked: the wait ran out, this page already has a check waiting, or it used up its tries. */
export type NotChecked = { kind: 'busy' } | { kind: 'pending' } | { kind: 'too-many' } | { kind: 'gone' };

/** Consent pages remembered for their count of tries; past it the least recently tried is forgotten. */
const MAX_REMEMBERED_REQUESTS = 10_000;

/**
 * The consent page's key checks: two levels of turns. Each client registration holds at most
 * `perClient` of the `slots`, a freed slot going to the waiting registration with the fewest
 * running; within one registration its consent pages take turns, one check at a time each. A
 * check that failed holds its places for `failedHoldMs`, so made-up keys reach PostHog at most
 * `slots` a second in all, `perClient` a second from one registration and one a second from one
 * page, whatever the flood; accepted keys free their place at once.
 */
export class ConsentChecks {
  private readonly clients: FairQueue;
  /** Per client registration, its consent pages' turns; dropped when idle. */
  private readonly pages = new Map<string, FairQueue>();
  /** Keys checked per consent page, until the page expires (an instant on `now`). */
  private readonly tries: LRUCache<string, { count: number }>;

  constructor(
    private readonly limits: ConsentCheckLimits = CONSENT_CHECK_LIMITS,
    /** The wall clock, for the pages' expiry (an instant sealed in them). */
    private readonly now: () => number = Date.now,
  ) {
    this.clients = new FairQueue({ total: limits.slots, perUser: limits.perClient });
    this.tries = new LRUCache({ max: MAX_REMEMBERED_REQUESTS, ttlResolution: 0, perf: { now } });
  }

  /**
   * Runs `check` when this page's turn comes. `request` is the sealed consent request (the page),
   * `untilMs` when it expires; `left` aborts when the browser went away.
   */
  async check(clientId: string, request: string, untilMs: number, left: AbortSignal, check: (signal: AbortSignal) => Promise<Verdict>): Promise<Verdict | NotChecked> {
    const page = createHash('sha256').update(request).digest('base64url');
    let pages = this.pages.get(clientId);
    if (!pages) this.pages.set(clientId, (pages = new FairQueue({ total: this.limits.perClient, perUser: 1 })));
    // A double click is one check running and one waiting; a third post waits for nothing new.
    if (pages.waiting(page) > 0) return this.idle(clientId, pages, { kind: 'pending' });
    if (!this.tryOnce(page, untilMs)) return this.idle(clientId, pages, { kind: 'too-many' });
    const signal = AbortSignal.any([left, AbortSignal.timeout(this.limits.waitMs)]);
    let releasePage: (() => void) | undefined;
    let releaseClient: (() => void) | undefined;
    try {
      releasePage = await pages.acquire(page, signal);
      releaseClient = await this.clients.acquire(clientId, signal);
    } catch {
      releasePage?.();
      return this.idle(clientId, pages, left.aborted ? { kind: 'gone' } : { kind: 'busy' });
    }
    // The hold is a local duration: on the monotonic clock.
    const started = performance.now();
    let verdict: Verdict = { kind: 'unknown', why: 'not run' };
    try {
      verdict = await check(left);
      return verdict;
    } finally {
      const release = () => {
        releaseClient!();
        releasePage!();
        this.idle(clientId, pages, undefined);
      };
      const hold = verdict.kind === 'accepted' ? 0 : started + this.limits.failedHoldMs - performance.now();
      if (hold > 0) setTimeout(release, hold).unref();
      else release();
    }
  }

  /** Counts one more try for the page; false when it has had its share. */
  private tryOnce(page: string, untilMs: number): boolean {
    const entry = this.tries.get(page);
    if (entry && entry.count >= this.limits.triesPerRequest) return false;
    if (entry) entry.count++;
    else this.tries.set(page, { count: 1 }, lifetime(untilMs, this.now));
    return true;
  }

  /** Forgets a client registration's turns once nothing of it runs or waits; passes `answer` on. */
  private idle<T>(clientId: string, pages: FairQueue, answer: T): T {
    if (pages.runningCount === 0 && pages.queuedCount === 0 && this.pages.get(clientId) === pages) this.pages.delete(clientId);
    return answer;
  }
}
