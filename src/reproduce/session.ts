/**
 * What a person did in a recording, as steps a browser can replay, and what went wrong at which
 * step. Fed the recording's rrweb events one at a time (every window, stream order); each window
 * keeps its own DOM mirror, so an element is named from the page as it was at that moment.
 * Memory stays bounded: capped windows, steps and problems, and the mirror's own node cap.
 */

import { quote } from '../digest/quote.js';
import { NodeMirror } from '../digest/mirror.js';
import { CLICK, CUSTOM, DOUBLE_CLICK, FULL_SNAPSHOT, INCREMENTAL_SNAPSHOT, INPUT, LOG, MEDIA_INTERACTION, META, MOUSE_INTERACTION, MUTATION, PLUGIN } from '../posthog/rrweb.js';
import { maskUrlSecrets } from '../url-secrets.js';
import { GenerationTooLong, WorkBudget } from './budget.js';
import { answerDialogs, inferEnter, journeyRequest } from './evidence.js';
import { journeyEnd } from './journey-end.js';
import { clock, relativePath, type ExceptionEvent, type Problem, type Reproduction, type SeenRequest, type Step } from './journey.js';
import { markChoicesThatMatter, maxNodeId, searchesFor, submits } from './field-steps.js';
import { blockedElement, fieldFacts, labelsField, linkHref, pageFacts, selectOptions } from './page-facts.js';
import { TYPED_PARAM, echoesTyped, isMasked, numberish, typedParts } from './privacy.js';
import { consoleProblem, placeProblems, readRequestProblems } from './problems.js';
import { SELECTOR_ATTRIBUTES, chooseSelector, type SelectorContext } from './selectors.js';

const WINDOWS_MAX = 20;
/** Steps kept: a longer journey is cut (and said so), keeping the result a readable size. */
export const STEPS_MAX = 200;
const PROBLEMS_MAX = 100;
/** Requests kept as evidence of what steps did (evidence.ts). */
const REQUESTS_MAX = 2_000;
/** A URL change this soon after a step was caused by it (a link, a submit). */
const CAUSE_MS = 10_000;
/** A page change this soon after the last one, with nothing done between: a redirect. */
const REDIRECT_MS = 3_000;
/** A new tab this soon after a click in another was opened by it. */
const OPENER_MS = 5_000;
/** Clicks on one element closer than this are one (rage) click. */
const REPEAT_MS = 1_000;

/** A popup closing this long after the last click or typing was closed by a key, not by them. */
const ESCAPE_QUIET_MS = 500;

/** What closes a popup: aria-expanded turned false, a dialog's or details' `open` removed, a dialog or menu removed. */
function closesPopup(mirror: NodeMirror, data: Record<string, unknown>): boolean {
  const popup = (id: unknown) => {
    const node = mirror.get(Number(id));
    const role = node?.attrs?.role;
    return node?.tag === 'dialog' || role === 'dialog' || role === 'alertdialog' || role === 'menu' || role === 'listbox';
  };
  for (const change of Array.isArray(data.attributes) ? data.attributes : []) {
    const { id, attributes } = (change ?? {}) as { id?: unknown; attributes?: Record<string, unknown> };
    if (!attributes) continue;
    if (attributes['aria-expanded'] === 'false') return true;
    const tag = mirror.get(Number(id))?.tag;
    if ('open' in attributes && attributes.open === null && (tag === 'dialog' || tag === 'details')) return true;
  }
  return (Array.isArray(data.removes) ? data.removes : []).some((r) => popup((r as { id?: unknown } | null)?.id));
}

/** rrweb's incremental source for canvas drawing. */
const CANVAS_MUTATION = 9;

interface WindowState {
  index: number;
  id: string | null;
  mirror: NodeMirror;
  /** path + search of the current page */
  url: string | undefined;
  path: string;
  external: boolean;
  /** The other site's host, while the tab is on one. */
  externalHost?: string;
  lastStep: Step | undefined;
  lastNavAt: number;
  /** The last click or typing in the tab, steps or not: a menu closing long after neither was closed by a key. */
  lastTouchAt: number;
  /** steps added since the last navigation */
  stepsSinceNav: number;
  firstStepAt: number | undefined;
}

