/**
 * The digest worker: parses and digests a recording's bytes off the main thread, so a large
 * recording neither stalls other requests nor grows the server's own heap (runner.ts bounds this
 * thread's heap). Messages are the DigestFeed calls; each chunk is acknowledged for flow control.
 */
import { parentPort } from 'node:worker_threads';
import { DigestFeed } from './feed.js';
import type { ToWorker } from './runner.js';

const port = parentPort;
if (port) {
  // One digest after another: the runner hands an idle worker the next recording (runner.ts).
  let feed = new DigestFeed();
  port.on('message', (message: ToWorker) => {
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
