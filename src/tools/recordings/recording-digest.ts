import { sourcesFingerprint, type DigestCache } from '../../cache/index.js';
import type { Digest } from '../../digest/digest.js';
import { UpstreamError } from '../../errors.js';
import { BudgetExceeded } from '../../posthog/budget.js';
import type { PostHogClient } from '../../posthog/client.js';
import { apiPath, encodePlainQuery } from '../../posthog/query.js';
import { parseSources, planUnits, unitQuery, type FetchUnit } from '../../posthog/snapshots.js';

/**
 * One recording's digest, as the summary, the replay and the triage read it: the sources listing
 * (fetched with the caller's own key), then every unit streamed through the digest worker, or the
 * digest made earlier for the same listing, from the cache.
 *
 * The cache is consulted only with a listing the caller's key has just read, so a per-user key in
 * HTTP mode is never served a digest of a recording it could not read itself; and the listing's
 * fingerprint changes when an ongoing recording gains blocks, so a stale digest is never served.
 */

export interface RecordingDigest {
  digest: Digest;
  /** Reading stopped short (request or time budget, or PostHog's throttle): the digest covers what was read. */
  stopped?: BudgetExceeded | undefined;
  /** Units that could not be read (their events are missing; each is a note in the digest). */
  failures: number;
  /** Units the recording has, and how many were read. */
  units: number;
  read: number;
  /** Served from the digest cache (no snapshot data was fetched). */
  cached: boolean;
}

export interface DigestContext {
  client: PostHogClient;
  signal: AbortSignal;
  cache?: DigestCache | undefined;
}

export function snapshotsPath(projectId: string, id: string): string {
  return apiPath('projects', projectId, 'session_recordings', id, 'snapshots');
}

/** The sources listing (a replay-throttled request: patient, it may wait for the throttle). */
export function fetchListing(client: PostHogClient, projectId: string, id: string, signal: AbortSignal): Promise<unknown> {
  return client.json({ method: 'GET', path: snapshotsPath(projectId, id) + encodePlainQuery({ blob_v2: 'true' }), signal, patient: true });
}

/**
 * The digest engine (DOM mirror, digester, worker runner, with worker_threads) is loaded by the
 * first digest, not at start-up: a client waits for start-up at every launch, and most sessions
 * never ask for one.
 */
const loadRunner = () => import('../../digest/runner.js');

export async function digestFromListing(context: DigestContext, projectId: string, id: string, listing: unknown): Promise<RecordingDigest> {
  const sources = parseSources(listing);
  const units = planUnits(sources);
  const key = { upstream: context.client.baseUrl, projectId, recordingId: id };
  const fingerprint = sourcesFingerprint(sources);
  const cached = await context.cache?.get<Digest>(key, fingerprint);
  if (cached) return { digest: cached, failures: 0, units: units.length, read: units.length, cached: true };

  const result = await digestUnits(context, snapshotsPath(projectId, id), units);
  // Only a whole, cleanly read digest is worth keeping: a partial one would be served as whole.
  if (!result.stopped && result.failures === 0) await context.cache?.set(key, fingerprint, result.digest);
  return result;
}

/** The listing, then the digest: for callers that need nothing else from the recording (triage). */
export async function digestRecording(context: DigestContext, projectId: string, id: string): Promise<RecordingDigest> {
  const listing = await fetchListing(context.client, projectId, id, context.signal);
  return digestFromListing(context, projectId, id, listing);
}

/**
 * Streams every unit through the digest. A unit that fails (a block range PostHog cannot serve,
 * a body cut off) becomes a note and the rest is still read; only when nothing at all could be
 * read does the error surface. When the call's budget is spent (requests, time, throttle), what
 * was read is digested and the result says where it stopped. Cancellation, or a failure of the
 * digest itself, stops everything.
 */
async function digestUnits({ client, signal }: DigestContext, path: string, units: FetchUnit[]): Promise<RecordingDigest> {
  const { startDigest } = await loadRunner();
  const runner = await startDigest(signal);
  try {
    let failures = 0;
    let firstError: unknown;
    let read = 0;
    for (const unit of units) {
      runner.startUnit(unit.kind === 'realtime' ? unit.after : undefined);
      try {
        const response = await client.stream({ method: 'GET', path: path + encodePlainQuery(unitQuery(unit)), signal, patient: true });
        for await (const chunk of response.body) await runner.data(chunk);
        runner.endUnit();
        read++;
      } catch (err) {
        if (signal.aborted || runner.failure) throw runner.failure ?? err;
        if (err instanceof BudgetExceeded) {
          runner.endUnit();
          runner.note(`Stopped after ${read} of ${units.length} parts of the recording: ${err.message}`);
          return { digest: await runner.finish(), stopped: err, failures, units: units.length, read, cached: false };
        }
        failures++;
        firstError ??= err;
        runner.note(`${unitName(unit)} could not be read${err instanceof UpstreamError ? ` (HTTP ${err.status})` : ''}: ${err instanceof Error ? err.message.slice(0, 160) : String(err)}. Events from it are missing or partial.`);
      }
    }
    if (units.length > 0 && failures === units.length) throw firstError;
    return { digest: await runner.finish(), failures, units: units.length, read, cached: false };
  } finally {
    runner.close();
  }
}

function unitName(unit: FetchUnit): string {
  if (unit.kind === 'blob_v2') return unit.start === unit.end ? `Block ${unit.start}` : `Blocks ${unit.start}-${unit.end}`;
  if (unit.kind === 'realtime') return 'The realtime (not yet stored) data';
  return `Source ${unit.kind} ${unit.key.slice(0, 60)}`;
}

/** What a partial result says: why it stopped, and when a call may continue. */
export function partialOf(err: BudgetExceeded): { reason: string; retry_after_seconds?: number; message: string } {
  return { reason: err.reason, ...(err.retryAfterSeconds !== undefined ? { retry_after_seconds: err.retryAfterSeconds } : {}), message: err.message };
}
