/**
 * Which of a recording's timestamps to believe. Recorders get clocks wrong: a test froze
 * `Date.now` (every event the same time), an edited value is off by ×10, a mobile SDK sends a
 * network event days before the screen it belongs to, a hostile upstream sends −1e17 or 1e300.
 * Timestamps are grouped into clusters with no gap longer than CLUSTER_GAP_MS; the recording's
 * span is that of the clusters with at least TRUSTED_MIN events (and always the largest one), so
 * one wild value cannot stretch a 40-second recording to 4,750 hours. Memory is bounded: at most
 * MAX_CLUSTERS clusters, the closest merged past that.
 */

/** Date's own range (±8.64e15 ms): anything beyond cannot be a time at all. */
export const MAX_TIME_MS = 8.64e15;
/** No recorder leaves this long between two events of one session (PostHog ends one after 30 min idle). */
export const CLUSTER_GAP_MS = 6 * 60 * 60 * 1000;
/** A cluster of fewer events, not the largest, is a few stray timestamps rather than part of the recording. */
const TRUSTED_MIN = 3;
const MAX_CLUSTERS = 64;
/** At least this many events, all at one time, means the recorder's clock was frozen. */
const FROZEN_MIN_EVENTS = 5;

interface Cluster {
  lo: number;
  hi: number;
  n: number;
}

export interface TimeRange {
  start: number | null;
  end: number | null;
  /** events whose timestamp was left out of the span (stray or impossible) */
  stray: number;
  /** every event has the same timestamp */
  frozen: boolean;
}

export function isPossibleTime(ts: number): boolean {
  return Number.isFinite(ts) && Math.abs(ts) <= MAX_TIME_MS;
}

export class TimestampClusters {
  private readonly clusters: Cluster[] = [];
  private impossible = 0;
  private total = 0;

  /** Counts an event whose timestamp is not a time at all (beyond Date's range). */
  addImpossible(): void {
    this.impossible++;
  }

  add(ts: number): void {
    this.total++;
    const list = this.clusters;
    // Events mostly arrive in order: the last cluster is the usual home.
    const last = list[list.length - 1];
    if (last && ts >= last.lo - CLUSTER_GAP_MS && ts <= last.hi + CLUSTER_GAP_MS && (list.length === 1 || ts > list[list.length - 2]!.hi + CLUSTER_GAP_MS)) {
      extend(last, ts);
      return;
    }
    // The first cluster whose end is not too far before ts.
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.hi + CLUSTER_GAP_MS < ts) lo = mid + 1;
      else hi = mid;
    }
    const at = list[lo];
    if (at && at.lo - CLUSTER_GAP_MS <= ts) {
      extend(at, ts);
      // Extending may have closed the gap to the next cluster.
      const next = list[lo + 1];
      if (next && next.lo - CLUSTER_GAP_MS <= at.hi) {
        at.hi = Math.max(at.hi, next.hi);
        at.n += next.n;
        list.splice(lo + 1, 1);
      }
    } else {
      list.splice(lo, 0, { lo: ts, hi: ts, n: 1 });
      if (list.length > MAX_CLUSTERS) mergeClosest(list);
    }
  }

  range(): TimeRange {
    const list = this.clusters;
    if (list.length === 0) return { start: null, end: null, stray: this.impossible, frozen: false };
    let largest = list[0]!;
    for (const c of list) if (c.n > largest.n) largest = c;
    let start = Infinity;
    let end = -Infinity;
    let stray = this.impossible;
    for (const c of list) {
      if (c === largest || c.n >= TRUSTED_MIN) {
        start = Math.min(start, c.lo);
        end = Math.max(end, c.hi);
      } else stray += c.n;
    }
    return { start, end, stray, frozen: this.total - (stray - this.impossible) >= FROZEN_MIN_EVENTS && start === end };
  }
}

function extend(cluster: Cluster, ts: number): void {
  if (ts < cluster.lo) cluster.lo = ts;
  if (ts > cluster.hi) cluster.hi = ts;
  cluster.n++;
}

function mergeClosest(list: Cluster[]): void {
  let best = 0;
  for (let i = 1; i < list.length - 1; i++) if (list[i + 1]!.lo - list[i]!.hi < list[best + 1]!.lo - list[best]!.hi) best = i;
  const a = list[best]!;
  const b = list[best + 1]!;
  list.splice(best, 2, { lo: a.lo, hi: Math.max(a.hi, b.hi), n: a.n + b.n });
}
