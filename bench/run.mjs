#!/usr/bin/env node
// `npm run bench`: performance and token economy of posthog-replay-mcp (issue 5), against the
// floor (a bare SDK server) and against PostHog's agent toolkit, all in this one run.
// Run after `npm run build` (the npm script does). Prints every figure on stdout; progress goes
// to stderr. Nothing here is a test: figures are medians, ratios and sizes, never assertions.
//
//   node bench/run.mjs [--runs 30] [--calls 1000] [--json figures.json] [--only cold,calls]

import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Pool } from 'undici';
import { coldStart } from './lib/cold-start.mjs';
import { prepareInstallRoutes } from './lib/install-route.mjs';
import { cpuTime } from './lib/cpu.mjs';
import { ensureInstalled, loadTokenizer } from './lib/deps.mjs';
import { interleave, median, percent, ratio, spread } from './lib/stats.mjs';

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH);
const { values: flags } = parseArgs({
  options: { runs: { type: 'string', default: '30' }, calls: { type: 'string', default: '1000' }, json: { type: 'string' }, only: { type: 'string', default: 'cold,calls' } },
});
const ONLY = new Set(flags.only.split(','));
const RUNS = Math.max(3, Number(flags.runs));
const CALLS = Math.max(10, Number(flags.calls));

const log = (message) => process.stderr.write(`bench: ${message}\n`);
const print = (line = '') => process.stdout.write(`${line}\n`);
const bytes = (text) => Buffer.byteLength(text);
const figures = {};

const tokenizer = await loadTokenizer(BENCH, log);
const peerInstall = ensureInstalled(join(BENCH, 'peer'), '@posthog/agent-toolkit/package.json', log);

const { startSandbox, DEMO } = await import(pathToFileURL(join(ROOT, 'dist/sandbox/index.js')).href);
// Item 4 lists 20 recordings: the main project's demo recordings, topped up with copies.
const demoInMain = DEMO.recordings.filter((r) => r.projectId === DEMO.mainProjectId).length;
// A key of the real form (phx_ and random characters): the sandbox's demo key shares a run of 14
// characters with its projects' tokens, so with it every project answer holds "the key" and takes
// the redactor's slow path (a walk of the answer), which no real key would.
const BENCH_KEY = `phx_${randomBytes(48).toString('base64url').replace(/[-_]/g, '').slice(0, 40)}`;
const sandbox = await startSandbox({ extraRecordings: Math.max(0, 20 - demoInMain), apiKey: BENCH_KEY });
const node = process.execPath;
const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
const upstreamEnv = { ...baseEnv, POSTHOG_PERSONAL_API_KEY: sandbox.apiKey, POSTHOG_HOST: sandbox.url };
// The launch routes of the installed package (mcp.json's npx entry, its bin), and the floor bundled.
const routes = ONLY.has('cold') ? await prepareInstallRoutes(ROOT, BENCH, log) : { ok: false, reason: 'cold start not measured' };
const SERVERS = {
  floor: { label: 'floor: bare SDK stdio server, 1 tool', command: node, args: [join(BENCH, 'floor/server.mjs')], env: upstreamEnv },
  ours: { label: 'posthog-replay-mcp (key + POSTHOG_HOST)', command: node, args: [join(ROOT, 'dist/cli.js')], env: upstreamEnv },
  oursSandbox: { label: 'posthog-replay-mcp --sandbox', command: node, args: [join(ROOT, 'dist/cli.js'), '--sandbox'], env: baseEnv },
  ...(routes.ok
    ? {
        // As mcp.json's default entry starts it: npx finds the package installed in its working folder.
        npx: { label: 'mcp.json route: npx -y posthog-replay-mcp', command: 'npx', args: ['-y', 'posthog-replay-mcp'], env: upstreamEnv, cwd: routes.app },
        bin: { label: 'the installed bin, started directly', command: routes.bin, args: [], env: upstreamEnv, cwd: routes.app },
        floorBundled: { label: 'floor bundled with esbuild (for scale)', command: node, args: [routes.floorBundled], env: upstreamEnv },
      }
    : {}),
  ...(peerInstall.ok ? { peer: { label: 'PostHog agent toolkit, wrapped', command: node, args: [join(BENCH, 'peer/server.mjs')], env: upstreamEnv } } : {}),
};

