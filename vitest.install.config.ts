import { defineConfig } from 'vitest/config';

// The install routes (MCP Bundle, npm tarball): slow (they build, pack and install), so a suite of
// their own, run by `npm run test:install` and by CI; `npm test` stays quick.
export default defineConfig({
  test: {
    include: ['test/install/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 400_000,
    fileParallelism: false,
  },
});
