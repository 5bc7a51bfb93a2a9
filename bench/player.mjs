// The recording player (session-recording-replay), timed the way a user meets it: from the
// host's tool call to the first rendered frame of the recording, and to fully loaded, in Debian's
// headless Chromium, for the two real recorded fixtures and a ~50 MB recording. Also the player
// bundle's size. Run: npm run bench:player   (options: --mb 50 --runs 3 --hosts open,call,cold;
// --other-html FILE plays another build of the player too, run for run interleaved with this one)
//
// The host is the browser test's (test/browser/): a page with ext-apps' AppBridge and a sandbox
// proxy on another origin; tool calls go to an MCP client in this process (declaring MCP Apps, as
// a host that renders them does), connected in memory to the built server (dist/), whose upstream
// is the sandbox on 127.0.0.1. Three hosts:
//   open: the chat page is already open (as it is when an agent calls a tool); it calls the tool,
//         reads the player resource meanwhile, and shows the view once the result is in;
//   call: the same, but the view is shown at the call (the MCP Apps spec's lifecycle: the view
//         gets the arguments at once and the result when the tool is done);
//   cold: the method of the earlier figures: the call is made from Node, and the host page is
//         only then opened (its own load counted), the result and resource handed to it.

import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { PostHogClient } from '../dist/posthog/client.js';
import { BIG_RECORDING_ID, DEMO, startSandbox } from '../dist/sandbox/index.js';
import { createServer as createMcpServer } from '../dist/server.js';
import { PLAYER_URI } from '../dist/tools/recordings/player.js';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '50' }, runs: { type: 'string', default: '3' }, hosts: { type: 'string', default: 'open,call,cold' }, 'other-html': { type: 'string' } } });
const hosts = values.hosts.split(',');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const COPY_BYTES = 117 * 1024; // one copy of the recorded checkout in the sandbox's big recording
const copies = Math.max(1, Math.round((Number(values.mb) * 1024 * 1024) / COPY_BYTES));
const runs = Number(values.runs);

const html = await readFile(new URL('../dist/app/player.html', import.meta.url));
/** The player builds to play: this one, and another one given for a comparison. */
const builds = [{ name: 'this build', html: null }, ...(values['other-html'] ? [{ name: values['other-html'].split('/').pop(), html: await readFile(values['other-html'], 'utf8') }] : [])];
let playerHtml = null;
console.log(`player bundle: ${(html.length / 1024).toFixed(0)} KB, ${(gzipSync(html).length / 1024).toFixed(0)} KB gzipped`);

const sandbox = await startSandbox({ bigRecording: { copies } });
const posthog = new PostHogClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey, timeoutMs: 120_000 });
const server = createMcpServer({ client: posthog, settings: { readOnly: true, toolsets: ['recordings'], defaultProjectId: undefined } });
const [a, b] = InMemoryTransport.createLinkedPair();
// An MCP Apps host declares the extension (as the spec asks): the server then knows the player will be shown.
const client = new Client({ name: 'bench-host', version: '1' }, { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } });
await server.connect(b);
await client.connect(a);

const hostScript = (await build({ entryPoints: [new URL('../test/browser/host.js', import.meta.url).pathname], bundle: true, format: 'esm', platform: 'browser', minify: true, write: false, logLevel: 'error' })).outputFiles[0].text;
const sandboxPage = await readFile(new URL('../test/browser/sandbox.html', import.meta.url), 'utf8');
let session = '';
const web = createServer(async (req, res) => {
  if (req.url === '/') {
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}#chat{max-width:960px;margin:0 auto}#sandbox{width:100%;border:0;height:700px}</style></head><body><div id="chat"></div><script type="module">${hostScript}</script></body></html>`);
  } else if (req.url === '/sandbox.html') {
    res.writeHead(200, { 'content-type': 'text/html' }).end(sandboxPage);
  } else if (req.url === '/session') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(session);
  } else if (req.url === '/resource' && req.method === 'POST') {
    for await (const chunk of req) void chunk;
    const resource = (await client.readResource({ uri: PLAYER_URI })).contents[0];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ html: playerHtml ?? resource.text, csp: resource._meta.ui.csp }));
  } else if (req.url === '/call' && req.method === 'POST') {
    let body = '';
    for await (const chunk of req) body += chunk;
    const answer = await client.callTool(JSON.parse(body), undefined, { timeout: 300_000 });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  } else res.writeHead(404).end();
});
await new Promise((resolve) => web.listen(0, '127.0.0.1', resolve));
const port = web.address().port;

const profile = await mkdtemp(join(tmpdir(), 'bench-player-'));
const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1000, height: 900 } });

