import { sourcesFingerprint, type DigestCache, type DigestCacheKey } from '../../cache/index.js';
import type { Digest } from '../../digest/digest.js';
import { UpstreamError } from '../../errors.js';
import { BudgetExceeded } from '../../posthog/budget.js';
import type { PostHogOperations } from '../../posthog/operations/index.js';
import { RecordingBoundReached, RecordingMeter, planUnits, unitName, unitNames, type FetchUnit } from '../../posthog/snapshots.js';

/**
 * One recording's digest, as the summary, the replay and the triage read it: the sources listing
 * (fetched with the caller's own key), then every unit streamed through the digest worker, or the
 * digest made earlier of the same data, from the cache.
 *
 * The cache is consulted only with metadata the caller's key has just read (the recording's own,
 * or its row in a recordings list made with that key), and its entries are per key and per
 * project number ("@current" resolved first), so a per-user key in HTTP mode is only ever served a
 * digest it made itself; and its fingerprint changes when the recording gains data, so a stale
 * digest is never served.
 *
 * The digest is made from the blocks as PostHog sent them and the key is removed from the
 * digest itself (redactValue), not from the bytes on their way in: the digest decompresses
 * gzipped fields, inside which a scan of the raw stream sees nothing.
 */

export interface RecordingDigest {
  digest: Digest;
  /** Reading stopped short (request or time budget, PostHog's throttle, a stalled upstream): the digest covers what was read. */
  stopped?: BudgetExceeded | undefined;
  /** The recording needs more requests than one reading may make (MAX_REQUESTS_PER_RECORDING): the digest covers the parts read. */
  bounded?: RecordingBoundReached | undefined;
  /** The parts not read (stopped, bounded, or failed), named for a partial result. */
  notRead?: string | undefined;
  /** Units that could not be read (their events are missing; each is a note in the digest). */
  failures: number;
  /** Units the recording has, and how many were read. */
  units: number;
  read: number;
  /** Served from the digest cache (no snapshot data was fetched). */
  cached: boolean;
}

export interface DigestContext {
  posthog: PostHogOperations;
  signal: AbortSignal;
  cache?: DigestCache | undefined;
  /** Counts this recording's requests (fan-out bound); a fresh one when absent. */
  meter?: RecordingMeter | undefined;
  /**
   * Stop reading at this moment (performance.now(), ms), once at least `atLeastBytes` have been read: what was
   * read is digested, and the result says where reading stopped and why (`message`), as for a
   * spent budget. The replay reads this way so that its player opens at once on a long recording.
   */
  readUntil?: { at: number; atLeastBytes: number; message: string } | undefined;
}

/**
 * The digest engine (DOM mirror, digester, worker runner, with worker_threads) is loaded by the
 * first digest, not at start-up: a client waits for start-up at every launch, and most sessions
 * never ask for one.
 */
let jobsModule: Promise<typeof import('./jobs.js')> | undefined;
const loadJobs = () => (jobsModule ??= import('./jobs.js'));

/** After this long without new data (and not ongoing), a session is over: posthog-js starts a new one after 30 minutes idle. */
const SETTLED_AFTER_MS = 30 * 60_000;

/**
 * For a recording that is over (PostHog says it is not ongoing, and its last data is older than
 * a session's idle timeout), what its metadata says is enough to know it has not changed: its
 * start, end and duration. Undefined for a recording that may still gain data.
 */
export function settledFingerprint(meta: Record<string, unknown> | null | undefined, now = Date.now()): string | undefined {
  if (!meta || meta.ongoing === true) return undefined;
  const end = typeof meta.end_time === 'string' ? Date.parse(meta.end_time) : Number.NaN;
  if (!Number.isFinite(end) || now - end < SETTLED_AFTER_MS) return undefined;
  return `m:${String(meta.start_time)}|${meta.end_time as string}|${String(meta.recording_duration)}`;
}

