// Writes one generated session as posthog-js would have sent it: events carrying the device, the
// page, `$session_id`/`$window_id` and the recorder's state (`$recording_status`, and once the
// sampling decision is made `$replay_sample_rate`, `$session_is_sampled`,
// `$session_recording_start_reason`), autocapture properties read from the demo shop's real page
// markup, console lines, and the few steps its lazily built snapshot replays (snapshots.ts).

import type { CapturedEvent } from '../demo/dataset.js';
import { elementsChain, serializePage } from '../demo/dom.js';
import { SHOP_ORIGIN, shopCart, shopCheckout, shopCollection, shopConfirmation, shopHome, shopProduct, type CartLine, type PageView, type Product } from '../demo/pages.js';
import type { ConsoleEntry } from '../demo/timeline.js';
import type { DeviceProfile, ExceptionDef } from './catalog.js';
import { HELP_ORIGIN } from './catalog.js';
import type { Random } from './random.js';

/** The posthog-js whose events these imitate (docs/posthog-api.md, "What posthog-js sends" and "Tables the query API reads"). */
const LIB_VERSION = '1.449.2';

export type PageRef =
  | { kind: 'home'; cart: number }
  | { kind: 'collection'; handle: 'sale' | 'new' | 'footwear'; cart: number }
  | { kind: 'product'; product: Product; cart: number }
  | { kind: 'cart'; lines: CartLine[] }
  | { kind: 'checkout'; cart: number }
  | { kind: 'confirmation'; firstName: string; order: string }
  | { kind: 'help'; path: string; title: string };

/** What a session's snapshot shows, in order: pages, clicks, requests, the checkout's error message. */
export type SnapshotStep =
  | { t: number; do: 'open'; page: PageRef }
  | { t: number; do: 'click'; key: string; times: number }
  | { t: number; do: 'network'; url: string; method: string; status: number; durationMs: number }
  | { t: number; do: 'alert'; text: string };

/** How replay treats the session: recorded (sampled in), dropped by the sample rate, or off in the project. */
export type ReplayMode = 'sampled' | 'sampled_out' | 'off';

export interface SessionSetup {
  id: string;
  windowId: string;
  startMs: number;
  device: DeviceProfile;
  place: readonly [string, string, string];
  referrer: string;
  /** posthog-js's device id: the device's first anonymous id. */
  deviceId: string;
  replay: ReplayMode;
  sampleRate: number | null;
  deadClicks: boolean;
}

export function shopPage(ref: PageRef, mobile: boolean): PageView {
  switch (ref.kind) {
    case 'home':
      return shopHome(mobile, ref.cart);
    case 'collection':
      return shopCollection(mobile, ref.cart, ref.handle);
    case 'product':
      return shopProduct(mobile, ref.cart, ref.product);
    case 'cart':
      return shopCart(mobile, ref.lines);
    case 'checkout':
      return shopCheckout(mobile, ref.cart);
    case 'confirmation':
      return shopConfirmation(mobile, ref.firstName, ref.order);
    case 'help':
      throw new Error('the help centre has no page markup in the sandbox');
  }
}

function pageKey(ref: PageRef, mobile: boolean): string {
  switch (ref.kind) {
    case 'product':
      return `product:${ref.product.slug}:${ref.cart}:${mobile}`;
    case 'collection':
      return `collection:${ref.handle}:${ref.cart}:${mobile}`;
    case 'cart':
      return `cart:${ref.lines.map((l) => `${l.product.slug}/${l.size}`).join(',')}:${mobile}`;
    case 'confirmation':
      return `confirmation:${mobile}`;
    case 'help':
      return `help:${ref.path}`;
    default:
      return `${ref.kind}:${ref.cart}:${mobile}`;
  }
}

/** Element text and `$elements_chain` by key, per page as served (parsed once per process). */
const elementCache = new Map<string, Map<string, { text: string | undefined; chain: string }>>();

function elementOf(ref: PageRef, mobile: boolean, key: string): { text: string | undefined; chain: string } | undefined {
  if (ref.kind === 'help') return undefined;
  const cacheKey = pageKey(ref, mobile);
  let elements = elementCache.get(cacheKey);
  if (!elements) {
    elements = new Map();
    // posthog-js sends no $el_text for form fields.
    for (const [k, el] of serializePage(shopPage(ref, mobile).html).keyed) elements.set(k, { text: el.tag === 'input' || el.tag === 'select' ? undefined : el.text.slice(0, 255), chain: elementsChain(el) });
    elementCache.set(cacheKey, elements);
  }
  return elements.get(key);
}

