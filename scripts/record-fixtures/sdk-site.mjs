// The site and the ingestion stand-in for the posthog-js recording (sdk.mjs).
//
// Two node:http servers on 127.0.0.1, random ports. Chromium reaches them through
// --host-resolver-rules as
//   http://app.lumen.test/     the site: a sign-up page and a profile page of "Lumen & Oak",
//                              each loading the real posthog-js browser bundle (array.full.js of
//                              the pinned devDependency, read from the repository's node_modules)
//   http://ph.lumen.test/      a stand-in for PostHog's ingestion: remote config (config.js and
//                              config), /flags/, and /e/, /i/v0/e/, /s/, /batch/ collecting what the
//                              SDK sends, the transport compression undone
// Host names other than localhost matter: posthog-js turns network capture off on localhost and
// 127.0.0.1 (docs/posthog-api.md, "What posthog-js sends").
//
// Every response has a Content-Length (never chunked: with body capture on, posthog-js records a
// chunked response's body as "Chunked Transfer-Encoding is not supported").
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../..');
const POSTHOG_DIR = path.join(ROOT, 'node_modules/posthog-js');
export const POSTHOG_BUNDLE = path.join(POSTHOG_DIR, 'dist/array.full.js');

export function posthogVersion() {
  return JSON.parse(fs.readFileSync(path.join(POSTHOG_DIR, 'package.json'), 'utf8')).version;
}

export const SITE_HOST = 'app.lumen.test';
export const INGEST_HOST = 'ph.lumen.test';
export const TOKEN = 'phc_lumenRecorderSandboxToken0000000000000';

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