/**
 * The digest of a recording. `meta` is what the caller's key has just read of it (its metadata,
 * or its row in the recordings list): for a recording that is over, a cached digest is served
 * with no further request; otherwise the sources listing is read (with the caller's key) and its
 * fingerprint decides whether the cached digest still holds (an ongoing recording gains blocks).
 */
export async function digestRecording(context: DigestContext, projectId: string, id: string, meta: Record<string, unknown> | null | undefined): Promise<RecordingDigest> {
  const result = await readDigest(context, projectId, id, meta);
  // Masked after the cache: the words are the person's as PostHog has them now. Loaded with the
  // first digest, as the digest's own code is.
  const { maskPersonWords } = await import('../../digest/rules/messages.js');
  return { ...result, digest: maskPersonWords(result.digest, personWords(meta)) };
}

/** The person's name and email as the recording's metadata has them: masked in page messages (rules/messages.ts). */
function personWords(meta: Record<string, unknown> | null | undefined): string[] {
  const person = meta && typeof meta.person === 'object' && meta.person !== null ? (meta.person as Record<string, unknown>) : {};
  const properties = typeof person.properties === 'object' && person.properties !== null ? (person.properties as Record<string, unknown>) : {};
  const words = [person.name, properties.email, properties.name, properties.first_name, properties.last_name, properties.$email, meta?.distinct_id];
  return words.filter((w): w is string => typeof w === 'string' && (w !== meta?.distinct_id || w.includes('@')));
}

async function readDigest(context: DigestContext, projectId: string, id: string, meta: Record<string, unknown> | null | undefined): Promise<RecordingDigest> {
  const key = await cacheKey(context, projectId, id);
  const cache = key ? context.cache : undefined;
  const settled = settledFingerprint(meta);
  if (settled && key) {
    const hit = await cache?.get<Digest>(key, settled);
    if (hit) return { digest: hit, failures: 0, units: 0, read: 0, cached: true };
  }
  const meter = context.meter ?? new RecordingMeter();
  const sources = await context.posthog.snapshots.sources(projectId, id, { signal: context.signal, meter });
  const units = planUnits(sources);
  const fingerprint = settled ?? `s:${sourcesFingerprint(sources)}`;
  if (!settled && key) {
    const hit = await cache?.get<Digest>(key, fingerprint);
    if (hit) return { digest: hit, failures: 0, units: units.length, read: 0, cached: true };
  }
  const result = await digestUnits(context, projectId, id, units, meter);
  // The worker read the blocks as PostHog sent them (gzipped fields included, which no scan of
  // the raw bytes sees into): the key is removed from what it made, before it is kept or shown.
  result.digest = context.posthog.redactValue(result.digest);
  // Only a whole, cleanly read digest is worth keeping: a partial one would be served as whole.
  if (key && !result.stopped && !result.bounded && result.failures === 0) await cache?.set(key, fingerprint, result.digest);
  return result;
}

/**
 * Where this caller's digest of this recording is cached: the upstream, the project's number, the
 * recording, and who asks (a hash of host and key). Undefined (nothing cached, nothing served)
 * without a cache, or when "@current" could not be resolved to a number.
 */
async function cacheKey(context: DigestContext, projectId: string, id: string): Promise<DigestCacheKey | undefined> {
  const { cache, posthog } = context;
  if (!cache || cache.kind === 'off' || !posthog.hasApiKey) return undefined;
  const project = /^\d+$/.test(projectId) ? projectId : await resolveProject(posthog, projectId, context.signal);
  return project === undefined ? undefined : { upstream: posthog.baseUrl, projectId: project, recordingId: id, keyIdentity: posthog.keyIdentity };
}

/** Per tool call (its signal), what "@current" stood for: one request, however many recordings the call digests. */
const resolvedProjects = new WeakMap<AbortSignal, Promise<string | undefined>>();

