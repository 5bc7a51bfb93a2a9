import type { Config } from '../config.js';
import type { CallLimits } from '../call-limits.js';
import type { ClientOptions } from './client-options.js';
import type { SharedLimitStore } from './replay-limiter.js';

/**
 * The client options and call limits a Config means: one mapping, used by the CLI and by the
 * tests, so the tests run the client as users get it.
 */
export function clientOptionsFrom(config: Config, target: { baseUrl: string; apiKey: string | undefined; sharedLimits?: SharedLimitStore | undefined }): ClientOptions {
  const { upstream } = config;
  return {
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    timeoutMs: config.timeoutMs,
    maxResponseBytes: upstream.maxResponseBytes,
    maxConcurrencyPerKey: upstream.maxConcurrencyPerKey,
    replayRates: upstream.replayRates,
    // Named for POSTHOG_HOST only (never for the sandbox's own address).
    ...(upstream.proxy && target.baseUrl === config.baseUrl ? { proxy: upstream.proxy } : {}),
    ...(target.sharedLimits ? { sharedLimits: target.sharedLimits } : {}),
  };
}

export function callLimitsFrom(config: Config): CallLimits {
  const { upstream } = config;
  return { maxRequests: upstream.callMaxRequests, wallClockMs: upstream.callTimeoutMs, throttleWaitMs: upstream.throttleWaitMs, triageReplayBudget: upstream.triageReplayBudget };
}
