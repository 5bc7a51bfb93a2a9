import { noWatch, publicWatch, WatchTokens, type WatchService } from './links.js';
import { WatchPages } from './page.js';

export { LoopbackWatch } from './loopback.js';
export { WatchPages } from './page.js';
export type { WatchService } from './links.js';

/**
 * Watch links over HTTP: only where the operator gave the origin browsers reach the server at
 * (MCP_PUBLIC_URL) and a secret that binds each link to its recording and user (MCP_WATCH_SECRET);
 * otherwise none, and the replay says why.
 */
export function watchOverHttp(settings: { secret: string; publicUrl: string } | undefined): { service: WatchService; pages?: WatchPages } {
  if (!settings) return { service: noWatch('this HTTP server gives none (its operator has not set MCP_PUBLIC_URL and MCP_WATCH_SECRET).') };
  const tokens = new WatchTokens(settings.secret);
  return { service: publicWatch(tokens, settings.publicUrl), pages: new WatchPages(tokens) };
}
