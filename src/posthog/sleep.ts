import { UpstreamUnavailableError } from '../errors.js';

/** Waits `ms`, or rejects as a cancelled request as soon as the MCP client cancels the call. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const cancelled = () => new UpstreamUnavailableError('cancelled', 'The request was cancelled by the client.');
    if (signal?.aborted) return reject(cancelled());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
