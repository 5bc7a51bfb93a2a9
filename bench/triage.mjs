// Triage benchmark (issue 13). Run after `npm run build`:  node bench/triage.mjs  (or npm run bench:triage)
//
// 50 sandbox recordings of mixed sizes (the 14 demo recordings, the two recorded fixtures among
// them, 35 copies of them with ids of their own, and one long recording of --copies copies of the
// recorded checkout), served by the sandbox in this process on 127.0.0.1, read by the built server
// (node dist/cli.js, stdio) in another process. In one run:
//   1. the sum of single digests: each recording summarised by its own call, one after another,
//      by a server with the digest cache off;
//   2. cold: one triage of all 50 by a fresh server (cache in memory, empty);
//   3. warm: the same triage again on that server (every digest in the cache);
//   4. peak RSS of the triage server (VmHWM) over 2 and 3.
// Each server is first warmed up with summaries of another project's recordings (see warmUp).
// Targets: warm ≥ 20× faster than cold; peak RSS < 300 MB; cold ≤ 0.6× the sequential sum.
//
// Options: --copies N (the long recording's size in ~120 KB copies, default 40), --runs N (default 5: medians),
// --latency-ms N (each API request answered N ms late, as across a network; default 0)

import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DEMO, startSandbox } from '../dist/sandbox/index.js';

const { values: opts } = parseArgs({ options: { copies: { type: 'string', default: '40' }, runs: { type: 'string', default: '5' }, 'latency-ms': { type: 'string', default: '0' } } });
const CLI = new URL('../dist/cli.js', import.meta.url).pathname;
const PROJECT = String(DEMO.mainProjectId);

// No sandbox throttle: several runs' requests would exceed even its generous default and measure waits.
const sandbox = await startSandbox({ extraRecordings: 35, bigRecording: { copies: Number(opts.copies) }, replayThrottle: [] });
// --latency-ms: every request to PostHog's API waits this long before its answer, as a PostHog
// across a network would (loopback answers in well under a millisecond).
const LATENCY_MS = Number(opts['latency-ms']);
if (LATENCY_MS > 0) sandbox.injectFault({ path: /^\/api\//, times: Infinity, delayMs: LATENCY_MS });

async function server(cache) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI],
    env: {
      PATH: process.env.PATH ?? '',
      POSTHOG_PERSONAL_API_KEY: sandbox.apiKey,
      POSTHOG_HOST: sandbox.url,
      POSTHOG_PROJECT_ID: PROJECT,
      // The replay throttle at its default (auto): the sandbox here never answers 429, so nothing is paced.
      // A triage of all 50 takes more than the default 100 upstream requests a call may make; this
      // measures speed, not that budget (a triage past it stops with a partial and a cursor).
      POSTHOG_CALL_MAX_REQUESTS: '400',
      MCP_DIGEST_CACHE: cache,
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-triage', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

/** CPU seconds a process has used (utime + stime, all threads), from /proc. */
const cpuOf = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const selfCpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const hwmMb = (pid) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)[1]) / 1024;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(fn) {
  const start = performance.now();
  const result = await fn();
  return { ms: performance.now() - start, result };
}

/**
 * Both servers are warmed up first (JIT-compiled main thread, both digest workers started) with
 * summaries of recordings of another project, none of the 50: the figures then compare steady
 * state with steady state, and the triage's digest cache is still empty for every recording it reads.
 */
const WARM_UP = DEMO.recordings.filter((r) => String(r.projectId) !== PROJECT).map((r) => ({ project_id: String(r.projectId), id: r.id }));
const WARM_UP_PROJECTS = [...new Set(WARM_UP.map((r) => r.project_id))];
async function warmUp(client) {
  for (let round = 0; round < 2; round++) {
    await Promise.all(WARM_UP.map((args) => client.callTool({ name: 'session-recording-summary', arguments: args })));
    for (const project_id of WARM_UP_PROJECTS) {
      const r = await client.callTool({ name: 'session-recordings-triage', arguments: { project_id, date_from: '-30d', max_recordings: 50 } });
      if (r.isError) throw new Error(`warm-up triage failed: ${r.content[0].text}`);
    }
  }
}

