import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SLOW_TESTS } from './vitest.slow.config.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The install routes (vitest.install.config.ts) and the slow suites (vitest.slow.config.ts) have
    // commands of their own, which CI runs too.
    exclude: ['test/install/**', ...SLOW_TESTS, '**/node_modules/**'],
    // Two files at a time even on 2 cores, where vitest's default (cores − 1) runs one: much of a
    // file's time is spent waiting on sockets, timers and child processes, which the other file
    // uses. Measured on 67 of the files: 144 s with one worker, 79 s with two, 82 s with three.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A process warning (e.g. MaxListenersExceededWarning) fails the file that caused it.
    setupFiles: ['test/support/no-warnings.ts'],
  },
});
