// What happens in one generated session: a route through the demo shop (browse, maybe add to
// cart, maybe check out) or the help centre, written with its events, console lines and snapshot
// steps, and the problems the population planted in it (plan). A planted problem bends the route
// only as far as it needs a page (a failed checkout needs a checkout).

import { PRODUCTS, SHOP_ORIGIN, productBySlug, type CartLine, type Product } from '../demo/pages.js';
import {
  CHECKOUT_FAILED_CONSOLE,
  CHUNKS,
  CHUNK_ERROR,
  DEAD_REVIEWS,
  DEPRECATION_CONSOLE,
  HELP_PAGES,
  INVENTORY_CONSOLE,
  PAGE_READY_CONSOLE,
  PAYMENT_ERROR,
  PAYMENT_PAGE_MESSAGE,
  RAGE_PLACE_ORDER,
  RAGE_PROMO,
  VARIANTS_CONSOLE,
  VARIANTS_ERROR,
} from './catalog.js';
import type { Random } from './random.js';
import type { PageRef, SessionWriter } from './session-writer.js';

export interface StorePlan {
  /** Shorter than the project's minimum duration: one page, gone within two seconds. */
  tooShort: boolean;
  /** How many times the week's top exception fires (0, 1 or 2). */
  variants: number;
  /** The failed checkout: request 500 → exception → error message on the page → rage click. */
  failedCheckout: boolean;
  /** Rage clicks on "Place order" while a slow checkout goes through. */
  slowCheckoutRage: boolean;
  inventoryTimeouts: boolean;
  chunkError: boolean;
  deadReviews: boolean;
  promoRage: boolean;
  /** This session logs in: posthog.identify() with the person's id and profile. */
  identify: { id: string; set: Record<string, unknown> } | null;
}

type Browse = { kind: 'home' } | { kind: 'collection'; handle: 'sale' | 'new' | 'footwear' } | { kind: 'product'; product: Product };

interface Visit {
  ref: PageRef;
  add?: Product;
}

const HANDLES = ['sale', 'new', 'footwear'] as const;

function nextBrowse(rng: Random, from: Browse): Browse {
  const product = (): Browse => ({ kind: 'product', product: rng.pick(PRODUCTS) });
  if (from.kind === 'home') return rng.chance(0.6) ? product() : { kind: 'collection', handle: rng.pick(HANDLES) };
  if (from.kind === 'collection') return rng.chance(0.85) ? product() : { kind: 'home' };
  return rng.weighted<() => Browse>([
    [product, 35],
    [() => ({ kind: 'collection', handle: rng.pick(HANDLES) }), 25],
    [() => ({ kind: 'home' }), 40],
  ])();
}

