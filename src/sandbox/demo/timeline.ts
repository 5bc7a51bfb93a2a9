// A script builder for demo recordings: a story calls tab.open(), tab.click(), tab.type()…
// and gets the rrweb events a browser running posthog-js would have produced, plus the
// analytics events ($pageview, $autocapture, $rageclick, $exception, custom ones) captured
// alongside. Timestamps here are milliseconds since the recording started; the dataset
// shifts them to absolute time for each sandbox clock.

import { elementsChain, serializeInto, serializePage, type KeyedElement, type PageDom, type Point, type VNode } from './dom.js';
import type { PageView } from './pages.js';
import { EventType, IncrementalSource, MouseInteractions, PointerType, type RrwebEvent, type SerializedNode } from './rrweb.js';

export interface ScriptEvent {
  windowId: string;
  event: RrwebEvent;
}

export interface AnalyticsEvent {
  event: string;
  /** ms since recording start */
  t: number;
  properties: Record<string, unknown>;
}

export interface ConsoleEntry {
  t: number;
  level: 'log' | 'info' | 'warn' | 'error';
  message: string;
}

export interface Device {
  browser: string;
  browserVersion: number;
  os: string;
  osVersion: string;
  deviceType: 'Desktop' | 'Mobile' | 'Tablet';
  width: number;
  height: number;
  countryCode: string;
  countryName: string;
  city: string;
  referrer: string;
}

export interface NetworkCall {
  url: string;
  method?: string;
  status: number;
  durationMs: number;
  initiatorType?: 'fetch' | 'xmlhttprequest' | 'navigation' | 'script' | 'link' | 'img';
  requestBody?: string;
  responseBody?: string;
  transferSize?: number;
}

