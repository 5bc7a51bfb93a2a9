// Records one session with the real posthog-js SDK (the pinned devDependency posthog-js@1.449.2)
// in Debian's Chromium, against a local stand-in for PostHog's ingestion, and stores what the SDK
// sent. See docs/recorder.md.
//
// Usage (on a fresh machine: `npm ci` and `apt-get install -y chromium` first):
//
//   node scripts/record-fixtures/sdk.mjs            # or: npm run record:sdk
//
// Environment: CHROMIUM_PATH (default /usr/bin/chromium). Takes about 25 s.
//
// Writes, under fixtures/recordings/:
//   posthog-js-signup.blob_v2.jsonl  the recording: one `[windowId, event]` line per rrweb event of
//                                    every $snapshot the SDK sent, in the order sent, each event
//                                    exactly as sent (events posthog-js compressed, cv "2024-10",
//                                    stay compressed)
//   posthog-js-signup.events.json    every other event the SDK sent ($pageview, $exception,
//                                    $pageleave, ...), as sent, transport compression undone
//   posthog-js-signup.truth.json     the recorder's own ground truth (pages, clicks, fields with
//                                    their labels and lengths, every request with its status, console
//                                    errors, uncaught exceptions, the typed values), from Playwright
//                                    and the local servers, never from what the SDK sent
//   index.json                       its entry (replaced; the other fixtures' entries are kept)
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { createIngest, createSite, INGEST_HOST, posthogVersion, REMOTE_CONFIG, ROOT, SITE_HOST } from './sdk-site.mjs';

const SLUG = 'posthog-js-signup';
const DISTINCT_ID = '0193c5d0-7a0f-7c11-9d22-e33f44a55b66';
const PINNED_POSTHOG = '1.449.2';
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const OUT = path.join(ROOT, 'fixtures/recordings');
const ORIGIN = `http://${SITE_HOST}`;

// Typed values. They go into the ground truth so tests can assert that no tool ever shows them.
const TYPED = {
  email: 'ada.lovelace@analytical.example',
  password: 'Difference-Engine-1843',
  full_name: 'Ada King Lovelace',
  phone: '+44 20 7946 0018',
};

// Deterministic "human" pacing (mulberry32), the same every run.
let seed = 1843;
function rnd() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const between = (a, b) => Math.round(a + (b - a) * rnd());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pause = (a, b) => sleep(between(a, b));

// posthog-js drops everything from a browser it takes for a bot: a HeadlessChrome user agent or
// client-hint brand, or navigator.webdriver. A person's browser shows neither.
const HIDE_AUTOMATION = `
Object.defineProperty(Navigator.prototype, 'webdriver', { configurable: true, get: function () { return false; } });
if (typeof NavigatorUAData !== 'undefined') {
  var brandsGetter = Object.getOwnPropertyDescriptor(NavigatorUAData.prototype, 'brands').get;
  Object.defineProperty(NavigatorUAData.prototype, 'brands', { configurable: true, get: function () {
    return brandsGetter.call(this).map(function (b) { return { brand: String(b.brand).replace('HeadlessChrome', 'Google Chrome'), version: b.version }; });
  } });
}
`;

