// Runs tests written by session-recording-reproduce (test/reproduce-e2e.test.ts) in Debian's
// Chromium: never a downloaded browser. REPRO_TEST_DIR is the folder holding the generated spec,
// REPRO_BASE_URL the site it runs against (the generated file never names one itself).
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: process.env.REPRO_TEST_DIR ?? '.',
  testMatch: '**/*.spec.ts',
  // Traces and error pages go beside the spec (a scratch folder the test removes), not into the repo.
  outputDir: `${process.env.REPRO_TEST_DIR ?? '.'}/results`,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  use: {
    baseURL: process.env.REPRO_BASE_URL,
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // As root Chromium needs --no-sandbox; the rest keep it off the network.
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
});
