/**
 * Click rules: rage clicks (RAGE_CLICKS clicks on one element within RAGE_WINDOW_MS) and dead
 * clicks (nothing visible within DEAD_CLICK_MS), judged per window by that window's own clock.
 */

import type { DigestCounts, TimelineItem } from '../model.js';

/** Rage click: this many clicks on one element… */
export const RAGE_CLICKS = 3;
/** …within this window. */
export const RAGE_WINDOW_MS = 1_000;
/** A click with no DOM change, navigation, scroll or input within this long is a dead click (posthog-js uses 2.5 s). */
export const DEAD_CLICK_MS = 2_500;

interface PendingClick {
  at: number;
  item: TimelineItem;
}

/** What the click rules keep for one window. */
export interface ClickState {
  /** the click burst on one element: its last few click times */
  burst: { node: number; times: number[]; clicks: number; item: TimelineItem; rage: boolean } | undefined;
  /** clicks not yet judged dead or alive */
  pending: PendingClick[];
  /** page views in the window so far (none yet: a tab a click just opened) */
  pages: number;
}

export function newClickState(): Pick<ClickState, 'burst' | 'pending'> {
  return { burst: undefined, pending: [] };
}

export interface ClickSink {
  readonly counts: DigestCounts;
  /** Keeps an entry that became important (a rage click) even past the cap for minor ones. */
  promote(item: TimelineItem): void;
}

export class ClickRules {
  /** Windows with clicks still waiting to be judged. */
  private readonly waiting = new Set<ClickState>();

  constructor(private readonly sink: ClickSink) {}

  /**
   * A click on `node` at `ts`. Another click of a burst adds to its entry; a new one gets the
   * entry `entry()` makes. `judge`: whether it can be a dead click (not so in a form field or on
   * the page background, where nothing is expected to happen).
   */
  click(win: ClickState, ts: number, node: number, entry: () => TimelineItem, judge: boolean): void {
    const burst = win.burst;
    if (burst && burst.node === node && ts - burst.times[burst.times.length - 1]! <= RAGE_WINDOW_MS && ts >= burst.times[0]!) {
      burst.clicks++;
      burst.times.push(ts);
      if (burst.times.length > RAGE_CLICKS) burst.times.shift();
      burst.item.count = burst.clicks;
      if (!burst.rage && burst.times.length >= RAGE_CLICKS && ts - burst.times[0]! <= RAGE_WINDOW_MS) {
        burst.rage = true;
        burst.item.kind = 'rage-click';
        if (burst.item.detail === 'double-click') delete burst.item.detail;
        this.sink.counts.rage_clicks++;
        // Clicks that turned into a rage click are not also judged as dead…
        win.pending = win.pending.filter((p) => p.item !== burst.item);
        // …and a rage click past the timeline's cap for minor entries is kept after all.
        this.sink.promote(burst.item);
      }
      return;
    }
    const item = entry();
    win.burst = { node, times: [ts], clicks: 1, item, rage: false };
    if (judge) {
      win.pending.push({ at: ts, item });
      this.waiting.add(win);
    }
  }

  /**
   * A browser reports a double-click as click, click, dblclick: the clicks are counted already.
   * Two clicks and a dblclick are a double-click; a third click within the rage window still makes
   * a rage click (the burst goes on: a dblclick among 4 clicks in half a second is no excuse).
   */
  doubleClick(win: ClickState, node: number): void {
    const burst = win.burst;
    if (burst && burst.node === node && !burst.rage && burst.clicks === 2) {
      burst.item.detail = 'double-click';
      delete burst.item.count;
    }
  }

  /** The entry of a click no longer stands for a click (it became an input): out of the rules. */
  forget(win: ClickState, item: TimelineItem): void {
    win.pending = win.pending.filter((p) => p.item !== item);
    if (win.burst?.item === item) win.burst = undefined;
  }

  /** A new page: clicks before it are not part of a burst after it. */
  endBurst(win: ClickState): void {
    win.burst = undefined;
  }

  /** Something visible happened in `win` at `ts`: pending clicks before it were not dead. */
  reacted(win: ClickState, ts: number): void {
    const alive = (p: PendingClick) => p.at > ts || ts - p.at > DEAD_CLICK_MS;
    if (win.pending.length > 0) win.pending = win.pending.filter(alive);
    // A new tab opened by a click counts as its reaction too.
    if (win.pages === 0) for (const other of this.waiting) if (other !== win) other.pending = other.pending.filter(alive);
  }

  /** A window's clicks with nothing after them for DEAD_CLICK_MS, judged once its own events are past that point. */
  settle(win: ClickState, now: number): void {
    if (win.pending.length === 0) return;
    const still: PendingClick[] = [];
    for (const p of win.pending) {
      if (now - p.at > DEAD_CLICK_MS) {
        if (p.item.kind === 'click') {
          p.item.kind = 'dead-click';
          this.sink.counts.dead_clicks++;
        }
      } else still.push(p);
    }
    win.pending = still;
    if (still.length === 0) this.waiting.delete(win);
  }

  /** Clicks still pending at the end had no time to show a reaction: not judged dead. */
  finish(): void {
    for (const win of this.waiting) win.pending = [];
    this.waiting.clear();
  }
}
