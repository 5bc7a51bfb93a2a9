/**
 * Turns a recording's rrweb events, fed one at a time in stream order, into a digest: pages,
 * a timeline of what the user did, frustration signals, console trouble and failed requests.
 * Memory stays bounded whatever the recording's size: one DOM mirror per window, capped lists,
 * and counters for everything past the caps. The rules live beside it: clicks (rage, dead),
 * console, network and pages in rules/, naming in describe.ts, timestamps in clock.ts.
 */

import { CLUSTER_GAP_MS, TimestampClusters, isPossibleTime } from './clock.js';
import { describeElement, describeField, type NamingContext } from './describe.js';
import { NodeMirror } from './mirror.js';
import { PRIORITY, type Digest, type DigestCounts, type ItemKind, type PageVisit, type TimelineItem } from './model.js';
import { ClickRules, newClickState, type ClickState } from './rules/clicks.js';
import { readConsole } from './rules/console.js';
import { MessageBook, TypedWords, messagesInMutation, messagesInSnapshot, type FoundMessage } from './rules/messages.js';
import { outcomeOf, readRequests } from './rules/network.js';
import { pageUrl, readCustom } from './rules/pages.js';
import {
  CLICK,
  CUSTOM,
  DOUBLE_CLICK,
  DRAG,
  FULL_SNAPSHOT,
  INCREMENTAL_SNAPSHOT,
  INPUT,
  LOG,
  MEDIA_INTERACTION,
  META,
  MOUSE_INTERACTION,
  MOUSE_MOVE,
  MUTATION,
  PLUGIN,
  SCROLL,
  SELECTION,
  TOUCH_MOVE,
  VIEWPORT_RESIZE,
} from '../posthog/rrweb.js';
import { clip, plural } from '../words.js';

export * from './model.js';
export { DEAD_CLICK_MS, RAGE_CLICKS, RAGE_WINDOW_MS } from './rules/clicks.js';
export { pageUrl } from './rules/pages.js';

const KNOWN_TYPES = new Set([0, 1, FULL_SNAPSHOT, INCREMENTAL_SNAPSHOT, META, CUSTOM, PLUGIN]);
/** Sources that mean a person was doing something (PostHog counts these as activity). */
const ACTIVE_SOURCES = new Set([MOUSE_MOVE, MOUSE_INTERACTION, SCROLL, VIEWPORT_RESIZE, INPUT, TOUCH_MOVE, MEDIA_INTERACTION, DRAG, SELECTION]);

/** Gaps between activity longer than this are idle time (PostHog's own threshold). */
export const ACTIVITY_GAP_MS = 5_000;
/** Scroll or resize events closer than this to the previous one extend it rather than add an entry. */
const MERGE_MS = 3_000;
/** Typing into one field with pauses shorter than this is one entry. */
const TYPING_PAUSE_MS = 10_000;

/** Identical errors or failed requests this close together are one entry with a count. */
const REPEAT_WINDOW_MS = 10_000;
const REPEAT_LOOKBACK = 8;
/** Kept while reading; past these the digest counts instead of keeping. */
const TIMELINE_CAP = 2_000;
/** Windows tracked one by one; events of any further window share one overflow entry. */
const WINDOWS_CAP = 50;
const PAGES_CAP = 200;

interface WindowState extends ClickState {
  label: string;
  id: string | null;
  mirror: NodeMirror;
  page: PageVisit | undefined;
  hadSnapshot: boolean;
  /** a Meta for the page already shown: a reload or just a periodic re-snapshot, told by the next full snapshot */
  sameUrlMeta: number | undefined;
  lastItem: TimelineItem | undefined;
  /** the field being typed into and when its last input came, so a pause or another field starts a new entry */
  typing: { item: TimelineItem; at: number } | undefined;
  lastTimestamp: number;
  names: NameCache;
  /** a new page's first h1 is still to be read as its heading */
  headingWanted: boolean;
}

/**
 * A window's element and field descriptions, kept while nothing they are made of changes: the
 * mirror (its version counts every change), whether a snapshot was seen, and the page's URL.
 * Typing into one field, or clicking about a page that does not change, describes it once.
 */