function send(res, status, type, body, extra = {}) {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(String(body));
  res.writeHead(status, { 'content-type': type, 'content-length': buf.length, 'cache-control': 'no-store', ...extra });
  res.end(buf);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

// ---------------------------------------------------------------------------------------------
// The site

function layout({ page, title, body, distinctId }) {
  // posthog-js as a site installs it: the bundle, then init. Replay, console and network capture
  // are switched on by the remote config the stand-in serves, not here.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} | Lumen &amp; Oak</title>
<link rel="stylesheet" href="/static/site.css">
<script src="/vendor/posthog.js"></script>
<script>
posthog.init(${JSON.stringify(TOKEN)}, {
  api_host: 'http://${INGEST_HOST}',
  person_profiles: 'identified_only',
  bootstrap: { distinctID: ${JSON.stringify(distinctId)} },
  request_batching: true,
});
</script>
</head>
<body data-page="${esc(page)}">
<header class="top"><a class="brand" href="/">Lumen &amp; Oak</a><nav aria-label="Main"><a href="/signup">Create account</a><a href="/help">Help</a></nav></header>
<main>
${body}
</main>
<footer><p>Lumen &amp; Oak, 12 Harbour Lane, Bristol.</p></footer>
<script src="/static/sdk-app.js"></script>
</body>
</html>
`;
}

const CSS = `body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#222}
.top{display:flex;gap:24px;align-items:center;padding:12px 24px;background:#f4efe6}
.top nav{display:flex;gap:16px}.brand{font-weight:700;color:#4a3b22;text-decoration:none}
main{max-width:640px;margin:24px auto;padding:0 24px}
form p{display:flex;flex-direction:column;gap:4px}
input{font:inherit;padding:8px;border:1px solid #aaa;border-radius:4px}
button{font:inherit;padding:8px 16px;border-radius:4px;border:0;background:#4a3b22;color:#fff;cursor:pointer}
.error{color:#a11}footer{margin-top:48px;padding:12px 24px;color:#666;font-size:14px}
`;

// The page behaviour. The sign-up form posts email and password (posthog-js redacts that request
// body itself: it contains "password"); the profile form posts the name and the email the user
// typed, and the server answers 500: that body is recorded in clear text by the SDK.
const APP_JS = `(function () {
  var page = document.body.getAttribute('data-page');
  if (page === 'signup') {
    var form = document.getElementById('signup-form');
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var email = form.elements['email'].value;
      sessionStorage.setItem('signup-email', email);
      fetch('/api/signup', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: email, password: form.elements['password'].value }),
      }).then(function (res) {
        return res.json().then(function () { location.href = '/profile'; });
      });
    });
  }
  if (page === 'profile') {
    var pf = document.getElementById('profile-form');
    var status = document.getElementById('profile-status');
    pf.addEventListener('submit', function (e) {
      e.preventDefault();
      var payload = {
        full_name: pf.elements['full_name'].value,
        contact_email: sessionStorage.getItem('signup-email'),
        phone: pf.elements['phone'].value,
      };
      fetch('/api/profile', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      }).then(function (res) {
        return res.json().then(function (body) {
          if (!res.ok) {
            console.error('Profile save failed: server answered ' + res.status);
            status.textContent = 'We could not save your profile. Please try again later.';
            // The page's own bug: it reads the saved profile even though the save failed.
            setTimeout(function () { renderGreeting(body.profile); }, 50);
          }
        });
      });
    });
  }
  function renderGreeting(profile) {
    document.getElementById('greeting').textContent = 'Welcome, ' + profile.first_name;
  }
})();
`;

const PAGES = {
  '/signup': {
    page: 'signup',
    title: 'Create your account',
    body: `<h1>Create your account</h1>
<form id="signup-form" novalidate>
  <p><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email"></p>
  <p><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password"></p>
  <p><button type="submit" id="create-account">Create account</button></p>
</form>`,
  },
  '/profile': {
    page: 'profile',
    title: 'Your profile',
    body: `<h1>Tell us about you</h1>
<p id="greeting"></p>
<form id="profile-form" novalidate>
  <p><label for="full-name">Full name</label><input id="full-name" name="full_name" type="text" autocomplete="name"></p>
  <p><label for="phone">Phone</label><input id="phone" name="phone" type="tel" autocomplete="tel"></p>
  <p><button type="submit" id="save-profile">Save profile</button></p>
  <p id="profile-status" class="error" role="alert"></p>
</form>`,
  },
};

export function createSite({ distinctId }) {
  const log = [];
  const vendor = fs.readFileSync(POSTHOG_BUNDLE);
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, `http://${SITE_HOST}`);
    const body = await readBody(req);
    const entry = { at: Date.now(), method: req.method, host: req.headers.host, path: url.pathname + url.search, status: 0, body: body.toString('utf8') };
    log.push(entry);
    const reply = (status, type, content) => {
      entry.status = status;
      send(res, status, type, content);
    };
    const p = url.pathname;
    if (p === '/') return (entry.status = 302), res.writeHead(302, { location: '/signup', 'content-length': 0 }), res.end();
    if (p === '/vendor/posthog.js') return reply(200, 'text/javascript; charset=utf-8', vendor);
    if (p === '/static/sdk-app.js') return reply(200, 'text/javascript; charset=utf-8', APP_JS);
    if (p === '/static/site.css') return reply(200, 'text/css; charset=utf-8', CSS);
    if (p === '/favicon.ico') return reply(204, 'image/x-icon', '');
    if (p === '/api/signup' && req.method === 'POST') return reply(200, 'application/json', JSON.stringify({ ok: true }));
    if (p === '/api/profile' && req.method === 'POST') {
      // The profile service is down: the failure this recording is about.
      return reply(500, 'application/json', JSON.stringify({ error: 'profile service unavailable' }));
    }
    const pg = PAGES[p];
    if (pg) return reply(200, 'text/html; charset=utf-8', layout({ ...pg, distinctId }));
    return reply(404, 'text/plain', 'not found');
  });
  return {
    log,
    listen: () => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port))),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

// ---------------------------------------------------------------------------------------------
// The ingestion stand-in

/** What PostHog's remote config says for a project with replay, console and network capture on. */
export const REMOTE_CONFIG = {
  token: TOKEN,
  supportedCompression: ['gzip', 'gzip-js'],
  hasFeatureFlags: false,
  captureDeadClicks: false,
  capturePerformance: { network_timing: true, web_vitals: false },
  autocapture_opt_out: false,
  autocaptureExceptions: true,
  analytics: { endpoint: '/i/v0/e/' },
  elementsChainAsString: true,
  errorTracking: { autocaptureExceptions: true, suppressionRules: [] },
  sessionRecording: {
    endpoint: '/s/',
    consoleLogRecordingEnabled: true,
    recorderVersion: 'v2',
    sampleRate: null,
    minimumDurationMilliseconds: null,
    linkedFlag: null,
    networkPayloadCapture: { recordHeaders: true, recordBody: true },
    masking: null,
    urlTriggers: [],
    urlBlocklist: [],
    eventTriggers: [],
    scriptConfig: null,
    recordCanvas: false,
  },
  heatmaps: false,
  surveys: false,
  productTours: false,
  defaultIdentifiedOnly: true,
  siteApps: [],
};

