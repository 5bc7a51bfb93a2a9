// Where the digest's time goes, part by part: wall time spent in the Digester's handlers, the
// DOM mirror's rebuild and the render, per pass of the bench's input (bench/lib/digest-input.mjs),
// in steady state. A diagnostic for whoever works on the digest's speed, not a figure of the issue:
//
// - each part is timed by a wrapper put on the build's prototype before the first run (so the JIT
//   only ever sees the wrapped code); the wrapper costs about two `performance.now()` calls, which
//   the output prints per part (calls × the measured cost of one) so it can be taken off by eye;
// - a part's time includes the parts it calls (`incremental` includes `click`, `input`, `mutate`);
// - "split + decode" is what the feed spends outside `Digester.push`: line splitting, JSON.parse,
//   posthog-js decompression, the feed's own loop, and the calls into the wrappers (a few ms high);
// - wall time: on a loaded machine every part reads high (2–3 times at load 2.5 on 2 cores).
//
//   node bench/digest-parts.mjs [--mb 32] [--passes 12] [--warmup 6] [dist]

import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { baseline, chunksOf, corpus } from './lib/digest-input.mjs';
import { median } from './lib/stats.mjs';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    mb: { type: 'string', default: '32' },
    passes: { type: 'string', default: '12' },
    warmup: { type: 'string', default: '6' },
  },
});
const base = pathToFileURL(resolve(positionals[0] ?? 'dist') + '/');
const { DigestFeed } = await import(new URL('digest/feed.js', base).href);
const { renderDigest } = await import(new URL('digest/render.js', base).href);
const { Digester } = await import(new URL('digest/digest.js', base).href);
const { NodeMirror } = await import(new URL('digest/mirror.js', base).href);
const { ClickRules } = await import(new URL('digest/rules/clicks.js', base).href);

/** ms and calls per part, for the current pass */
let spent = new Map();
function timeMethod(proto, method, label) {
  const original = proto[method];
  if (typeof original !== 'function') throw new Error(`${label}: no method ${method} in this build`);
  proto[method] = function (...args) {
    const start = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      const part = spent.get(label);
      if (part) {
        part.ms += performance.now() - start;
        part.calls++;
      } else spent.set(label, { ms: performance.now() - start, calls: 1 });
    }
  };
}
const PARTS = [
  [Digester.prototype, 'push', 'Digester.push (all of it)'],
  [Digester.prototype, 'fullSnapshot', '  full snapshots'],
  [NodeMirror.prototype, 'reset', '    mirror rebuild'],
  [Digester.prototype, 'incremental', '  incremental snapshots'],
  [Digester.prototype, 'click', '    clicks'],
  [Digester.prototype, 'clickTarget', '      target (interactive ancestor)'],
  [Digester.prototype, 'isFormControl', '      form control?'],
  [ClickRules.prototype, 'click', '      click rules and the entry'],
  [Digester.prototype, 'add', '        new timeline entries (all kinds)'],
  [Digester.prototype, 'input', '    inputs'],
  [Digester.prototype, 'scroll', '    scrolls'],
  [NodeMirror.prototype, 'mutate', '    mutations (mirror)'],
  [Digester.prototype, 'plugin', '  network and console'],
  [Digester.prototype, 'custom', '  custom events'],
  [Digester.prototype, 'pageView', '  page views (Meta and custom)'],
  [NodeMirror.prototype, 'textOf', '  element text (naming)'],
  [NodeMirror.prototype, 'labelOf', '  field labels (naming)'],
];
for (const [proto, method, label] of PARTS) timeMethod(proto, method, label);

// What one wrapper costs at least: two clock reads (the call through `apply` and the Map update
// are not counted). The sum is printed so the loop cannot be dropped as dead code.
let clockSum = 0;
const clockStart = performance.now();
for (let i = 0; i < 200_000; i++) clockSum += performance.now();
const clockCost = ((performance.now() - clockStart) / 200_000) * 2;

const buffer = corpus(Number(opts.mb) * 1e6);
const mb = buffer.length / 1e6;
const cpuMs = (fn) => {
  const before = process.cpuUsage();
  const result = fn();
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, result };
};
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
console.log(`digest parts — node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? 'cpu'}; ${mb.toFixed(1)} MB, ${opts.passes} passes after ${opts.warmup} warm-up; load ${load()}; two clock reads ${(clockCost * 1000).toFixed(3)} µs (checksum ${clockSum > 0 ? 'ok' : '?'})`);

const rows = new Map();
const totals = { baseline: [], digest: [], feed: [], finish: [], render: [] };
for (let pass = 0; pass < Number(opts.warmup) + Number(opts.passes); pass++) {
  spent = new Map();
  const floor = cpuMs(() => baseline(buffer)).ms;
  const t0 = performance.now();
  const cpu = cpuMs(() => {
    const feed = new DigestFeed();
    feed.startUnit();
    for (const chunk of chunksOf(buffer)) feed.data(chunk);
    feed.endUnit();
    const t1 = performance.now();
    const digest = feed.finish();
    const t2 = performance.now();
    renderDigest(digest, { id: 'bench', projectId: '1' }, 4000);
    return { feed: t1 - t0, finish: t2 - t1, render: performance.now() - t2 };
  });
  if (pass < Number(opts.warmup)) continue;
  totals.baseline.push(floor);
  totals.digest.push(cpu.ms);
  totals.feed.push(cpu.result.feed);
  totals.finish.push(cpu.result.finish);
  totals.render.push(cpu.result.render);
  for (const [label, part] of spent) {
    const row = rows.get(label) ?? { ms: [], calls: part.calls };
    row.ms.push(part.ms);
    rows.set(label, row);
  }
}

const fmt = (ms) => `${ms.toFixed(1).padStart(7)} ms`;
const push = median(rows.get('Digester.push (all of it)')?.ms ?? [0]);
console.log(`  per pass, medians (CPU time of the process for the first two; wall time inside the code for the rest):`);
console.log(`  baseline (split + JSON.parse)          ${fmt(median(totals.baseline))}`);
console.log(`  digest, all of it                      ${fmt(median(totals.digest))}  (${(median(totals.baseline) / median(totals.digest)).toFixed(3)}x the baseline)`);
console.log(`  feed (split, decode, push)             ${fmt(median(totals.feed))}`);
console.log(`  split + decode (feed − push)           ${fmt(median(totals.feed) - push)}`);
for (const [, , label] of PARTS) {
  const row = rows.get(label);
  if (!row) continue;
  console.log(`  ${label.padEnd(37)} ${fmt(median(row.ms))}  ${String(row.calls).padStart(7)} calls, timers ≈ ${(row.calls * clockCost).toFixed(1)} ms`);
}
console.log(`  Digester.finish                        ${fmt(median(totals.finish))}`);
console.log(`  render (4,000 characters)              ${fmt(median(totals.render))}`);
console.log(`  load at the end: ${load()}`);
