/**
 * The entry of the recordings tools' worker (jobs.ts, digest/runner.ts): the jobs it runs, by kind.
 * Built into one file beside jobs.ts (scripts/build-server.mjs).
 */
import { DigestFeed } from '../../digest/feed.js';
import { serveJobs } from '../../digest/worker-host.js';
import { ReproductionFeed } from '../../reproduce/feed.js';
import { LineEventsFeed, type LineOptions } from './event-output.js';

serveJobs({
  digest: () => new DigestFeed(),
  reproduce: () => new ReproductionFeed(),
  line: (options) => new LineEventsFeed(options as LineOptions),
});