const factsCache = new Map<string, { path: string; title: string }>();

/** A shop page's path and title (the markup is built once per kind of page, not per visit). */
function pageFacts(ref: PageRef, mobile: boolean): { path: string; title: string } {
  if (ref.kind === 'confirmation') {
    const view = shopPage(ref, mobile);
    return { path: view.path, title: view.title };
  }
  const key = pageKey(ref, mobile);
  let facts = factsCache.get(key);
  if (!facts) {
    const view = shopPage(ref, mobile);
    factsCache.set(key, (facts = { path: view.path, title: view.title }));
  }
  return facts;
}

function referringDomain(referrer: string): string {
  try {
    return new URL(referrer).host;
  } catch {
    return '$direct';
  }
}

export class SessionWriter {
  readonly events: CapturedEvent[] = [];
  readonly console: ConsoleEntry[] = [];
  readonly steps: SnapshotStep[] = [];
  /** Page loads, for the replay rows' first and visited URLs. */
  readonly pages: Array<{ t: number; url: string }> = [];
  /** Distinct id changes (an identify), for the replay rows of each batch. */
  readonly identities: Array<{ t: number; distinctId: string }> = [];
  page: PageRef | undefined;
  private url = '';
  private host = '';
  private path = '';
  private first = true;
  readonly mobile: boolean;
  private readonly referringDomain: string;
  keypresses = 0;
  mouseMoves = 0;
  activeMs = 0;
  /** The latest moment written so far (ms since the session started). */
  lastT = 0;

  constructor(
    readonly setup: SessionSetup,
    readonly rng: Random,
    public distinctId: string,
    public identified: boolean,
  ) {
    this.mobile = setup.device.deviceType !== 'Desktop';
    this.referringDomain = referringDomain(setup.referrer);
    this.identities.push({ t: 0, distinctId });
  }

  private base(): Record<string, unknown> {
    const s = this.setup;
    const d = s.device;
    // One object literal, the same keys in the same order for every event: V8 then shares one
    // shape between the week's tens of thousands of events (a spread here doubles their memory).
    const props: Record<string, unknown> = {
      $os: d.os,
      $os_version: d.osVersion,
      $browser: d.browser,
      $browser_version: d.browserVersion,
      $device_type: d.deviceType,
      $current_url: this.url,
      $host: this.host,
      $pathname: this.path,
      $screen_width: d.width,
      $screen_height: d.height,
      $viewport_width: d.width,
      $viewport_height: d.height,
      $lib: 'web',
      $lib_version: LIB_VERSION,
      $referrer: s.referrer,
      $referring_domain: this.referringDomain,
      $device_id: s.deviceId,
      $session_id: s.id,
      $window_id: s.windowId,
      $is_identified: this.identified,
    };
    // The first event of the session goes out while the recorder script is still loading, before the sampling decision.
    if (this.first && s.replay !== 'off') {
      props.$recording_status = 'lazy_loading';
    } else if (s.replay === 'off') {
      props.$recording_status = 'disabled';
    } else {
      props.$recording_status = s.replay === 'sampled' ? 'sampled' : 'disabled';
      if (s.sampleRate !== null) {
        props.$replay_sample_rate = s.sampleRate;
        props.$session_is_sampled = s.replay === 'sampled' ? s.id : `!${s.id}`;
      }
      // A session dropped by sampling gets no start reason (this SDK never writes `sampled_out`).
      if (s.replay === 'sampled') props.$session_recording_start_reason = s.sampleRate !== null ? 'sampled' : 'recording_initialized';
    }
    if (s.deadClicks) props.$dead_clicks_enabled_server_side = true;
    props.$geoip_country_code = s.place[0];
    props.$geoip_country_name = s.place[1];
    props.$geoip_city_name = s.place[2];
    this.first = false;
    return props;
  }

  capture(event: string, t: number, extra: Record<string, unknown> = {}): void {
    const timestampMs = this.setup.startMs + t;
    this.lastT = Math.max(this.lastT, t);
    const properties = Object.assign(this.base(), extra);
    this.events.push({ uuid: this.rng.uuidV7(timestampMs), event, timestampMs, distinctId: this.distinctId, properties });
  }