function resolveProject(posthog: PostHogOperations, projectId: string, signal: AbortSignal): Promise<string | undefined> {
  let resolved = resolvedProjects.get(signal);
  if (!resolved) {
    resolved = posthog.projects.numericId(projectId, { signal }).then((number) => number ?? undefined);
    resolvedProjects.set(signal, resolved);
  }
  return resolved;
}

/**
 * Streams every unit through the digest. A unit that fails (a block range PostHog cannot serve,
 * a body cut off) becomes a note and the rest is still read; only when nothing at all could be
 * read does the error surface. When the call's budget is spent (requests, time, throttle), what
 * was read is digested and the result says where it stopped. Cancellation, or a failure of the
 * digest itself, stops everything.
 */
async function digestUnits({ posthog, signal, readUntil }: DigestContext, projectId: string, id: string, units: FetchUnit[], meter: RecordingMeter): Promise<RecordingDigest> {
  const { startDigest } = await loadJobs();
  const runner = await startDigest(signal, posthog.keyIdentity);
  // Past `readUntil`, once enough was read, reading stops where it is (a BudgetExceeded, so the
  // partial result is made as for any other stop).
  let fed = 0;
  const overtime = (more = 0) => readUntil !== undefined && fed + more > 0 && fed + more >= readUntil.atLeastBytes && performance.now() >= readUntil.at;
  const cut = () => new BudgetExceeded('time', readUntil!.message);
  try {
    let failures = 0;
    let firstError: unknown;
    let read = 0;
    const failed: FetchUnit[] = [];
    for (const [index, unit] of units.entries()) {
      runner.startUnit(unit.kind === 'realtime' ? unit.after : undefined);
      try {
        if (overtime()) throw cut();
        // As PostHog sent it: the digest made of it is scrubbed of the key (digestRecording).
        const response = await posthog.snapshots.blocks(projectId, id, unit, { signal, meter, via: runner.via });
        // Checked on a clock too, not only as chunks come: a body may pause, and one the worker
        // reads (runner.via) brings no chunk here at all, only the count of its bytes.
        let cutThere = false;
        const watch = readUntil && setInterval(() => {
          if (!overtime(response.bytesConsumedThere())) return;
          cutThere = true;
          response.cancel();
        }, READ_UNTIL_CHECK_MS);
        try {
          for await (const chunk of response.body) {
            await runner.data(chunk);
            fed += chunk.length;
            if (overtime()) {
              response.cancel();
              throw cut();
            }
          }
        } finally {
          clearInterval(watch);
        }
        if (cutThere) throw cut();
        // Fetched by the digest's worker (runner.via), the body never passed here: its size did.
        fed += response.bytesConsumedThere();
        await runner.endUnit();
        read++;
      } catch (err) {
        if (signal.aborted || runner.failure) throw runner.failure ?? err;
        if (err instanceof BudgetExceeded) {
          await runner.endUnit();
          // What was not read: the parts that failed, this one and every later one.
          const missing = [...failed, ...units.slice(index)];
          const notRead = `${missing.length} of ${units.length} parts (${unitNames(missing)})`;
          runner.note(`Stopped after ${read} of ${units.length} parts of the recording: ${err.message} Not read: ${notRead}.`);
          const digest = await runner.finish();
          const common = { digest, failures, units: units.length, read, cached: false, notRead };
          return err instanceof RecordingBoundReached ? { ...common, bounded: err } : { ...common, stopped: err };
        }
        failures++;
        failed.push(unit);
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

/** How often a reading bounded by `readUntil` checks its bound between chunks. */
const READ_UNTIL_CHECK_MS = 50;

/** What a partial result says (summary, snapshots, triage): why it stopped, what was not read, and when a call may continue. */
export function partialOf(err: BudgetExceeded, notRead?: string): { reason: string; retry_after_seconds?: number; message: string; not_read?: string } {
  return {
    reason: err.reason,
    ...(err.retryAfterSeconds !== undefined ? { retry_after_seconds: err.retryAfterSeconds } : {}),
    message: err.message,
    ...(notRead !== undefined ? { not_read: notRead } : {}),
  };
}
