import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WatchTokens, type WatchService } from './links.js';
import { notFound, WatchPages } from './page.js';

/**
 * Connections the listener keeps at once: a browser tab needs a few, and each is a file
 * descriptor of the server's process, which its PostHog requests need too.
 */
export const MAX_LOOPBACK_CONNECTIONS = 64;
/** A request's headers arrive within this, or its connection is closed (a browser sends them at once). */
const HEADERS_TIMEOUT_MS = 10_000;

/**
 * Watch links in stdio mode: one listener per process on 127.0.0.1, on a port the system picks,
 * started when the first link is asked for and closed with the server. It answers only
 * /watch/<token>/… of live links, and only to a Host header naming itself (127.0.0.1:<port> or
 * localhost:<port>): a page on another site whose name was pointed at 127.0.0.1 (DNS rebinding)
 * gets 421 and nothing else.
 */
export class LoopbackWatch implements WatchService {
  private readonly tokens = new WatchTokens(undefined);
  private readonly pages = new WatchPages(this.tokens.opener);
  private listening: Promise<{ server: Server; port: number }> | undefined;
  private closed = false;

  constructor(private readonly log: (message: string) => void = () => {}) {}

  async link(...[recording, { user, read }]: Parameters<WatchService['link']>): ReturnType<WatchService['link']> {
    if (this.closed) return { refused: 'the server is shutting down.' };
    let port: number;
    try {
      ({ port } = await (this.listening ??= this.listen()));
    } catch (error) {
      this.listening = undefined;
      return { refused: `no local port could be opened for it (${error instanceof Error ? error.message : String(error)}).` };
    }
    const { token, expiresAt } = this.tokens.issue(recording, user, read);
    return { url: `http://127.0.0.1:${port}/watch/${token}/`, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** The port listened on, once a link was made (tests). */
  async port(): Promise<number | undefined> {
    return this.listening ? (await this.listening).port : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.tokens.clear();
    const listening = this.listening;
    if (!listening) return;
    const { server } = await listening.catch(() => ({ server: undefined }));
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private listen(): Promise<{ server: Server; port: number }> {
    const server = createServer((req, res) => {
      const port = (server.address() as AddressInfo).port;
      const host = req.headers.host ?? '';
      if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
        res.writeHead(421, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
        res.end('Misdirected request: this listener answers only to its own address.');
        return;
      }
      this.pages.handle(req, res).catch((error: unknown) => {
        this.log(`watch page: ${error instanceof Error ? error.message : String(error)}`);
        if (!res.headersSent) notFound(res);
        else res.end();
      });
    });
    // A local process holding connections half-sent holds no more than these.
    server.maxConnections = MAX_LOOPBACK_CONNECTIONS;
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    server.requestTimeout = HEADERS_TIMEOUT_MS;
    // A browser tab left open keeps no connection that would hold the process up at exit.
    server.unref();
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve({ server, port: (server.address() as AddressInfo).port });
      });
    });
  }
}