print('# posthog-replay-mcp benchmark (issue 5)');
print(`node ${process.version} · ${os.cpus().length}× ${os.cpus()[0]?.model ?? '?'} · ${os.platform()} ${os.release()} · load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
print(`tokens: ${tokenizer.method}`);
if (!peerInstall.ok) print(`peer: not measured: ${peerInstall.reason}`);
if (ONLY.has('cold') && !routes.ok) print(`npx route: not measured: ${routes.reason}`);

try {
  // Sections 1 and 3 come from the cold starts (3 reads their tools/list answers); 2, 4 and 5 from connected clients.
  const lists = ONLY.has('cold') ? await coldStartSection() : undefined;
  if (lists) definitionSection(lists);
  if (ONLY.has('calls')) await callSections(lists);
} finally {
  await sandbox.close();
  if (routes.ok) routes.close();
}
if (flags.json) writeFileSync(flags.json, `${JSON.stringify(figures, null, 2)}\n`);

// ---------------------------------------------------------------------------------------------

async function coldStartSection() {
  const names = Object.keys(SERVERS);
  log(`cold start: ${RUNS} rounds × ${names.length} servers, interleaved`);
  for (const name of names) await coldStart(SERVERS[name]); // one unmeasured start each: file cache, JIT of nothing
  const lines = {};
  const cpu = names.map(() => []);
  const samples = await interleave(
    RUNS,
    names.map((name, i) => async () => {
      const { ms, cpuMs, line } = await coldStart(SERVERS[name]);
      lines[name] = line;
      if (cpuMs !== undefined) cpu[i].push(cpuMs);
      return ms;
    }),
  );
  const floor = median(samples[0]);
  const floorCpu = median(cpu[0]);
  print();
  print('## 1. Cold start: spawn → initialize → tools/list answered (stdio)');
  print('wall clock, as the client waits:');
  figures.coldStart = {};
  names.forEach((name, i) => {
    const m = median(samples[i]);
    figures.coldStart[name] = { medianMs: m, ratioToFloor: m / floor, cpuMedianMs: median(cpu[i]), cpuRatioToFloor: median(cpu[i]) / floorCpu };
    print(`  ${SERVERS[name].label.padEnd(42)} ${spread(samples[i], 'ms')}${i === 0 ? '' : `  → ${ratio(m, floor)} floor`}`);
  });
  if (cpu[0].length) {
    print('CPU time of the server process (for npx, of its process tree: the launcher and the server) until it answered (all threads; steadier than wall clock on a shared machine):');
    names.forEach((name, i) => print(`  ${SERVERS[name].label.padEnd(42)} ${spread(cpu[i], 'ms')}${i === 0 ? '' : `  → ${ratio(median(cpu[i]), floorCpu)} floor`}`));
  }
  print(`target: posthog-replay-mcp ≤ 1.00x floor → ${ratio(median(samples[1]), floor)} wall clock${cpu[0].length ? `, ${ratio(median(cpu[1]), floorCpu)} CPU time` : ''}`);
  if (figures.coldStart.npx) {
    const { npx, bin } = figures.coldStart;
    figures.coldStart.launcherMs = npx.medianMs - bin.medianMs;
    print(`the launcher's own cost (npx − the bin it starts, medians): ${(npx.medianMs - bin.medianMs).toFixed(1)} ms wall clock, ${(npx.cpuMedianMs - bin.cpuMedianMs).toFixed(1)} ms CPU (npx's CPU counts its whole process tree)`);
  }
  return Object.fromEntries(Object.entries(lines).map(([name, line]) => [name, JSON.parse(line).result.tools]));
}

function definitionSection(lists) {
  print();
  print('## 3. Definition size: tools/list (compact JSON as sent; tokens: see header)');
  const tools = lists.ours;
  const rows = tools.map((tool) => {
    const json = JSON.stringify(tool);
    const enums = findLargeEnums(tool);
    const enumBytes = enums.reduce((sum, values) => sum + bytes(`"enum":${JSON.stringify(values)},`), 0);
    const enumTokens = enums.reduce((sum, values) => sum + tokenizer.count(`"enum":${JSON.stringify(values)},`), 0);
    return { name: tool.name, bytes: bytes(json), tokens: tokenizer.count(json), enumBytes, enumTokens, outside: bytes(json) - enumBytes, outsideTokens: tokenizer.count(json) - enumTokens };
  });
  print(`${'tool'.padEnd(36)} ${'bytes'.padStart(6)} ${'tokens'.padStart(6)} ${'enum B'.padStart(7)} ${'enum tk'.padStart(7)} ${'other B'.padStart(7)} ${'other tk'.padStart(8)}  undescribed fields`);
  for (const r of rows) {
    const bare = undescribed(tools.find((t) => t.name === r.name).inputSchema);
    print(`${r.name.padEnd(36)} ${String(r.bytes).padStart(6)} ${String(r.tokens).padStart(6)} ${String(r.enumBytes).padStart(7)} ${String(r.enumTokens).padStart(7)} ${String(r.outside).padStart(7)} ${String(r.outsideTokens).padStart(8)}  ${bare.length ? bare.join(', ') : 'none'}`);
  }
  const sum = (key) => rows.reduce((s, r) => s + r[key], 0);
  const total = (list) => ({ count: list.length, bytes: bytes(JSON.stringify({ tools: list })), tokens: tokenizer.count(JSON.stringify({ tools: list })) });
  const ours = total(tools);
  print(`${'total (tools/list result)'.padEnd(36)} ${String(ours.bytes).padStart(6)} ${String(ours.tokens).padStart(6)} ${String(sum('enumBytes')).padStart(7)} ${String(sum('enumTokens')).padStart(7)} ${String(ours.bytes - sum('enumBytes')).padStart(7)} ${String(ours.tokens - sum('enumTokens')).padStart(8)}`);
  const bare = tools.flatMap((t) => undescribed(t.inputSchema).map((f) => `${t.name}.${f}`));
  const largest = Math.max(...tools.map((t) => JSON.stringify(t.inputSchema).length));
  print(`target (issue 30): tools/list ≤ 48,000 B with every input field described: ${ours.bytes <= 48_000 && bare.length === 0 ? 'met' : 'MISSED'} (${ours.bytes} B, ${bare.length ? `undescribed: ${bare.join(', ')}` : 'every field described'}); largest input schema ${largest} characters (< 14,000)`);

  const timezones = rows.find((r) => r.enumBytes > 0) ? findLargeEnums(tools.find((t) => findLargeEnums(t).length))[0] : undefined;
  if (timezones) {
    const asEnum = `{"type":"string","enum":${JSON.stringify(timezones)}}`;
    const asPattern = JSON.stringify({ type: 'string', pattern: patternOf(timezones) });
    print(`timezone (${timezones.length} values), encodings of the same set: enum ${bytes(asEnum)} B / ${tokenizer.count(asEnum)} tk (shipped); regex trie ${bytes(asPattern)} B / ${tokenizer.count(asPattern)} tk (not shipped: a model reads the list, not the regex)`);
    figures.timezone = { values: timezones.length, enumBytes: bytes(asEnum), enumTokens: tokenizer.count(asEnum), patternBytes: bytes(asPattern), patternTokens: tokenizer.count(asPattern) };
  }
  figures.definitions = { perTool: rows, total: ours, floor: total(lists.floor) };
  print(`floor's tools/list: ${total(lists.floor).bytes} B for 1 tool`);
  if (lists.peer) {
    const peer = total(lists.peer);
    figures.definitions.peer = peer;
    print(`peer's tools/list: ${peer.count} tools, ${peer.bytes} B / ${peer.tokens} tk (ours: ${ours.count} tools, ${ours.bytes} B / ${ours.tokens} tk = ${percent(ours.bytes, peer.bytes)} of its bytes)`);
  }
}

