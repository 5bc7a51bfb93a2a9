// The benchmark's baseline: a bare MCP SDK server in stateless Streamable HTTP mode with one
// no-op tool, written the way the SDK's own stateless example is (a fresh McpServer and
// transport per POST, JSON answers), on node:http like ours. Prints "bare: <url>" on stdout.
// With --shared-validator it also does the one thing ours does beyond the example to make a
// server per request cheaper: one JSON Schema validator (Ajv) for all servers instead of one each.
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

const options = process.argv.includes('--shared-validator') ? { jsonSchemaValidator: new AjvJsonSchemaValidator() } : {};

const httpServer = createServer(async (req, res) => {
  if (req.method !== 'POST' || req.url !== '/mcp') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const server = new McpServer({ name: 'bare', version: '1.0.0' }, options);
  server.registerTool('noop', { description: 'Does nothing and says ok.' }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8')));
});
httpServer.listen(0, '127.0.0.1', () => process.stdout.write(`bare: http://127.0.0.1:${httpServer.address().port}/mcp\n`));
process.on('SIGTERM', () => process.exit(0));
