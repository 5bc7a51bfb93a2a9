/**
 * The recordings tools' heavy work, each a job of the workers digest/runner.ts keeps (users
 * taking turns for them): a recording's digest, a reproduction, and the events of a line too
 * long to parse in the main thread. Each runs in a worker started from worker.ts, built beside
 * this module, or in this thread where that is not built (tests from the TypeScript sources).
 */

import type { Digest } from '../../digest/digest.js';
import { startJob, type JobRunner } from '../../digest/runner.js';
import type { LargeLine } from '../../posthog/snapshots.js';
import type { ReproductionRead } from '../../reproduce/feed.js';
import type { FeedEntry, LineEvents, LineOptions, PagePrepared } from './event-output.js';

const WORKER = new URL('./worker.js', import.meta.url);

/** In this thread, the longest stretch of a reproduction's work before other calls get a turn. */
const SLICE_MS = 10;

/** A digest of one recording's bytes (DigestFeed). */
export function startDigest(signal: AbortSignal, user: string): Promise<JobRunner<Digest>> {
  return startJob<Digest>(
    {
      worker: WORKER,
      kind: 'digest',
      local: async () => new (await import('../../digest/feed.js')).DigestFeed(),
      outOfMemory: 'This recording is too large to digest within the memory the digest may use. Read it in pages with session-recording-snapshots instead.',
    },
    signal,
    user,
  );
}

/** A Playwright reproduction of one recording's bytes (ReproductionFeed); finish() takes the session's exceptions. */
export function startReproduction(signal: AbortSignal, user: string): Promise<JobRunner<ReproductionRead>> {
  return startJob<ReproductionRead>(
    {
      worker: WORKER,
      kind: 'reproduce',
      local: async () => new (await import('../../reproduce/feed.js')).ReproductionFeed(SLICE_MS),
      outOfMemory: 'This recording is too large to make a test of within the memory generation may use. session-recording-summary still describes the session.',
    },
    signal,
    user,
  );
}

/**
 * The events of one long line, prepared as `options` says (LineEventsFeed); null for a line that
 * is no snapshot data, or one the worker could not parse within its memory: it counts as an
 * unreadable line, as a line past MAX_LINE_BYTES does.
 */
export async function lineEvents<P extends PagePrepared | FeedEntry>(line: LargeLine, options: LineOptions, signal: AbortSignal, user: string): Promise<LineEvents<P>> {
  const job = await startJob<LineEvents>(
    { worker: WORKER, kind: 'line', options, local: async () => new (await import('./event-output.js')).LineEventsFeed(options), outOfMemory: 'line too large' },
    signal,
    user,
  );
  try {
    for (const chunk of line.chunks) await job.data(chunk);
    return (await job.finish()) as LineEvents<P>;
  } catch (err) {
    if (signal.aborted) throw err;
    return null;
  } finally {
    job.close();
  }
}
