// The digest benchmarks' input and floor (bench/digest.mjs, bench/digest-ab.mjs): the recorded
// fixtures repeated to a size, fed in socket-sized chunks, and the baseline every figure is a
// ratio to (split lines + JSON.parse, nothing else).

import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);

/** The recorded fixtures' lines, repeated with later timestamps until `targetBytes`. */
export function corpus(targetBytes) {
  const index = JSON.parse(readFileSync(new URL('fixtures/recordings/index.json', root), 'utf8'));
  const bases = index.map((f) => readFileSync(new URL(`fixtures/recordings/${f.file}`, root), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)));
  const parts = [];
  let bytes = 0;
  let offset = 0;
  for (let copy = 0; bytes < targetBytes; copy++) {
    const base = bases[copy % bases.length];
    const first = base[0][1].timestamp;
    let last = first;
    for (const [windowId, event] of base) {
      const line = JSON.stringify([windowId, { ...event, timestamp: event.timestamp - first + offset }]) + '\n';
      last = event.timestamp;
      parts.push(line);
      bytes += Buffer.byteLength(line);
    }
    offset += last - first + 1000;
  }
  return Buffer.from(parts.join(''));
}

export function* chunksOf(buffer, size = 64 * 1024) {
  for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size);
}

/** The floor: find each newline, decode the line, JSON.parse it. */
export function baseline(buffer) {
  let parsed = 0;
  let carry = null;
  for (const chunk of chunksOf(buffer)) {
    let start = 0;
    let nl = chunk.indexOf(0x0a);
    while (nl !== -1) {
      const line = carry ? Buffer.concat([carry, chunk.subarray(start, nl)]).toString('utf8') : chunk.toString('utf8', start, nl);
      carry = null;
      if (line) {
        JSON.parse(line);
        parsed++;
      }
      start = nl + 1;
      nl = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) carry = carry ? Buffer.concat([carry, chunk.subarray(start)]) : chunk.subarray(start);
  }
  return parsed;
}

/** What the tool's digest worker does with each body (split lines, decode events, digest; then render), with a build's modules. */
export function digestWith({ DigestFeed, renderDigest }) {
  return (buffer) => {
    const feed = new DigestFeed();
    feed.startUnit();
    for (const chunk of chunksOf(buffer)) feed.data(chunk);
    feed.endUnit();
    return renderDigest(feed.finish(), { id: 'bench', projectId: '1' }, 4000).text.length;
  };
}