/** One play: the tool call (digest included), the page, the first frame, everything loaded. */
async function play(id, host) {
  const page = await context.newPage();
  const args = { project_id: String(DEMO.mainProjectId), id };
  const sandboxUrl = `http://localhost:${port}/sandbox.html`;
  let t0;
  let tResult;
  if (host === 'cold') {
    t0 = Date.now();
    const result = await client.callTool({ name: 'session-recording-replay', arguments: args }, undefined, { timeout: 300_000 });
    tResult = Date.now();
    const resource = (await client.readResource({ uri: PLAYER_URI })).contents[0];
    session = JSON.stringify({ arguments: args, result, html: playerHtml ?? resource.text, csp: resource._meta.ui.csp, theme: 'light', width: 960, sandboxUrl });
    await page.goto(`http://127.0.0.1:${port}/`);
  } else {
    session = JSON.stringify({ call: { name: 'session-recording-replay', arguments: args }, arguments: args, resourceUri: PLAYER_URI, viewAt: host === 'call' ? 'call' : 'result', theme: 'light', width: 960, sandboxUrl });
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => typeof window.__start === 'function');
    await page.evaluate(() => window.__start());
  }
  const player = await (await (await (await page.waitForSelector('#sandbox', { timeout: 600_000 })).contentFrame()).waitForSelector('#view')).contentFrame();
  await player.waitForSelector('#player[data-loaded-at]', { state: 'attached', timeout: 600_000 });
  const marks = await player.evaluate(() => ({
    view: performance.timeOrigin,
    first: Number(document.getElementById('player').dataset.firstFrameAt),
    loaded: Number(document.getElementById('player').dataset.loadedAt),
    // the view's own steps (src/app/main.ts), ms since the view document was created
    steps: Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('player:')).map((m) => [m.name.slice(7), m.startTime])),
  }));
  if (host !== 'cold') {
    await page.waitForFunction(() => window.__resultAt !== undefined, undefined, { timeout: 600_000 });
    [t0, tResult] = await page.evaluate(() => [window.__calledAt, window.__resultAt]);
  }
  const events = await player.evaluate(() => document.querySelector('.replayer-wrapper iframe') !== null);
  await page.close();
  if (!events || !marks.first) throw new Error(`no frame was rendered for ${id}`);
  const steps = Object.fromEntries(Object.entries(marks.steps).map(([name, ms]) => [name, marks.view + ms - t0]));
  return { result: tResult - t0, first: marks.first - t0, loaded: marks.loaded - t0, viewFirst: marks.first - marks.view, viewLoaded: marks.loaded - marks.view, created: marks.view - t0, ...steps };
}

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const cases = [
  ['recorded checkout (~120 KB)', DEMO.recordingIds.recordedCheckout],
  ['recorded search, two tabs (~120 KB)', DEMO.recordingIds.recordedSearchTabs],
  [`big recording (${copies} checkout copies, ~${values.mb} MB)`, BIG_RECORDING_ID],
];
console.log(`runs: ${runs} each (median) after a warm-up; times in ms from the host's tools/call; hosts: ${hosts.join(', ')}`);
console.log('| recording | host | tool result (digest) | first frame | fully loaded | view created → first frame | view created → loaded |');
console.log('|---|---|---|---|---|---|---|');
const STEPS = ['result', 'created', 'html', 'script', 'connected', 'tool-input', 'events-asked', 'events-first-page', 'tool-result', 'first-frame'];
const details = [];
try {
  for (const [name, id] of cases) {
    for (const host of hosts) {
      const samples = builds.map(() => []);
      for (let i = -1; i < runs; i++) {
        for (const [b, build] of builds.entries()) {
          playerHtml = build.html;
          const sample = await play(id, host); // i = -1: warm-up (the digest engine's first load, Chromium's caches)
          if (i >= 0) samples[b].push(sample);
        }
      }
      for (const [b, build] of builds.entries()) {
        const label = builds.length > 1 ? `${host}, ${build.name}` : host;
        const m = (key) => Math.round(median(samples[b].map((s) => s[key] ?? Number.NaN)));
        console.log(`| ${name} | ${label} | ${m('result')} | ${m('first')} | ${m('loaded')} | ${m('viewFirst')} | ${m('viewLoaded')} |`);
        details.push(`| ${name} | ${label} | ${STEPS.map(m).join(' | ')} |`);
        details.push(`<!-- every run's first frame: ${samples[b].map((s) => Math.round(s.first)).join(', ')} ms -->`);
      }
      if (builds.length > 1) {
        const ratios = samples[0].map((s, i) => s.first / samples[1][i].first);
        details.push(`<!-- first frame, this build / ${builds[1].name}, run by run: ${ratios.map((r) => r.toFixed(2)).join(', ')} -->`);
      }
    }
  }
  console.log('\nwhere the time goes (medians, ms from the host\'s tools/call): tool result; view document created; its HTML parsed up to the scripts; the player script starts (the bridge code compiled and run); bridge connected; the view has the arguments; first events call sent; its answer; the view has the result; first frame');
  console.log(`| recording | host | ${STEPS.join(' | ')} |`);
  console.log(`|---|---|${STEPS.map(() => '---').join('|')}|`);
  for (const line of details) console.log(line);
} finally {
  await context.close();
  await rm(profile, { recursive: true, force: true });
  web.closeAllConnections();
  web.close();
  await client.close();
  await posthog.close();
  await sandbox.close();
}
