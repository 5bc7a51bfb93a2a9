// Issue 10 items 1-5 (and the Retry-After of item 9): the built server against the sandbox's
// hostile mode, measured as a user would meet it (the CLI over stdio or HTTP). Run it for the
// current build, and with --dist <dir> for another build (e.g. the commit before the fixes):
//   npm run build && node bench/hostile.mjs
//   node bench/hostile.mjs --dist /tmp/before/dist        # the same against an older build
// The hostile sandbox always comes from this checkout's dist/. Loopback only; every loop bounded.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startSandbox, DEMO } from '../dist/sandbox/index.js';

const { values } = parseArgs({ options: { dist: { type: 'string', default: 'dist' }, only: { type: 'string' } } });
const CLI = resolve(values.dist, 'cli.js');
const P = String(DEMO.mainProjectId);
const REC = DEMO.recordingIds.checkoutFailure;
const results = {};

const peakRss = (pid) => {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
};

async function stdioServer(sandbox, env = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI],
    env: { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: sandbox.apiKey, POSTHOG_HOST: sandbox.url, POSTHOG_REPLAY_RATE_LIMITS: 'off', ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-hostile', version: '1' });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

const textOf = (r) => (r.content ?? []).map((c) => c.text ?? '').join('\n');
const call = (client, name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });

async function bodies() {
  // 1. An endless answer: peak RSS of the server process until the call ends (timeout 3 s).
  {
    const sandbox = await startSandbox();
    sandbox.setHostile({ kind: 'endless' });
    const s = await stdioServer(sandbox, { POSTHOG_TIMEOUT_MS: '3000' });
    const before = peakRss(s.pid);
    const started = Date.now();
    const r = await call(s.client, 'projects-list', { limit: 5 });
    results.endless = { idle_rss_mb: before, peak_rss_mb: peakRss(s.pid), ms: Date.now() - started, isError: !!r.isError, text: textOf(r).slice(0, 160) };
    await s.close();
    await sandbox.close();
  }
  // 2. 50,000 items (~51 MB) for projects-list {limit: 5}; and 3,000 items (~2.8 MB, under the cap).
  for (const items of [50_000, 3_000]) {
    const sandbox = await startSandbox();
    sandbox.setHostile({ kind: 'oversized', items });
    const s = await stdioServer(sandbox);
    try {
      const r = await call(s.client, 'projects-list', { limit: 5 });
      results[`list_${items}`] = { result_bytes: JSON.stringify(r).length, items_returned: r.structuredContent?.results?.length ?? 0, peak_rss_mb: peakRss(s.pid), isError: !!r.isError };
    } catch (err) {
      results[`list_${items}`] = { failed: String(err?.message ?? err), peak_rss_mb: peakRss(s.pid) };
    }
    await s.close().catch(() => {});
    await sandbox.close();
  }
}

async function falseSuccess() {
  const modes = [
    ['302', { kind: 'redirect' }],
    ['204', { kind: 'no-content', status: 204 }],
    ['304', { kind: 'no-content', status: 304 }],
    ['html200', { kind: 'html' }],
  ];
  const calls = [
    ['project-delete', { id: DEMO.mainProjectId }, 'DELETE'],
    ['session-recording-delete', { project_id: P, id: REC }, 'DELETE'],
    ['project-get', { id: DEMO.mainProjectId }],
    ['session-recording-get', { project_id: P, id: REC }],
    ['project-create', { name: 'bench' }],
    ['project-update', { id: DEMO.mainProjectId, name: 'bench' }],
    ['session-recording-snapshots', { project_id: P, id: REC }],
  ];
  const out = {};
  const sandbox = await startSandbox();
  const s = await stdioServer(sandbox);
  for (const [name, mode] of modes) {
    let successes = 0;
    const which = [];
    for (const [tool, args, method] of calls) {
      // 204 is PostHog's real answer to a DELETE: there it is success, and not counted.
      if (name === '204' && method === 'DELETE') continue;
      sandbox.reset();
      sandbox.setHostile({ ...mode, ...(method ? { method } : {}) });
      const r = await call(s.client, tool, args);
      if (!r.isError) {
        successes++;
        which.push(tool);
      }
    }
    out[name] = { reported_success: successes, tools: which };
  }
  await s.close();
  await sandbox.close();
  results.false_success = out;
}

