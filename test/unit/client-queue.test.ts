import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostHogClient } from '../../src/posthog/client.js';
import { UpstreamUnavailableError } from '../../src/errors.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';

/** In HTTP mode every user shares one pool: a call queued behind slow ones must still time out. */
describe('the timeout covers waiting for a free connection', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  it('times out calls that wait in the pool past POSTHOG_TIMEOUT_MS, instead of letting them run on', async () => {
    // 2 connections, each upstream answer takes 400 ms, the timeout is 500 ms: of 8 calls at once,
    // the ones queued behind two others cannot be answered in time.
    const client = new PostHogClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey, timeoutMs: 500, connections: 2, maxRetries: 0 });
    sandbox.injectFault({ path: '/api/projects', delayMs: 400, times: Infinity });
    try {
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => client.json({ method: 'GET', path: '/api/projects/' })));
      const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as Error);
      expect(failures.length).toBeGreaterThanOrEqual(4);
      for (const failure of failures) {
        expect(failure).toBeInstanceOf(UpstreamUnavailableError);
        expect(failure.message).toMatch(/did not answer .* within 500 ms/);
      }
    } finally {
      sandbox.clearFaults();
      await client.close();
    }
  });
});
