import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { PostHogClient } from '../posthog/client.js';

export interface HttpOptions {
  host: string;
  port: number;
  /** The shared client; without a key of its own, each request's Bearer key is used for that request only. */
  client: PostHogClient;
  createServer: (client: PostHogClient) => McpServer;
  log: (message: string) => void;
}

export interface RunningHttp {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Stateless Streamable HTTP at /mcp: every POST gets a fresh server and transport, so any
 * replica can answer any request. (Issue 4 adds auth tokens, rebinding checks and limits.)
 */
export async function serveHttp(options: HttpOptions): Promise<RunningHttp> {
  const httpServer: Server = createHttpServer((req, res) => {
    handle(req, res, options).catch((err) => {
      options.log(`http: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal server error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port, options.host, () => resolve());
  });
  const address = httpServer.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeIdleConnections();
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, options: HttpOptions): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  if (path !== '/mcp') {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found: the MCP endpoint is /mcp"}');
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this stateless server takes POST only.' }, id: null }));
    return;
  }
  let client = options.client;
  if (!client.hasApiKey) {
    const key = bearer(req.headers.authorization);
    if (!key) {
      jsonRpcError(res, 401, -32001, 'Send your PostHog personal API key as "Authorization: Bearer phx_…".', { 'www-authenticate': 'Bearer' });
      return;
    }
    client = client.withApiKey(key);
  }
  const body = await readJson(req);
  if (body === undefined) {
    jsonRpcError(res, 400, -32700, 'Parse error: the body must be JSON of at most 1 MiB.');
    return;
  }
  const server = options.createServer(client);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

function bearer(header: string | undefined): string | undefined {
  const match = header ? /^Bearer\s+(\S+)\s*$/.exec(header) : null;
  return match?.[1];
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
