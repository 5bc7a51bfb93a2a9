// Preloaded into a server under test (node --import): measures its main thread's event loop and
// says on stderr, every PERIOD_MS, the longest the loop was held in that time (`loop-max-ms N`):
// the larger of what perf_hooks' delay monitor saw and how late a 10 ms timer came.
// Worker threads inherit --import: they are not measured (their work holds no one's call).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const PERIOD_MS = 200;
const TICK_MS = 10;

if (isMainThread) {
  const delay = monitorEventLoopDelay({ resolution: TICK_MS });
  delay.enable();
  let last = performance.now();
  let late = 0;
  setInterval(() => {
    const now = performance.now();
    late = Math.max(late, now - last - TICK_MS);
    last = now;
  }, TICK_MS).unref();
  setInterval(() => {
    process.stderr.write(`loop-max-ms ${Math.round(Math.max(delay.max / 1e6, late))}\n`);
    delay.reset();
    late = 0;
  }, PERIOD_MS).unref();
}