  open(ref: PageRef, t: number): void {
    this.page = ref;
    const { path, title } = ref.kind === 'help' ? ref : pageFacts(ref, this.mobile);
    const origin = ref.kind === 'help' ? HELP_ORIGIN : SHOP_ORIGIN;
    this.url = origin + path;
    this.host = origin.slice('https://'.length);
    this.path = path.split('?')[0]!;
    this.pages.push({ t, url: this.url });
    this.steps.push({ t, do: 'open', page: ref });
    this.capture('$pageview', t, { title });
  }

  leave(t: number): void {
    this.capture('$pageleave', t);
  }

  /** Autocapture properties of an element of the current page, or undefined if the page has no such element. */
  element(key: string): Record<string, unknown> | undefined {
    const el = this.page ? elementOf(this.page, this.mobile, key) : undefined;
    if (!el) return undefined;
    return el.text === undefined ? { $event_type: 'click', $elements_chain: el.chain, $ce_version: 1 } : { $event_type: 'click', $el_text: el.text, $elements_chain: el.chain, $ce_version: 1 };
  }

  /** A click (or `times` quick ones: three within a second are posthog-js's rage click) on an element. */
  click(key: string, t: number, times = 1, gapMs = 190): boolean {
    const props = this.element(key);
    if (!props) return false;
    this.steps.push({ t, do: 'click', key, times });
    for (let i = 0; i < times; i++) {
      this.capture('$autocapture', t + i * gapMs, props);
      if (i === 2) this.capture('$rageclick', t + i * gapMs + 5, props);
    }
    return true;
  }

  /** A click after which nothing happened: posthog-js's dead-click extension reports it once its 2.5 s pass. */
  deadClick(key: string, t: number): boolean {
    const props = this.element(key);
    if (!props) return false;
    this.click(key, t);
    const scroll = this.rng.int(2_600, 3_400);
    this.capture('$dead_click', t + 2_500 + this.rng.int(20, 400), {
      ...props,
      $dead_click_scroll_delay_ms: scroll,
      $dead_click_mutation_delay_ms: 2_500,
      $dead_click_absolute_delay_ms: 2_500,
      $dead_click_selection_changed_delay_ms: scroll,
      $dead_click_scroll_timeout: true,
      $dead_click_mutation_timeout: true,
      $dead_click_absolute_timeout: true,
      $dead_click_selection_changed_timeout: true,
    });
    return true;
  }

  log(level: ConsoleEntry['level'], message: string, t: number): void {
    this.lastT = Math.max(this.lastT, t);
    this.console.push({ t, level, message });
  }

  /** A request that completed at `t` after `durationMs`. */
  network(t: number, url: string, method: string, status: number, durationMs: number): void {
    this.lastT = Math.max(this.lastT, t);
    this.steps.push({ t, do: 'network', url, method, status, durationMs });
  }

  alert(t: number, text: string): void {
    this.steps.push({ t, do: 'alert', text });
  }

  /** An `$exception` as posthog-js sends it, with the fields PostHog's error tracking adds before storing it. */
  exception(def: ExceptionDef, t: number): void {
    this.capture('$exception', t, {
      $exception_list: [
        {
          type: def.type,
          value: def.value,
          mechanism: { type: def.mechanism, handled: def.handled, synthetic: false },
          stacktrace: { type: 'raw', frames: [{ filename: def.source, function: def.fn, lineno: def.line, colno: def.column, in_app: true, platform: 'web:javascript' }] },
        },
      ],
      $exception_level: 'error',
      $exception_fingerprint: def.fingerprint,
      $exception_issue_id: def.issueId,
      $exception_handled: def.handled,
      $exception_types: [def.type],
      $exception_values: [def.value],
      $exception_sources: [def.source],
      $exception_functions: [def.fn],
    });
  }

  /** posthog.identify(): the `$identify` event, then every later event under the new distinct id. */
  identify(t: number, identifiedId: string, set: Record<string, unknown>): void {
    const anonymous = this.distinctId;
    this.distinctId = identifiedId;
    this.identified = true;
    this.capture('$identify', t, { $anon_distinct_id: anonymous, $set: set });
    this.identities.push({ t, distinctId: identifiedId });
  }
}
