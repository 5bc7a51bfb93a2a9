// The tools/list answer a client receives, per tool: `npm run build && node bench/tool-sizes.mjs`.
// Through the SDK's Client over an in-memory transport against the built server (dist/), which
// answers tools/list from dist/tools/listing.json. No upstream request is made. Full listings
// (every client but Codex, the default) and compact ones (MCP_TOOL_SCHEMAS=compact, or Codex
// under auto: every input schema under 5,000 bytes, docs/mcp-features.md).
// Tokens: OpenAI's o200k_base (gpt-tokenizer, from bench/node_modules; `cd bench && npm ci`),
// else bytes / 4. Options: --json FILE writes the figures.
import { writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { parseCli } from '../dist/config.js';
import { PostHogClient } from '../dist/posthog/client.js';
import { callLimitsFrom, clientOptionsFrom } from '../dist/posthog/from-config.js';
import { createServer } from '../dist/server.js';

let count = (text) => Math.round(Buffer.byteLength(text) / 4);
let tokenizer = 'bytes/4 (gpt-tokenizer not installed: cd bench && npm ci)';
try {
  const { encode } = await import('./node_modules/gpt-tokenizer/esm/encoding/o200k_base.js');
  count = (text) => encode(text).length;
  tokenizer = 'o200k_base (gpt-tokenizer)';
} catch {
  // bytes / 4 stays.
}

const bytes = (value) => Buffer.byteLength(JSON.stringify(value));
const ENUM = /"enum":\[[^\]]{4000,}\]/g;
const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

async function list({ defaultProjectId, apps = false, readOnly = false, toolSchemas = 'auto', clientName = 'bench' }) {
  const action = parseCli([], { POSTHOG_PERSONAL_API_KEY: 'phx_bench', POSTHOG_HOST: 'http://127.0.0.1:9' });
  const config = action.config;
  const posthog = new PostHogClient(clientOptionsFrom(config, { baseUrl: config.baseUrl, apiKey: 'phx_bench' }));
  const server = createServer({ client: posthog, settings: { readOnly, toolsets: ['recordings', 'projects'], defaultProjectId, toolSchemas }, callLimits: callLimitsFrom(config) });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: clientName, version: '1.0.0' }, apps ? { capabilities: APPS } : undefined);
  await server.connect(b);
  await client.connect(a);
  const result = await client.listTools();
  await client.close();
  await server.close();
  await posthog.close();
  return result;
}

const configs = [
  ['defaults (key + host)', {}],
  ['default project set', { defaultProjectId: '1' }],
  ['client with MCP Apps', { apps: true }],
  ['MCP Apps + default project', { apps: true, defaultProjectId: '1' }],
  ['compact (MCP_TOOL_SCHEMAS=compact)', { toolSchemas: 'compact' }],
  ['compact, Codex under auto (clientInfo codex-mcp-client), MCP Apps + default project', { clientName: 'codex-mcp-client', apps: true, defaultProjectId: '1' }],
];
const figures = { tokenizer, configs: {} };
console.log(`tokens: ${tokenizer}`);
for (const [label, options] of configs) {
  const result = await list(options);
  const rows = result.tools.map((tool) => {
    const json = JSON.stringify(tool);
    const enumText = json.match(ENUM)?.join('') ?? '';
    const enumBytes = (json.match(ENUM) ?? []).reduce((n, m) => n + Buffer.byteLength(m), 0);
    return {
      name: tool.name,
      bytes: Buffer.byteLength(json),
      tokens: count(json),
      enumBytes,
      enumTokens: enumText ? count(enumText) : 0,
      description: Buffer.byteLength(tool.description ?? ''),
      input: JSON.stringify(tool.inputSchema).length,
      output: tool.outputSchema ? bytes(tool.outputSchema) : 0,
    };
  });
  const answer = JSON.stringify(result);
  const total = { count: rows.length, bytes: Buffer.byteLength(answer), tokens: count(answer) };
  const enumBytes = rows.reduce((n, r) => n + r.enumBytes, 0);
  const enumTokens = rows.reduce((n, r) => n + r.enumTokens, 0);
  total.outside = { bytes: total.bytes - enumBytes, tokens: total.tokens - enumTokens, perTool: Math.round((total.bytes - enumBytes) / rows.length) };
  total.largestInput = Math.max(...rows.map((r) => r.input));
  total.largestInputBytes = Math.max(...result.tools.map((tool) => bytes(tool.inputSchema)));
  figures.configs[label] = { rows, total };
  console.log(`\n## ${label}: ${total.count} tools, ${total.bytes} B / ${total.tokens} tk; outside the enums ${total.outside.bytes} B / ${total.outside.tokens} tk (${total.outside.perTool} B a tool); largest input schema ${total.largestInput} chars, ${total.largestInputBytes} B`);
  if (label === 'defaults (key + host)') floor(result.tools, enumBytes, figures);
  if (label !== 'defaults (key + host)' && label !== 'client with MCP Apps' && !label.startsWith('compact (')) continue;
  console.log('tool                                   bytes  tokens   enum B  outside B  descr B  input ch  output B');
  for (const r of rows) {
    console.log(`${r.name.padEnd(36)} ${String(r.bytes).padStart(7)} ${String(r.tokens).padStart(7)} ${String(r.enumBytes).padStart(8)} ${String(r.bytes - r.enumBytes).padStart(10)} ${String(r.description).padStart(8)} ${String(r.input).padStart(9)} ${String(r.output).padStart(9)}`);
  }
}
/**
 * What the list's structure costs before a single word: the same tools with every description
 * (the tool's and each field's) removed, and the parts docs/design.md, "Tools" and the hosts' dialects require of
 * every tool, summed over the list. Answers whether a per-tool budget is reachable by wording.
 */
