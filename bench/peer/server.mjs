// PostHog's agent toolkit (@posthog/agent-toolkit) has no MCP server of its own: this is the
// smallest stdio MCP server around its tools, for side-by-side benchmarks. It does what a
// wrapper has to do: ask the toolkit for its tools (which asks PostHog for the key's scopes),
// register each with its own title, description, zod schema and annotations, and hand calls to
// the tool's handler with the toolkit's context. Configuration as ours: POSTHOG_PERSONAL_API_KEY
// and POSTHOG_HOST (a full URL here).

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { PostHogAgentToolkit, getToolsFromContext } from '@posthog/agent-toolkit/tools';

const apiKey = process.env.POSTHOG_PERSONAL_API_KEY;
const host = process.env.POSTHOG_HOST;
if (!apiKey || !host) {
  process.stderr.write('peer: POSTHOG_PERSONAL_API_KEY and POSTHOG_HOST are required\n');
  process.exit(2);
}

const toolkit = new PostHogAgentToolkit({ posthogApiToken: apiKey, posthogApiBaseUrl: host });
const context = toolkit.getContext();
// getTools() would build a context of its own; the handlers need this one.
const tools = await getToolsFromContext(context);

const server = new McpServer({ name: 'posthog-agent-toolkit-peer', version: '0.2.4' });
for (const tool of tools) {
  server.registerTool(
    tool.name,
    { title: tool.title, description: tool.description, inputSchema: tool.schema.shape, annotations: tool.annotations },
    async (params) => {
      try {
        return await tool.handler(context, params);
      } catch (error) {
        return { isError: true, content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }] };
      }
    },
  );
}
process.stderr.write(`peer: ${tools.length} toolkit tools against ${host}\n`);
await server.connect(new StdioServerTransport());