/** Deterministic PRNG (mulberry32) so every run produces byte-identical recordings. */
function prng(seed: string): () => number {
  let a = 0;
  for (let i = 0; i < seed.length; i++) a = (Math.imul(a ^ seed.charCodeAt(i), 2654435761) + i) | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class RecordingBuilder {
  t = 0;
  readonly events: ScriptEvent[] = [];
  readonly analytics: AnalyticsEvent[] = [];
  readonly consoleEntries: ConsoleEntry[] = [];
  readonly random: () => number;

  constructor(
    readonly sessionId: string,
    readonly device: Device,
  ) {
    this.random = prng(sessionId);
  }

  /** Advance the clock by about `ms` (±15 % so timings do not look machine-made). */
  wait(ms: number): this {
    this.t += Math.round(ms * (0.85 + this.random() * 0.3));
    return this;
  }

  tab(windowId: string, viewport?: { width: number; height: number }): Tab {
    return new Tab(this, windowId, viewport ?? { width: this.device.width, height: this.device.height });
  }

  push(windowId: string, type: number, data: unknown, at = this.t): void {
    this.events.push({ windowId, event: { type, data, timestamp: at } });
  }

  int(min: number, max: number): number {
    return Math.floor(min + this.random() * (max - min + 1));
  }
}

interface MutationBatch {
  adds: Array<{ parentId: number; nextId: number | null; node: SerializedNode }>;
  removes: Array<{ parentId: number; id: number }>;
  texts: Array<{ id: number; value: string }>;
  attributes: Array<{ id: number; attributes: Record<string, string | null> }>;
}

export class Tab {
  page: PageDom | undefined;
  href = '';
  private pageStart = 0;
  private scrollY = 0;
  private mouse: Point;
  private loads = 0;
  private readonly touch: boolean;

  constructor(
    private readonly b: RecordingBuilder,
    readonly windowId: string,
    private viewport: { width: number; height: number },
  ) {
    this.mouse = { x: Math.round(viewport.width / 2), y: Math.round(viewport.height / 3) };
    this.touch = b.device.deviceType !== 'Desktop';
  }

  private emit(type: number, data: unknown, at = this.b.t): void {
    this.b.push(this.windowId, type, data, at);
  }

  private incremental(data: Record<string, unknown>, at = this.b.t): void {
    this.emit(EventType.IncrementalSnapshot, data, at);
  }

  /** A full page load: Meta, FullSnapshot, posthog-js' $pageview custom event and network timing. */
  open(origin: string, view: PageView, opts: { referrer?: string } = {}): this {
    const b = this.b;
    const previous = this.href;
    this.href = origin + view.path;
    this.scrollY = 0;
    this.pageStart = b.t;
    if (this.loads === 0) {
      this.custom('$session_options', {
        sessionRecordingOptions: {
          blockClass: 'ph-no-capture',
          blockSelector: null,
          ignoreClass: 'ph-ignore-input',
          maskTextClass: 'ph-mask',
          maskTextSelector: null,
          maskAllInputs: false,
          maskInputOptions: { password: true },
          recordCanvas: false,
          recordCrossOriginIframes: false,
          inlineStylesheet: true,
        },
        activePlugins: ['rrweb/console@1', 'rrweb/network@1'],
      });
    }
    this.emit(EventType.Meta, { href: this.href, width: this.viewport.width, height: this.viewport.height });
    b.t += b.int(4, 20);
    if (this.loads === 0) {
      // rrweb only sees these when recording starts before the document finished loading.
      this.emit(EventType.DomContentLoaded, {});
      this.emit(EventType.Load, {}, b.t + 1);
    }
    this.page = serializePage(view.html);
    this.emit(EventType.FullSnapshot, { node: this.page.root, initialOffset: { left: 0, top: 0 } });
    b.t += b.int(2, 8);
    this.custom('$pageview', { href: this.href });
    this.capture('$pageview', {
      $title: view.title,
      $referrer: opts.referrer ?? (previous || b.device.referrer),
      $prev_pageview_pathname: previous ? new URL(previous).pathname : undefined,
    });
    this.network(
      [
        { url: this.href, initiatorType: 'navigation', status: 200, durationMs: b.int(180, 420), transferSize: 18_432 },
        { url: `${origin}/_next/static/chunks/main-5d2e8a.js`, initiatorType: 'script', status: 200, durationMs: b.int(40, 140), transferSize: 98_311 },
        { url: `${origin}/_next/static/css/9b1f4e2c7a.css`, initiatorType: 'link', status: 200, durationMs: b.int(20, 90), transferSize: 7_904 },
      ],
      true,
    );
    this.loads++;
    return this;
  }

  el(key: string): KeyedElement {
    const el = this.page?.keyed.get(key);
    if (!el) throw new Error(`demo script: no element "${key}" on ${this.href}`);
    return el;
  }

  /** Scroll so that page y-coordinate `y` is comfortably inside the viewport. */
  private ensureVisible(y: number): void {
    const margin = 90;
    if (y >= this.scrollY + margin && y <= this.scrollY + this.viewport.height - margin) return;
    this.scrollTo(Math.max(0, Math.round(y - this.viewport.height / 2)));
  }

  /** Smooth scroll: rrweb throttles scroll events to ~100 ms, so a few events per gesture. */
  scrollTo(y: number): this {
    const steps = Math.max(2, Math.min(8, Math.ceil(Math.abs(y - this.scrollY) / 250)));
    const from = this.scrollY;
    for (let i = 1; i <= steps; i++) {
      this.b.t += this.b.int(90, 140);
      const at = Math.round(from + ((y - from) * i) / steps);
      this.incremental({ source: IncrementalSource.Scroll, id: 1, x: 0, y: at });
    }
    this.scrollY = y;
    this.b.wait(300);
    return this;
  }

  /** Mouse movement towards an element (or point); one MouseMove event per ~500 ms as rrweb batches them. */
  move(target: string | Point): this {
    const b = this.b;
    let dest: Point;
    let targetId = 1;
    if (typeof target === 'string') {
      const el = this.el(target);
      if (!el.at) throw new Error(`demo script: element "${target}" has no position`);
      this.ensureVisible(el.at.y);
      dest = { x: el.at.x + b.int(-8, 8), y: el.at.y - this.scrollY + b.int(-5, 5) };
      targetId = el.id;
    } else {
      dest = target;
    }
    if (this.touch) {
      this.mouse = dest;
      return this;
    }
    const distance = Math.hypot(dest.x - this.mouse.x, dest.y - this.mouse.y);
    const duration = Math.max(150, Math.min(1600, Math.round(distance * 1.4)));
    const samples = Math.max(3, Math.round(duration / 50));
    let batch: Array<{ x: number; y: number; id: number; timeOffset: number }> = [];
    const start = b.t;
    for (let i = 1; i <= samples; i++) {
      const f = i / samples;
      const ease = f * f * (3 - 2 * f);
      const at = start + Math.round(f * duration);
      batch.push({
        x: Math.round(this.mouse.x + (dest.x - this.mouse.x) * ease),
        y: Math.round(this.mouse.y + (dest.y - this.mouse.y) * ease + Math.sin(f * 3) * 6),
        id: i === samples ? targetId : 1,
        timeOffset: at,
      });
      if (batch.length >= 10 || i === samples) {
        const emitAt = at;
        this.incremental(
          { source: IncrementalSource.MouseMove, positions: batch.map((p) => ({ ...p, timeOffset: p.timeOffset - emitAt })) },
          emitAt,
        );
        batch = [];
      }
    }
    b.t = start + duration;
    this.mouse = dest;
    return this;
  }

  private pointer(type: number, el: KeyedElement): void {
    const data: Record<string, unknown> = { source: IncrementalSource.MouseInteraction, type, id: el.id };
    if (type !== MouseInteractions.Focus && type !== MouseInteractions.Blur) {
      data.x = this.mouse.x;
      data.y = this.mouse.y;
    }
    data.pointerType = this.touch ? PointerType.Touch : PointerType.Mouse;
    this.incremental(data);
  }

  /** Click (or tap) an element; `times` ≥ 3 within a second is what posthog-js reports as a rage click. */
  click(key: string, opts: { times?: number; gap?: number; autocapture?: boolean } = {}): this {
    const b = this.b;
    const el = this.el(key);
    const times = opts.times ?? 1;
    const gap = opts.gap ?? 180;
    this.move(key);
    b.wait(120);
    const clickTimes: number[] = [];
    for (let i = 0; i < times; i++) {
      if (i > 0) b.t += Math.round(gap * (0.8 + b.random() * 0.4));
      this.pointer(this.touch ? MouseInteractions.TouchStart : MouseInteractions.MouseDown, el);
      b.t += b.int(60, 110);
      this.pointer(this.touch ? MouseInteractions.TouchEnd : MouseInteractions.MouseUp, el);
      b.t += b.int(1, 4);
      this.pointer(MouseInteractions.Click, el);
      clickTimes.push(b.t);
      if (opts.autocapture !== false && !isBlocked(el)) this.autocapture(el, 'click');
    }
    // posthog-js' rage click: three clicks on the same spot within one second.
    const rage = clickTimes.some((t, i) => i >= 2 && t - clickTimes[i - 2]! < 1000);
    if (rage && !isBlocked(el)) this.capture('$rageclick', autocaptureProps(el, 'click'));
    return this;
  }

  private autocapture(el: KeyedElement, eventType: 'click' | 'change' | 'submit'): void {
    this.capture('$autocapture', autocaptureProps(el, eventType));
  }

  /** Focus a field and type into it, one Input event every keystroke or two. */
  type(key: string, text: string, opts: { masked?: boolean } = {}): this {
    const b = this.b;
    const el = this.el(key);
    this.click(key, { autocapture: false });
    this.pointer(MouseInteractions.Focus, el);
    if (isBlocked(el)) {
      b.t += text.length * b.int(110, 170);
      return this;
    }
    let typed = '';
    let i = 0;
    while (i < text.length) {
      const step = Math.min(text.length - i, b.random() < 0.6 ? 1 : 2);
      typed += text.slice(i, i + step);
      i += step;
      b.t += b.int(90, 200) * step;
      this.incremental({
        source: IncrementalSource.Input,
        text: opts.masked || el.attrs.type === 'password' ? '*'.repeat(typed.length) : typed,
        isChecked: false,
        id: el.id,
        userTriggered: true,
      });
    }
    this.autocapture(el, 'change');
    b.wait(250);
    return this;
  }

  check(key: string, checked = true): this {
    const el = this.el(key);
    this.click(key);
    this.b.t += this.b.int(1, 5);
    this.incremental({ source: IncrementalSource.Input, text: 'on', isChecked: checked, id: el.id, userTriggered: true });
    return this;
  }

  choose(key: string, value: string): this {
    const el = this.el(key);
    this.click(key, { autocapture: false });
    this.b.wait(900);
    this.incremental({ source: IncrementalSource.Input, text: value, isChecked: false, id: el.id, userTriggered: true });
    this.autocapture(el, 'change');
    return this;
  }

  resize(width: number, height: number): this {
    this.viewport = { width, height };
    this.incremental({ source: IncrementalSource.ViewportResize, width, height });
    return this;
  }

  /** Start a DOM mutation; `.emit()` writes it as one rrweb Mutation event. */
  mutation(): Mutation {
    return new Mutation(this, () => {
      if (!this.page) throw new Error('demo script: mutation before any page load');
      return this.page;
    });
  }

  emitMutation(batch: MutationBatch): void {
    this.incremental({ source: IncrementalSource.Mutation, ...batch });
  }

  /** A CSS rule inserted at runtime (e.g. a CSS-in-JS library), as rrweb's StyleSheetRule event. */
  insertCssRule(styleKey: string | null, rule: string, index: number): this {
    const data: Record<string, unknown> = { source: IncrementalSource.StyleSheetRule, adds: [{ rule, index }] };
    data.id = styleKey ? this.el(styleKey).id : styleNodeId(this.page);
    this.incremental(data);
    return this;
  }

  /** A console message as recorded by rrweb's console plugin (arguments JSON-stringified). */
  console(level: ConsoleEntry['level'], message: string, trace: string[] = []): this {
    this.emit(EventType.Plugin, {
      plugin: 'rrweb/console@1',
      payload: { level, payload: [JSON.stringify(message)], trace },
    });
    this.b.consoleEntries.push({ t: this.b.t, level, message });
    return this;
  }

  /** Network requests as posthog-js' network plugin records them; `timestamp` is shifted to absolute time later. */
  network(calls: NetworkCall[], initial = false): this {
    const b = this.b;
    const requests = calls.map((call) => {
      const startTime = Math.max(0, b.t - this.pageStart - call.durationMs) + Math.round(b.random() * 1000) / 1000;
      const request: Record<string, unknown> = {
        name: call.url,
        method: call.method ?? 'GET',
        initiatorType: call.initiatorType ?? 'fetch',
        entryType: call.initiatorType === 'navigation' ? 'navigation' : 'resource',
        startTime: round3(startTime),
        endTime: round3(startTime + call.durationMs),
        duration: call.durationMs,
        timestamp: Math.max(0, b.t - call.durationMs),
        responseStatus: call.status,
        transferSize: call.transferSize ?? 512,
        isInitial: initial || undefined,
      };
      if (call.requestBody !== undefined) request.requestBody = call.requestBody;
      if (call.responseBody !== undefined) request.responseBody = call.responseBody;
      return request;
    });
    this.emit(EventType.Plugin, { plugin: 'rrweb/network@1', payload: { requests } });
    return this;
  }

  custom(tag: string, payload: unknown): this {
    this.emit(EventType.Custom, { tag, payload });
    return this;
  }

  /** An analytics event captured by posthog-js in this tab (not part of the rrweb stream). */
  capture(event: string, properties: Record<string, unknown> = {}): this {
    const d = this.b.device;
    const url = this.href ? new URL(this.href) : null;
    const props: Record<string, unknown> = {
      $os: d.os,
      $os_version: d.osVersion,
      $browser: d.browser,
      $browser_version: d.browserVersion,
      $device_type: d.deviceType,
      $current_url: this.href || null,
      $host: url?.host ?? null,
      $pathname: url?.pathname ?? null,
      $screen_width: this.viewport.width,
      $screen_height: this.viewport.height,
      $viewport_width: this.viewport.width,
      $viewport_height: this.viewport.height,
      $lib: 'web',
      $lib_version: '1.194.6',
      $session_id: this.b.sessionId,
      $window_id: this.windowId,
      $geoip_country_code: d.countryCode,
      $geoip_country_name: d.countryName,
      $geoip_city_name: d.city,
    };
    for (const [k, v] of Object.entries(properties)) if (v !== undefined) props[k] = v;
    this.b.analytics.push({ event, t: this.b.t, properties: props });
    return this;
  }
}

export class Mutation {
  private readonly batch: MutationBatch = { adds: [], removes: [], texts: [], attributes: [] };

  constructor(
    private readonly tab: Tab,
    private readonly page: () => PageDom,
  ) {}

  text(key: string, value: string): this {
    const el = this.page().keyed.get(key);
    if (el?.textId === undefined) throw new Error(`demo script: "${key}" has no text node`);
    this.batch.texts.push({ id: el.textId, value });
    el.text = value;
    return this;
  }

  attr(key: string, attributes: Record<string, string | null>): this {
    const el = this.page().keyed.get(key);
    if (!el) throw new Error(`demo script: no element "${key}"`);
    this.batch.attributes.push({ id: el.id, attributes });
    return this;
  }

  add(parentKey: string, node: VNode): this {
    const page = this.page();
    const parent = page.keyed.get(parentKey);
    if (!parent) throw new Error(`demo script: no element "${parentKey}"`);
    const serialized = serializeInto(page, parent.id, node, parent.ancestors);
    this.batch.adds.push({ parentId: parent.id, nextId: null, node: serialized });
    return this;
  }

  remove(key: string): this {
    const page = this.page();
    const el = page.keyed.get(key);
    if (!el) throw new Error(`demo script: no element "${key}"`);
    this.batch.removes.push({ parentId: page.parents.get(el.id) ?? 1, id: el.id });
    page.keyed.delete(key);
    return this;
  }

  emit(): Tab {
    this.tab.emitMutation(this.batch);
    return this.tab;
  }
}

function isBlocked(el: KeyedElement): boolean {
  return typeof el.attrs.class === 'string' && el.attrs.class.split(/\s+/).includes('ph-no-capture');
}

function autocaptureProps(el: KeyedElement, eventType: string): Record<string, unknown> {
  return {
    $event_type: eventType,
    $el_text: el.tag === 'input' || el.tag === 'select' ? undefined : el.text.slice(0, 255),
    $elements_chain: elementsChain(el),
    $ce_version: 1,
  };
}

function styleNodeId(page: PageDom | undefined): number {
  // The <style data-emotion> element in <head>: rrweb targets the owning node's id.
  const head = (page?.root.childNodes as SerializedNode[] | undefined)?.[1]?.childNodes as SerializedNode[] | undefined;
  const headNode = head?.find((n) => n.tagName === 'head');
  const style = (headNode?.childNodes as SerializedNode[] | undefined)?.find((n) => n.tagName === 'style');
  return style?.id ?? 1;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