function floor(tools, enumBytes, figures) {
  const strip = (node) => {
    if (Array.isArray(node)) return node.map(strip);
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(Object.entries(node).filter(([key]) => key !== 'description').map(([key, value]) => [key, key === 'enum' ? value : strip(value)]));
  };
  const withoutWords = tools.map((tool) => ({ ...tool, description: '', inputSchema: strip(tool.inputSchema) }));
  const wordless = Buffer.byteLength(JSON.stringify({ tools: withoutWords })) - enumBytes;
  // The same tools with every `{type: "null"}` branch taken out (a union left with one branch becomes it).
  const withoutNull = (node) => {
    if (Array.isArray(node)) return node.map(withoutNull);
    if (!node || typeof node !== 'object') return node;
    const out = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === 'enum' ? value : withoutNull(value)]));
    if (!Array.isArray(out.anyOf)) return out;
    const kept = out.anyOf.filter((branch) => branch?.type !== 'null');
    if (kept.length === out.anyOf.length) return out;
    const { anyOf: _, ...rest } = out;
    return kept.length === 1 ? { ...kept[0], ...rest } : { ...rest, anyOf: kept };
  };
  const nullBranches = Buffer.byteLength(JSON.stringify({ tools })) - Buffer.byteLength(JSON.stringify({ tools: tools.map((tool) => ({ ...tool, inputSchema: withoutNull(tool.inputSchema) })) }));
  const wordlessNoNull = Buffer.byteLength(JSON.stringify({ tools: withoutWords.map((tool) => ({ ...tool, inputSchema: withoutNull(tool.inputSchema) })) })) - enumBytes;
  const sum = (fn) => tools.reduce((n, tool) => n + fn(tool), 0);
  const parts = {
    annotations: sum((t) => bytes(t.annotations) + Buffer.byteLength(',"annotations":')),
    outputSchemas: sum((t) => bytes(t.outputSchema) + Buffer.byteLength(',"outputSchema":')),
    namesAndTitles: sum((t) => bytes(t.name) + bytes(t.title) + Buffer.byteLength('{"name":,"title":}')),
    nullBranches,
    descriptions: Buffer.byteLength(JSON.stringify({ tools })) - enumBytes - wordless,
  };
  figures.floor = { wordlessBytes: wordless, wordlessPerTool: Math.round(wordless / tools.length), wordlessWithoutNullBytes: wordlessNoNull, parts };
  console.log(`without any description (tool or field): ${wordless} B outside the enums, ${Math.round(wordless / tools.length)} B a tool; of the list, every tool's annotations ${parts.annotations} B, output schemas ${parts.outputSchemas} B, names and titles ${parts.namesAndTitles} B, optional fields' null branches ${parts.nullBranches} B; descriptions ${parts.descriptions} B`);
  console.log(`without any description and without the null branches: ${wordlessNoNull} B outside the enums, ${Math.round(wordlessNoNull / tools.length)} B a tool`);
}

const jsonAt = process.argv.indexOf('--json');
if (jsonAt > 0) writeFileSync(process.argv[jsonAt + 1], JSON.stringify(figures, null, 1));
