#!/usr/bin/env node
// Drives tool calls through one MCP URL (the load balancer in front of the replicas) from
// several concurrent clients, each a different user with its own PostHog key, and checks every
// call succeeded. With --sandbox-log (written by scripts/sandbox.mjs when it stops), use
// --check-log to verify afterwards that each user's key appears only on that user's calls.
//
//   node scripts/drive-replicas.mjs --url http://127.0.0.1:8080/mcp [--clients 8] [--calls 150]
//   node scripts/drive-replicas.mjs --check-log FILE [--clients 8]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEMO } from '../dist/sandbox/index.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    clients: { type: 'string', default: '8' },
    calls: { type: 'string', default: '150' },
    'in-flight': { type: 'string', default: '2' },
    'check-log': { type: 'string' },
  },
});
const clients = Number(values.clients);
const keyOf = (user) => `phx_replica_demo_user_${user}_key`;
const PROJECT = String(DEMO.mainProjectId);

if (values['check-log']) {
  checkLog(values['check-log']);
} else {
  await drive(values.url, Number(values.calls), Number(values['in-flight']));
}

/** The calls a user makes, in turn; session-recordings-list carries a marker naming the user. */
function callFor(user, i) {
  switch (i % 4) {
    case 0:
      return { name: 'session-recordings-list', arguments: { project_id: PROJECT, session_ids: [`user${user}-call${i}`], limit: 1 } };
    case 1:
      return { name: 'projects-list', arguments: { limit: 5 } };
    case 2:
      return { name: 'project-get', arguments: { id: Number(PROJECT) } };
    default:
      return { name: 'session-recording-get', arguments: { project_id: PROJECT, id: DEMO.recordingIds.checkoutFailure } };
  }
}

async function drive(url, callsPerClient, inFlight) {
  if (!url) throw new Error('--url is required');
  const started = performance.now();
  const errors = [];
  let ok = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, user) => {
      const client = new Client({ name: `replica-driver-${user}`, version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${keyOf(user)}` } } }));
      let next = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next < callsPerClient) {
            const i = next++;
            try {
              const result = await client.callTool(callFor(user, i));
              if (result.isError) errors.push(`user ${user} call ${i}: ${JSON.stringify(result.content).slice(0, 200)}`);
              else ok++;
            } catch (error) {
              errors.push(`user ${user} call ${i}: ${error instanceof Error ? error.message : String(error)}`);
            }
          }
        }),
      );
      await client.close();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(`driver: ${clients} clients x ${callsPerClient} calls (${inFlight} in flight each): ${ok} ok, ${errors.length} errors in ${seconds.toFixed(1)} s`);
  for (const line of errors.slice(0, 10)) console.log(`  ${line}`);
  process.exitCode = errors.length === 0 ? 0 : 1;
}

function checkLog(file) {
  const requests = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const keys = new Set(Array.from({ length: clients }, (_, user) => `Bearer ${keyOf(user)}`));
  const problems = [];
  let marked = 0;
  for (const r of requests) {
    if (!keys.has(r.authorization)) problems.push(`${r.method} ${r.path} with an unknown or missing key`);
    const marker = r.query.session_ids ? /^\["user(\d+)-call\d+"\]$/.exec(r.query.session_ids) : null;
    if (!marker) continue;
    marked++;
    if (r.authorization !== `Bearer ${keyOf(Number(marker[1]))}`) problems.push(`user ${marker[1]}'s call ${r.query.session_ids} reached the sandbox with another user's key`);
  }
  console.log(`sandbox log: ${requests.length} API requests, ${marked} carrying a user marker; ${problems.length === 0 ? 'every key was used only for its own user\'s calls' : `${problems.length} problems`}`);
  for (const line of problems.slice(0, 10)) console.log(`  ${line}`);
  process.exitCode = problems.length === 0 && marked > 0 ? 0 : 1;
}
