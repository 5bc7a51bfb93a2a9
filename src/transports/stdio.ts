import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How long requests still running when stdin closes may take to answer before the server stops. */
const DRAIN_MS = 10_000;

/**
 * Serves one MCP client over stdin/stdout until stdin closes. Requests already received are still
 * answered (a client may write its last requests and close stdin at once), for up to DRAIN_MS.
 */
export async function serveStdio(server: McpServer): Promise<void> {
  const transport = new StdioServerTransport();
  const running = new Set<string | number>();
  let drained: (() => void) | undefined;
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);

  const receive = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) running.add(message.id);
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if (!('method' in message) && 'id' in message && message.id !== undefined && running.delete(message.id) && running.size === 0) drained?.();
  };

  await closed;
  if (running.size > 0) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, DRAIN_MS);
      drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  await server.close().catch(() => {});
}
