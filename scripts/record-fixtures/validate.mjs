// Validates fixtures/recordings/*.jsonl against fixtures/recordings/index.json.
// Plain node, no dependencies: `node scripts/record-fixtures/validate.mjs`. Exit code 1 on failure.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = path.resolve(here, '../../fixtures/recordings');
const index = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8'));
let failures = 0;
const fail = (slug, msg) => {
  failures++;
  console.log(`  FAIL ${slug}: ${msg}`);
};
const ok = (slug, msg) => console.log(`  ok   ${slug}: ${msg}`);

// rrweb node mirror, enough to describe a clicked element
class Mirror {
  constructor() {
    this.nodes = new Map();
  }
  reset() {
    this.nodes.clear();
  }
  add(node, parentId) {
    const n = { id: node.id, type: node.type, tagName: node.tagName, attributes: { ...(node.attributes || {}) }, textContent: node.textContent, parentId, children: [] };
    this.nodes.set(node.id, n);
    if (parentId != null && this.nodes.has(parentId)) this.nodes.get(parentId).children.push(node.id);
    for (const c of node.childNodes || []) this.add(c, node.id);
  }
  remove(id) {
    const n = this.nodes.get(id);
    if (!n) return;
    for (const c of n.children) this.remove(c);
    const p = this.nodes.get(n.parentId);
    if (p) p.children = p.children.filter((x) => x !== id);
    this.nodes.delete(id);
  }
  text(id) {
    const n = this.nodes.get(id);
    if (!n) return '';
    if (n.type === 3) return n.textContent || '';
    return n.children.map((c) => this.text(c)).join('');
  }
  describe(id) {
    const n = this.nodes.get(id);
    if (!n) return null;
    let name = this.text(id).trim().replace(/\s+/g, ' ');
    if (n.tagName === 'input' && n.attributes.id) {
      for (const m of this.nodes.values()) {
        if (m.tagName === 'label' && m.attributes.for === n.attributes.id) name = this.text(m.id).trim();
      }
    }
    return { tag: n.tagName, id: n.attributes.id || null, name };
  }
}

