// What an agent's ideal path costs, question by question: `npm run build && node bench/agent-path.mjs`.
//
// Starts the built server as users start the playground (node dist/cli.js --sandbox, its embedded
// sandbox, default project 1001) over stdio through the SDK Client, runs the calls of every
// question in bench/agent-path-questions.json, and prints a markdown table: calls, characters of
// the text view and of the JSON view (structuredContent, compact), and whether the question's
// facts are in each view; then what a model is shown of tools/list in minified bytes, which every
// conversation pays once. docs/agent-path.md holds the figures and what they are for.
// Options: --only id,id (some questions), --json FILE (the rows and the tool list's size).
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { shownBytes } from '../dist/tools/listing-shown.js';
import { runQuestion, table } from './agent-path-core.mjs';

const { values: opts } = parseArgs({ options: { only: { type: 'string' }, json: { type: 'string' } } });
const { questions } = JSON.parse(readFileSync(new URL('./agent-path-questions.json', import.meta.url), 'utf8'));
const chosen = opts.only ? questions.filter((q) => opts.only.split(',').includes(q.id)) : questions;

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [new URL('../dist/cli.js', import.meta.url).pathname, '--sandbox'],
  // Only PATH: no PostHog key, host or project of the shell reaches the sandbox's server.
  env: { PATH: process.env.PATH ?? '' },
  stderr: 'ignore',
});
const client = new Client({ name: 'agent-path', version: '1.0.0' });
await client.connect(transport);
try {
  const listed = await client.listTools();
  const rows = [];
  for (const question of chosen) rows.push(await runQuestion(client, question));
  console.log(table(rows));
  console.log(`\ntools/list as a model is shown it (names, titles, descriptions, input schemas, annotations; minified): ${shownBytes(listed).toLocaleString('en-US')} B, ${listed.tools.length} tools`);
  for (const row of rows) for (const error of row.errors) console.log(`error in ${row.id}: ${error}`);
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ rows, toolsListBytes: shownBytes(listed), tools: listed.tools.length }, null, 1));
} finally {
  await client.close();
}