export class Reproducer {
  private readonly windows = new Map<string | null, WindowState>();
  private readonly steps: Step[] = [];
  private readonly problems: Problem[] = [];
  private readonly skipped: string[] = [];
  private readonly counts = { droppedSteps: 0, droppedProblems: 0, droppedWindows: 0, unknownTargets: 0, bad: 0, blocked: 0, canvas: 0 };
  /** What the person did that the test does not replay, said in the spec and the result. */
  private readonly notReplayed: string[] = [];
  /** Pages whose blocked elements or other-origin frames the person may have typed into. */
  private readonly blockedPages = new Set<string>();
  private origin: string | null = null;
  private start: number | null = null;
  private exceptions: ExceptionEvent[] = [];
  /** Every request the network data shows, failed or not: what followed each step (evidence.ts). */
  private readonly requests: SeenRequest[] = [];
  /** Every click's time and tab, steps or not (a click on the page's background, into a field): a key is inferred only where none came. */
  private readonly clicks: Array<{ window: number; at: number }> = [];
  /** The last event's time: how long the recording went on after the last step. */
  private lastEventAt = -Infinity;
  /** The work this test may take (budget.ts); every loop over a page ticks it. */
  readonly budget: WorkBudget;
  /** The last value the recording holds in clear for each field typed into (masked ones are not kept). */
  private readonly typedValues = new Map<string, string>();
  private typedCache: string[] | undefined;
  /** Per select step: the highest node id its page held then (rrweb numbers nodes in order: a higher one came after). */
  private readonly selectHorizon = new Map<Step, number>();
  /** Per click on something other than a submit button: the clicked element's text (a search result's, for its placeholder). */
  private readonly clickText = new Map<Step, string>();
  /** What selector searches need: the budget, and the page text they must not write. */
  private readonly selectorContext: SelectorContext;

  constructor(options: { workMs?: number } = {}) {
    this.budget = new WorkBudget(options.workMs);
    this.selectorContext = { budget: this.budget, avoid: (text) => echoesTyped(text, this.typed()) };
  }

  /** Parts of what the person typed (whole values and their words), for keeping them out of the test. */
  private typed(): string[] {
    return (this.typedCache ??= typedParts(this.typedValues.values()));
  }

  push(windowId: string | null, event: { type: number; timestamp: number; data?: unknown }): void {
    this.budget.start();
    try {
      this.pushEvent(windowId, event);
    } finally {
      this.budget.stop();
    }
  }

  private pushEvent(windowId: string | null, event: { type: number; timestamp: number; data?: unknown }): void {
    const ts = event.timestamp;
    if (typeof ts !== 'number' || !Number.isFinite(ts)) return;
    // A wild timestamp (0, year 3000) would make every step's time meaningless: not the start.
    if ((this.start === null || ts < this.start) && ts > 1e11 && ts < 1e13) this.start = ts;
    if (ts > this.lastEventAt && ts < 1e13) this.lastEventAt = ts;
    const win = this.window(windowId);
    if (!win) return;
    const data = (typeof event.data === 'object' && event.data !== null ? event.data : {}) as Record<string, unknown>;
    try {
      switch (event.type) {
        case META:
          this.urlChange(win, ts, data.href);
          return;
        case FULL_SNAPSHOT:
          win.mirror.reset(data.node);
          return;
        case CUSTOM: {
          const payload = (typeof data.payload === 'object' && data.payload !== null ? data.payload : {}) as Record<string, unknown>;
          if (data.tag === '$pageview') this.urlChange(win, ts, payload.href ?? payload.$current_url);
          return;
        }
        case PLUGIN:
          this.plugin(win, ts, data);
          return;
        case INCREMENTAL_SNAPSHOT:
          if (data.source === MUTATION) {
            this.pageChanged(win, ts, data);
            win.mirror.mutate(data);
            this.textAppeared(win, ts, data);
          }
          else if (data.source === MOUSE_INTERACTION && (data.type === CLICK || data.type === DOUBLE_CLICK)) this.click(win, ts, Number(data.id), data.type === DOUBLE_CLICK);
          else if (data.source === INPUT) this.input(win, ts, Number(data.id), data);
          else if (data.source === LOG) this.console(win, ts, data);
          else if (data.source === MEDIA_INTERACTION) this.media(win, ts, Number(data.id), Number(data.type));
          else if (data.source === CANVAS_MUTATION && !win.external) this.counts.canvas++;
          return;
      }
    } catch (err) {
      if (err instanceof GenerationTooLong) throw err;
      this.counts.bad++;
    }
  }