/** The pages of a shop session, with the cart as it stands on each. */
function route(rng: Random, plan: StorePlan): Visit[] {
  const entry = rng.weighted<Browse['kind']>([
    ['home', 40],
    ['product', 35],
    ['collection', 25],
  ]);
  const browse: Browse[] = [entry === 'home' ? { kind: 'home' } : entry === 'product' ? { kind: 'product', product: rng.pick(PRODUCTS) } : { kind: 'collection', handle: rng.pick(HANDLES) }];
  const length = 1 + Math.floor(rng.next() ** 1.7 * 6);
  while (browse.length < length) browse.push(nextBrowse(rng, browse[browse.length - 1]!));
  const isProduct = (b: Browse, slug?: string) => b.kind === 'product' && (slug === undefined || b.product.slug === slug);
  if (plan.deadReviews && !browse.some((b) => isProduct(b, DEAD_REVIEWS.product))) browse.push({ kind: 'product', product: productBySlug(DEAD_REVIEWS.product) });
  const wantsCart = plan.failedCheckout || plan.slowCheckoutRage || plan.promoRage || rng.chance(0.33);
  if ((wantsCart || plan.inventoryTimeouts) && !browse.some((b) => isProduct(b))) browse.push({ kind: 'product', product: rng.pick(PRODUCTS) });

  const productIndexes = browse.map((b, i) => (b.kind === 'product' ? i : -1)).filter((i) => i >= 0);
  const adds = new Set<number>();
  if (wantsCart) {
    adds.add(productIndexes[productIndexes.length - 1]!);
    if (productIndexes.length > 1 && rng.chance(0.25)) adds.add(productIndexes[0]!);
  }
  const lines: CartLine[] = [];
  const visits: Visit[] = browse.map((b, i) => {
    const cart = lines.length;
    const ref: PageRef = b.kind === 'home' ? { kind: 'home', cart } : b.kind === 'collection' ? { kind: 'collection', handle: b.handle, cart } : { kind: 'product', product: b.product, cart };
    if (b.kind === 'product' && adds.has(i) && !lines.some((l) => l.product === b.product)) {
      lines.push({ product: b.product, quantity: 1, size: b.product.sizes[Math.min(1, b.product.sizes.length - 1)]! });
      return { ref, add: b.product };
    }
    return { ref };
  });
  if (lines.length > 0) {
    visits.push({ ref: { kind: 'cart', lines: [...lines] } });
    if (plan.failedCheckout || plan.slowCheckoutRage || rng.chance(0.6)) visits.push({ ref: { kind: 'checkout', cart: lines.length } });
  }
  return visits;
}

const DWELL: Record<PageRef['kind'], [number, number]> = {
  home: [4_000, 40_000],
  collection: [6_000, 60_000],
  product: [8_000, 90_000],
  cart: [10_000, 60_000],
  checkout: [30_000, 120_000],
  confirmation: [5_000, 30_000],
  help: [8_000, 120_000],
};

/** The link on the current page that leads to the next one, if there is one. */
function linkTo(next: PageRef, mobile: boolean): string | undefined {
  switch (next.kind) {
    case 'product':
      return `product:${next.product.slug}`;
    case 'collection':
      return mobile ? (next.handle === 'new' ? 'hero-cta' : undefined) : `nav:${next.handle}`;
    case 'home':
      return 'logo';
    case 'cart':
      return 'cart-link';
    case 'checkout':
      return 'checkout';
    default:
      return undefined;
  }
}

const cartValue = (lines: CartLine[]) => lines.reduce((sum, l) => sum + l.product.price * l.quantity, 0);