class NameCache {
  private version = -1;
  private hadSnapshot = false;
  private pageUrl: string | undefined;
  private readonly elements = new Map<number, string>();
  private readonly fields = new Map<number, string>();

  element(win: WindowState, id: number): string {
    return this.lookup(win, this.elements, id, describeElement);
  }

  field(win: WindowState, id: number): string {
    return this.lookup(win, this.fields, id, describeField);
  }

  private lookup(win: WindowState, names: Map<number, string>, id: number, describe: (ctx: NamingContext, id: number) => string): string {
    const pageUrl = win.page?.url;
    if (win.mirror.version !== this.version || win.hadSnapshot !== this.hadSnapshot || pageUrl !== this.pageUrl) {
      this.version = win.mirror.version;
      this.hadSnapshot = win.hadSnapshot;
      this.pageUrl = pageUrl;
      this.elements.clear();
      this.fields.clear();
    }
    let name = names.get(id);
    if (name === undefined) {
      name = describe(naming(win), id);
      if (names.size >= NAMES_CACHED) names.clear();
      names.set(id, name);
    }
    return name;
  }
}
/** Descriptions kept per window between changes. */
const NAMES_CACHED = 64;

export class Digester {
  private readonly windows = new Map<string | null, WindowState>();
  private overflow: WindowState | undefined;
  private overflowWindows = 0;
  /** The window of the previous event: events come in runs from one window. */
  private lastWindowId: string | null = null;
  private lastWindow: WindowState | undefined;
  /** Timeline entries actually kept (past the cap some are not): the timeline holds them anyway, so a Set (cheaper than a WeakSet) retains nothing more. */
  private readonly kept = new Set<TimelineItem>();
  private readonly pages: PageVisit[] = [];
  private readonly timeline: TimelineItem[] = [];
  private readonly counts: DigestCounts = {
    events: 0,
    clicks: 0,
    rage_clicks: 0,
    dead_clicks: 0,
    inputs: 0,
    scrolls: 0,
    resizes: 0,
    page_views: 0,
    mutations: 0,
    console_errors: 0,
    console_warnings: 0,
    console_logs: 0,
    requests: 0,
    failed_requests: 0,
    custom_events: 0,
  };
  private readonly clusters = new TimestampClusters();
  /** the last possible timestamp seen: the time given to an event whose own is impossible */
  private now: number | undefined;
  private lastActive: number | undefined;
  private activeMs = 0;
  private outOfOrder = 0;
  private unknownEvents = 0;
  private badEvents = 0;
  private pagesDropped = 0;
  private itemsDropped = 0;
  private readonly extraNotes: string[] = [];
  /** What the person typed (to mask it in page text), and the page messages kept. */
  private readonly typedWords = new TypedWords();
  private readonly messages = new MessageBook(this.typedWords);
  private readonly clicks = new ClickRules({ counts: this.counts, promote: (item) => this.kept.has(item) || this.keep(item) });

  /** A reason something could not be read (a block range that failed, unparseable lines). */
  note(text: string): void {
    if (this.extraNotes.length < 20) this.extraNotes.push(text);
  }

  push(windowId: string | null, event: { type: number; timestamp: number; data?: unknown }): void {
    let ts = event.timestamp;
    if (typeof ts !== 'number' || Number.isNaN(ts)) {
      this.badEvents++;
      return;
    }
    this.counts.events++;
    if (isPossibleTime(ts)) {
      this.clusters.add(ts);
      this.now = ts;
    } else {
      // Beyond Date's range (−1e17, 1e300, ±Infinity): not a time. The event still counts, at the
      // time of the event before it.
      this.clusters.addImpossible();
      if (this.now === undefined) return;
      ts = this.now;
    }
    const win = this.window(windowId);
    // A jump far ahead (a wild timestamp) neither makes every later event look out of order nor
    // judges the clicks before it dead.
    const believable = win.lastTimestamp === -Infinity || ts - win.lastTimestamp <= CLUSTER_GAP_MS;
    if (ts < win.lastTimestamp) this.outOfOrder++;
    else if (believable) win.lastTimestamp = ts;
    // Windows arrive in separate batches: a window's clicks are judged by its own clock only.
    if (believable) this.clicks.settle(win, ts);

    const data = (typeof event.data === 'object' && event.data !== null ? event.data : {}) as Record<string, unknown>;
    try {
      switch (event.type) {
        case META:
          this.pageView(win, ts, data.href, true);
          return;
        case FULL_SNAPSHOT:
          this.fullSnapshot(win, ts, data.node);
          return;
        case INCREMENTAL_SNAPSHOT:
          this.incremental(win, ts, data);
          return;
        case CUSTOM:
          this.custom(win, ts, data);
          return;
        case PLUGIN:
          this.plugin(win, ts, data);
          return;
        default:
          if (!KNOWN_TYPES.has(event.type)) this.unknownEvents++;
      }
    } catch {
      // A malformed event (wrong shapes inside data) is skipped; the digest goes on.
      this.badEvents++;
    }
  }

