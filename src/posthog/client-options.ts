import type { ReplayPolicy } from '../replay-rates.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './body.js';
import type { RemoteDispatch } from './remote-fetch.js';
import type { SharedLimitStore } from './replay-limiter.js';
import type { UpstreamProxy } from './shared-pool.js';
import type { Expectation } from './status.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  method: Method;
  /** Path from apiPath() plus an encoded query string. */
  path: string;
  body?: unknown;
  /** The MCP request's signal: cancelling the tool call aborts the upstream request. */
  signal?: AbortSignal | undefined;
  /** What counts as success (default: a JSON object, or for DELETE a 2xx that is no page). */
  expect?: Expectation | undefined;
  /**
   * The call may wait for PostHog's replay throttle up to its budget's throttle allowance
   * (reporting progress), instead of the 10 s retry budget (summary, snapshots, replay, triage).
   */
  patient?: boolean | undefined;
  /**
   * stream() only: hand the body over as PostHog sent it, the key not removed. For a reader
   * whose every output is scrubbed with redact()/redactValue() instead, after decoding (the
   * digest, the snapshots tool, the player's feed: that also sees inside gzipped fields, which no
   * scan of the raw bytes can), and that never shows or logs the bytes as they are.
   */
  unredacted?: boolean | undefined;
  /** Counts each attempt (retries too) against a bound of the caller's, e.g. one recording's (RecordingMeter, snapshots.ts); may throw to stop it. */
  meter?: { spend(where: string): void } | undefined;
  /**
   * stream() only, with `unredacted`: the request is sent, and a successful body read, by another
   * thread (remote-fetch.ts: the digest worker, which digests the bytes as they arrive); this
   * client still decides, paces, meters, times out and reads the status and any error answer.
   * The body it returns then ends empty, once the other thread has read it all.
   */
  via?: RemoteDispatch | undefined;
  /** Spends a request the call held back for this step (CallBudget.holdBack). */
  reserved?: boolean | undefined;
}

export interface ClientOptions {
  baseUrl: string;
  /** An outbound HTTP(S) proxy for every request (proxy-env.ts): its URL, credentials included, and the variable that named it. */
  proxy?: UpstreamProxy | undefined;
  apiKey?: string | undefined;
  timeoutMs: number;
  /** Upper bound on the sum of retry waits for one call (docs/design.md, "Retries and partial answers": under 10 s). */
  maxRetryWaitMs?: number;
  maxRetries?: number;
  /** Base of the exponential backoff when upstream names no wait. */
  backoffMs?: number;
  connections?: number;
  /** The most one JSON answer may be (POSTHOG_MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
  /** Upstream requests in flight per API key (POSTHOG_MAX_CONCURRENCY_PER_KEY). */
  maxConcurrencyPerKey?: number;
  /** PostHog's replay throttle, per key (POSTHOG_REPLAY_RATE_LIMITS): 'auto' (learned from 429s, the default), rates to pace by up front, or [] (off). */
  replayRates?: ReplayPolicy;
  /** Where replicas share what they learned of the throttle (the Redis digest cache). */
  sharedLimits?: SharedLimitStore | undefined;
}

/** The client's own settings, every default filled in (what withApiKey() copies). */
export type ClientSettings = Required<Omit<ClientOptions, 'apiKey' | 'baseUrl' | 'sharedLimits' | 'proxy'>>;

export function withDefaults(options: ClientOptions): ClientSettings {
  return {
    timeoutMs: options.timeoutMs,
    maxRetryWaitMs: options.maxRetryWaitMs ?? 10_000,
    maxRetries: options.maxRetries ?? 3,
    backoffMs: options.backoffMs ?? 300,
    connections: options.connections ?? 64,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    maxConcurrencyPerKey: options.maxConcurrencyPerKey ?? 8,
    // As the CLI's default: no pacing until PostHog answers 429, then its budget learned.
    replayRates: options.replayRates ?? 'auto',
  };
}