let total = 0;
for (const entry of index) {
  // Recordings made by posthog-js itself (sdk.mjs) keep the SDK's own order and compression, and
  // their ground truth is a file of its own: test/recorded-fixtures.test.ts checks them.
  if (entry.truth_file) continue;
  const slug = entry.slug;
  const file = path.join(dir, entry.file || `${slug}.jsonl`);
  const raw = fs.readFileSync(file, 'utf8');
  total += Buffer.byteLength(raw);
  console.log(`\n${slug}: ${(Buffer.byteLength(raw) / 1024).toFixed(1)} KiB`);
  const exp = entry.expected;

  // 1. shape and order
  const lines = raw.split('\n').filter((l) => l.length);
  const events = [];
  let shapeOk = true;
  lines.forEach((l, i) => {
    let v;
    try {
      v = JSON.parse(l);
    } catch (e) {
      shapeOk = false;
      return fail(slug, `line ${i + 1} is not JSON`);
    }
    if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || !v[1] || typeof v[1] !== 'object' || typeof v[1].type !== 'number' || typeof v[1].timestamp !== 'number') {
      shapeOk = false;
      return fail(slug, `line ${i + 1} is not [windowId, {type, timestamp}]`);
    }
    events.push(v);
  });
  if (shapeOk) ok(slug, `${events.length} lines, each [string, {type:number, timestamp:number}]`);
  const sorted = events.every((e, i) => i === 0 || events[i - 1][1].timestamp <= e[1].timestamp);
  sorted ? ok(slug, 'sorted by timestamp') : fail(slug, 'not sorted by timestamp');
  if (/127\.0\.0\.1|localhost:\d+/.test(raw)) fail(slug, 'mentions 127.0.0.1 / a local port');
  else ok(slug, 'no 127.0.0.1 or port in URLs');
  const wids = [...new Set(events.map((e) => e[0]))];
  JSON.stringify(wids) === JSON.stringify(entry.window_ids) ? ok(slug, `window ids ${wids.join(', ')}`) : fail(slug, `window ids ${wids} != ${entry.window_ids}`);
  if (entry.start_timestamp !== new Date(events[0][1].timestamp).toISOString()) fail(slug, 'start_timestamp mismatch');
  if (entry.end_timestamp !== new Date(events[events.length - 1][1].timestamp).toISOString()) fail(slug, 'end_timestamp mismatch');

  // 2. each tab starts with Meta + FullSnapshot; every Meta is followed by a FullSnapshot; metas = pages
  for (const w of wids) {
    const evs = events.filter((e) => e[0] === w).map((e) => e[1]);
    // rrweb started while the page is loading emits DomContentLoaded (type 0, data {}) first
    const skip = evs[0].type === 0 ? 1 : 0;
    if (evs[skip].type !== 4 || evs[skip + 1].type !== 2) fail(slug, `${w} does not start with Meta + FullSnapshot (got ${evs.slice(0, 3).map((e) => e.type)})`);
    else ok(slug, `${w} starts with ${skip ? 'DomContentLoaded (0), ' : ''}Meta (4) + FullSnapshot (2)`);
    const beforeMeta = evs.map((e, i) => [e, i]).filter(([e, i]) => e.type === 4 && i > 0 && ![0, 3, 5, 6, 1].includes(evs[i - 1].type));
    if (beforeMeta.length) fail(slug, `${w}: odd event before a Meta`);
    const metas = evs.map((e, i) => [e, i]).filter(([e]) => e.type === 4);
    const unpaired = metas.filter(([, i]) => !evs[i + 1] || evs[i + 1].type !== 2);
    if (unpaired.length) fail(slug, `${w}: ${unpaired.length} Meta events not followed by a FullSnapshot`);
    const hrefs = metas.map(([e]) => e.data.href);
    const expPages = exp.pages.filter((p) => p.window_id === w).map((p) => p.url);
    JSON.stringify(hrefs) === JSON.stringify(expPages)
      ? ok(slug, `${w}: Meta hrefs = expected pages (${hrefs.map((h) => new URL(h).pathname + new URL(h).search).join(' -> ')})`)
      : fail(slug, `${w}: Meta hrefs ${JSON.stringify(hrefs)} != pages ${JSON.stringify(expPages)}`);
  }

  // 3. console plugin events
  const consoleEvents = events.filter((e) => e[1].type === 6 && e[1].data.plugin === 'rrweb/console@1');
  consoleEvents.length ? ok(slug, `${consoleEvents.length} rrweb/console@1 plugin events`) : fail(slug, 'no rrweb/console@1 events');
  // rrweb's console plugin stringifies each argument (a string arrives JSON-quoted)
  const consoleText = (e) =>
    e[1].data.payload.payload
      .map((s) => {
        try {
          const v = JSON.parse(s);
          return typeof v === 'string' ? v : s;
        } catch {
          return s;
        }
      })
      .join(' ');
  let consoleOk = 0;
  for (const c of exp.console) {
    const hit = consoleEvents.filter((e) => e[0] === c.window_id && e[1].data.payload.level === c.level && consoleText(e) === c.text);
    if (!hit.length) fail(slug, `console ${c.level} "${c.text}" not recorded`);
    else consoleOk++;
  }
  if (consoleOk === exp.console.length) ok(slug, `every expected console message recorded with its exact text (${exp.console.length})`);
  const byLevel = (lvl) => consoleEvents.filter((e) => e[1].data.payload.level === lvl).length;
  const expByLevel = (lvl) => exp.console.filter((c) => c.level === lvl).length;
  for (const lvl of ['log', 'warn', 'error']) {
    byLevel(lvl) === expByLevel(lvl) ? ok(slug, `console ${lvl}: ${byLevel(lvl)} recorded = expected`) : fail(slug, `console ${lvl}: recorded ${byLevel(lvl)}, expected ${expByLevel(lvl)}`);
  }

  // 4. clicks resolve to the named elements (mirror per window from full snapshots + mutations)
  const mirrors = new Map(wids.map((w) => [w, new Mirror()]));
  const clicks = [];
  const inputs = new Map(); // window -> id -> last text
  for (const [w, e] of events) {
    const m = mirrors.get(w);
    if (e.type === 2) {
      m.reset();
      m.add(e.data.node, null);
    } else if (e.type === 3 && e.data.source === 0) {
      for (const r of e.data.removes || []) m.remove(r.id);
      for (const a of e.data.adds || []) m.add(a.node, a.parentId);
      for (const t of e.data.texts || []) if (m.nodes.has(t.id)) m.nodes.get(t.id).textContent = t.value;
      for (const a of e.data.attributes || []) if (m.nodes.has(a.id)) Object.assign(m.nodes.get(a.id).attributes, a.attributes);
    } else if (e.type === 3 && e.data.source === 2 && e.data.type === 2) {
      clicks.push({ w, ts: e.timestamp, id: e.data.id, el: m.describe(e.data.id) });
    } else if (e.type === 3 && e.data.source === 5) {
      const d = m.describe(e.data.id);
      if (!inputs.has(w)) inputs.set(w, new Map());
      inputs.get(w).set(d ? d.name : e.data.id, e.data.text);
    }
  }
  if (clicks.length !== exp.clicks.length) fail(slug, `${clicks.length} recorded clicks, expected ${exp.clicks.length}`);
  let clickOk = 0;
  exp.clicks.forEach((c, i) => {
    const rec = clicks[i];
    if (!rec || !rec.el) return fail(slug, `click ${i + 1} (${c.name}) has no resolvable target`);
    const same = rec.w === c.window_id && rec.el.name === c.name;
    if (same) clickOk++;
    else fail(slug, `click ${i + 1}: recorded ${rec.el.tag}#${rec.el.id} "${rec.el.name}" in ${rec.w}, expected "${c.name}" in ${c.window_id}`);
  });
  if (clickOk === exp.clicks.length) ok(slug, `all ${clickOk} clicks are MouseInteraction Click events whose ids resolve to the named elements: ${exp.clicks.map((c) => c.name.slice(0, 30)).join(' | ')}`);

  // 4b. the dead-click candidate is followed by no DOM change or navigation for >= 2 s, and every
  //     rage-burst click is followed by a DOM change (the error message is rewritten)
  const changesAfter = (w, ts) => events.find((e) => e[0] === w && e[1].timestamp > ts && ((e[1].type === 3 && e[1].data.source === 0) || e[1].type === 4));
  for (const d of exp.dead_clicks) {
    const c = clicks.find((x) => x.w === d.window_id && x.el && x.el.name === d.name);
    const next = c && changesAfter(c.w, c.ts);
    const gap = next ? next[1].timestamp - c.ts : Infinity;
    gap >= 2000 ? ok(slug, `dead click "${d.name}": next DOM change/navigation ${gap === Infinity ? 'never' : gap + ' ms later'}`) : fail(slug, `dead click "${d.name}" followed by a change after ${gap} ms`);
  }
  for (const rc of exp.rage_clicks) {
    const burst = clicks.filter((x) => x.w === rc.window_id && x.el && x.el.name === rc.name);
    const last = burst.slice(-rc.clicks);
    const span = last[last.length - 1].ts - last[0].ts;
    const prevGap = burst.length > rc.clicks ? last[0].ts - burst[burst.length - rc.clicks - 1].ts : Infinity;
    const sameId = new Set(last.map((x) => x.id)).size === 1;
    span < 1000 && sameId && prevGap > 1000
      ? ok(slug, `rage burst: ${rc.clicks} clicks on node ${last[0].id} "${rc.name}" within ${span} ms (previous click ${prevGap} ms before)`)
      : fail(slug, `rage burst span ${span} ms, same node ${sameId}, gap before ${prevGap}`);
  }

  // 5. typing: last recorded value has the expected length; values present / masked as configured
  for (const t of exp.typing) {
    const v = inputs.get(t.window_id) && inputs.get(t.window_id).get(t.field_label);
    if (v == null) fail(slug, `no input events for "${t.field_label}"`);
    else if ([...v].length !== t.char_count) fail(slug, `"${t.field_label}" last value length ${[...v].length} != ${t.char_count}`);
    else if (t.masked_in_recording && !/^\*+$/.test(v)) fail(slug, `"${t.field_label}" should be masked`);
    else ok(slug, `typing "${t.field_label}": ${t.char_count} chars, ${t.masked_in_recording ? 'masked (*)' : 'value present in raw recording'}`);
  }
  for (const s of exp.secret_values || []) {
    raw.includes(s) ? ok(slug, `secret "${s}" is present in the raw recording (the digest must hide it)`) : fail(slug, `secret "${s}" absent from the raw recording`);
  }

  // 6. failed network requests in rrweb/network@1
  const netReqs = events.filter((e) => e[1].type === 6 && e[1].data.plugin === 'rrweb/network@1').flatMap((e) => e[1].data.payload.requests.map((r) => ({ w: e[0], r })));
  const failedRec = netReqs.filter(({ r }) => (r.status || r.responseStatus || 0) >= 400);
  for (const f of exp.failed_requests) {
    const hit = failedRec.filter(({ w, r }) => w === f.window_id && r.name === f.url && (r.status === f.status || r.responseStatus === f.status));
    if (!hit.length) fail(slug, `failed request ${f.method} ${f.url} ${f.status} not in rrweb/network@1`);
  }
  failedRec.length === exp.failed_requests.length
    ? ok(slug, `${failedRec.length} failed requests in rrweb/network@1 = expected (${[...new Set(exp.failed_requests.map((f) => `${f.method} ${f.path} ${f.status}`))].join(', ')})`)
    : fail(slug, `${failedRec.length} failed requests recorded, expected ${exp.failed_requests.length}`);

  // 7. custom events: visibility, pageviews, session options
  const custom = events.filter((e) => e[1].type === 5);
  const vis = custom.filter((e) => /^window (hidden|visible)$/.test(e[1].data.tag)).map((e) => [e[0], e[1].data.tag.slice(7)]);
  JSON.stringify(vis) === JSON.stringify(exp.visibility.map((v) => [v.window_id, v.state]))
    ? ok(slug, `visibility custom events ${JSON.stringify(vis.map((v) => v[1]))}`)
    : fail(slug, `visibility ${JSON.stringify(vis)} != expected ${JSON.stringify(exp.visibility)}`);
  const pv = custom.filter((e) => e[1].data.tag === '$pageview');
  if (entry.recorder_config.pageview_custom_events) {
    pv.length === exp.pages.length ? ok(slug, `${pv.length} $pageview custom events`) : fail(slug, `${pv.length} $pageview events, expected ${exp.pages.length}`);
  } else if (pv.length) fail(slug, 'unexpected $pageview events');
  const so = custom.filter((e) => e[1].data.tag === '$session_options');
  so.length === exp.pages.length ? ok(slug, `${so.length} $session_options custom events (one per page load)`) : fail(slug, `${so.length} $session_options, expected ${exp.pages.length}`);

  // 8. scrolls and resizes
  for (const s of exp.scrolls) {
    const sc = events.filter((e) => e[0] === s.window_id && e[1].type === 3 && e[1].data.source === 3);
    const maxY = Math.max(0, ...sc.map((e) => e[1].data.y));
    maxY > 0 ? ok(slug, `scroll events in ${s.path}: max y ${maxY} (expected reach ${s.to_y})`) : fail(slug, `no scroll events for ${s.path}`);
  }
  for (const r of exp.resizes) {
    const rz = events.filter((e) => e[0] === r.window_id && e[1].type === 3 && e[1].data.source === 4 && e[1].data.width === r.to.width && e[1].data.height === r.to.height);
    rz.length ? ok(slug, `viewport resize to ${r.to.width}x${r.to.height}`) : fail(slug, `no viewport resize to ${r.to.width}x${r.to.height}`);
  }

  // 9. prompt-injection probes
  if (exp.prompt_injection_probes) {
    const p = exp.prompt_injection_probes;
    const clickHit = clicks.some((c) => c.el && c.el.name === p.clicked_element_text);
    const consoleHit = consoleEvents.some((e) => consoleText(e) === p.console_message);
    clickHit && consoleHit ? ok(slug, 'prompt-injection probes present (clicked button text + console.warn)') : fail(slug, `probes: click ${clickHit}, console ${consoleHit}`);
  }
}
console.log(`\ntotal ${(total / 1024).toFixed(1)} KiB in ${index.filter((e) => !e.truth_file).length} recordings`);
if (total > 1.5 * 1024 * 1024) fail('all', 'fixtures exceed 1.5 MB');
if (failures) {
  console.log(`${failures} failure(s)`);
  process.exit(1);
}
console.log('all checks passed');