async function redaction() {
  const key = 'phx_BenchKey0123456789abcdefGHIJKLmnopqrstuvwx';
  const sandbox = await startSandbox({ apiKey: key });
  const s = await stdioServer(sandbox);
  const out = {};
  for (const form of ['plain', 'json-escape', 'url', 'base64', 'prefix', 'html-entity']) {
    let leaked = 0;
    for (const status of [400, 200]) {
      sandbox.setHostile({ kind: 'echo-key', form, status });
      const r = JSON.stringify(await call(s.client, 'project-get', { id: DEMO.mainProjectId }));
      const decoded = r
        .replace(/\\\\?u([0-9a-fA-F]{4})/g, (_, h) => String.fromCharCode(parseInt(h, 16)))
        .replace(/%([0-9a-fA-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)))
        .replace(/&#(\d+);/g, (_, d) => String.fromCharCode(Number(d)));
      const views = [r, decoded, ...(decoded.match(/[A-Za-z0-9+/]{12,}={0,2}/g) ?? []).map((b) => Buffer.from(b, 'base64').toString('latin1'))];
      let longest = 0;
      for (let len = key.length; len >= 8 && longest === 0; len--) {
        for (let i = 0; i + len <= key.length; i++) if (views.some((v) => v.includes(key.slice(i, i + len)))) longest = len;
      }
      if (longest > 0) leaked = Math.max(leaked, longest);
    }
    out[form] = { longest_key_run_shown: leaked };
  }
  await s.close();
  await sandbox.close();
  results.redaction = out;
}

async function fanOut() {
  // 3,000 sources whose content is empty: requests for one snapshots call.
  {
    const sandbox = await startSandbox();
    sandbox.setHostile({ kind: 'many-sources', count: 3_000 });
    const s = await stdioServer(sandbox);
    const started = Date.now();
    const r = await call(s.client, 'session-recording-snapshots', { project_id: P, id: REC });
    results.sources_3000 = { upstream_requests: sandbox.requests.length, ms: Date.now() - started, partial: r.structuredContent?.partial?.reason ?? null, isError: !!r.isError };
    await s.close();
    await sandbox.close();
  }
  // 30 stalling sources, request timeout 500 ms (scaled down from 30 s), call wall clock 5 s.
  {
    const sandbox = await startSandbox();
    sandbox.setHostile({ kind: 'many-sources', count: 30, stall: true });
    const s = await stdioServer(sandbox, { POSTHOG_TIMEOUT_MS: '500', POSTHOG_CALL_TIMEOUT_MS: '5000' });
    const started = Date.now();
    const r = await call(s.client, 'session-recording-summary', { project_id: P, id: REC });
    results.stalling_30 = { ms: Date.now() - started, upstream_requests: sandbox.requests.length, partial: r.structuredContent?.partial?.reason ?? null, isError: !!r.isError };
    await s.close();
    await sandbox.close();
  }
}

function rawCall(url, bearer, id, name = 'projects-list') {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
  const started = Date.now();
  return new Promise((done) => {
    const req = httpRequest(url, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      res.resume();
      res.on('end', () => done({ status: res.statusCode, ms: Date.now() - started }));
      res.on('error', (e) => done({ error: e.message, ms: Date.now() - started }));
    });
    req.on('error', (e) => done({ error: e.message, ms: Date.now() - started }));
    req.end(body);
  });
}

async function httpServer(sandbox, env = {}) {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, [CLI, '--transport', 'http', '--port', String(port)], {
    env: { PATH: process.env.PATH ?? '', POSTHOG_HOST: sandbox.url, POSTHOG_REPLAY_RATE_LIMITS: 'off', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('server did not start')), 15_000);
    child.stderr.on('data', (d) => {
      if (/Streamable HTTP at/.test(String(d))) {
        clearTimeout(timer);
        ok();
      }
    });
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

async function neighbours() {
  const SLOW = 'phx_bench_slow_user_000000000000';
  const QUICK = 'phx_bench_quick_user_11111111111';
  // Fairness: the quick user's call while the slow user has 16 calls of 3 s in flight.
  {
    const sandbox = await startSandbox({ acceptAnyKey: true });
    const server = await httpServer(sandbox);
    const alone = await rawCall(server.url, QUICK, 1);
    const alone2 = await rawCall(server.url, QUICK, 2);
    sandbox.setHostile({ kind: 'slow-key', key: SLOW, delayMs: 3_000 });
    const slow = Array.from({ length: 16 }, (_, i) => rawCall(server.url, SLOW, 10 + i));
    await new Promise((r) => setTimeout(r, 500));
    const contended = await rawCall(server.url, QUICK, 3);
    await Promise.all(slow);
    results.fairness = { quick_alone_ms: alone2.ms, quick_while_other_user_busy_ms: contended.ms, first_call_ms: alone.ms };
    server.child.kill('SIGKILL');
    await sandbox.close();
  }
  // Shutdown: 64 calls in flight (each upstream answer takes 20 s), SIGTERM with a 1 s grace.
  {
    const sandbox = await startSandbox({ acceptAnyKey: true });
    const server = await httpServer(sandbox, { MCP_SHUTDOWN_TIMEOUT_MS: '1000', MCP_MAX_CONCURRENCY_PER_USER: '64' });
    sandbox.injectFault({ path: '/api/projects', delayMs: 20_000, times: Infinity });
    const calls = Array.from({ length: 64 }, (_, i) => rawCall(server.url, i % 2 ? SLOW : QUICK, 100 + i));
    await new Promise((r) => setTimeout(r, 1_500));
    server.child.kill('SIGTERM');
    const answers = await Promise.all(calls);
    results.shutdown = {
      calls: 64,
      answered: answers.filter((a) => a.status !== undefined).length,
      connection_errors: answers.filter((a) => a.error).length,
    };
    await new Promise((r) => setTimeout(r, 500));
    server.child.kill('SIGKILL');
    await sandbox.close();
  }
}

async function retryAfter() {
  const sandbox = await startSandbox();
  sandbox.injectFault({ path: '/api/projects', status: 503, times: 10, headers: { 'retry-after': '9'.repeat(400) } });
  const s = await stdioServer(sandbox);
  const r = await call(s.client, 'projects-list', {});
  results.retry_after_400_digits = textOf(r).replace(/^.*?\. /, '').slice(0, 160);
  await s.close();
  await sandbox.close();
}

const parts = { bodies, falseSuccess, redaction, fanOut, neighbours, retryAfter };
for (const [name, part] of Object.entries(parts)) {
  if (values.only && !values.only.split(',').includes(name)) continue;
  try {
    await part();
  } catch (err) {
    results[`${name}_failed`] = String(err?.message ?? err);
  }
}
process.stdout.write(`${JSON.stringify({ dist: values.dist, results }, null, 2)}\n`);
process.exit(0);
