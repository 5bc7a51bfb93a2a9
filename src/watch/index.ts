import { noWatch, type WatchService } from './links.js';
import { WatchPages } from './page.js';
import { SealedWatch, type WatchSources } from './sealed.js';

export { LoopbackWatch } from './loopback.js';
export { WatchPages } from './page.js';
export type { WatchService } from './links.js';
export type { WatchSources, SealedRecording } from './sealed.js';

/**
 * Watch links over HTTP: only where the operator gave the origin browsers reach the server at
 * (MCP_PUBLIC_URL) and the secret links are sealed with (MCP_WATCH_SECRET); otherwise none, and the
 * replay says why. Every replica with that secret opens them (sealed.ts), reading through `sources`.
 */
export function watchOverHttp(settings: { secret: string; publicUrl: string } | undefined, sources: WatchSources, now?: () => number): { service: WatchService; pages?: WatchPages } {
  if (!settings) return { service: noWatch('this HTTP server gives none (its operator has not set MCP_PUBLIC_URL and MCP_WATCH_SECRET).') };
  const sealed = new SealedWatch({ ...settings, sources, ...(now ? { now } : {}) });
  return { service: sealed, pages: new WatchPages(sealed.opener) };
}