async function main() {
  const started = Date.now();
  const version = posthogVersion();
  if (version !== PINNED_POSTHOG) throw new Error(`node_modules has posthog-js ${version}, the recorder is pinned to ${PINNED_POSTHOG}: run npm ci`);
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);

  const site = createSite({ distinctId: DISTINCT_ID });
  const ingest = createIngest();
  const sitePort = await site.listen();
  const ingestPort = await ingest.listen();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    ignoreDefaultArgs: ['--enable-automation'],
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      '--disable-blink-features=AutomationControlled',
      `--host-resolver-rules=MAP ${SITE_HOST} 127.0.0.1:${sitePort}, MAP ${INGEST_HOST} 127.0.0.1:${ingestPort}`,
    ],
  });
  const chromiumVersion = browser.version();
  const major = chromiumVersion.split('.')[0];
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`,
    locale: 'en-GB',
    timezoneId: 'Europe/London',
  });
  await context.addInitScript(HIDE_AUTOMATION);
  const page = await context.newPage();

  // ---- ground truth, from Playwright and the servers
  const truth = { pages: [], clicks: [], typing: [], requests: [], console: [], exceptions: [], browser_messages: [] };
  const pathOf = () => {
    const u = new URL(page.url());
    return u.pathname + u.search;
  };
  page.on('framenavigated', (frame) => {
    if (frame !== page.mainFrame() || !frame.url().startsWith(ORIGIN + '/')) return;
    const u = new URL(frame.url());
    truth.pages.push({ url: frame.url(), path: u.pathname + u.search, at: Date.now() });
  });
  page.on('console', (msg) => {
    const entry = { level: msg.type() === 'warning' ? 'warn' : msg.type(), text: msg.text(), path: pathOf(), at: Date.now() };
    // Chromium's own network lines are not console API calls: no recorder can see them.
    if (/^Failed to load resource:/.test(msg.text())) truth.browser_messages.push(entry);
    else truth.console.push(entry);
  });
  page.on('pageerror', (err) => {
    truth.exceptions.push({ type: err.name, message: err.message, path: pathOf(), at: Date.now() });
  });
  const finished = (request, status, failure) => {
    const u = new URL(request.url());
    truth.requests.push({
      method: request.method(),
      url: request.url(),
      host: u.host,
      path: u.pathname + u.search,
      resource_type: request.resourceType(),
      status,
      ...(failure ? { failure } : {}),
      at: Date.now(),
    });
  };
  page.on('requestfinished', async (request) => {
    const res = await request.response();
    finished(request, res ? res.status() : null);
  });
  page.on('requestfailed', (request) => finished(request, null, request.failure()?.errorText ?? 'failed'));

  async function click(locator, meta) {
    await locator.waitFor({ state: 'visible' });
    const box = await locator.boundingBox();
    const x = box.x + box.width * (0.3 + 0.4 * rnd());
    const y = box.y + box.height * (0.35 + 0.3 * rnd());
    await page.mouse.move(x, y, { steps: between(6, 14) });
    await pause(90, 300);
    const element = await locator.evaluate((e) => ({
      tag: e.tagName.toLowerCase(),
      id: e.id || null,
      text: (e.textContent || '').trim().replace(/\s+/g, ' ') || null,
      name: e.getAttribute('name'),
      type: e.getAttribute('type'),
    }));
    const entry = { path: pathOf(), role: meta.role, name: meta.name, element, at: Date.now() };
    await page.mouse.down();
    await sleep(between(45, 110));
    await page.mouse.up();
    truth.clicks.push(entry);
  }

  async function fill(field) {
    await click(page.getByLabel(field.label, { exact: true }), { role: 'textbox', name: field.label });
    await pause(200, 450);
    for (const ch of field.value) {
      await page.keyboard.type(ch);
      await pause(45, 140);
    }
    truth.typing.push({
      path: pathOf(),
      field_label: field.label,
      field_id: field.id,
      field_name: field.name,
      input_type: field.type,
      char_count: [...field.value].length,
      value_key: field.key,
      // posthog-js masks every input by default (maskAllInputs), passwords always.
      masked_in_recording: true,
      at: Date.now(),
    });
    await pause(300, 600);
  }

  // ---- the scenario
  await page.goto(`${ORIGIN}/signup`, { waitUntil: 'load' });
  await pause(1200, 1600);
  await fill({ label: 'Email', id: 'email', name: 'email', type: 'email', key: 'email', value: TYPED.email });
  await fill({ label: 'Password', id: 'password', name: 'password', type: 'password', key: 'password', value: TYPED.password });
  await Promise.all([page.waitForURL('**/profile'), click(page.getByRole('button', { name: 'Create account' }), { role: 'button', name: 'Create account' })]);
  await page.waitForLoadState('load');
  await pause(1200, 1600);
  await fill({ label: 'Full name', id: 'full-name', name: 'full_name', type: 'text', key: 'full_name', value: TYPED.full_name });
  await fill({ label: 'Phone', id: 'phone', name: 'phone', type: 'tel', key: 'phone', value: TYPED.phone });
  await click(page.getByRole('button', { name: 'Save profile' }), { role: 'button', name: 'Save profile' });
  await page.getByText('We could not save your profile').waitFor();
  await pause(1500, 2000);
  await page.mouse.move(400, 300, { steps: 8 });
  // posthog-js flushes events every few seconds and replay buffers on a timer: give both time.
  await sleep(6000);
  await context.close(); // pagehide: posthog-js sends what it still holds with sendBeacon
  await sleep(1000);
  await browser.close();
  await site.close();
  await ingest.close();

  // ---- what the SDK sent
  const snapshotLines = [];
  const events = [];
  for (const batch of ingest.batches) {
    for (const ev of batch.events) {
      if (ev.event === '$snapshot') {
        const p = ev.properties || {};
        for (const e of p.$snapshot_data || []) snapshotLines.push([p.$window_id, e]);
      } else {
        events.push(ev);
      }
    }
  }
  if (snapshotLines.length === 0) throw new Error(`the SDK sent no $snapshot (ingest saw ${ingest.requests.map((r) => `${r.method} ${r.path}`).join(', ')})`);
  const sessionIds = new Set(events.map((e) => e.properties?.$session_id).filter(Boolean));
  // posthog-js makes the session id (a UUIDv7 of the session's start); one session, kept across pages.
  if (sessionIds.size !== 1) throw new Error(`events carry session ids ${[...sessionIds]}`);
  const SESSION_ID = [...sessionIds][0];
  const exceptions = events.filter((e) => e.event === '$exception');
  if (exceptions.length !== truth.exceptions.length) throw new Error(`the page threw ${truth.exceptions.length} uncaught exceptions, the SDK sent ${exceptions.length} $exception events`);

  // Network capture runs only off localhost and with the remote config's networkPayloadCapture.
  const recordedRequests = snapshotLines.flatMap(([, e]) => (e.type === 6 && e.data?.plugin === 'rrweb/network@1' ? e.data.payload.requests : []));
  for (const f of truth.requests.filter((r) => r.host === SITE_HOST && r.status >= 400)) {
    if (!recordedRequests.some((r) => r.name === f.url && r.method === f.method && r.status === f.status)) throw new Error(`network capture missed ${f.method} ${f.url} ${f.status}`);
  }
  const text = snapshotLines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  if (text.includes(`:${sitePort}`) || text.includes('127.0.0.1')) throw new Error('the recording mentions the local port or 127.0.0.1');
  const timestamps = snapshotLines.map(([, e]) => e.timestamp);
  const first = Math.min(...timestamps);
  const last = Math.max(...timestamps);
  const strip = (arr) => arr.slice().sort((a, b) => a.at - b.at).map(({ at, ...rest }) => ({ ...rest, t_ms: at - first }));
  const windowIds = [...new Set(snapshotLines.map(([w]) => w))];

  const siteRequests = strip(truth.requests.filter((r) => r.host === SITE_HOST));
  const expected = {
    note: 'Ground truth from the recorder (its own actions, Playwright page/console/request events and the local servers), not derived from what the SDK sent. t_ms = ms after the first recorded rrweb event (Node-side clock, approximate).',
    session_id: SESSION_ID,
    distinct_id: DISTINCT_ID,
    window_ids: windowIds,
    pages: strip(truth.pages),
    clicks: strip(truth.clicks),
    typing: strip(truth.typing),
    secret_values: Object.values(TYPED),
    typed_values: TYPED,
    requests: siteRequests,
    ingestion_requests: strip(truth.requests.filter((r) => r.host === INGEST_HOST)),
    failed_requests: siteRequests.filter((r) => r.status >= 400).map((r) => ({
      ...r,
      request_body_keys: Object.keys(JSON.parse(site.log.find((l) => l.path === r.path && l.status === r.status)?.body || '{}')),
    })),
    console: strip(truth.console),
    console_errors: truth.console.filter((c) => c.level === 'error').map((c) => c.text),
    exceptions: strip(truth.exceptions),
    browser_messages_not_recorded: strip(truth.browser_messages),
    sdk: {
      events_sent: Object.fromEntries([...new Set(events.map((e) => e.event))].map((name) => [name, events.filter((e) => e.event === name).length])),
      snapshot_events: snapshotLines.length,
      compressed_events: snapshotLines.filter(([, e]) => e.cv).length,
      transport: [...new Set(ingest.requests.filter((r) => r.encoding).map((r) => `${r.path} ${r.encoding}`))],
      ingestion_requests: ingest.requests.map((r) => `${r.method} ${r.path}${r.query} ${r.status}`),
    },
  };

  const files = {
    recording: `${SLUG}.blob_v2.jsonl`,
    events: `${SLUG}.events.json`,
    truth: `${SLUG}.truth.json`,
  };
  fs.writeFileSync(path.join(OUT, files.recording), text);
  fs.writeFileSync(path.join(OUT, files.events), JSON.stringify(events, null, 1) + '\n');
  fs.writeFileSync(path.join(OUT, files.truth), JSON.stringify(expected, null, 2) + '\n');

  const entry = {
    slug: SLUG,
    file: files.recording,
    events_file: files.events,
    truth_file: files.truth,
    format: 'blob_v2 as sent: lines in the order the SDK sent them, compressed events kept compressed',
    session_id: SESSION_ID,
    distinct_id: DISTINCT_ID,
    title: 'Sign-up, then the profile save fails with a 500 and the page throws',
    story:
      'A visitor opens the sign-up page, types her email and a password (both masked by posthog-js) and clicks "Create account" (POST /api/signup, 200). On the profile page she types her full name and phone number and clicks "Save profile": POST /api/profile, whose JSON body carries the name, email and phone she typed, answers 500. The page logs "Profile save failed: server answered 500", shows an error, and then throws an uncaught TypeError while rendering a greeting from the missing profile. posthog-js sends that error as an $exception event beside the recording.',
    window_ids: windowIds,
    start_timestamp: new Date(first).toISOString(),
    end_timestamp: new Date(last).toISOString(),
    duration_ms: last - first,
    first_url: truth.pages[0]?.url ?? null,
    event_count: snapshotLines.length,
    bytes: Buffer.byteLength(text),
    viewport: { width: 1280, height: 800 },
    recorder_config: { remote_config: REMOTE_CONFIG, posthog_init: { api_host: `http://${INGEST_HOST}`, person_profiles: 'identified_only', bootstrap: { distinctID: DISTINCT_ID } } },
    recorded_with: { chromium: chromiumVersion, posthog_js: `${version} dist/array.full.js`, playwright_core: JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/playwright-core/package.json'), 'utf8')).version },
    recorded_at: new Date().toISOString(),
  };
  const indexPath = path.join(OUT, 'index.json');
  const index = JSON.parse(fs.readFileSync(indexPath, 'utf8')).filter((e) => e.slug !== SLUG);
  index.push(entry);
  fs.writeFileSync(indexPath, JSON.stringify(index, null, 2) + '\n');

  const size = (f) => fs.statSync(path.join(OUT, f)).size;
  console.log(`chromium ${chromiumVersion}, posthog-js ${version}`);
  console.log(`sent: ${snapshotLines.length} rrweb events (${expected.sdk.compressed_events} compressed) in ${windowIds.length} window(s); events ${JSON.stringify(expected.sdk.events_sent)}`);
  console.log(`transport: ${expected.sdk.transport.join('; ')}`);
  for (const f of Object.values(files)) console.log(`wrote fixtures/recordings/${f} (${size(f)} bytes)`);
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
