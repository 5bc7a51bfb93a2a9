import type { Readable } from 'node:stream';
import { UpstreamUnavailableError } from '../errors.js';
import type { Failure } from './failure.js';
import type { Redactor } from './redact.js';

/** A streamed response body: the line reader for snapshots consumes it chunk by chunk. */
export interface StreamedResponse {
  body: AsyncIterable<Buffer>;
  /** Stop reading early (the page is full) and release the connection; the body then ends where it is. */
  cancel(): void;
  /** With `via`: the bytes of the body the other side consumed so far (within about a MiB; all of them once it ended; 0 without `via`). */
  bytesConsumedThere(): number;
}

export interface BodyWatch {
  /** Hand the bytes over as they came (the reader scrubs what it shows), else the key is removed from them. */
  unredacted: boolean;
  redactor: Redactor;
  /** What a failure that broke the body off means (failure.ts). */
  classify(err: unknown): Failure;
  /** The stall breaker's side (stall.ts): the body came, or stalled. */
  answered(): void;
  stalled(failure: Failure): void;
}

/**
 * A successful answer's body as its reader gets it: redacted unless asked not to, a break in it
 * reported as what it means, and the stall breaker told how it went. A body that stalls after its
 * headers counts as a timeout; one read to its end (or until the reader had enough), as an answer.
 */
export function streamedBody(body: Readable, watch: BodyWatch): StreamedResponse {
  let got = false;
  // Cancelled by its reader: the body ends where it is, its reader knowing why (not a failure, nor a stall).
  let cancelled = false;
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of watch.unredacted ? (body as AsyncIterable<Buffer>) : watch.redactor.stream(body as AsyncIterable<Buffer>)) {
        got = true;
        yield chunk;
      }
      watch.answered();
    } catch (err) {
      if (cancelled) return;
      got = false;
      if (err instanceof UpstreamUnavailableError) throw err;
      const failure = watch.classify(err);
      watch.stalled(failure);
      throw failure.error;
    }
  }
  // Cancelling a body nobody is reading yet must not surface as an unhandled 'error' event.
  body.on('error', () => {});
  return {
    body: chunks(),
    cancel: () => {
      cancelled = true;
      if (got) watch.answered();
      body.destroy();
    },
    bytesConsumedThere: () => (body as { sunkBytes?: number }).sunkBytes ?? 0,
  };
}
