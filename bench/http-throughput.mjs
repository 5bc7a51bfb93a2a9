#!/usr/bin/env node
// HTTP throughput (issue 4): tool calls per second and p50/p99 latency over Streamable HTTP at
// concurrency 1, 16 and 64, for our server and, in the same run, a bare MCP SDK stateless server
// with a no-op tool (bench/http-bare-server.mjs). Needs `npm run build`; `npm run bench:http`.
//
//   node bench/http-throughput.mjs [--seconds 0.5] [--rounds 8] [--warmup 1] [--concurrency 1,16,64]
//                                  [--targets bare,bare+,ours,ours-0,sandbox]
//
// Every server runs in its own process on 127.0.0.1; this process only generates load (undici,
// one keep-alive connection per concurrent caller, each sending its next call when the last is
// answered). Each target is warmed up, then measured in short slices taken in turn, round after
// round (the order rotated), so bursts of other load on the machine fall on every target alike;
// calls/s is the median over the slices. Targets:
//   bare      the bare SDK server, tools/call "noop" (the baseline of every ratio)
//   bare+     the same with one shared JSON Schema validator, as ours has (see the bare server)
//   ours      our server (per-user key mode), tools/call session-recording-get: one upstream GET
//             to the sandbox (scripts/sandbox.mjs, its own process) per call
//   ours-0    our server, tools/call session-recording-get with an id the schema rejects: the
//             same HTTP, auth, Host and MCP work with no upstream request (an isError result)
//   sandbox   the sandbox alone answering that upstream GET, for scale
// Every answer is checked (status, JSON-RPC result, isError as expected); failures are counted
// and reported, never timed.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Pool } from 'undici';
import { DEMO } from '../dist/sandbox/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '0.5' },
    rounds: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '1,16,64' },
    targets: { type: 'string', default: 'bare,bare+,ours,ours-0,sandbox' },
  },
});
const measureMs = Number(values.seconds) * 1000;
const warmupMs = Number(values.warmup) * 1000;
const rounds = Number(values.rounds);
const levels = values.concurrency.split(',').map(Number);
const USER_KEY = 'phx_bench_user_key_0123456789';
const PROJECT = DEMO.mainProjectId;
const RECORDING = DEMO.recordingIds.checkoutFailure;

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
/** CPU seconds (user + system) a process has used so far, from /proc: unaffected by other load. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

const children = [];
function start(name, args, env, pattern) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const match = pattern.exec(output);
      if (match) resolve({ url: match[1], pid: child.pid });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${name} exited ${code}: ${output}`)));
  });
}
const stopAll = () => children.forEach((c) => c.kill('SIGTERM'));
process.on('exit', stopAll);

const callBody = (name, args) => (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${JSON.stringify(args)}}}`;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/** A JSON-RPC tools/call answer with a result whose isError is as expected. */
const toolAnswer = (expectError) => (status, text) => {
  if (status !== 200) return false;
  const message = JSON.parse(text);
  return message.result !== undefined && Boolean(message.result.isError) === expectError;
};

async function main() {
  const sandbox = await start('sandbox', ['scripts/sandbox.mjs', '--any-key'], {}, /sandbox: (http:\S+)/);
  const bare = await start('bare', ['bench/http-bare-server.mjs'], {}, /bare: (http:\S+)/);
  const barePlus = await start('bare+', ['bench/http-bare-server.mjs', '--shared-validator'], {}, /bare: (http:\S+)/);
  const ours = await start('ours', ['dist/cli.js', '--transport', 'http', '--port', '0'], { POSTHOG_HOST: sandbox.url }, /Streamable HTTP at (http:\S+\/mcp)/);
  const [sandboxUrl, bareUrl, barePlusUrl, oursUrl] = [sandbox.url, bare.url, barePlus.url, ours.url];

  const allTargets = [
    { name: 'bare', url: bareUrl, pids: [bare.pid], headers: MCP_HEADERS, body: callBody('noop', {}), check: toolAnswer(false) },
    { name: 'bare+', url: barePlusUrl, pids: [barePlus.pid], headers: MCP_HEADERS, body: callBody('noop', {}), check: toolAnswer(false) },
    {
      name: 'ours',
      url: oursUrl,
      pids: [ours.pid, sandbox.pid],
      headers: { ...MCP_HEADERS, authorization: `Bearer ${USER_KEY}` },
      body: callBody('session-recording-get', { project_id: String(PROJECT), id: RECORDING }),
      check: toolAnswer(false),
    },
    {
      name: 'ours-0',
      url: oursUrl,
      pids: [ours.pid],
      headers: { ...MCP_HEADERS, authorization: `Bearer ${USER_KEY}` },
      body: callBody('session-recording-get', { project_id: String(PROJECT), id: 'not a valid id!' }),
      check: toolAnswer(true),
    },
    {
      name: 'sandbox',
      pids: [sandbox.pid],
      url: `${sandboxUrl}/api/projects/${PROJECT}/session_recordings/${RECORDING}/`,
      method: 'GET',
      headers: { authorization: `Bearer ${USER_KEY}`, accept: 'application/json' },
      check: (status) => status === 200,
    },
  ];
  const wanted = new Set(['bare', 'bare+', ...values.targets.split(',')]);
  const targets = allTargets.filter((t) => wanted.has(t.name));
  await sanityCheck(bareUrl, 'noop', {}, {});
  await sanityCheck(barePlusUrl, 'noop', {}, {});
  await sanityCheck(oursUrl, 'session-recording-get', { project_id: String(PROJECT), id: RECORDING }, { authorization: `Bearer ${USER_KEY}` });

  const results = new Map(); // `${target}@${c}` → { throughputs, latencies, calls, cpu, errors, firstError }
  for (const concurrency of levels) {
    const loaders = targets.map((target) => loader(target, concurrency));
    for (const l of loaders) await l.slice(warmupMs);
    for (let round = 0; round < rounds; round++) {
      // Short slices, the order rotated each round: a burst of outside load falls on all alike.
      for (let i = 0; i < loaders.length; i++) {
        const l = loaders[(i + round) % loaders.length];
        const cpuBefore = l.target.pids.map(cpuSeconds);
        const run = await l.slice(measureMs);
        const key = `${l.target.name}@${concurrency}`;
        const entry = results.get(key) ?? { throughputs: [], latencies: [], calls: 0, cpu: [], errors: 0, firstError: undefined };
        entry.throughputs.push(run.throughput);
        entry.calls += run.latencies.length;
        l.target.pids.forEach((pid, j) => (entry.cpu[j] = (entry.cpu[j] ?? 0) + cpuSeconds(pid) - cpuBefore[j]));
        entry.latencies.push(...run.latencies);
        entry.errors += run.errors;
        entry.firstError ??= run.firstError;
        results.set(key, entry);
      }
    }
    await Promise.all(loaders.map((l) => l.close()));
  }
  report(results, targets);
}