  private window(id: string | null): WindowState {
    // A window's entry never changes once made: the last one found serves a run of its events.
    if (this.lastWindow !== undefined && id === this.lastWindowId) return this.lastWindow;
    const win = this.windowOf(id);
    this.lastWindowId = id;
    this.lastWindow = win;
    return win;
  }

  private windowOf(id: string | null): WindowState {
    let win = this.windows.get(id);
    if (!win && this.windows.size >= WINDOWS_CAP) {
      this.overflowWindows++;
      this.overflow ??= this.newWindow(`w${WINDOWS_CAP + 1}+`, null);
      // Remembered as overflow so it is counted once; its events share the overflow entry.
      this.windows.set(id, this.overflow);
      return this.overflow;
    }
    if (!win) {
      win = this.newWindow(`w${this.windows.size + 1}`, id);
      this.windows.set(id, win);
    }
    return win;
  }

  private newWindow(label: string, id: string | null): WindowState {
    return {
        label,
        id,
        mirror: new NodeMirror(),
        page: undefined,
        pages: 0,
        hadSnapshot: false,
        ...newClickState(),
        sameUrlMeta: undefined,
        lastItem: undefined,
        typing: undefined,
        lastTimestamp: -Infinity,
        names: new NameCache(),
        headingWanted: false,
      };
  }

  /** Distinct windows, the overflow entry last. */
  private allWindows(): WindowState[] {
    return [...new Set(this.windows.values())];
  }


  private add(win: WindowState, ts: number, item: Omit<TimelineItem, 't' | 'w'>): TimelineItem {
    const full: TimelineItem = { t: ts, w: win.label, ...item };
    this.keep(full);
    win.lastItem = full;
    return full;
  }

  /** Keeps an entry within the caps: past TIMELINE_CAP only the important kinds, up to twice that. */
  private keep(item: TimelineItem): void {
    if (this.timeline.length < TIMELINE_CAP || (PRIORITY[item.kind] <= 1 && this.timeline.length < TIMELINE_CAP * 2)) {
      this.timeline.push(item);
      this.kept.add(item);
    } else {
      this.itemsDropped++;
    }
  }

  private pageView(win: WindowState, ts: number, href: unknown, load: boolean): void {
    if (typeof href !== 'string' || href.length === 0) return;
    const url = pageUrl(href);
    this.reacted(win, ts);
    if (win.page && win.page.url === url) {
      // posthog-js sends a $pageview next to the Meta of the same load: one visit. A later Meta
      // for the same URL is a reload or only a periodic full snapshot: the snapshot tells which.
      if (load && ts - win.page.t >= 1_000) win.sameUrlMeta = ts;
      return;
    }
    this.visit(win, ts, url, load);
  }

  private visit(win: WindowState, ts: number, url: string, load: boolean): void {
    this.counts.page_views++;
    win.pages++;
    this.clicks.endBurst(win);
    const visit: PageVisit = { t: ts, w: win.label, url };
    if (this.pages.length < PAGES_CAP) this.pages.push(visit);
    else this.pagesDropped++;
    win.page = visit;
    win.headingWanted = true;
    this.add(win, ts, { kind: 'page', target: url, ...(load ? {} : { detail: 'in-page navigation' }) });
  }