/**
 * Undo the transport encoding of a capture request: gzip (posthog-js's native CompressionStream
 * sends gzip bytes as text/plain, with or without `compression=gzip-js`), base64 (`compression=
 * base64`, possibly inside a form field `data=`), or plain JSON. Returns the parsed JSON and how
 * it was encoded.
 */
export function decodeCapture(body, { query, contentType }) {
  const isGzip = body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
  if (isGzip) return { json: JSON.parse(zlib.gunzipSync(body).toString('utf8')), encoding: `gzip (${contentType || 'no content-type'})` };
  let text = body.toString('utf8');
  let encoding = contentType || 'no content-type';
  if (/application\/x-www-form-urlencoded/.test(contentType || '') || /^data=/.test(text)) {
    text = new URLSearchParams(text).get('data') ?? '';
    encoding += ', form field data';
  }
  if (query.get('compression') === 'base64' || /^[A-Za-z0-9+/=]+$/.test(text.trim())) {
    text = Buffer.from(text, 'base64').toString('utf8');
    encoding += ', base64';
  }
  return { json: JSON.parse(text), encoding };
}

export function createIngest() {
  const requests = []; // every request: method, path, content-type, encoding, status
  const batches = []; // decoded capture payloads: { at, path, events: [...] }
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, `http://${INGEST_HOST}`);
    const body = await readBody(req);
    const p = url.pathname;
    const entry = { at: Date.now(), method: req.method, path: p, query: url.search, content_type: req.headers['content-type'] ?? null, bytes: body.length, status: 200 };
    requests.push(entry);
    const cors = { 'access-control-allow-origin': req.headers.origin || '*', 'access-control-allow-credentials': 'true', 'access-control-allow-headers': 'content-type' };
    const reply = (status, type, content) => {
      entry.status = status;
      send(res, status, type, content, cors);
    };
    if (req.method === 'OPTIONS') return reply(204, 'text/plain', '');
    if (p === `/array/${TOKEN}/config.js`) {
      const js = `(function(){window._POSTHOG_REMOTE_CONFIG=window._POSTHOG_REMOTE_CONFIG||{};window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(TOKEN)}]=${JSON.stringify({ config: REMOTE_CONFIG, siteApps: [] })};})();`;
      return reply(200, 'text/javascript', js);
    }
    if (p === `/array/${TOKEN}/config`) return reply(200, 'application/json', JSON.stringify(REMOTE_CONFIG));
    if (p === '/flags/' || p === '/flags' || p === '/decide/') {
      return reply(200, 'application/json', JSON.stringify({ flags: {}, featureFlags: {}, featureFlagPayloads: {}, errorsWhileComputingFlags: false, requestId: '0193c5d0-0000-7000-8000-00000000f1a9', ...REMOTE_CONFIG }));
    }
    if (['/e/', '/i/v0/e/', '/s/', '/batch/', '/capture/', '/engage/'].includes(p) && req.method === 'POST') {
      try {
        const { json, encoding } = decodeCapture(body, { query: url.searchParams, contentType: req.headers['content-type'] });
        entry.encoding = encoding;
        const events = Array.isArray(json) ? json : Array.isArray(json.batch) ? json.batch : [json];
        batches.push({ at: entry.at, path: p, encoding, events });
      } catch (err) {
        entry.error = String(err && err.message);
        return reply(400, 'application/json', JSON.stringify({ error: 'could not decode', detail: entry.error }));
      }
      return reply(200, 'application/json', JSON.stringify({ status: 1 }));
    }
    return reply(404, 'text/plain', 'not found');
  });
  return {
    requests,
    batches,
    listen: () => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port))),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
