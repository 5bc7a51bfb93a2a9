/**
 * What a digest is made of: timeline entries, page visits, counts, and the moments other features
 * (a replay player's timeline markers, a triage over many recordings) read without parsing text.
 */

export type ItemKind =
  | 'page'
  | 'click'
  | 'rage-click'
  | 'dead-click'
  | 'input'
  | 'scroll'
  | 'resize'
  | 'console-error'
  | 'console-warn'
  | 'request-failed'
  | 'message'
  | 'tab-hidden'
  | 'tab-visible';

/** Lower is more important: what survives when the character budget is tight. */
export const PRIORITY: Record<ItemKind, number> = {
  'rage-click': 0,
  'console-error': 0,
  'request-failed': 0,
  page: 1,
  message: 1,
  'dead-click': 2,
  click: 2,
  'console-warn': 2,
  input: 3,
  'tab-hidden': 3,
  'tab-visible': 3,
  scroll: 4,
  resize: 4,
};

export interface TimelineItem {
  /** ms since the recording's first event */
  t: number;
  /** window label, w1, w2… */
  w: string;
  kind: ItemKind;
  /** the element, page or request concerned; recorded data */
  target?: string;
  /** what happened to it; may quote recorded data (a page message: its text, masked) */
  detail?: string;
  /** repeated clicks, identical console messages */
  count?: number;
  /** identical errors or requests repeated: when the last of them came (`t` is the first's), ms like `t` */
  last_t?: number;
  /** a page message repeated with other numbers in it: the last one's text (`detail` is the first's) */
  last_detail?: string;
  /** a page message that tells the person something went wrong (rules/messages.ts tellsTrouble) */
  trouble?: true;
  /** a failed request's parts (its target is `METHOD url`); `body`: the response body the recording kept, masked and cut (rules/network.ts) */
  request?: { method?: string; url: string; status?: number; error?: string; body?: string };
}

export interface PageVisit {
  t: number;
  w: string;
  url: string;
  title?: string;
  /** deepest vertical scroll seen on this page, px */
  max_scroll_y?: number;
}

export interface DigestCounts {
  events: number;
  clicks: number;
  rage_clicks: number;
  dead_clicks: number;
  inputs: number;
  scrolls: number;
  resizes: number;
  page_views: number;
  mutations: number;
  console_errors: number;
  console_warnings: number;
  console_logs: number;
  requests: number;
  failed_requests: number;
  custom_events: number;
}

export interface Digest {
  start: number | null;
  end: number | null;
  duration_ms: number;
  /** How far the timestamps can be believed: `frozen` (all the same), or how many were stray and left out of the span. */
  timing: { frozen: boolean; stray: number };
  active_ms: number;
  windows: Array<{ w: string; window_id: string | null; pages: number }>;
  pages: PageVisit[];
  timeline: TimelineItem[];
  counts: DigestCounts;
  /** what could not be read or was left out while reading, in words */
  notes: string[];
  /** an input was recorded masked: page messages mask the person's name and email too (rules/messages.ts) */
  inputs_masked?: boolean;
}

/** Moments (pages, rage and dead clicks, console errors and warnings, failed requests): the player reads them too, so they are described below both. */
export { MOMENT_KINDS, type Moment, type MomentKind } from '../player-data.js';
