// Reading a request body within bounds, for the MCP endpoint (http.ts) and OAuth's (oauth.ts).

import type { IncomingMessage } from 'node:http';

export type RawBody = { kind: 'ok'; bytes: Buffer } | { kind: 'too-large' } | { kind: 'too-slow' } | { kind: 'failed' };

/**
 * Reads at most `maxBytes` within `timeoutMs`; past either the rest is discarded (not destroyed,
 * so a 413 or 408 can still be sent). A caller that hangs up mid-body gets `failed`.
 */
export function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<RawBody> {
  if (Number(req.headers['content-length']) > maxBytes) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (body: RawBody) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.resume();
      resolve(body);
    };
    const timer = setTimeout(() => finish({ kind: 'too-slow' }), timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else finish({ kind: 'too-large' });
    };
    req.on('data', onData);
    req.once('error', () => finish({ kind: 'failed' }));
    req.once('end', () => finish({ kind: 'ok', bytes: Buffer.concat(chunks) }));
  });
}