export function storeJourney(w: SessionWriter, plan: StorePlan): void {
  const rng = w.rng;
  if (plan.tooShort) {
    w.open(rng.chance(0.5) ? { kind: 'home', cart: 0 } : { kind: 'product', product: rng.pick(PRODUCTS), cart: 0 }, 0);
    w.leave(rng.int(600, 1_800));
    return;
  }
  const visits = route(rng, plan);
  const variantsAt = new Set<number>();
  while (variantsAt.size < Math.min(plan.variants, visits.length)) variantsAt.add(rng.int(0, visits.length - 1));
  const chunkAt = plan.chunkError ? rng.int(0, visits.length - 1) : -1;
  const identifyAt = plan.identify ? (visits.some((v) => v.ref.kind === 'checkout') ? visits.findIndex((v) => v.ref.kind === 'checkout') : rng.int(0, visits.length - 1)) : -1;
  let t = 0;
  for (let i = 0; i < visits.length; i++) {
    const { ref, add } = visits[i]!;
    const t0 = t;
    w.open(ref, t0);
    const [min, max] = DWELL[ref.kind];
    const dwell = rng.logUniform(min, max);
    w.activeMs += Math.min(dwell, rng.int(3_000, 25_000));
    w.mouseMoves += rng.int(4, 30);
    if (i === 0 && rng.chance(0.25)) w.log('warn', DEPRECATION_CONSOLE, t0 + rng.int(200, 900));
    if (rng.chance(0.6)) w.log('log', PAGE_READY_CONSOLE(rng.int(180, 2_400)), t0 + rng.int(400, 1_600));
    if (variantsAt.has(i)) {
      const at = t0 + rng.int(800, 4_000);
      w.exception(VARIANTS_ERROR, at);
      w.log('error', VARIANTS_CONSOLE, at + 1);
    }
    if (i === chunkAt) w.exception(CHUNK_ERROR(rng.pick(CHUNKS)), t0 + rng.int(300, 2_000));
    if (i === identifyAt && ref.kind !== 'checkout') w.identify(t0 + Math.round(dwell / 2), plan.identify!.id, plan.identify!.set);
    interest(w, ref, t0, dwell);

    if (ref.kind === 'product') {
      if (add) {
        const at = t0 + Math.round(dwell * 0.55);
        w.click(`add:${add.slug}`, at);
        w.network(at + 220, `${SHOP_ORIGIN}/api/cart/items`, 'POST', 201, rng.int(140, 260));
        w.capture('product_added_to_cart', at + 230, { sku: add.sku, product_name: add.name, price: add.price, quantity: 1, cart_size: ref.cart + 1 });
      }
      if (plan.deadReviews && ref.product.slug === DEAD_REVIEWS.product) {
        const at = t0 + Math.round(dwell * 0.4);
        w.deadClick(DEAD_REVIEWS.key, at);
        if (rng.chance(0.3)) w.deadClick(DEAD_REVIEWS.key, at + 4_000);
      }
      if (rng.chance(0.03)) w.deadClick('price', t0 + Math.round(dwell * 0.3));
    }
    if (plan.inventoryTimeouts && (ref.kind === 'product' || ref.kind === 'cart')) {
      for (let n = rng.int(1, 3); n > 0; n--) w.log('error', INVENTORY_CONSOLE(rng.int(10_000, 99_999), rng.int(3_000, 9_000)), t0 + rng.int(1_000, Math.max(1_500, dwell - 500)));
    }
    if (ref.kind === 'cart' && plan.promoRage) w.click(RAGE_PROMO.key, t0 + Math.round(dwell * 0.4), 4);

    let end = Math.max(t0 + dwell, w.lastT + rng.int(800, 2_500));
    let confirmation: PageRef | undefined;
    if (ref.kind === 'checkout') {
      const outcome = checkout(w, plan, t0, dwell, i === identifyAt);
      end = Math.max(end, outcome.end);
      confirmation = outcome.confirmation;
    }
    const next = visits[i + 1]?.ref ?? confirmation;
    if (next) {
      const link = linkTo(next, w.mobile);
      if (link) w.click(link, end - rng.int(250, 600));
      if (next.kind === 'checkout' && ref.kind === 'cart') w.capture('checkout_started', end - 200, { cart_value: cartValue(ref.lines), items: ref.lines.length, currency: 'USD' });
    }
    if (confirmation) visits.push({ ref: confirmation });
    if (i === visits.length - 1) end = Math.ceil((end + 1) / 1_000) * 1_000;
    w.leave(end - (i === visits.length - 1 ? 0 : 30));
    t = end;
  }
}

/** A click or two on what the page offers besides its links: a size, a sort order, a quantity. */
function interest(w: SessionWriter, ref: PageRef, t0: number, dwell: number): void {
  const rng = w.rng;
  const at = () => t0 + Math.round(dwell * (0.15 + rng.next() * 0.3));
  if (ref.kind === 'product' && rng.chance(0.7)) w.click(`size:${ref.product.sizes[0]}`, at());
  if (ref.kind === 'collection' && rng.chance(0.2)) w.click('sort', at());
  if (ref.kind === 'collection' && rng.chance(0.2)) w.click('filter:M', at());
  if (ref.kind === 'cart' && rng.chance(0.15)) w.click(`qty:${ref.lines[0]!.product.slug}`, at());
}

