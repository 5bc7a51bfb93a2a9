import type { PostHogClient } from '../../src/posthog/client.js';
import { serverFactory } from '../../src/server.js';
import { serveHttp, type HttpOptions, type RunningHttp } from '../../src/transports/http.js';

/**
 * The HTTP server with MCP_OAUTH on loopback, per-user keys through `upstream` (a keyless client
 * of the sandbox), read-only with both toolsets: what the OAuth tests sign in to.
 */
export function serveOAuth(upstream: PostHogClient, secret: string, log: (message: string) => void, extra: Partial<HttpOptions> = {}): Promise<RunningHttp> {
  return serveHttp({
    host: '127.0.0.1',
    port: 0,
    client: upstream,
    createServer: serverFactory({ settings: { readOnly: true, toolsets: ['recordings', 'projects'], defaultProjectId: undefined } }),
    log,
    oauth: { secrets: [secret] },
    ...extra,
  });
}
