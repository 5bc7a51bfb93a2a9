// Every test file fails on a process warning it caused (a listener leak, a deprecation):
// `npm test` prints none, and a warning that returns shows up as a failing file, not as noise.
import { afterAll } from 'vitest';

const warnings: Error[] = [];
const onWarning = (warning: Error) => void warnings.push(warning);
process.on('warning', onWarning);

afterAll(async () => {
  // Node emits a warning on the next tick; let one that a last test caused arrive.
  await new Promise((resolve) => setImmediate(resolve));
  process.off('warning', onWarning);
  if (warnings.length > 0) {
    const listed = warnings.map((w) => `${w.name}: ${w.message}`).join('\n');
    warnings.length = 0;
    throw new Error(`process warnings during this file:\n${listed}`);
  }
});
