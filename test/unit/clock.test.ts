import { describe, expect, it } from 'vitest';
import { CLUSTER_GAP_MS, TimestampClusters } from '../../src/digest/clock.js';

/** The same rule, the slow way: sort, split at gaps over CLUSTER_GAP_MS, keep groups of 3+ and the largest. */
function reference(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const groups: number[][] = [];
  for (const t of sorted) {
    const last = groups[groups.length - 1];
    if (last && t - last[last.length - 1]! <= CLUSTER_GAP_MS) last.push(t);
    else groups.push([t]);
  }
  let largest = groups[0]!;
  for (const g of groups) if (g.length > largest.length) largest = g;
  const kept = groups.filter((g) => g === largest || g.length >= 3);
  return { start: Math.min(...kept.map((g) => g[0]!)), end: Math.max(...kept.map((g) => g[g.length - 1]!)), stray: times.length - kept.reduce((n, g) => n + g.length, 0) };
}

describe('TimestampClusters', () => {
  it('agrees with sorting and splitting at long gaps, whatever the arrival order', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 300; round++) {
      const times: number[] = [];
      const groups = 1 + Math.floor(random() * 6);
      for (let g = 0; g < groups; g++) {
        const base = 1.7e12 + Math.floor(random() * 40) * CLUSTER_GAP_MS * 0.75;
        const n = 1 + Math.floor(random() * 6);
        for (let i = 0; i < n; i++) times.push(base + Math.floor(random() * CLUSTER_GAP_MS * 0.5));
      }
      const clusters = new TimestampClusters();
      for (const t of times) clusters.add(t);
      const range = clusters.range();
      const expected = reference(times);
      expect({ start: range.start, end: range.end, stray: range.stray }, JSON.stringify(times)).toEqual(expected);
    }
  });

  it('stays bounded with thousands of far-apart timestamps, and keeps them in the span', () => {
    const clusters = new TimestampClusters();
    for (let i = 0; i < 5_000; i++) for (let j = 0; j < 3; j++) clusters.add(1e12 + i * CLUSTER_GAP_MS * 2 + j);
    const range = clusters.range();
    expect(range).toMatchObject({ start: 1e12, end: 1e12 + 4_999 * CLUSTER_GAP_MS * 2 + 2, stray: 0, frozen: false });
  });
});