async function sanityCheck(url, tool, args, headers) {
  const client = new Client({ name: 'bench-sanity', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  const result = await client.callTool({ name: tool, arguments: args });
  await client.close();
  if (result.isError) throw new Error(`sanity check of ${url} ${tool} failed: ${JSON.stringify(result.content)}`);
}

/** `concurrency` callers on their own keep-alive connections, each calling again when answered. */
function loader(target, concurrency) {
  const url = new URL(target.url);
  const pool = new Pool(url.origin, { connections: concurrency, pipelining: 1 });
  const path = url.pathname + url.search;
  let id = 0;
  const once = async () => {
    const started = performance.now();
    const response = await pool.request({ path, method: target.method ?? 'POST', headers: target.headers, body: target.body?.(++id) });
    const text = await response.body.text();
    return { ok: target.check(response.statusCode, text), ms: performance.now() - started, sample: `${response.statusCode} ${text.slice(0, 300)}` };
  };
  const slice = async (ms) => {
    const latencies = [];
    let errors = 0;
    let firstError;
    const started = performance.now();
    const deadline = started + ms;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) {
          try {
            const r = await once();
            if (r.ok) latencies.push(r.ms);
            else {
              errors++;
              firstError ??= r.sample;
            }
          } catch (error) {
            errors++;
            firstError ??= error instanceof Error ? error.message : String(error);
          }
        }
      }),
    );
    return { throughput: latencies.length / ((performance.now() - started) / 1000), latencies, errors, firstError };
  };
  return { target, slice, close: () => pool.close() };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function report(results, targets) {
  const cpu = cpus();
  console.log(`\nHTTP throughput: ${new Date().toISOString()}, node ${process.version}, ${cpu.length} x ${cpu[0]?.model.trim()}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`${rounds} slices of ${measureMs / 1000} s per target and concurrency, taken in turn (after ${warmupMs / 1000} s warm-up each); calls/s = median of the slices; latency and CPU over all slices' calls\n`);
  console.log('| target | concurrency | calls/s | p50 ms | p99 ms | vs bare | vs bare+ | server CPU µs/call | upstream CPU µs/call | errors |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const concurrency of levels) {
    const bare = median(results.get(`bare@${concurrency}`).throughputs);
    const barePlus = median(results.get(`bare+@${concurrency}`).throughputs);
    for (const target of targets) {
      const r = results.get(`${target.name}@${concurrency}`);
      const sorted = r.latencies.sort((a, b) => a - b);
      const tput = median(r.throughputs);
      const perCall = r.cpu.map((seconds) => ((seconds * 1e6) / r.calls).toFixed(0));
      console.log(
        `| ${target.name} | ${concurrency} | ${tput.toFixed(0)} | ${percentile(sorted, 50).toFixed(2)} | ${percentile(sorted, 99).toFixed(2)} | ${(tput / bare).toFixed(2)}x | ${(tput / barePlus).toFixed(2)}x | ${perCall[0]} | ${perCall[1] ?? '–'} | ${r.errors} |`,
      );
    }
  }
  const failed = [...results.entries()].filter(([, r]) => r.errors > 0);
  for (const [key, r] of failed) console.log(`errors in ${key}: ${r.errors}, first: ${r.firstError}`);
  process.exitCode = failed.length > 0 ? 1 : 0;
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(stopAll);
