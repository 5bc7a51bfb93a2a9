import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/install/**', '**/node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A process warning (e.g. MaxListenersExceededWarning) fails the file that caused it.
    setupFiles: ['test/support/no-warnings.ts'],
  },
});
