// Callers whose key PostHog has not accepted yet, in HTTP mode with per-user keys (http.ts). Anyone
// can make up a key, so such callers run and wait within a bounded part of the capacity
// (admission.ts), and a flood of made-up keys can fill that part. A new user with a real key must
// still get in: when such a call cannot start at once, or finds that part's line full, its key is
// checked with PostHog meanwhile (key-checks.ts); a key PostHog accepts leaves the newcomers' part
// for the known users' share, a key it refuses is answered 401 at once (and for a minute after),
// so made-up keys stop holding places in line. Which keys are known is shared by the replicas and
// kept across restarts through Redis when it is configured (cache/known-keys.ts).

import { LRUCache } from 'lru-cache';
import type { SharedKnownKeys } from '../cache/known-keys.js';
import type { PostHogClient } from '../posthog/client.js';
import { FairQueue } from '../posthog/fair-queue.js';
import type { Admission, Outcome, Ticket } from './admission.js';
import { askPostHog, type Verdict } from './key-checks.js';

/** Keys remembered in each of the memories below; past it the least recently used is forgotten. */
const MAX_REMEMBERED = 10_000;
/** How long a key PostHog refused is answered 401 at the door. */
const REFUSED_FOR_MS = 60_000;

/** What a newcomer's turn came to: the admission's outcome, or PostHog refused its key. */
export type Entry = Outcome | { kind: 'key-refused' };

export interface NewcomerTicket {
  readonly outcome: Promise<Entry>;
  /** The caller left: its place is given up. */
  cancel(): void;
}

export class Newcomers {
  /** Keys this process learned are known from the shared store (a hash each). */
  private readonly learned = new LRUCache<string, true>({ max: MAX_REMEMBERED });
  /** Keys this process has written to the shared store. */
  private readonly told = new LRUCache<string, true>({ max: MAX_REMEMBERED });
  /** Keys PostHog refused when checked, for a minute (lru-cache's clock is the monotonic one). */
  private readonly refused = new LRUCache<string, true>({ max: MAX_REMEMBERED, ttl: REFUSED_FOR_MS });
  /** The check running or waiting for each key: every call of that key shares it. */
  private readonly checking = new Map<string, Promise<Verdict>>();
  private readonly slots: FairQueue;

  constructor(
    /** The keyless shared client: each check goes through it with the caller's key. */
    private readonly client: PostHogClient,
    private readonly store: SharedKnownKeys | undefined,
    /** Checks running at once. */
    checks: number,
    /** How long a check may wait for its turn (the callers waiting on it give up by then). */
    private readonly waitMs: number,
  ) {
    this.slots = new FairQueue({ total: checks, perUser: 1 });
  }

  /** PostHog accepted this key: on this replica, or on any (or before a restart) when Redis is shared. */
  async known(client: PostHogClient): Promise<boolean> {
    if (client.keyAccepted) return true;
    const id = client.keyIdentity;
    if (this.learned.has(id)) return true;
    if ((await this.store?.has(id)) !== true) return false;
    this.learned.set(id, true);
    return true;
  }

  /** PostHog refused this key in the last minute (checked while the server was busy). */
  refusedRecently(keyId: string): boolean {
    return this.refused.has(keyId);
  }

  /** After a call: a key PostHog accepted is told to the shared store, once per process. */
  remember(client: PostHogClient): void {
    const id = client.keyIdentity;
    if (!this.store || !client.keyAccepted || this.told.has(id)) return;
    this.told.set(id, true);
    void this.store.add(id);
  }

  /**
   * A newcomer's turn in `admission`: as a plain unverified entry while it can start at once;
   * otherwise (waiting, or the newcomers' line full) its key is checked meanwhile, and the check
   * decides when it comes first: accepted, the call moves to the known users' share; refused,
   * it is answered at once; no answer (PostHog down), it keeps waiting, or is refused as before.
   */
  enter(admission: Admission, user: string, key: string, keyId: string): NewcomerTicket {
    const first = admission.enter(user, true);
    if (first.immediate && (first.immediate.kind === 'admitted' || first.immediate.why !== 'unverified-queue-full')) return first;
    let ticket: Ticket | undefined = first.immediate ? undefined : first;
    /** The caller left: undefined while it has not; else whether its ticket had already been decided. */
    let leftDecided: boolean | undefined;
    const outcome = (async (): Promise<Entry> => {
      const verdict = this.check(key, keyId);
      const raced = ticket ? await Promise.race([ticket.outcome.then((o) => ({ o })), verdict.then((v) => ({ v }))]) : { v: await verdict };
      // Its turn came first: it runs as it is (the caller's turn() gives the slot back if it left).
      if ('o' in raced) return raced.o;
      if (leftDecided !== undefined) return leftDecided ? ticket!.outcome : { kind: 'refused', why: 'closed' };
      if (raced.v.kind === 'unknown') return ticket ? ticket.outcome : { kind: 'refused', why: 'unverified-queue-full' };
      // The check came first: the call leaves the newcomers' line, unless its turn just came.
      if (ticket && !ticket.cancel()) return ticket.outcome;
      if (raced.v.kind === 'refused') return { kind: 'key-refused' };
      ticket = admission.enter(user, false);
      return ticket.outcome;
    })();
    return {
      outcome,
      cancel: () => {
        leftDecided = ticket ? !ticket.cancel() : false;
      },
    };
  }

  /** The key checked with PostHog, one check per key at a time, a few at once; the verdict is remembered. */
  private check(key: string, keyId: string): Promise<Verdict> {
    const running = this.checking.get(keyId);
    if (running) return running;
    const check = (async (): Promise<Verdict> => {
      let release: () => void;
      try {
        release = await this.slots.acquire(keyId, AbortSignal.timeout(this.waitMs));
      } catch {
        return { kind: 'unknown', why: 'no turn' };
      }
      try {
        const verdict = await askPostHog(this.client, key);
        if (verdict.kind === 'refused') this.refused.set(keyId, true);
        return verdict;
      } finally {
        release();
      }
    })().finally(() => this.checking.delete(keyId));
    this.checking.set(keyId, check);
    return check;
  }
}
