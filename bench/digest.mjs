// Recording digest benchmark (issues 3 and 25; targets ≥ 0.8x and < 120 MB). Run after `npm run build`:  node bench/digest.mjs
//
// 1. Throughput: the digest of snapshot JSONL (real recorded fixtures, repeated to ~64 MB, fed in
//    64 KB chunks as a socket delivers them) against a baseline measured in the same run: split
//    the same bytes into lines and JSON.parse each, nothing else. Runs alternate, medians compared,
//    by wall-clock and by CPU time (process.cpuUsage: steadier when other work shares the cores).
//    Both run in this thread; in the server the digest runs the same code in a worker thread.
// 2. Peak memory: the built server (node dist/cli.js, stdio) digests a ~200 MB synthetic recording
//    served over HTTP by the sandbox in another process; peak RSS is the server's VmHWM. The
//    summary must read the whole recording (a partial one fails the bench).
//
// Options: --mb N (throughput input size, default 64), --runs N (default 5), --copies N (memory
// test size in copies of the ~120 KB checkout recording, default 1700 ≈ 205 MB), --skip-memory,
// --skip-throughput, --memory-runs N (servers started one after the other, each measured once;
// default 1), --cli PATH (another build's dist/cli.js, for an A/B). SERVER_NODE_OPTIONS (NODE_OPTIONS) and SERVER_NODE_ARGS (node's own flags, before
// dist/cli.js) change how the server is launched, for experiments; the figure is without them.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DigestFeed } from '../dist/digest/feed.js';
import { renderDigest } from '../dist/digest/render.js';
import { baseline, corpus, digestWith } from './lib/digest-input.mjs';

const { values: opts } = parseArgs({
  options: {
    mb: { type: 'string', default: '64' },
    runs: { type: 'string', default: '5' },
    copies: { type: 'string', default: '1700' },
    'skip-memory': { type: 'boolean', default: false },
    'skip-throughput': { type: 'boolean', default: false },
    'memory-runs': { type: 'string', default: '1' },
    cli: { type: 'string', default: '' },
  },
});
const root = new URL('../', import.meta.url);

