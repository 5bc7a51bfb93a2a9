// Are two builds' digests the same? For a change to the digest's speed that must not change what
// it says: every recording in fixtures/recordings and /work/shared/corpus/recordings (or the
// directories given with --dir), fed whole, in 7-byte and in 4 KB chunks, the bench's 8 MB input,
// and random hostile recordings (wild ids and timestamps, nodes inserted before themselves,
// mutations of missing parents, cut and corrupt lines, many windows, long timelines), each
// digested by both builds and rendered at several budgets. Exits 1 on the first difference.
//
//   node bench/digest-compare.mjs /tmp/old/dist dist [--random 3000] [--seed 1] [--dir DIR …]

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { corpus } from './lib/digest-input.mjs';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { random: { type: 'string', default: '3000' }, seed: { type: 'string', default: '1' }, dir: { type: 'string', multiple: true } },
});
if (positionals.length !== 2) throw new Error('usage: node bench/digest-compare.mjs OLD_DIST NEW_DIST');
const load = async (dir) => {
  const base = pathToFileURL(resolve(dir) + '/');
  return { ...(await import(new URL('digest/feed.js', base).href)), ...(await import(new URL('digest/render.js', base).href)) };
};
const [a, b] = await Promise.all(positionals.map(load));

const BUDGETS = [4000, 1500, 300, 20000];
/** Everything a build says of `bytes` fed in chunks of `size`, the render's random nonce masked. */
function said(build, bytes, size) {
  const feed = new build.DigestFeed();
  feed.startUnit();
  for (let i = 0; i < bytes.length; i += size) feed.data(bytes.subarray(i, i + size));
  feed.endUnit();
  const digest = feed.finish();
  const out = [JSON.stringify(digest)];
  for (const budget of BUDGETS) {
    const r = build.renderDigest(digest, { id: 'rec', projectId: '1', person: { name: 'P' } }, budget);
    out.push(JSON.stringify({ ...r, text: r.text.replace(/recorded-data [0-9a-f]{8}/g, 'recorded-data NONCE') }));
  }
  return out.join('\n');
}

let compared = 0;
function compare(name, bytes, sizes = [bytes.length || 1, 7, 4096]) {
  for (const size of sizes) {
    const x = said(a, bytes, size);
    const y = said(b, bytes, size);
    compared++;
    if (x !== y) {
      let i = 0;
      while (x[i] === y[i]) i++;
      console.error(`DIFFERENT: ${name} in chunks of ${size} bytes, at character ${i}:\n  old …${x.slice(Math.max(0, i - 120), i + 200)}\n  new …${y.slice(Math.max(0, i - 120), i + 200)}`);
      process.exit(1);
    }
  }
}

const dirs = opts.dir ?? [new URL('../fixtures/recordings/', import.meta.url).pathname, '/work/shared/corpus/recordings'];
for (const dir of dirs.filter((d) => existsSync(d))) {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) compare(file, readFileSync(join(dir, file)));
}
compare('the bench input, 8 MB', corpus(8e6), [64 * 1024, 4096]);

