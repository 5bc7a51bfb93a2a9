// Draws the bundle's icon (bundle/icon.png): a rounded square with a replay arrow around a play
// triangle, our own simple artwork. Run `node scripts/make-icon.mjs` to draw it again; the PNG is
// committed so a bundle build needs nothing but Node. PNG written by hand (zlib + CRC-32 from
// node:zlib), 4x supersampled for smooth edges.
import { writeFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';

const SIZE = 512;
const SS = 4; // samples per pixel edge
const out = new URL('../bundle/icon.png', import.meta.url);

const BG_TOP = [29, 74, 255]; // blue
const BG_BOTTOM = [14, 28, 94]; // navy
const FG = [255, 255, 255];
const ACCENT = [255, 170, 40]; // amber play triangle

/** Coverage of the shapes at one sample point: 'bg', 'ring', 'play' or null (transparent). */
function shapeAt(x, y) {
  const c = SIZE / 2;
  // Rounded square: radius 96.
  const r = 96;
  const dx = Math.max(r - x, 0, x - (SIZE - r));
  const dy = Math.max(r - y, 0, y - (SIZE - r));
  if (dx * dx + dy * dy > r * r) return null;
  // Play triangle pointing right, centred slightly right of the middle.
  const tx = x - (c + 12);
  const ty = y - c;
  if (tx > -70 && tx < 80 && Math.abs(ty) < (80 - tx) * (95 / 150)) return 'play';
  // Replay ring: an annulus open at the top right, with an arrow head at its end.
  const rx = x - c;
  const ry = y - c;
  const d = Math.hypot(rx, ry);
  const angle = Math.atan2(ry, rx); // -PI..PI, 0 = right, -PI/2 = up
  const inGap = angle > -Math.PI * 0.8 && angle < -Math.PI / 2;
  if (d > 150 && d < 190 && !inGap) return 'ring';
  // Arrow head at the ring's top end, pointing left: the ring runs counter-clockwise (replay).
  const ax = x - (c + 4);
  const ay = y - (c - 170);
  if (ax <= 0 && ax > -72 && Math.abs(ay) < (ax + 72) * (52 / 72)) return 'ring';
  return 'bg';
}

const rows = [];
for (let py = 0; py < SIZE; py++) {
  const row = Buffer.alloc(1 + SIZE * 4); // filter byte 0, then RGBA
  for (let px = 0; px < SIZE; px++) {
    let rSum = 0, gSum = 0, bSum = 0, aSum = 0;
    for (let sy = 0; sy < SS; sy++) {
      for (let sx = 0; sx < SS; sx++) {
        const x = px + (sx + 0.5) / SS;
        const y = py + (sy + 0.5) / SS;
        const shape = shapeAt(x, y);
        if (shape === null) continue;
        const t = y / SIZE;
        const color = shape === 'play' ? ACCENT : shape === 'ring' ? FG : BG_TOP.map((v, i) => v + (BG_BOTTOM[i] - v) * t);
        rSum += color[0];
        gSum += color[1];
        bSum += color[2];
        aSum += 1;
      }
    }
    const o = 1 + px * 4;
    if (aSum > 0) {
      row[o] = Math.round(rSum / aSum);
      row[o + 1] = Math.round(gSum / aSum);
      row[o + 2] = Math.round(bSum / aSum);
    }
    row[o + 3] = Math.round((255 * aSum) / (SS * SS));
  }
  rows.push(row);
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header[8] = 8; // bit depth
header[9] = 6; // RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(out, png);
process.stderr.write(`wrote ${out.pathname} (${png.length} bytes)\n`);