const digest = digestWith({ DigestFeed, renderDigest });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Wall-clock and CPU time (user + system, this process: the bench runs one thread) of `fn`. */
function timed(fn) {
  const cpu = process.cpuUsage();
  const t = performance.now();
  fn();
  const wall = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

async function throughput() {
  const buffer = corpus(Number(opts.mb) * 1e6);
  const mb = buffer.length / 1e6;
  const base = { wall: [], cpu: [] };
  const ours = { wall: [], cpu: [] };
  baseline(buffer);
  digest(buffer); // warm-up of both paths
  for (let run = 0; run < Number(opts.runs); run++) {
    for (const [list, fn] of [[base, baseline], [ours, digest]]) {
      const { wall, cpu } = timed(() => fn(buffer));
      list.wall.push(mb / (wall / 1000));
      list.cpu.push(mb / (cpu / 1000));
    }
  }
  return {
    mb,
    base: median(base.wall),
    ours: median(ours.wall),
    ratio: median(ours.wall) / median(base.wall),
    baseCpu: median(base.cpu),
    oursCpu: median(ours.cpu),
    cpuRatio: median(ours.cpu) / median(base.cpu),
  };
}

async function memory() {
  const sandbox = spawn(process.execPath, [new URL('bench/big-sandbox.mjs', root).pathname, opts.copies], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const info = JSON.parse(await new Promise((resolve) => createInterface({ input: sandbox.stdout }).once('line', resolve)));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...(process.env.SERVER_NODE_ARGS ? process.env.SERVER_NODE_ARGS.split(' ') : []), opts.cli || new URL('dist/cli.js', root).pathname],
      // Replay pacing off (the default paces at PostHog's free-plan 12/min: the 81 requests would
      // outlast the call's time budget and the figure would be of a partial read); the call's
      // time budget raised so a loaded machine still reads the whole recording.
      env: { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: info.apiKey, POSTHOG_HOST: info.url, POSTHOG_TIMEOUT_MS: '120000', POSTHOG_REPLAY_RATE_LIMITS: 'off', POSTHOG_CALL_TIMEOUT_MS: '600000', ...(process.env.SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SERVER_NODE_OPTIONS } : {}) },
      stderr: process.env.SERVER_NODE_OPTIONS ? 'inherit' : 'ignore',
    });
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(transport);
    const hwm = () => Number(readFileSync(`/proc/${transport.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)[1]) / 1024;
    const idle = hwm();
    const t = performance.now();
    const result = await client.callTool({ name: 'session-recording-summary', arguments: { project_id: String(info.projectId), id: info.recordingId } }, undefined, { timeout: 600_000 });
    const seconds = (performance.now() - t) / 1000;
    const peak = hwm();
    // The server's CPU time (user + system, all its threads) for start-up and the call: steadier than wall-clock under load.
    const stat = readFileSync(`/proc/${transport.pid}/stat`, 'utf8').slice(readFileSync(`/proc/${transport.pid}/stat`, 'utf8').lastIndexOf(')') + 2).split(' ');
    const cpuSeconds = (Number(stat[11]) + Number(stat[12])) / 100;
    await client.close();
    if (result.isError) throw new Error(`summary failed: ${result.content[0]?.text}`);
    if (result.structuredContent.partial) throw new Error(`the summary read only part of the recording: ${result.structuredContent.partial.message}`);
    const counts = result.structuredContent.counts;
    return { idle, peak, seconds, cpuSeconds, events: counts.events, textChars: result.content[0].text.length, mb: info.bytes / 1e6, blocks: info.blocks };
  } finally {
    sandbox.kill('SIGTERM');
  }
}

console.log(`Recording digest benchmark — node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? 'cpu'}`);
if (!opts['skip-throughput']) {
  const t = await throughput();
  console.log(`Throughput on ${t.mb.toFixed(1)} MB of recorded JSONL (median of ${opts.runs} alternating runs):`);
  console.log(`  baseline (split lines + JSON.parse): ${t.base.toFixed(1)} MB/s`);
  console.log(`  digest (stream, decode, digest, render): ${t.ours.toFixed(1)} MB/s`);
  console.log(`  ratio: ${t.ratio.toFixed(2)}x the baseline (target ≥ 0.8x)`);
  console.log(`  per CPU second (user + system; steadier than wall-clock on a shared machine): baseline ${t.baseCpu.toFixed(1)} MB/s, digest ${t.oursCpu.toFixed(1)} MB/s, ratio ${t.cpuRatio.toFixed(2)}x`);
}
if (!opts['skip-memory']) {
  const copies = Number(opts.copies);
  const runs = Math.max(1, Number(opts['memory-runs']));
  const peaks = [];
  for (let run = 0; run < runs; run++) {
    const load = loadavg()[0].toFixed(2);
    const m = await memory();
    peaks.push(m.peak);
    if (run === 0) console.log(`Peak memory digesting a synthetic recording (${copies} copies of the recorded checkout: ${m.mb.toFixed(0)} MB of JSONL in ${m.blocks} blocks, ${m.events} events) served over HTTP by the sandbox:`);
    console.log(`  server peak RSS (VmHWM): ${m.peak.toFixed(1)} MB (idle before the call: ${m.idle.toFixed(1)} MB; target < 120 MB); load ${load} → ${loadavg()[0].toFixed(2)}`);
    console.log(`  call took ${m.seconds.toFixed(1)} s, ${(m.mb / m.seconds).toFixed(1)} MB/s end to end; server CPU time ${m.cpuSeconds.toFixed(1)} s; digest text ${m.textChars} chars`);
  }
  if (runs > 1) console.log(`  median peak of ${runs} runs: ${median(peaks).toFixed(1)} MB (${peaks.map((p) => p.toFixed(1)).join(', ')})`);
}
