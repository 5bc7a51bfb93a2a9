// Digest throughput of several builds against the baseline, interleaved in one process: for
// comparing a change with the code before it on a shared, noisy machine. Each round runs the
// baseline (split lines + JSON.parse) and every build once on the same bytes, in a rotating order;
// the figure per build is the median over the rounds after the warm-up of (baseline CPU time ÷
// the build's CPU time in that round), i.e. throughput per CPU second as a ratio of the baseline's.
// With several builds, each after the first is also compared with the first round by round (the
// first's CPU time ÷ its own): a steadier figure for a small difference between two builds.
//
//   node bench/digest-ab.mjs [--mb 16] [--rounds 12] [--warmup 3] dist /tmp/old/dist …
//
// Each argument is a build's output directory (`npm run build` writes dist/); its digest modules
// are loaded from <dir>/digest/feed.js and <dir>/digest/render.js.

import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { baseline, corpus, digestWith } from './lib/digest-input.mjs';
import { median, quantile } from './lib/stats.mjs';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    mb: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '12' },
    warmup: { type: 'string', default: '3' },
  },
});
const dirs = positionals.length > 0 ? positionals : ['dist'];
const builds = [];
for (const dir of dirs) {
  const base = pathToFileURL(resolve(dir) + '/');
  const { DigestFeed } = await import(new URL('digest/feed.js', base).href);
  const { renderDigest } = await import(new URL('digest/render.js', base).href);
  builds.push({ name: dir, run: digestWith({ DigestFeed, renderDigest }), ratios: [] });
}

const buffer = corpus(Number(opts.mb) * 1e6);
const mb = buffer.length / 1e6;
const cpuMs = (fn) => {
  const before = process.cpuUsage();
  fn(buffer);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};

const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
console.log(`digest A/B — node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? 'cpu'}; ${mb.toFixed(1)} MB, ${opts.rounds} rounds (first ${opts.warmup} not counted); load ${load()}`);
const texts = new Set(builds.map((b) => b.run(buffer)));
if (texts.size !== 1) console.log(`  note: the builds' digest texts differ in length: ${[...texts].join(', ')}`);
const baseMs = [];
for (let round = 0; round < Number(opts.rounds); round++) {
  const order = [{ name: 'baseline' }, ...builds];
  const rotated = order.map((_, i) => order[(i + round) % order.length]);
  const ms = new Map();
  for (const entry of rotated) ms.set(entry.name, cpuMs(entry.run ?? baseline));
  if (round < Number(opts.warmup)) continue;
  baseMs.push(ms.get('baseline'));
  for (const build of builds) {
    build.ratios.push(ms.get('baseline') / ms.get(build.name));
    // Against the first build in the same round: pairs taken a moment apart drift together.
    (build.paired ??= []).push(ms.get(builds[0].name) / ms.get(build.name));
  }
}
console.log(`  baseline: ${(mb / (median(baseMs) / 1000)).toFixed(1)} MB per CPU second (median)`);
for (const build of builds) {
  const r = build.ratios;
  console.log(`  ${build.name}: ${median(r).toFixed(3)}x the baseline per CPU second (p25–p75 ${quantile(r, 0.25).toFixed(3)}–${quantile(r, 0.75).toFixed(3)}; rounds: ${r.map((x) => x.toFixed(2)).join(' ')})`);
}
for (const build of builds.slice(1)) {
  const p = build.paired;
  console.log(`  ${build.name} against ${builds[0].name}, round by round: ${median(p).toFixed(3)}x as fast (p25–p75 ${quantile(p, 0.25).toFixed(3)}–${quantile(p, 0.75).toFixed(3)})`);
}
console.log(`  load at the end: ${load()}`);