  /** The session's exceptions (`$exception` events, read through the query API). */
  addExceptions(list: ExceptionEvent[]): void {
    this.exceptions.push(...list.slice(0, PROBLEMS_MAX));
  }

  note(text: string): void {
    if (this.skipped.length < 40) this.skipped.push(text);
  }

  private window(id: string | null): WindowState | undefined {
    let win = this.windows.get(id);
    if (win) return win;
    if (this.windows.size >= WINDOWS_MAX) {
      this.counts.droppedWindows++;
      return undefined;
    }
    win = {
      index: this.windows.size,
      id,
      mirror: new NodeMirror({ extraAttributes: SELECTOR_ATTRIBUTES, optionValues: true }),
      url: undefined,
      path: '/',
      external: false,
      lastStep: undefined,
      lastNavAt: -Infinity,
      lastTouchAt: -Infinity,
      stepsSinceNav: 0,
      firstStepAt: undefined,
    };
    this.windows.set(id, win);
    return win;
  }

  /** No room for another step: it is counted, and no selector is worked out for it. */
  private full(): boolean {
    if (this.steps.length < STEPS_MAX) return false;
    this.counts.droppedSteps++;
    return true;
  }

  private addStep(win: WindowState, ts: number, step: Omit<Step, 'at' | 'window' | 'path' | 'notes'> & { notes?: string[]; path?: string }): Step | undefined {
    if (this.steps.length >= STEPS_MAX) {
      this.counts.droppedSteps++;
      return undefined;
    }
    const full: Step = { at: ts, window: win.index, path: win.path, notes: [], ...step };
    this.steps.push(full);
    win.lastStep = full;
    win.stepsSinceNav++;
    win.firstStepAt ??= ts;
    return full;
  }

