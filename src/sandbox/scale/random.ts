// Seeded randomness for the generated population: one stream per seed, so the same seed (and the
// same hour) gives the same sessions, ids and problems in every process.

/** mulberry32: small, fast and good enough to draw a population from. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of `items`, each as likely as its weight. */
  weighted<T>(items: ReadonlyArray<readonly [T, number]>): T {
    const total = items.reduce((sum, [, w]) => sum + w, 0);
    let at = this.next() * total;
    for (const [item, w] of items) {
      at -= w;
      if (at < 0) return item;
    }
    return items[items.length - 1]![0];
  }

  /** Between min and max, spread evenly on a log scale (dwell times, durations). */
  logUniform(min: number, max: number): number {
    return Math.round(Math.exp(Math.log(min) + this.next() * (Math.log(max) - Math.log(min))));
  }

  /** 32 random bits. */
  u32(): number {
    return Math.floor(this.next() * 0x100000000);
  }

  /** A UUIDv7 for time `ms` (posthog-js's session, window and anonymous ids are v7), its random bits from this stream. */
  uuidV7(ms: number): string {
    const t = Math.max(0, Math.floor(ms));
    const hi = Math.floor(t / 0x100000000);
    const lo = t >>> 0;
    const a = this.u32();
    const b = this.u32();
    const c = this.u32();
    return (
      HEX[(hi >>> 8) & 0xff]! + HEX[hi & 0xff]! + HEX[lo >>> 24]! + HEX[(lo >>> 16) & 0xff]! + '-' +
      HEX[(lo >>> 8) & 0xff]! + HEX[lo & 0xff]! + '-' +
      HEX[0x70 | (a & 0x0f)]! + HEX[(a >>> 8) & 0xff]! + '-' +
      HEX[0x80 | ((a >>> 16) & 0x3f)]! + HEX[a >>> 24]! + '-' +
      HEX[b >>> 24]! + HEX[(b >>> 16) & 0xff]! + HEX[(b >>> 8) & 0xff]! + HEX[b & 0xff]! + HEX[c >>> 24]! + HEX[(c >>> 16) & 0xff]!
    );
  }
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