  /**
   * rrweb numbers nodes from 1 on a new page and keeps the numbers when it re-snapshots the same
   * page (posthog-js does every few minutes): ids starting lower than before mean a reload.
   */
  private fullSnapshot(win: WindowState, ts: number, root: unknown): void {
    const before = win.mirror.maxId;
    win.mirror.reset(root);
    win.hadSnapshot = true;
    if (win.sameUrlMeta !== undefined && win.page && win.mirror.maxId < before) this.visit(win, win.sameUrlMeta, win.page.url, true);
    win.sameUrlMeta = undefined;
    if (win.page && !win.page.title && win.mirror.title) win.page.title = clip(win.mirror.title, 120);
    this.reacted(win, ts);
    this.pageMessages(win, ts, messagesInSnapshot(win.mirror, win.headingWanted));
  }

  private pageMessages(win: WindowState, ts: number, found: FoundMessage[]): void {
    for (const message of found) {
      if (message.source === 'heading') win.headingWanted = false;
      this.messages.accept(message, (item) => this.add(win, ts, item));
    }
  }

  private incremental(win: WindowState, ts: number, data: Record<string, unknown>): void {
    const source = data.source;
    if (typeof source === 'number' && ACTIVE_SOURCES.has(source)) this.activity(ts);
    switch (source) {
      case MUTATION:
        this.counts.mutations++;
        win.mirror.mutate(data);
        this.reacted(win, ts);
        this.pageMessages(win, ts, messagesInMutation(win.mirror, data, win.headingWanted));
        return;
      case MOUSE_INTERACTION:
        if (data.type === CLICK) this.click(win, ts, Number(data.id));
        else if (data.type === DOUBLE_CLICK) this.clicks.doubleClick(win, this.clickTarget(win, Number(data.id)));
        return;
      case SCROLL:
        this.scroll(win, ts, Number(data.id), Number(data.y));
        return;
      case VIEWPORT_RESIZE:
        this.resize(win, ts, Number(data.width), Number(data.height));
        return;
      case INPUT:
        this.input(win, ts, Number(data.id), data);
        return;
      case LOG:
        this.console(win, ts, data);
        return;
    }
  }

  private activity(ts: number): void {
    if (this.lastActive !== undefined) {
      const gap = ts - this.lastActive;
      if (gap > 0 && gap <= ACTIVITY_GAP_MS) this.activeMs += gap;
    }
    // Far back in time from the last activity: that one was a wild timestamp (or an old window's
    // batch), and the clock starts again from here rather than waiting for it to be caught up.
    if (this.lastActive === undefined || ts > this.lastActive || this.lastActive - ts > CLUSTER_GAP_MS) this.lastActive = ts;
  }

  private click(win: WindowState, ts: number, id: number): void {
    this.counts.clicks++;
    const node = this.clickTarget(win, id);
    // A click into a field, or on the page background, is not expected to change anything.
    const expectsNothing = this.isFormControl(win, node) || win.mirror.isDocument(node);
    this.clicks.click(win, ts, node, () => this.add(win, ts, { kind: 'click', target: win.names.element(win, node) }), !expectsNothing);
  }

  private clickTarget(win: WindowState, id: number): number {
    return Number.isFinite(id) ? win.mirror.interactiveAncestor(id) : NaN;
  }

  private reacted(win: WindowState, ts: number): void {
    this.clicks.reacted(win, ts);
  }

  private isFormControl(win: WindowState, id: number): boolean {
    const node = win.mirror.get(id);
    if (!node?.tag) return false;
    return win.mirror.isUserText(node) || node.tag === 'label';
  }

  private scroll(win: WindowState, ts: number, id: number, y: number): void {
    this.counts.scrolls++;
    this.reacted(win, ts);
    if (!Number.isFinite(y)) return;
    const page = win.mirror.isDocument(id) || !win.mirror.has(id);
    const where = page ? undefined : win.names.element(win, id);
    if (page && win.page) win.page.max_scroll_y = Math.max(win.page.max_scroll_y ?? 0, Math.round(y));
    const last = win.lastItem;
    if (last && last.kind === 'scroll' && last.target === where && ts - last.t <= MERGE_MS) {
      last.detail = `to ${Math.round(y)}px`;
      return;
    }
    this.add(win, ts, { kind: 'scroll', ...(where ? { target: where } : {}), detail: `to ${Math.round(y)}px` });
  }