/** The checkout page: the form, then the order (placed, failed, or abandoned). */
function checkout(w: SessionWriter, plan: StorePlan, t0: number, dwell: number, identify: boolean): { end: number; confirmation?: PageRef } {
  const rng = w.rng;
  w.keypresses += rng.int(40, 90);
  for (const [key, at] of [
    ['email', 4_000],
    ['full_name', 9_000],
  ] as const) {
    const props = w.element(key);
    if (props) w.capture('$autocapture', t0 + at + rng.int(0, 1_500), { ...props, $event_type: 'change' });
  }
  if (identify && plan.identify) w.identify(t0 + 11_000, plan.identify.id, plan.identify.set);
  const placed = t0 + Math.max(15_000, Math.round(dwell * 0.6));
  const order = () => String(rng.int(100_000, 999_999));
  const confirm = (at: number, ms: number) => {
    w.click(RAGE_PLACE_ORDER.key, at);
    w.network(at + ms, `${SHOP_ORIGIN}/api/checkout`, 'POST', 200, ms);
    const id = order();
    w.capture('order_completed', at + ms + 80, { order_id: id, revenue: 0, currency: 'USD' });
    return { end: at + ms + 400, confirmation: { kind: 'confirmation', firstName: String(plan.identify?.set.name ?? 'there').split(' ')[0]!, order: id } as PageRef };
  };
  if (plan.failedCheckout) {
    const ms = rng.int(2_300, 2_800);
    w.click(RAGE_PLACE_ORDER.key, placed);
    w.network(placed + ms, `${SHOP_ORIGIN}/api/checkout`, 'POST', 500, ms);
    w.log('error', CHECKOUT_FAILED_CONSOLE(ms), placed + ms + 40);
    w.exception(PAYMENT_ERROR, placed + ms + 60);
    w.alert(placed + ms + 90, PAYMENT_PAGE_MESSAGE);
    // Most buyers hammer the button; some just wait, or try again later.
    const rage = placed + ms + rng.int(900, 1_600);
    if (rng.chance(0.85)) w.click(RAGE_PLACE_ORDER.key, rage, 4);
    if (rng.chance(0.3)) return confirm(rage + rng.int(4_000, 8_000), rng.int(900, 1_800));
    return { end: rage + rng.int(5_000, 20_000) };
  }
  if (plan.slowCheckoutRage) {
    const ms = rng.int(4_500, 6_500);
    w.click(RAGE_PLACE_ORDER.key, placed + 1_400, 4);
    return confirm(placed, ms);
  }
  if (rng.chance(0.78)) return confirm(placed, rng.int(900, 1_800));
  return { end: t0 + dwell };
}

/** A help-centre session: articles, maybe the contact form (where a customer identifies). */
export function helpJourney(w: SessionWriter, identify: StorePlan['identify']): void {
  const rng = w.rng;
  const count = rng.int(1, 4);
  const pages = Array.from({ length: count }, (_, i) => (i === 0 && rng.chance(0.5) ? HELP_PAGES[0]! : rng.pick(HELP_PAGES.slice(1, 4))));
  if (identify) pages.push(HELP_PAGES[4]!);
  let t = 0;
  pages.forEach((page, i) => {
    w.open({ kind: 'help', path: page.path, title: page.title }, t);
    const [min, max] = DWELL.help;
    let end = t + rng.logUniform(min, max);
    if (page.path === '/contact' && identify) {
      w.identify(t + 20_000, identify.id, identify.set);
      end = Math.max(end, t + 24_000);
    }
    const next = pages[i + 1];
    if (next) {
      const index = HELP_PAGES.indexOf(next);
      w.capture('$autocapture', end - rng.int(250, 600), {
        $event_type: 'click',
        $el_text: next.link,
        $elements_chain: `a.article-link:attr__class="article-link"attr__href="${next.path}"href="${next.path}"nth-child="${index + 1}"nth-of-type="${index + 1}"text="${next.link}"`,
        $ce_version: 1,
      });
    }
    if (i === pages.length - 1) end = Math.ceil((end + 1) / 1_000) * 1_000;
    w.leave(end - (i === pages.length - 1 ? 0 : 30));
    t = end;
  });
}
