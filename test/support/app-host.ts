import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BrowserContext, Page } from 'playwright-core';
import { PLAYER_URI } from '../../src/tools/recordings/player.js';

/**
 * A test MCP Apps host in Chromium (test/browser/host.js, bundled by the caller): it renders
 * session-recording-replay's result the way hosts do (a sandbox proxy on another origin, the
 * player in its iframe under the resource's declared CSP), and answers the view's tool calls
 * through `client`.
 */
export interface AppHost {
  client: Client;
  context: BrowserContext;
  /** test/browser/host.js, bundled */
  hostScript: string;
}

export interface HostPage {
  page: Page;
  /** console lines saying the CSP refused something: an attempt to reach outside, blocked */
  refused: string[];
  /** the host page's and its sandbox proxy's */
  origins: string[];
  requests: string[];
  close(): Promise<void>;
}

/** Serves the host page, the tool result and resource it renders, and /call for the view's tool calls. */
export async function openAppHost(host: AppHost, args: Record<string, unknown>, theme: 'light' | 'dark' = 'light', options: { holdResult?: boolean; ignoreCsp?: boolean } = {}): Promise<HostPage> {
  const { client, context, hostScript } = host;
  const result = await client.callTool({ name: 'session-recording-replay', arguments: args });
  const resource = (await client.readResource({ uri: PLAYER_URI })).contents[0] as unknown as { text: string; _meta: { ui: { csp: unknown } } };
  const sandboxPage = await readFile(new URL('../browser/sandbox.html', import.meta.url), 'utf8');
  let session = '';
  const server: Server = createServer(async (req, res) => {
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><html><head><meta charset="utf-8"><title>test host</title><style>body{margin:0;font:14px system-ui;background:${theme === 'dark' ? '#1b1b1b' : '#fafafa'}}#chat{max-width:960px;margin:0 auto;padding:8px}#sandbox{width:100%;border:0;height:700px}</style></head><body><div id="chat"></div><script type="module">${hostScript}</script></body></html>`);
    } else if (req.url === '/sandbox.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(sandboxPage);
    } else if (req.url === '/session') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(session);
    } else if (req.url === '/call' && req.method === 'POST') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const params = JSON.parse(body) as { name: string; arguments?: Record<string, unknown> };
              try {
        const answer = await client.callTool(params);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      } catch (error) {
        // A test that ends while the player is still loading closes its server under this call.
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ isError: true, content: [{ type: 'text', text: String(error) }] }));
      }
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  // The sandbox proxy must have another origin than the host: same server, another host name.
  const sandboxOrigin = `http://localhost:${port}`;
  const { ignoreCsp, ...rest } = options;
  session = JSON.stringify({ arguments: args, result, html: resource.text, csp: ignoreCsp ? 'ignored' : resource._meta.ui.csp, theme, width: 960, sandboxUrl: `${sandboxOrigin}/sandbox.html`, ...rest });
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  const refused: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  await page.goto(`${origin}/`);
  return {
    page,
    refused,
    origins: [origin, sandboxOrigin],
    requests,
    close: async () => {
      await page.close();
      // Chromium keeps its connections alive after the page is gone.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
