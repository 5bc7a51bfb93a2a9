/**
 * The worker's side of runner.ts: off the main thread, so that a large recording neither stalls
 * other requests nor grows the server's own heap (runner.ts bounds this thread's heap), it runs
 * one job after another (a digest, a reproduction, a long line's events), each a Feed that the
 * worker's entry names by kind. Messages are the Feed calls; each chunk is acknowledged for flow
 * control. With the built server the worker also fetches the block bodies itself
 * (posthog/remote-worker.ts), each request sent only when the main thread allows it, so those
 * bytes never pass through the main thread.
 */
import { parentPort } from 'node:worker_threads';
import { UserInputError } from '../errors.js';
import type { ToRemote } from '../posthog/remote-fetch.js';
import { RemoteRequests } from '../posthog/remote-worker.js';
import type { Feed, FromWorker, ToWorker } from './runner.js';

/** The feeds a worker entry offers, by kind, each made fresh for a job. */
export type Feeds = Record<string, (options: unknown) => Feed<unknown>>;

/** Serves jobs of these kinds to the thread that started this worker. */
export function serveJobs(feeds: Feeds): void {
  const port = parentPort;
  if (!port) return;
  const send = (message: FromWorker) => port.postMessage(message);
  let feed: Feed<unknown> | undefined;
  // Once a job's feed threw, the rest of the job is not run: the runner stops it.
  let failed = false;
  const run = (step: (feed: Feed<unknown>) => void | Promise<void>): void => {
    if (!feed || failed) return;
    try {
      void step(feed);
    } catch (err) {
      failed = true;
      send({ t: 'failed', error: { message: err instanceof Error ? err.message : String(err), user: err instanceof UserInputError } });
    }
  };
  // Block bodies this thread fetches itself (the main thread allowing each request): fed as they arrive.
  const remote = new RemoteRequests((message, transfer) => port.postMessage(message, transfer), (chunk) => run((f) => f.data(chunk)));
  port.on('message', (message: ToWorker | ToRemote) => {
    if (remote.receive(message)) return;
    switch (message.t) {
      case 'job': {
        const make = feeds[message.kind];
        failed = false;
        feed = undefined;
        if (make) feed = make(message.options);
        else send({ t: 'failed', error: { message: `no job of kind ${message.kind}`, user: false } });
        return;
      }
      case 'unit':
        run((f) => f.startUnit(message.after));
        return;
      case 'data':
        run((f) => f.data(Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength)));
        send({ t: 'ack' });
        return;
      case 'end':
        run((f) => f.endUnit());
        return;
      case 'note':
        run((f) => f.note(message.text));
        return;
      case 'finish':
        run((f) => send({ t: 'result', result: f.finish(message.input) }));
        feed = undefined;
        return;
    }
  });
}
