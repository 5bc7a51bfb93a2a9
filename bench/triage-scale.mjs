// Query-first triage at scale (issue 40 item 7). Run after `npm run build`:  node bench/triage-scale.mjs [--runs 3]
//
// The sandbox at scale (project 2001: a generated week of 2,976 recordings from 2,183 people, with
// their events and console logs) behind PostHog's free-plan replay throttle (12 list + snapshot
// requests a minute, 60 an hour), in this process on 127.0.0.1; the built server (node dist/cli.js,
// stdio, the defaults: replay rates auto, replay budget 12) in another. Each run: a fresh server and
// a fresh throttle window, one session-recordings-triage of the week, measured for
//   - wall time of the call (from the client's request to its answer),
//   - upstream requests by kind: query (POST …/query/), list (GET …/session_recordings/), snapshots
//     (GET …/session_recordings/{id}/snapshots…), other; and any 429 the sandbox answered,
//   - peak RSS of the server process (VmHWM) after the call, and of this process (sandbox + client).
// Medians are printed, with every run's figures.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { planRates, SCALE, scaleTruth, startSandbox } from '../dist/sandbox/index.js';

const { values: opts } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const CLI = new URL('../dist/cli.js', import.meta.url).pathname;
const sandbox = await startSandbox({ scale: true, replayThrottle: planRates('free') });
const truth = scaleTruth({ now: Date.now() });
const hwmMb = (pid) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)[1]) / 1024;

function kindOf(q) {
  if (q.method === 'POST' && /\/query\/?$/.test(q.path)) return 'query';
  if (/\/session_recordings\/?$/.test(q.path)) return 'list';
  if (/\/session_recordings\/[^/]+\/snapshots/.test(q.path)) return 'snapshots';
  return 'other';
}

async function run() {
  sandbox.reset();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI],
    env: { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: sandbox.apiKey, POSTHOG_HOST: sandbox.url, POSTHOG_PROJECT_ID: String(SCALE.projectId) },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-triage-scale', version: '1' });
  await client.connect(transport);
  // The week generated and the server started before the clock runs (both happen once per process).
  await client.callTool({ name: 'projects-list', arguments: {} });
  sandbox.requests.length = 0;
  const t0 = performance.now();
  const result = await client.callTool({ name: 'session-recordings-triage', arguments: { date_from: new Date(truth.weekStartMs).toISOString().slice(0, 19) } }, undefined, { timeout: 180_000 });
  const wallMs = performance.now() - t0;
  const requests = { query: 0, list: 0, snapshots: 0, other: 0 };
  for (const q of sandbox.requests) requests[kindOf(q)]++;
  const data = result.structuredContent ?? {};
  const top = data.problems?.[0];
  const figures = {
    wallMs: Math.round(wallMs),
    requests,
    throttled: /429|throttl/i.test(result.content?.[0]?.text ?? '') || data.partial !== undefined,
    serverPeakMb: Math.round(hwmMb(transport.pid)),
    recordings: data.population?.recordings,
    read: data.read,
    top: top ? `${top.sessions} sessions, ${top.people} people: ${top.signature.slice(0, 50)}` : null,
  };
  await client.close();
  return figures;
}

const runs = [];
for (let i = 0; i < Number(opts.runs); i++) {
  runs.push(await run());
  console.log(JSON.stringify(runs.at(-1)));
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`median wall ${median(runs.map((r) => r.wallMs))} ms; server peak RSS ${median(runs.map((r) => r.serverPeakMb))} MB; this process (sandbox, client) peak RSS ${Math.round(hwmMb(process.pid))} MB`);
console.log(`truth: ${truth.recorded.sessions} recordings, ${truth.recorded.people} people; top problem ${truth.planted.topException.sessions} sessions, ${truth.planted.topException.people} people`);
await sandbox.close();
