import { defineConfig } from 'vitest/config';

/**
 * The suites that need minutes or a real program of someone else's: headless Chromium (the
 * player, the OAuth consent page, the Playwright tests session-recording-reproduce writes, their
 * locators on rebuilt pages) and real MCP clients from npm. `npm run test:slow` runs them, and CI
 * does; `npm test` leaves them out (vitest.config.ts) so that it stays a run people make often.
 */
export const SLOW_TESTS = [
  'test/player-browser.test.ts',
  'test/watch-browser.test.ts',
  'test/attack4-watch-hostile.test.ts',
  'test/oauth-browser.test.ts',
  'test/reproduce-e2e.test.ts',
  'test/reproduce-e2e-fields.test.ts',
  'test/reproduce-rebuilt.test.ts',
  'test/reproduce-shim.test.ts',
  'test/reproduce-answers.test.ts',
  'test/clients/**/*.test.ts',
  // Times the server's main loop and another user's calls: alone, not beside another file's work.
  'test/event-loop-blocks.test.ts',
];

export default defineConfig({
  test: {
    include: SLOW_TESTS,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // One Chromium (or npm client) at a time: each is heavier than anything else the suite starts.
    fileParallelism: false,
    // A process warning (e.g. MaxListenersExceededWarning) fails the file that caused it.
    setupFiles: ['test/support/no-warnings.ts'],
  },
});