// Random hostile recordings from a seeded generator.
let state = Number(opts.seed) >>> 0 || 1;
const rand = () => ((state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
const int = (n) => Math.floor(rand() * n);
const pick = (xs) => xs[int(xs.length)];
const ID = () => pick([int(40), int(40), int(40), int(400), -int(5), 0.5 + int(10), 2 ** 18 + int(5), 2 ** 31 + int(5), 1e21, NaN, 'x', null]);
const TAGS = ['div', 'button', 'a', 'input', 'label', 'select', 'option', 'textarea', 'span', 'title', 'html', 'body', 'BUTTON', 'scr ipt', 'style'];
const ATTRS = () => {
  const attrs = {};
  for (let i = int(4); i > 0; i--) attrs[pick(['id', 'type', 'name', 'for', 'href', 'value', 'aria-label', 'role', 'class', 'placeholder', 'contenteditable'])] = pick(['a', 'x y', 'submit', 'radio', 'checkbox', 'http://e.test/p?q', '/rel', 7, '', 'true', 'false', 'button', 'e'.repeat(int(300))]);
  return attrs;
};
function node(depth) {
  const kind = int(10);
  if (kind < 3) return { type: 3, id: ID(), textContent: pick(['Place order', ' hi ', '', 'x'.repeat(int(500)), '\u2028😀']), ...(rand() < 0.1 ? { isStyle: true } : {}) };
  const n = { type: 2, tagName: pick(TAGS), attributes: rand() < 0.9 ? ATTRS() : pick([null, 'x', 5]), id: ID(), childNodes: [] };
  if (depth < 4) for (let i = int(4); i > 0; i--) n.childNodes.push(node(depth + 1));
  if (rand() < 0.05) n.childNodes = pick([null, 'x', {}]);
  return n;
}
const T0 = 1_795_000_000_000;
function event(t) {
  const r = int(22);
  if (r === 0) return { type: 4, data: { href: pick(['http://e.test/', 'http://e.test/b', 'data:text/html,' + 'x'.repeat(int(50)), 5, '']), width: 1, height: 1 }, timestamp: t };
  if (r === 1) return { type: 2, data: { node: { type: 0, id: 1, childNodes: [node(0), node(1)] } }, timestamp: t };
  if (r === 2) return { type: 5, data: { tag: pick(['$pageview', 'window hidden', 'window visible', 'visibility', 'x']), payload: { href: 'http://e.test/' + int(5), visibilityState: pick(['hidden', 'visible']) } }, timestamp: t };
  if (r === 3) return { type: 6, data: { plugin: 'rrweb/network@1', payload: { requests: [{ name: 'http://e.test/api/' + int(3), method: pick(['POST', 'get', 'bad method', undefined]), responseStatus: pick([200, 500, 404, 0, '503', null]), error: pick([undefined, 'boom', '']), isFailed: pick([undefined, true]), timestamp: pick([t, undefined, 1e300]) }, 'x', null] } }, timestamp: t };
  if (r === 4) return { type: 6, data: { plugin: 'rrweb/console@1', payload: { level: pick(['error', 'warn', 'log', 'assert']), payload: pick([['"boom"'], ['false', '"x"'], ['true'], 'x', []]) } }, timestamp: t };
  if (r === 5) return { type: 3, data: { source: 0, adds: Array.from({ length: int(4) }, () => ({ parentId: ID(), nextId: pick([null, ID()]), node: node(2) })), removes: Array.from({ length: int(3) }, () => ({ parentId: ID(), id: ID() })), texts: [{ id: ID(), value: pick(['t', 5, null]) }], attributes: [{ id: ID(), attributes: pick([ATTRS(), null, { value: null, type: null }]) }] }, timestamp: t };
  if (r < 10) return { type: 3, data: { source: 2, type: pick([2, 2, 2, 4, 0, 1, 5]), id: ID(), x: 1, y: 2 }, timestamp: t };
  if (r < 12) return { type: 3, data: { source: 5, id: ID(), text: pick(['a', 'ab', '', 'on', '😀x']), isChecked: pick([true, false, undefined]) }, timestamp: t };
  if (r === 12) return { type: 3, data: { source: 3, id: ID(), x: 0, y: pick([100, -5, NaN, 1e9]) }, timestamp: t };
  if (r === 13) return { type: 3, data: { source: 4, width: int(2000), height: int(2000) }, timestamp: t };
  if (r === 14) return { type: 3, data: { source: 1, positions: [{ x: 1, y: 1, id: 1, timeOffset: 0 }] }, timestamp: t };
  if (r === 15) return { type: 3, data: { source: 11, level: 'error', payload: ['"x"'] }, timestamp: t };
  if (r === 16) return { type: pick([0, 1, 7, 99, -1, 'x']), data: pick([{}, null, 'x']), timestamp: t };
  if (r === 17) return { type: 3, data: pick([null, 'x', { source: 'x' }]), timestamp: t };
  return { type: 3, data: { source: 2, type: 2, id: int(30), x: 0, y: 0 }, timestamp: t };
}
function recording() {
  const windows = Array.from({ length: 1 + int(rand() < 0.05 ? 60 : 3) }, (_, i) => pick([`w-${i}`, null]));
  const lines = [];
  let t = T0 + int(1e6);
  const events = rand() < 0.05 ? 3000 : 20 + int(200);
  for (let i = 0; i < events; i++) {
    t += pick([0, 1, 50, 400, 1200, 3000, 9000, -2000, 7 * 3600 * 1000]);
    const ts = rand() < 0.02 ? pick([1e300, -1e17, 'x', NaN, T0]) : t;
    const form = int(20);
    const e = event(ts);
    if (form === 0) lines.push(JSON.stringify({ window_id: pick(windows), data: [e, event(t)] }));
    else if (form === 1) lines.push(JSON.stringify({ snapshots: [{ ...e, windowId: pick(windows) }] }));
    else if (form === 2) lines.push(JSON.stringify([pick(windows), e]).slice(0, int(60)));
    else lines.push(JSON.stringify([pick(windows), e]));
  }
  return Buffer.from(lines.join(pick(['\n', '\n', '\r\n', '\n\n'])));
}
for (let i = 0; i < Number(opts.random); i++) compare(`random recording ${i} (seed ${opts.seed})`, recording(), [1 << 30, 7, 4096]);
console.log(`same: ${compared} digests (each rendered at ${BUDGETS.join(', ')} characters) by ${positionals[0]} and ${positionals[1]}`);