  private resize(win: WindowState, ts: number, width: number, height: number): void {
    this.counts.resizes++;
    const detail = `${width}x${height}`;
    const last = win.lastItem;
    if (last && last.kind === 'resize' && ts - last.t <= MERGE_MS) {
      last.detail = detail;
      return;
    }
    this.add(win, ts, { kind: 'resize', detail });
  }

  private input(win: WindowState, ts: number, id: number, data: Record<string, unknown>): void {
    this.counts.inputs++;
    this.reacted(win, ts);
    const node = win.mirror.get(id);
    const tag = node?.tag;
    const type = node?.attrs?.type;
    const toggle = typeof data.isChecked === 'boolean' && (type === 'checkbox' || type === 'radio' || (tag === undefined && (typeof data.text !== 'string' || data.text === 'on')));
    // Checking a radio unchecks its siblings, and rrweb records each of those too: the browser's
    // doing, not the user's. Only the radio that became checked is told.
    if (toggle && type === 'radio' && data.isChecked === false) return;
    if (!toggle) this.typedWords.typed(`${win.label}:${id}`, data.text);
    const length = typeof data.text === 'string' ? codePoints(data.text) : 0;
    const detail = toggle ? (data.isChecked ? 'checked' : 'unchecked') : tag === 'select' ? 'option chosen' : length === 0 ? 'cleared' : `${length} chars`;
    const target = win.names.field(win, id);
    const typing = win.typing;
    if (!toggle && typing && typing.item.target === target && win.lastItem === typing.item && ts - typing.at <= TYPING_PAUSE_MS) {
      // Typing goes on in the same field: one entry, shown from the first keystroke.
      typing.item.detail = detail;
      typing.at = ts;
      return;
    }
    const last = win.lastItem;
    if (last && last.kind === 'click' && last.target === target && ts - last.t <= TYPING_PAUSE_MS) {
      // The click that focused (or toggled) this field: the input says more, at its own time.
      last.kind = 'input';
      last.detail = detail;
      last.t = ts;
      delete last.count;
      this.clicks.forget(win, last);
      win.typing = toggle ? undefined : { item: last, at: ts };
      return;
    }
    const item = this.add(win, ts, { kind: 'input', target, detail });
    win.typing = toggle ? undefined : { item, at: ts };
  }

  private custom(win: WindowState, ts: number, data: Record<string, unknown>): void {
    this.counts.custom_events++;
    const meaning = readCustom(data);
    if (meaning?.kind === 'pageview') this.pageView(win, ts, meaning.href, false);
    else if (meaning) this.add(win, ts, { kind: meaning.kind });
  }

  private plugin(win: WindowState, ts: number, data: Record<string, unknown>): void {
    const name = typeof data.plugin === 'string' ? data.plugin : '';
    const payload = (typeof data.payload === 'object' && data.payload !== null ? data.payload : {}) as Record<string, unknown>;
    if (name.startsWith('rrweb/console')) this.console(win, ts, payload);
    else if (name.startsWith('rrweb/network')) this.network(win, ts, payload);
  }

  private console(win: WindowState, ts: number, record: Record<string, unknown>): void {
    const message = readConsole(record);
    if (message.kind === 'log') {
      this.counts.console_logs++;
      return;
    }
    if (message.kind === 'console-error') this.counts.console_errors++;
    else this.counts.console_warnings++;
    if (!this.repeat(win, ts, message.kind, undefined, message.text)) this.add(win, ts, { kind: message.kind, detail: message.text });
  }

  private network(win: WindowState, ts: number, payload: Record<string, unknown>): void {
    const { total, failed } = readRequests(payload);
    this.counts.requests += total;
    for (const { at: own, ...request } of failed) {
      this.counts.failed_requests++;
      const at = own !== undefined && isPossibleTime(own) ? own : ts;
      const target = request.method ? `${request.method} ${request.url}` : request.url;
      const detail = outcomeOf(request);
      if (!this.repeat(win, at, 'request-failed', target, detail)) this.add(win, at, { kind: 'request-failed', target, detail, request });
    }
  }