async function callSections(lists) {
  const ours = await connect(SERVERS.ours);
  const floor = await connect(SERVERS.floor);
  const peer = SERVERS.peer ? await connect(SERVERS.peer) : undefined;
  const pool = new Pool(sandbox.url);
  try {
    await perCallSection(ours, floor, pool);
    await resultSection(ours, pool);
    if (peer && lists) await peerSection(ours, peer, pool);
  } finally {
    await Promise.allSettled([ours.close(), floor.close(), peer?.close(), pool.close()]);
  }
}

async function perCallSection(ours, floor, pool) {
  const projectId = String(DEMO.mainProjectId);
  const id = DEMO.recordings.find((r) => r.projectId === DEMO.mainProjectId).id;
  // Each case: our tool, and the exact request it makes, which the floor and the direct GET then make too.
  const cases = [
    { name: 'session-recording-get', args: { project_id: projectId, id }, check: (r) => r.structuredContent?.recording?.id === id, match: (r) => r.method === 'GET' && r.path.includes(id), shown: (path) => path.replace(id, '{id}') },
    // The issue's own case: a projects read.
    { name: 'project-get', args: { id: DEMO.mainProjectId }, check: (r) => r.structuredContent?.project?.id === DEMO.mainProjectId, match: (r) => r.method === 'GET' && r.path.replace(/\/$/, '') === `/api/projects/${projectId}`, shown: (path) => path },
  ];
  print();
  print('## 2. Per call over stdio against the sandbox (SDK Client, same for both; the floor makes the same GET and returns the body as text)');
  figures.perCall = {};
  for (const c of cases) {
    const first = await ours.callTool({ name: c.name, arguments: c.args });
    if (first.isError || !c.check(first)) throw new Error(`${c.name} failed: ${JSON.stringify(first).slice(0, 300)}`);
    const path = lastRequest(c.match).url;
    const viaFloor = await floor.callTool({ name: 'get', arguments: { path } });
    if (viaFloor.isError || typeof JSON.parse(viaFloor.content[0].text) !== 'object') throw new Error(`floor GET ${path} failed`);

    const direct = async () => {
      const response = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${sandbox.apiKey}` } });
      return response.body.text();
    };
    const timed = (fn) => async () => {
      const started = process.hrtime.bigint();
      await fn();
      return Number(process.hrtime.bigint() - started) / 1e3;
    };
    const runners = [
      timed(() => ours.callTool({ name: c.name, arguments: c.args })),
      timed(() => floor.callTool({ name: 'get', arguments: { path } })),
      timed(direct),
    ];
    log(`per call, ${c.name}: ${CALLS} rounds × 3 (ours, floor, direct GET), interleaved, after ${Math.min(200, CALLS)} warm-up rounds`);
    await interleave(Math.min(200, CALLS), runners);
    const before = [cpuTime(ours.transport.pid), cpuTime(floor.transport.pid)];
    const [o, f, d] = await interleave(CALLS, runners);
    const after = [cpuTime(ours.transport.pid), cpuTime(floor.transport.pid)];
    const serverCpuUs = before.map((b, i) => (b && after[i] ? ((after[i].runMs - b.runMs) * 1000) / CALLS : undefined));
    const [mo, mf, md] = [median(o), median(f), median(d)];
    print(`### ${c.name} (GET ${c.shown(path)}) · load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    print(`posthog-replay-mcp                         ${spread(o, 'µs', 0)}  → ${ratio(mo, mf)} floor`);
    print(`floor: 1 tool, same undici GET, body as text ${spread(f, 'µs', 0)}`);
    print(`direct undici GET from the client process  ${spread(d, 'µs', 0)}`);
    print(`overhead over the direct GET: ours ${(mo - md).toFixed(0)} µs, floor ${(mf - md).toFixed(0)} µs; ours − floor ${(mo - mf).toFixed(0)} µs`);
    const [cpuOurs, cpuFloor] = serverCpuUs;
    if (cpuOurs !== undefined) print(`server process CPU per call (all threads): ours ${cpuOurs.toFixed(0)} µs, floor ${cpuFloor.toFixed(0)} µs → ${ratio(cpuOurs, cpuFloor)}`);
    figures.perCall[c.name] = { oursUs: mo, floorUs: mf, directUs: md, ratioToFloor: mo / mf, oursOverheadUs: mo - md, floorOverheadUs: mf - md, serverCpuUs: { ours: cpuOurs, floor: cpuFloor } };
  }
  const ratios = Object.entries(figures.perCall).map(([name, f]) => `${name} ${ratio(f.oursUs, f.floorUs)}${f.serverCpuUs.ours !== undefined ? ` (server CPU ${ratio(f.serverCpuUs.ours, f.serverCpuUs.floor)})` : ''}`);
  print(`target: median ≤ 1.00x floor → ${ratios.join(', ')}`);
}

async function resultSection(ours, pool) {
  print();
  print('## 4. Result size: text content and structuredContent against the raw upstream JSON');
  figures.results = {};
  const cases = [
    { name: 'session-recordings-list', args: { project_id: String(DEMO.mainProjectId), limit: 20, date_from: '-30d' }, match: (r) => /\/session_recordings\/?$/.test(r.path) },
    { name: 'project-get', args: { id: DEMO.mainProjectId }, match: (r) => r.path.replace(/\/$/, '') === `/api/projects/${DEMO.mainProjectId}` },
  ];
  for (const { name, args, match } of cases) {
    const result = await ours.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${result.content[0].text}`);
    const text = result.content.map((c) => c.text ?? '').join('\n');
    const structured = JSON.stringify(result.structuredContent);
    const { url } = lastRequest((r) => r.method === 'GET' && match(r));
    const raw = await (await pool.request({ method: 'GET', path: url, headers: { authorization: `Bearer ${sandbox.apiKey}` } })).body.text();
    const items = Array.isArray(result.structuredContent.results) ? ` (${result.structuredContent.results.length} recordings: ${Math.min(demoInMain, 20)} demo, the rest copies of them)` : '';
    print(`${name}${items}: raw ${bytes(raw)} B / ${tokenizer.count(raw)} tk · text ${bytes(text)} B / ${tokenizer.count(text)} tk = ${percent(bytes(text), bytes(raw))} of raw · structuredContent ${bytes(structured)} B = ${percent(bytes(structured), bytes(raw))} of raw`);
    figures.results[name] = { rawBytes: bytes(raw), textBytes: bytes(text), structuredBytes: bytes(structured), textShare: bytes(text) / bytes(raw), items: result.structuredContent.results?.length };
  }
  print('target: text ≤ 30% of raw → ' + Object.entries(figures.results).map(([n, r]) => `${n} ${percent(r.textBytes, r.rawBytes)}`).join(', '));
}

async function peerSection(ours, peer, pool) {
  const calls = Math.max(10, Math.round(CALLS / 4));
  const first = await peer.callTool({ name: 'projects-get', arguments: {} });
  if (first.isError) throw new Error(`peer projects-get failed: ${first.content[0].text}`);
  const peerRequest = lastRequest((r) => r.method === 'GET' && /\/projects\/?$/.test(r.path) && r.path.includes('/organizations/'));
  const oursResult = await ours.callTool({ name: 'projects-list', arguments: {} });
  const oursRequest = lastRequest((r) => r.method === 'GET' && /^\/api\/projects\/?$/.test(r.path));
  const timed = (client, name) => async () => {
    const started = process.hrtime.bigint();
    await client.callTool({ name, arguments: {} });
    return Number(process.hrtime.bigint() - started) / 1e3;
  };
  log(`peer: ${calls} rounds × 2 project listings, interleaved`);
  const runners = [timed(ours, 'projects-list'), timed(peer, 'projects-get')];
  await interleave(Math.min(50, calls), runners);
  const [o, p] = await interleave(calls, runners);
  const size = async (result, url) => {
    const text = result.content.map((c) => c.text ?? '').join('\n');
    const raw = await (await pool.request({ method: 'GET', path: url, headers: { authorization: `Bearer ${sandbox.apiKey}` } })).body.text();
    return { text: bytes(text), tokens: tokenizer.count(text), structured: result.structuredContent ? bytes(JSON.stringify(result.structuredContent)) : 0, raw: bytes(raw) };
  };
  const so = await size(oursResult, oursRequest.url);
  const sp = await size(first, peerRequest.url);
  print();
  print('## 5. Peer: PostHog agent toolkit 0.2.4 in a minimal SDK stdio server, same sandbox, same run');
  const cold = figures.coldStart;
  print(`cold start: peer ${cold.peer.medianMs.toFixed(1)} ms (${cold.peer.ratioToFloor.toFixed(2)}x floor) vs ours ${cold.ours.medianMs.toFixed(1)} ms (${cold.ours.ratioToFloor.toFixed(2)}x floor)`);
  const pd = figures.definitions.peer;
  const od = figures.definitions.total;
  print(`tools/list: peer ${pd.count} tools, ${pd.bytes} B / ${pd.tokens} tk (${Math.round(pd.bytes / pd.count)} B per tool) vs ours ${od.count} tools, ${od.bytes} B / ${od.tokens} tk (${Math.round(od.bytes / od.count)} B per tool)`);
  print(`project listing (peer projects-get, GET ${peerRequest.path}; ours projects-list, GET ${oursRequest.path}):`);
  print(`  latency: peer ${spread(p, 'µs', 0)} vs ours ${spread(o, 'µs', 0)} → ours ${ratio(median(o), median(p))} peer`);
  const structured = (size) => (size.structured ? ` + structuredContent ${size.structured} B` : ', no structuredContent');
  print(`  result: peer text ${sp.text} B / ${sp.tokens} tk${structured(sp)} (raw ${sp.raw} B) vs ours text ${so.text} B / ${so.tokens} tk${structured(so)} (raw ${so.raw} B)`);
  figures.peer = { listing: { peerUs: median(p), oursUs: median(o), peer: sp, ours: so } };
}

// ---------------------------------------------------------------------------------------------

async function connect(server) {
  const transport = new StdioClientTransport({ command: server.command, args: server.args, env: server.env, stderr: 'pipe' });
  transport.stderr?.on('data', () => {});
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools(); // as a real client does; the SDK client then validates structuredContent
  return client;
}

/** The newest request the sandbox received that matches, with its path and query as sent. */
function lastRequest(match) {
  const request = [...sandbox.requests].reverse().find(match);
  if (!request) throw new Error('the sandbox saw no such request');
  const query = new URLSearchParams(request.query).toString();
  return { ...request, url: query ? `${request.path}?${query}` : request.path };
}

/** Arrays under an `enum` key with 50+ values (the timezone list), anywhere in a tool. */
function findLargeEnums(node, found = []) {
  if (Array.isArray(node)) node.forEach((child) => findLargeEnums(child, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'enum' && Array.isArray(value) && value.length >= 50) found.push(value);
      else findLargeEnums(value, found);
    }
  }
  return found;
}

/** The same set as one anchored regex, grouped by the part before the first "/". */
function patternOf(values) {
  const groups = new Map();
  for (const value of values) {
    const slash = value.indexOf('/');
    const head = slash === -1 ? '' : value.slice(0, slash + 1);
    if (!groups.has(head)) groups.set(head, []);
    groups.get(head).push(value.slice(head.length));
  }
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const parts = [...groups].map(([head, tails]) => (head ? `${escape(head)}(?:${tails.map(escape).join('|')})` : tails.map(escape).join('|')));
  return `^(?:${parts.join('|')})$`;
}

/** Input fields, at any depth, with no description on the field or on every branch of it. */
function undescribed(schema, path = '') {
  const out = [];
  for (const [name, field] of Object.entries(schema?.properties ?? {})) {
    const at = path ? `${path}.${name}` : name;
    const described = (f) => typeof f?.description === 'string' && f.description.length > 0;
    if (!described(field) && !(field.anyOf ?? []).some(described)) out.push(at);
    for (const branch of [field, ...(field.anyOf ?? [])]) {
      if (branch?.properties) out.push(...undescribed(branch, at));
      if (branch?.items?.properties) out.push(...undescribed(branch.items, `${at}[]`));
    }
  }
  return [...new Set(out)];
}