  private urlChange(win: WindowState, ts: number, href: unknown): void {
    if (typeof href !== 'string') return;
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      // about:blank, a data: or file: page: nothing a test can go to. What happens there is left out, and said.
      // Only the scheme is said: the rest of such an address is the page's data (and may hold anything).
      if (!win.external || win.url !== url.protocol) this.note(`Tab ${win.index + 1} showed ${url.href === 'about:blank' ? 'about:blank' : `a ${url.protocol.slice(0, 20)} page`}, which a test cannot go to: what happened there is not reproduced.`);
      win.external = true;
      win.url = url.protocol;
      return;
    }
    this.origin ??= url.origin;
    // A value a person types into a page's query (a search, however the page was reached): page
    // text echoing it ("Results for …", a link named like it) stays out of the test too.
    if (url.origin === this.origin) {
      [...url.searchParams.entries()].slice(0, 10).forEach(([name, value], i) => {
        if (TYPED_PARAM.test(name)) this.typedValues.set(`query:${url.pathname}:${i}`, value);
      });
      this.typedCache = undefined;
    }
    const key = url.pathname + url.search;
    // The $pageview beside a page's Meta, or a periodic re-snapshot: the same page.
    if (win.url === key) return;
    const first = win.url === undefined;
    win.url = key;
    // A token in the path (`/reset/<token>`) is masked wherever the path is shown (url-secrets.ts).
    const pathname = maskUrlSecrets(url.pathname);
    if (pathname !== url.pathname) this.note(`A token in the path of ${pathname.slice(0, 80)} was masked (***): reaching that page needs a fresh link.`);
    win.path = pathname;
    const sinceNav = win.stepsSinceNav;
    const lastNavAt = win.lastNavAt;
    win.lastNavAt = ts;
    win.stepsSinceNav = 0;
    if (url.origin !== this.origin) {
      win.external = true;
      win.externalHost = url.host;
      this.note(`Tab ${win.index + 1} left the site for ${url.origin}${pathname.slice(0, 80)}: what happened there is not reproduced.`);
      return;
    }
    win.external = false;
    const last = win.lastStep;
    if (first) {
      const opener = this.opener(win, ts);
      if (opener) {
        opener.opens = win.index;
        return;
      }
      this.addStep(win, ts, { action: 'goto', url: this.gotoTarget(url), ...this.gotoQuery(url), path: pathname });
      return;
    }
    // Nothing done since the last page change, moments later: a redirect of the same step.
    if (last && sinceNav === 0 && last.navigates !== undefined && ts - lastNavAt <= REDIRECT_MS) {
      last.navigates = pathname;
      return;
    }
    // A goto is followed at once by its redirect; anything later was the person's doing.
    if (last && sinceNav > 0 && last.navigates === undefined && ts - last.at <= (last.action === 'goto' ? REDIRECT_MS : CAUSE_MS)) {
      if (last.action === 'fill' && last.selector) {
        // Typing, then a new page with no click: the form was submitted from the keyboard.
        this.addStep(win, ts, { action: 'press', selector: last.selector, navigates: pathname, path: last.path, notes: ['Enter (inferred: the page changed right after typing, with no click)'] });
        win.stepsSinceNav = 0;
        return;
      }
      last.navigates = pathname;
      return;
    }
    this.addStep(win, ts, { action: 'goto', url: this.gotoTarget(url), ...this.gotoQuery(url), path: pathname });
  }

  /** The page's query, its values as recorded (they become placeholders, code.ts). */
  private gotoQuery(url: URL): { query?: Array<[string, string]> } {
    const query = [...url.searchParams.entries()].slice(0, 10);
    return query.length > 0 ? { query } : {};
  }

  /** Path only: a query string may carry what the person typed (a search, an email, a token). */
  private gotoTarget(url: URL): string {
    const pathname = relativePath(maskUrlSecrets(url.pathname));
    if (pathname !== maskUrlSecrets(url.pathname)) this.note(`The recorded path ${quote(url.pathname.slice(0, 80))} starts with more than one slash, which a browser reads as another host: its goto uses ${quote(pathname.slice(0, 80))}, which stays on baseURL.`);
    return pathname;
  }

  /** The click in another tab that opened this one, if one came just before. */
  private opener(win: WindowState, ts: number): Step | undefined {
    for (let i = this.steps.length - 1; i >= 0; i--) {
      const step = this.steps[i]!;
      if (ts - step.at > OPENER_MS) return undefined;
      if (step.window !== win.index && step.action === 'click' && step.opens === undefined && step.newTab) return step;
    }
    return undefined;
  }

  private click(win: WindowState, ts: number, rawId: number, double: boolean): void {
    win.lastTouchAt = ts;
    if (!win.external && this.clicks.length < REQUESTS_MAX) this.clicks.push({ window: win.index, at: ts });
    if (win.external || !Number.isFinite(rawId) || this.full()) return;
    const mirror = win.mirror;
    const target = mirror.interactiveAncestor(rawId);
    const node = mirror.get(target);
    if (!node?.tag) {
      this.counts.unknownTargets++;
      return;
    }
    // The page background, a field being focused (its fill or choice says more), a checkbox or
    // radio (its input event says checked or not), a label that toggles or focuses its field.
    if (mirror.isDocument(target) || mirror.isUserText(node) || node.tag === 'option') return;
    const type = (node.attrs?.type ?? '').toLowerCase();
    if (node.tag === 'input' && (type === 'checkbox' || type === 'radio')) return;
    if (node.tag === 'label' && labelsField(mirror, node)) return;
    if (blockedElement(mirror, node)) {
      this.blocked(win, ts, 'a click');
      return;
    }
    const last = win.lastStep;
    if (last && last.node === target && (last.action === 'click' || last.action === 'dblclick') && ts - last.at <= REPEAT_MS && last.navigates === undefined && win.stepsSinceNav > 0) {
      // A browser records a dblclick beside the second click: it is not a click of its own.
      if (double) last.double = true;
      else last.repeats = (last.repeats ?? 1) + 1;
      last.action = last.double && last.repeats === 2 ? 'dblclick' : 'click';
      return;
    }
    const linkTarget = node.tag === 'a' ? node.attrs?.target : undefined;
    const newTab = linkTarget !== undefined && !['', '_self', '_parent', '_top'].includes(linkTarget.toLowerCase());
    const href = node.tag === 'a' && node.attrs?.href ? linkHref(node.attrs.href, this.origin, win.url) : undefined;
    if (mirror.get(target)?.tag === 'canvas') this.counts.canvas++;
    this.notePageBlocks(win);
    // A dblclick with no click before it (some recorders keep only that): replayed as one.
    const step = this.addStep(win, ts, { action: double ? 'dblclick' : 'click', ...(double ? { double } : {}), selector: chooseSelector(mirror, target, this.selectorContext), node: target, ...(newTab ? { newTab } : {}), ...(href ? { href } : {}) });
    if (step && !submits(node.tag, type)) this.clickText.set(step, mirror.textOf(target, 120));
  }

  private input(win: WindowState, ts: number, id: number, data: Record<string, unknown>): void {
    // rrweb marks a value the page's script set (not the person) when it can tell.
    if (win.external || !Number.isFinite(id) || data.userTriggered === false || this.full()) return;
    win.lastTouchAt = ts;
    const mirror = win.mirror;
    const node = mirror.get(id);
    if (!node?.tag) {
      this.counts.unknownTargets++;
      return;
    }
    const type = (node.attrs?.type ?? '').toLowerCase();
    if (blockedElement(mirror, node)) {
      this.blocked(win, ts, 'typing');
      return;
    }
    this.notePageBlocks(win);
    if (typeof data.isChecked === 'boolean' && (type === 'checkbox' || type === 'radio')) {
      // Checking a radio unchecks the others: the browser's doing, recorded too, not the person's.
      if (type === 'radio' && !data.isChecked) return;
      this.addStep(win, ts, { action: data.isChecked ? 'check' : 'uncheck', selector: chooseSelector(mirror, id, this.selectorContext), node: id });
      return;
    }
    if (!mirror.isUserText(node) || node.tag === 'option') return;
    const text = typeof data.text === 'string' ? data.text : '';
    if (node.tag !== 'select') {
      this.typedValues.set(`${win.index}:${id}`, text);
      this.typedCache = undefined;
    }
    const last = win.lastStep;
    if (last && last.node === id && (last.action === 'fill' || last.action === 'select')) {
      last.recorded = text;
      last.until = ts;
      return;
    }
    const field = fieldFacts(mirror, node);
    if (node.tag === 'select') {
      const step = this.addStep(win, ts, { action: 'select', selector: chooseSelector(mirror, id, this.selectorContext), node: id, field, recorded: text, options: selectOptions(mirror, node) });
      if (step) this.selectHorizon.set(step, maxNodeId(mirror, this.budget));
      return;
    }
    this.addStep(win, ts, { action: 'fill', selector: chooseSelector(mirror, id, this.selectorContext), node: id, field, recorded: text, until: ts });
  }

  /** What the page did after the tab's last step (read before the mirror applies it: a removed node's tag is known only then). */
  private pageChanged(win: WindowState, ts: number, data: Record<string, unknown>): void {
    const step = win.lastStep;
    if (!step || win.external || ts < step.at || ts - step.at > CAUSE_MS) return;
    const removes = Array.isArray(data.removes) ? data.removes : [];
    const removed = removes.some((r) => typeof r === 'object' && r !== null && win.mirror.get(Number((r as Record<string, unknown>).id))?.tag !== undefined);
    const changed = removes.length > 0 || ['adds', 'texts', 'attributes'].some((k) => Array.isArray(data[k]) && (data[k] as unknown[]).length > 0);
    if (!removed && !changed) return;
    step.after = { ...step.after, ...(removed ? { removed } : {}), ...(changed ? { changed } : {}) };
    // Elements added in bulk (rrweb lists every added node): results or a list appearing; not
    // suggestions offered to choose from (a listbox, options, a menu), which typing brings up by itself.
    const added = (Array.isArray(data.adds) ? data.adds : []).map((a) => (a as { node?: { type?: unknown; tagName?: unknown; attributes?: Record<string, unknown> } } | null)?.node).filter((n) => n?.type === 2);
    const suggestions = added.some((n) => n?.tagName === 'datalist' || ['listbox', 'option', 'menu', 'menuitem'].includes(String(n?.attributes?.role ?? '')));
    if (added.length >= 2 && !suggestions) step.after.grew = [...(step.after.grew ?? []), ts].slice(0, 20);
    if (ts - win.lastTouchAt > ESCAPE_QUIET_MS && step.action === 'click' && closesPopup(win.mirror, data)) {
      // A menu or dialog the last click opened closed with no click or typing since: Escape (rrweb records no key).
      this.addStep(win, ts, { action: 'press', key: 'Escape', notes: ['Escape (inferred: a menu or dialog closed with no click)'] });
    }
  }

  /** Text the page added or changed after the tab's last step (a message it showed), as the mirror now holds it. */
  private textAppeared(win: WindowState, ts: number, data: Record<string, unknown>): void {
    const step = win.lastStep;
    if (!step || win.external || ts < step.at || ts - step.at > CAUSE_MS) return;
    const ids = [
      ...(Array.isArray(data.adds) ? data.adds : []).map((a) => Number((a as { node?: { id?: unknown } } | null)?.node?.id)),
      ...(Array.isArray(data.texts) ? data.texts : []).map((t) => Number((t as { id?: unknown } | null)?.id)),
    ].slice(0, 50);
    for (const id of ids) {
      const node = Number.isFinite(id) ? win.mirror.get(id) : undefined;
      if (!node) continue;
      const text = win.mirror.textOf(node.tag ? node.id : node.parent, 100);
      if (text.length < 3 || text.endsWith('…')) continue;
      step.appeared = [...(step.appeared ?? []).filter((a) => a.text !== text), { at: ts, text }].slice(-10);
    }
  }

  private blocked(win: WindowState, ts: number, what: string): void {
    if (this.counts.blocked++ < 20) this.notReplayed.push(`${clock(ts - (this.start ?? ts))} ${what} on an element the recorder blocked (ph-no-capture) on ${win.path.slice(0, 80)}`);
  }

  /** Play, pause, seek, volume, rate: the test does not drive media; the result says what was left out. */
  private media(win: WindowState, ts: number, id: number, type: number): void {
    if (win.external || this.notReplayed.length >= 40) return;
    const what = ['play', 'pause', 'seek', 'volume change', 'speed change'][type] ?? 'media action';
    const node = win.mirror.get(id);
    this.notReplayed.push(`${clock(ts - (this.start ?? ts))} ${what} on ${node?.tag === 'audio' ? 'an audio player' : 'a video'} on ${win.path.slice(0, 80)} (media is not replayed)`);
  }

  /** A page with blocked elements or other-origin frames (card fields) the person may have typed into: said once per page. */
  private notePageBlocks(win: WindowState): void {
    if (this.blockedPages.has(win.path)) return;
    const facts = pageFacts(win.mirror, this.budget);
    if (facts.blocked === 0 && facts.foreignFrames === 0) return;
    this.blockedPages.add(win.path);
    const parts = [facts.blocked > 0 ? `${facts.blocked} element(s) the recorder blocked` : '', facts.foreignFrames > 0 ? `${facts.foreignFrames} frame(s) of another site (card fields are usually one)` : ''].filter(Boolean).join(' and ');
    this.notReplayed.push(`${win.path.slice(0, 80)} holds ${parts}: what the person typed or clicked there is not in the recording, and the test does not do it`);
  }

  private plugin(win: WindowState, ts: number, data: Record<string, unknown>): void {
    const name = typeof data.plugin === 'string' ? data.plugin : '';
    const payload = (typeof data.payload === 'object' && data.payload !== null ? data.payload : {}) as Record<string, unknown>;
    if (name.startsWith('rrweb/console')) this.console(win, ts, payload);
    else if (name.startsWith('rrweb/network')) {
      readRequestProblems(payload, ts, win.index, this.origin, (problem) => this.addProblem(problem), (request) => {
        if (this.requests.length < REQUESTS_MAX) this.requests.push(request);
      });
    }
  }

  private console(win: WindowState, ts: number, record: Record<string, unknown>): void {
    const problem = consoleProblem(record, ts, win.index);
    if (problem) this.addProblem(problem);
  }

  private addProblem(problem: Problem): void {
    if (this.problems.length >= PROBLEMS_MAX) {
      this.counts.droppedProblems++;
      return;
    }
    this.problems.push(problem);
  }

  finish(): Reproduction {
    this.budget.start();
    try {
      return this.finishWork();
    } finally {
      this.budget.stop();
    }
  }

  private finishWork(): Reproduction {
    for (const exception of this.exceptions) {
      const win = exception.windowId !== undefined ? this.windows.get(exception.windowId) : undefined;
      this.addProblem({ kind: 'exception', at: exception.at, window: win?.index, text: `${exception.type}: ${exception.message}`.slice(0, 300), ...(exception.handled !== undefined ? { handled: exception.handled } : {}), count: 1 });
    }
    let steps = this.steps.slice().sort((a, b) => a.at - b.at);
    // A field the person left empty (focused, or typed and cleared) is left alone: filling it would change the journey.
    const empty = steps.filter((s) => s.action === 'fill' && (s.recorded ?? '') === '');
    if (empty.length > 0) {
      steps = steps.filter((s) => !empty.includes(s));
      this.notReplayed.push(`${empty.length} field(s) the person left empty, not filled: ${empty.slice(0, 5).map((s) => s.selector?.code ?? '?').join(', ')}`);
    }
    // What rrweb does not record, read from what followed: Enter pressed in a field, how dialogs were answered.
    steps = inferEnter(steps, this.requests, this.clicks);
    answerDialogs(steps, this.requests, this.lastEventAt);
    const request = journeyRequest(steps, this.requests);
    if (this.counts.canvas > 0) this.notReplayed.push(`${this.counts.canvas} drawing(s) or click(s) on a canvas: what was drawn is not replayed (a click on one is replayed at its centre)`);
    // Tabs numbered in the order the journey uses them.
    const order = [...new Set(steps.flatMap((s) => (s.opens === undefined ? [s.window] : [s.window, s.opens])))];
    const renumber = new Map(order.map((w, i) => [w, i]));
    for (const step of steps) {
      step.window = renumber.get(step.window)!;
      if (step.opens !== undefined) step.opens = renumber.get(step.opens) ?? undefined;
      if (step.opens === undefined) delete step.opens;
    }
    // What the person typed, where the recording holds it in clear: never quoted back.
    const typed = new Set<string>(this.typed());
    for (const step of steps) if (step.action === 'fill' && step.recorded && !isMasked(step.recorded)) typed.add(step.recorded);
    // Typed into a field the recording masked: the page may echo it (a name on a thank-you page) with nothing to recognise it by.
    const maskedTyping = steps.some((s) => s.action === 'fill' && s.recorded !== undefined && isMasked(s.recorded) && !numberish(s.field));
    markChoicesThatMatter(steps, this.selectHorizon);
    searchesFor(steps, this.clickText, [...typed], (text) => this.note(text));
    const problems = placeProblems(this.problems, steps, renumber, typed, (text) => this.note(text));
    if (this.counts.droppedProblems > 0) this.note(`${this.counts.droppedProblems} further failures past the first ${PROBLEMS_MAX} are not listed.`);
    if (this.counts.droppedWindows > 0) this.note(`Events of tabs beyond the first ${WINDOWS_MAX} are left out.`);
    if (this.counts.unknownTargets > 0) this.note(`${this.counts.unknownTargets} click(s) or input(s) named an element the rebuilt page does not have (no full snapshot before them): not reproduced.`);
    if (this.counts.bad > 0) this.note(`${this.counts.bad} malformed event(s) skipped.`);
    for (const win of this.windows.values()) if (win.mirror.dropped > 0) this.note(`Tab ${win.index + 1}: page too large to rebuild fully; selectors there may fall back to CSS paths.`);

    const lastStep = steps[steps.length - 1];
    const lastTab = lastStep && [...this.windows.values()].find((w) => renumber.get(w.index) === lastStep.window);
    const final = lastStep ? journeyEnd(lastStep, lastTab, { origin: this.origin, typed, maskedTyping, budget: this.budget, note: (text) => this.note(text), after: request?.at }) : undefined;
    if (final && final.leaves === undefined && request) final.request = { ...request, window: final.window };
    if (this.counts.blocked > 20) this.notReplayed.push(`${this.counts.blocked - 20} more click(s) or input(s) on elements the recorder blocked`);
    return { origin: this.origin, start: this.start, windows: order.length, steps, droppedSteps: this.counts.droppedSteps, problems, final, skipped: this.skipped, notReplayed: this.notReplayed };
  }
}
