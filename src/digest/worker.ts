/**
 * The digest worker: parses and digests a recording's bytes off the main thread, so a large
 * recording neither stalls other requests nor grows the server's own heap (runner.ts bounds this
 * thread's heap). Messages are the DigestFeed calls; each chunk is acknowledged for flow control.
 * With the built server it also fetches the block bodies itself (posthog/remote-worker.ts), each
 * request sent only when the main thread allows it, so those bytes never pass through the main thread.
 */
import { parentPort } from 'node:worker_threads';
import type { ToRemote } from '../posthog/remote-fetch.js';
import { RemoteRequests } from '../posthog/remote-worker.js';
import { DigestFeed } from './feed.js';
import type { ToWorker } from './runner.js';

const port = parentPort;
if (port) {
  // One digest after another: the runner hands an idle worker the next recording (runner.ts).
  let feed = new DigestFeed();
  // Block bodies this thread fetches itself (the main thread allowing each request): digested as they arrive.
  const remote = new RemoteRequests((message, transfer) => port.postMessage(message, transfer), (chunk) => feed.data(chunk));
  port.on('message', (message: ToWorker | ToRemote) => {
    if (remote.receive(message)) return;
    switch (message.t) {
      case 'unit':
        feed.startUnit(message.after);
        return;
      case 'data':
        feed.data(Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength));
        port.postMessage({ t: 'ack' });
        return;
      case 'end':
        feed.endUnit();
        return;
      case 'note':
        feed.note(message.text);
        return;
      case 'finish':
        port.postMessage({ t: 'digest', digest: feed.finish() });
        feed = new DigestFeed();
        return;
    }
  });
}