  /**
   * The same error again soon after (a retry loop, each rage click failing alike) counts on the
   * recent entry instead of adding one. Looks back a few entries: errors and requests interleave.
   */
  private repeat(win: WindowState, ts: number, kind: ItemKind, target: string | undefined, detail: string): boolean {
    for (let i = this.timeline.length - 1, seen = 0; i >= 0 && seen < REPEAT_LOOKBACK; i--, seen++) {
      const item = this.timeline[i]!;
      if (Math.abs(ts - item.t) > REPEAT_WINDOW_MS) break;
      if (item.w === win.label && item.kind === kind && item.target === target && item.detail === detail) {
        item.count = (item.count ?? 1) + 1;
        // Its own time kept too: a retry after a click reads after it ("1:11–1:16 … ×2").
        if (ts > (item.last_t ?? item.t)) item.last_t = ts;
        return true;
      }
    }
    return false;
  }

  finish(): Digest {
    this.clicks.finish();
    const notes: string[] = [];
    const range = this.clusters.range();
    if (range.frozen) notes.push(`Every event carries the same timestamp (the recorder's clock was frozen): the duration and times are unknown; the timeline is in recorded order.`);
    if (range.stray > 0) notes.push(`${range.stray} event(s) have a timestamp far from the rest of the recording (or no possible time at all): left out of the duration; their entries are placed at the nearest end.`);
    if (this.outOfOrder > 0) notes.push(`${this.outOfOrder} event(s) arrived out of time order; the timeline is sorted by time.`);
    if (this.unknownEvents > 0) notes.push(`${this.unknownEvents} event(s) of unknown rrweb type skipped.`);
    if (this.badEvents > 0) notes.push(`${this.badEvents} malformed event(s) skipped.`);
    if (this.overflowWindows > 0) notes.push(`${plural(this.overflowWindows, 'window')} beyond the first ${WINDOWS_CAP} are merged as ${this.overflow!.label}.`);
    for (const win of this.allWindows()) {
      if (!win.hadSnapshot && this.counts.events > 0) notes.push(`No full DOM snapshot for ${win.label}: its elements are named by node id only.`);
      if (win.mirror.dropped > 0) notes.push(`${win.label}: page too large to mirror fully; ${win.mirror.dropped} node(s) not tracked.`);
    }
    if (this.itemsDropped > 0) notes.push(`${this.itemsDropped} minor timeline entr${this.itemsDropped === 1 ? 'y' : 'ies'} not kept (very long recording).`);
    if (this.pagesDropped > 0) notes.push(`${this.pagesDropped} later page view(s) not listed.`);
    const messagesNote = this.messages.note();
    if (messagesNote) notes.push(messagesNote);
    notes.push(...this.extraNotes);

    const start = range.start;
    const end = range.end;
    const relative = (t: number) => (start === null || end === null ? 0 : Math.min(Math.max(0, t - start), end - start));
    const timeline = this.timeline
      .map((item) => ({ ...item, t: relative(item.t), ...(item.last_t !== undefined ? { last_t: relative(item.last_t) } : {}) }))
      .sort((a, b) => a.t - b.t);
    return {
      start,
      end,
      duration_ms: start === null || end === null ? 0 : end - start,
      timing: { frozen: range.frozen, stray: range.stray },
      active_ms: this.activeMs,
      windows: this.allWindows().map((w) => ({ w: w.label, window_id: w.id, pages: w.pages })),
      pages: this.pages.map((p) => ({ ...p, t: relative(p.t) })).sort((a, b) => a.t - b.t),
      timeline,
      counts: { ...this.counts },
      notes,
      ...(this.typedWords.masked ? { inputs_masked: true } : {}),
    };
  }
}

/** What the naming rules need of a window. */
function naming(win: WindowState): NamingContext {
  return { mirror: win.mirror, hadSnapshot: win.hadSnapshot, pageUrl: win.page?.url };
}

/** A string's length in code points (what `[...text].length` counts), without making the array. */
function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++, n++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}
