import type { IncomingMessage, ServerResponse } from 'node:http';
import { UserInputError } from '../errors.js';
import { readPlayerHtml } from './player-html.js';
import type { SignInEnded, WatchOpener } from './links.js';

/** Where watch links live: /watch/<token>/, the page and what it fetches (data, events) beneath. */
export const WATCH_PREFIX = '/watch/';

/** Event pages read at once across all links (each one holds a PostHog read and megabytes of events). */
const MAX_READS = 4;
/** Of those, one user's links at once: over HTTP, a user reading as fast as they can leaves the others room. */
const MAX_READS_PER_USER = 2;
const PAGE_BYTES = { min: 10_000, max: 16_000_000, first: 300_000 };
const MAX_CURSOR_CHARS = 4_000;

/**
 * Sent with everything under /watch/: the page is not cached, not sent as a Referer to a link it
 * opens, not framed, not sniffed as another type.
 */
const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
} as const;

/**
 * Answers /watch/<token>/… for the links `open` knows; anything else (any other path, a dead or
 * tampered token, a link whose OAuth sign-in `ended` says is over): 404. Every request asks
 * afresh, so a page left open stops reading the moment its sign-in is revoked.
 */
export class WatchPages {
  private reads = 0;
  /** Reads in flight by the user who asked for the link (OpenLink.user). */
  private readonly readsBy = new Map<string, number>();

  constructor(private readonly open: WatchOpener) {}

  async handle(req: IncomingMessage, res: ServerResponse, ended?: SignInEnded): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://watch.invalid');
    // A token is base64url parts joined by dots (stdio's random part and tag; a sealed link's JWE).
    const match = /^\/watch\/([A-Za-z0-9_-][A-Za-z0-9_.-]{0,1499})(\/(?:data|events)?)?$/.exec(url.pathname);
    if (!match || (req.method !== 'GET' && req.method !== 'HEAD')) return notFound(res);
    const entry = await this.open(match[1]!, ended);
    if (!entry) return notFound(res);
    const part = match[2] ?? '/';
    // A read of PostHog with the user's key (an event page, player data made afresh) is not made for an answer without a body.
    if (req.method === 'HEAD' && (part === '/events' || typeof entry.data !== 'string')) return json(res, 405, JSON.stringify({ error: 'this part answers GET only' }), { allow: 'GET' });
    if (part === '/') {
      const page = await servedPage();
      res.writeHead(200, { ...COMMON_HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': page.policy, 'content-length': page.bytes });
      res.end(req.method === 'HEAD' ? undefined : page.html);
      return;
    }
    if (part === '/data') {
      if (typeof entry.data === 'string') return json(res, 200, entry.data);
      // Another replica's link (or one this replica forgot): its player data is read afresh, a read like a page of events.
      const remake = entry.data;
      return this.reading(res, entry.user, () => remake());
    }
    const cursor = url.searchParams.get('cursor') ?? undefined;
    const maxBytes = Number(url.searchParams.get('max_bytes') ?? PAGE_BYTES.first);
    if ((cursor !== undefined && cursor.length > MAX_CURSOR_CHARS) || !Number.isInteger(maxBytes) || maxBytes < PAGE_BYTES.min || maxBytes > PAGE_BYTES.max) {
      return json(res, 400, JSON.stringify({ error: `cursor at most ${MAX_CURSOR_CHARS} characters, max_bytes from ${PAGE_BYTES.min} to ${PAGE_BYTES.max}` }));
    }
    return this.reading(res, entry.user, async (signal) => {
      const page = await entry.read({ cursor, maxBytes }, signal);
      return JSON.stringify({ events: page.events, next_cursor: page.next_cursor });
    });
  }

  /** A read of PostHog for a page, at most MAX_READS at once (MAX_READS_PER_USER of one user's), answered with its JSON or the error. */
  private async reading(res: ServerResponse, user: string, read: (signal: AbortSignal) => Promise<string>): Promise<void> {
    if (this.reads >= MAX_READS || (this.readsBy.get(user) ?? 0) >= MAX_READS_PER_USER) return json(res, 503, JSON.stringify({ error: 'The server is reading other pages of recordings; try again in a moment.' }), { 'retry-after': '2' });
    this.reads++;
    this.readsBy.set(user, (this.readsBy.get(user) ?? 0) + 1);
    // The reader in the browser left: its read stops.
    const stop = new AbortController();
    res.once('close', () => stop.abort());
    try {
      json(res, 200, await read(stop.signal));
    } catch (error) {
      // A cursor not of this recording is the page's mistake (or a forgery); anything else, PostHog's answer.
      json(res, error instanceof UserInputError ? 400 : 502, JSON.stringify({ error: error instanceof Error ? error.message.slice(0, 500) : 'the recording could not be read' }));
    } finally {
      this.reads--;
      const left = (this.readsBy.get(user) ?? 1) - 1;
      if (left > 0) this.readsBy.set(user, left);
      else this.readsBy.delete(user);
    }
  }
}

/** The watch page, made once from the one build (its policy rewritten, its length counted) for every view after. */
let served: Promise<{ html: string; policy: string; bytes: number }> | undefined;

function servedPage(): Promise<{ html: string; policy: string; bytes: number }> {
  return (served ??= readPlayerHtml()
    .then((html) => {
      const page = watchPage(html);
      return { ...page, bytes: Buffer.byteLength(page.html) };
    })
    .catch((error: unknown) => {
      // Not built yet (or built wrong): asked again on the next view, as before.
      served = undefined;
      throw error;
    }));
}

/**
 * The player as a page of its own. Its build's policy (a meta tag) lets it fetch nothing, as an MCP
 * App gets everything through its host; here it fetches its data from its own origin, and is
 * never framed. The same policy goes in the header.
 */
export function watchPage(html: string): { html: string; policy: string } {
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  if (!meta || !meta[1]!.includes("connect-src 'none'")) throw new Error('The player build has no Content-Security-Policy meta tag with connect-src (scripts/build-app.mjs).');
  const own = meta[1]!.replace("connect-src 'none'", "connect-src 'self'");
  // frame-ancestors is ignored in a meta tag: only the header carries it.
  return { html: html.replace(meta[0], () => `<meta http-equiv="Content-Security-Policy" content="${own}">`), policy: `${own}; frame-ancestors 'none'` };
}

function json(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...COMMON_HEADERS, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function notFound(res: ServerResponse): void {
  res.writeHead(404, { ...COMMON_HEADERS, 'content-type': 'text/plain; charset=utf-8' });
  res.end('Not found.');
}