const TRIAGE = { name: 'session-recordings-triage', arguments: { date_from: '-30d', max_recordings: 50 } };
const runs = Number(opts.runs);
const results = [];
for (let run = 0; run < runs; run++) {
  // 1. One summary after another, no cache.
  const single = await server('off');
  await warmUp(single.client);
  const list = await single.client.callTool({ name: 'session-recordings-list', arguments: { date_from: '-30d', limit: 100 } });
  const ids = list.structuredContent.results.map((r) => r.id);
  let sequential = 0;
  const singleCpu0 = cpuOf(single.pid);
  for (const id of ids) {
    const { ms, result } = await timed(() => single.client.callTool({ name: 'session-recording-summary', arguments: { id } }, undefined, { timeout: 300_000 }));
    if (result.isError) throw new Error(`summary of ${id} failed: ${result.content[0].text}`);
    sequential += ms;
  }
  const singleCpu = cpuOf(single.pid) - singleCpu0;
  await single.close();

  // 2 and 3. Cold, then warm, on one fresh server.
  const fleet = await server('memory');
  await warmUp(fleet.client);
  const idle = hwmMb(fleet.pid);
  const [serverCpu0, selfCpu0] = [cpuOf(fleet.pid), selfCpu()];
  const cold = await timed(() => fleet.client.callTool(TRIAGE, undefined, { timeout: 300_000 }));
  const coldCpu = { server: cpuOf(fleet.pid) - serverCpu0, upstream: selfCpu() - selfCpu0 };
  const warm = await timed(() => fleet.client.callTool(TRIAGE, undefined, { timeout: 300_000 }));
  for (const r of [cold, warm]) if (r.result.isError) throw new Error(`triage failed: ${r.result.content[0].text}`);
  const peak = hwmMb(fleet.pid);
  await fleet.close();
  const c = cold.result.structuredContent;
  const w = warm.result.structuredContent;
  results.push({ recordings: ids.length, sequential, cold: cold.ms, warm: warm.ms, peak, idle, read: c.read, warmCached: w.cached, unread: c.unread.length });
  console.log(`run ${run + 1}: ${ids.length} recordings; sequential sum ${sequential.toFixed(0)} ms (server CPU ${singleCpu.toFixed(2)} s); cold ${cold.ms.toFixed(0)} ms (read ${c.read}, unread ${c.unread.length}; CPU: server ${coldCpu.server.toFixed(2)} s, sandbox and client ${coldCpu.upstream.toFixed(2)} s); warm ${warm.ms.toFixed(0)} ms (cached ${w.cached}); peak RSS ${peak.toFixed(1)} MB (idle ${idle.toFixed(1)} MB)`);
}
await sandbox.close();

const m = {
  sequential: median(results.map((r) => r.sequential)),
  cold: median(results.map((r) => r.cold)),
  warm: median(results.map((r) => r.warm)),
  peak: Math.max(...results.map((r) => r.peak)),
};
console.log(`\nTriage of ${results[0].recordings} recordings (${cpus().length} cores, medians of ${runs} runs, long recording ${opts.copies} copies, upstream latency ${LATENCY_MS} ms):`);
console.log(`  cold ${m.cold.toFixed(0)} ms = ${(m.cold / m.sequential).toFixed(2)}x the sequential sum of single digests (${m.sequential.toFixed(0)} ms); target ≤ 0.6x`);
console.log(`  warm ${m.warm.toFixed(0)} ms: cold/warm = ${(m.cold / m.warm).toFixed(1)}x; target ≥ 20x`);
console.log(`  peak RSS of the triage server: ${m.peak.toFixed(1)} MB; target < 300 MB`);
