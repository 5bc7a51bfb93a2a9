import { UpstreamUnavailableError } from '../errors.js';

/** The default cap on one JSON answer (POSTHOG_MAX_RESPONSE_BYTES): far above any real PostHog page. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export interface ReadableBody extends AsyncIterable<Buffer> {
  destroy(error?: Error): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** The whole body as UTF-8 text, read without an async iterator (undici's bodies have it). */
  text?: () => Promise<string>;
}

/** Drops a body unread. undici reports a destroyed body as an 'error': nobody is listening for it, so it must not become an uncaught one. */
export function discard(body: ReadableBody): void {
  body.on('error', () => {});
  body.destroy();
}

/**
 * Reads a whole body, but never more than `cap` bytes: past it (or when Content-Length already
 * says so) the connection is dropped and the answer refused, so an endless or enormous answer
 * costs at most `cap` bytes of memory, whatever upstream sends.
 */
export async function readBounded(body: ReadableBody, cap: number, contentLength: string | string[] | undefined, where: string): Promise<string> {
  const declared = Number(Array.isArray(contentLength) ? contentLength[0] : contentLength);
  if (Number.isFinite(declared) && declared > cap) {
    discard(body);
    throw tooLarge(where, cap, `declares ${formatBytes(declared)}, more`);
  }
  // One Content-Length within the cap bounds the body already: the HTTP parser delivers that many
  // bytes and no more (a longer answer breaks the connection; chunked with a length is refused).
  // Then the body is read in one piece, without an async iterator's promise per chunk.
  if (body.text && typeof contentLength === 'string' && /^\d{1,15}$/.test(contentLength)) return body.text();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > cap) {
      discard(body);
      throw tooLarge(where, cap, 'is longer');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/** At most `cap` bytes of a body (an error page, shown in part); the rest is not read. */
export async function readPrefix(body: ReadableBody, cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= cap) break;
    }
  } finally {
    if (size >= cap) discard(body);
  }
  return Buffer.concat(chunks).subarray(0, cap).toString('utf8');
}

function tooLarge(where: string, cap: number, how: string): UpstreamUnavailableError {
  return new UpstreamUnavailableError(
    'malformed',
    `PostHog's answer to ${where} ${how} than this server reads (${formatBytes(cap)}, POSTHOG_MAX_RESPONSE_BYTES); it was not read. Ask for less (a smaller limit or narrower filters), or check POSTHOG_HOST points at the PostHog API.`,
  );
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}
