// What happens in each demo recording. Each story drives one or more tabs through the demo
// sites; the builder turns that into rrweb events and analytics events.

import { h } from './dom.js';
import {
  MARKETING_ORIGIN,
  marketingBlogPost,
  marketingHome,
  marketingNewsletter,
  marketingPricing,
  productBySlug,
  PRODUCTS,
  SHOP_ORIGIN,
  shopAccount,
  shopCart,
  shopCheckout,
  shopCollection,
  shopConfirmation,
  shopHome,
  shopProduct,
  shopSearch,
  type CartLine,
  type Product,
} from './pages.js';
import type { RecordingSeed, ScriptedName } from './catalog.js';
import type { RecordingBuilder, Tab } from './timeline.js';

type Story = (b: RecordingBuilder, seed: RecordingSeed) => void;

const CHECKOUT_JS = `${SHOP_ORIGIN}/_next/static/chunks/pages/checkout-8c1d2f.js`;
const SEARCH_JS = `${SHOP_ORIGIN}/_next/static/chunks/pages/search-41aa09.js`;

function addToCart(tab: Tab, b: RecordingBuilder, product: Product, size: string, cartSize: number, cartId: string): void {
  tab.click(`add:${product.slug}`);
  tab.mutation().attr(`add:${product.slug}`, { disabled: '', 'aria-busy': 'true' }).emit();
  b.wait(220);
  tab.network([
    {
      url: `${SHOP_ORIGIN}/api/cart/items`,
      method: 'POST',
      status: 201,
      durationMs: b.int(140, 260),
      requestBody: JSON.stringify({ sku: product.sku, size, quantity: 1 }),
      responseBody: JSON.stringify({ cart_id: cartId, items: cartSize }),
    },
  ]);
  tab
    .mutation()
    .attr(`add:${product.slug}`, { disabled: null, 'aria-busy': null })
    .text('cart-count', String(cartSize))
    .attr('cart-link', { 'aria-label': `Cart, ${cartSize} items` })
    .add('toasts', h('div', { class: 'toast', role: 'status', $key: 'toast' }, `Added ${product.name} to your cart`))
    .emit();
  tab.capture('product_added_to_cart', { sku: product.sku, product_name: product.name, price: product.price, size, quantity: 1, cart_size: cartSize });
  b.wait(2600);
  tab.mutation().remove('toast').emit();
}

function fillAddress(tab: Tab, b: RecordingBuilder, a: { email: string; name: string; address: string; city: string; postcode: string; country: string }): void {
  tab.type('email', a.email);
  b.wait(600);
  tab.type('full_name', a.name);
  tab.type('address', a.address);
  tab.type('city', a.city);
  tab.type('postcode', a.postcode);
  tab.choose('country', a.country);
  b.wait(1500);
  tab.type('card', '4242 4242 4242 4242');
  tab.type('expiry', '09 / 27');
  tab.type('cvc', '123');
}

/** Small idle movement, so long pauses still have some activity (and blocks keep coming). */
function fidget(tab: Tab, b: RecordingBuilder, seconds: number): void {
  const end = b.t + seconds * 1000;
  while (b.t < end) {
    b.wait(Math.min(18_000, end - b.t));
    if (b.t >= end) break;
    tab.move({ x: b.int(200, 1200), y: b.int(150, 700) });
  }
}

const checkoutFailure: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  const trail = productBySlug('trail-runner-2');
  const lamp = productBySlug('headlamp-400');
  tab.open(SHOP_ORIGIN, shopHome(false, 0), { referrer: 'https://www.google.com/' });
  b.wait(2500);
  tab.move({ x: 700, y: 420 });
  b.wait(1800);
  tab.scrollTo(520);
  b.wait(3200);
  tab.click('product:trail-runner-2');
  b.wait(500);
  tab.open(SHOP_ORIGIN, shopProduct(false, 0, trail));
  b.wait(4200);
  tab.check('size:41');
  b.wait(900);
  addToCart(tab, b, trail, '41', 1, 'c_71f2');
  b.wait(1500);
  tab.click('logo');
  b.wait(400);
  tab.open(SHOP_ORIGIN, shopHome(false, 1));
  b.wait(1800);
  addToCart(tab, b, lamp, 'One size', 2, 'c_71f2');
  b.wait(1200);
  tab.click('cart-link');
  b.wait(350);
  tab.open(SHOP_ORIGIN, shopCart(false, [{ product: trail, quantity: 1, size: '41' }, { product: lamp, quantity: 1, size: 'One size' }]));
  b.wait(3000);
  tab.type('promo', 'WELCOME10');
  tab.click('apply-promo');
  b.wait(300);
  tab.network([{ url: `${SHOP_ORIGIN}/api/cart/promo`, method: 'POST', status: 200, durationMs: 210, requestBody: '{"code":"WELCOME10"}', responseBody: '{"discount_percent":10}' }]);
  tab.mutation().text('promo-message', 'WELCOME10 applied: 10% off').text('subtotal', '$151.20').emit();
  b.wait(2200);
  tab.click('checkout');
  tab.capture('checkout_started', { cart_value: 151.2, items: 2, currency: 'USD' });
  b.wait(400);
  tab.open(SHOP_ORIGIN, shopCheckout(false, 2));
  b.wait(1800);
  fillAddress(tab, b, { email: 'olivia.martin@example.com', name: 'Olivia Martin', address: '14 Larkspur Road', city: 'Bristol', postcode: 'BS6 5QT', country: 'GB' });
  tab.check('save');
  b.wait(1400);
  tab.click('place-order');
  tab.mutation().attr('place-order', { disabled: '', 'aria-busy': 'true', class: 'btn btn-primary is-loading' }).emit();
  b.wait(2600);
  tab.network([
    {
      url: `${SHOP_ORIGIN}/api/checkout`,
      method: 'POST',
      status: 500,
      durationMs: 2540,
      requestBody: '{"cart_id":"c_71f2","payment_method":"card","save_details":true}',
      responseBody: '{"error":"payment_intent_failed","message":"Upstream payment provider timed out"}',
      transferSize: 312,
    },
  ]);
  b.wait(15);
  tab.console('error', "Uncaught (in promise) TypeError: Cannot read properties of undefined (reading 'id')", [
    `placeOrder (${CHECKOUT_JS}:1:18423)`,
    `async onSubmit (${CHECKOUT_JS}:1:19107)`,
  ]);
  tab.capture('$exception', {
    $exception_type: 'TypeError',
    $exception_message: "Cannot read properties of undefined (reading 'id')",
    $exception_level: 'error',
    $exception_list: [{ type: 'TypeError', value: "Cannot read properties of undefined (reading 'id')", mechanism: { handled: false, type: 'onunhandledrejection' } }],
  });
  tab
    .mutation()
    .attr('place-order', { disabled: null, 'aria-busy': null, class: 'btn btn-primary' })
    .add('errors', h('p', { class: 'alert alert-error', $key: 'error-text' }, "We couldn't process your payment. Please try again."))
    .emit();
  b.wait(1100);
  tab.click('place-order', { times: 4, gap: 190 });
  b.wait(200);
  tab.network([
    { url: `${SHOP_ORIGIN}/api/checkout`, method: 'POST', status: 500, durationMs: 2210, requestBody: '{"cart_id":"c_71f2","payment_method":"card","save_details":true}', responseBody: '{"error":"payment_intent_failed"}' },
  ]);
  tab.console('warn', '[checkout] payment intent failed, retrying (attempt 2 of 3)');
  tab.console('error', 'Checkout failed: payment_intent_failed', [`handleCheckoutError (${CHECKOUT_JS}:1:20211)`]);
  tab.capture('$exception', {
    $exception_type: 'Error',
    $exception_message: 'Checkout failed: payment_intent_failed',
    $exception_level: 'error',
    $exception_list: [{ type: 'Error', value: 'Checkout failed: payment_intent_failed', mechanism: { handled: true, type: 'generic' } }],
  });
  b.wait(4000);
  tab.move({ x: 900, y: 200 });
  b.wait(7000);
  tab.scrollTo(0);
  b.wait(2500);
};

const successfulPurchase: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  const pack = productBySlug('summit-daypack-28l');
  tab.open(SHOP_ORIGIN, shopHome(false, 0));
  b.wait(2200);
  tab.type('search', 'daypack');
  tab.click('search-button');
  b.wait(300);
  tab.network([{ url: `${SHOP_ORIGIN}/api/search?q=daypack`, status: 200, durationMs: 96, responseBody: '{"results":["SDP-028"]}' }]);
  tab.open(SHOP_ORIGIN, shopSearch(false, 0, 'daypack', [pack]));
  b.wait(2600);
  tab.click('product:summit-daypack-28l');
  b.wait(300);
  tab.open(SHOP_ORIGIN, shopProduct(false, 0, pack));
  b.wait(3500);
  tab.scrollTo(900);
  b.wait(6000);
  tab.scrollTo(200);
  b.wait(1000);
  addToCart(tab, b, pack, 'One size', 1, 'c_88a0');
  tab.click('cart-link');
  b.wait(300);
  tab.open(SHOP_ORIGIN, shopCart(false, [{ product: pack, quantity: 1, size: 'One size' }]));
  b.wait(2400);
  tab.click('checkout');
  tab.capture('checkout_started', { cart_value: 89, items: 1, currency: 'USD' });
  b.wait(350);
  tab.open(SHOP_ORIGIN, shopCheckout(false, 1));
  b.wait(1500);
  fillAddress(tab, b, { email: 'marcus.chen@example.net', name: 'Marcus Chen', address: '2201 Eastlake Ave E', city: 'Seattle', postcode: '98102', country: 'US' });
  b.wait(1200);
  tab.click('place-order');
  tab.mutation().attr('place-order', { disabled: '', 'aria-busy': 'true' }).emit();
  b.wait(1400);
  tab.network([{ url: `${SHOP_ORIGIN}/api/checkout`, method: 'POST', status: 200, durationMs: 1320, responseBody: '{"order_id":"AC-10482","status":"paid"}' }]);
  tab.console('log', '[checkout] order AC-10482 confirmed');
  tab.capture('order_completed', { order_id: 'AC-10482', revenue: 89, currency: 'USD', items: 1 });
  b.wait(250);
  tab.open(SHOP_ORIGIN, shopConfirmation(false, 'Marcus', 'AC-10482'));
  b.wait(5000);
  tab.move('view-orders');
  b.wait(3000);
};

const longBrowse: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  tab.open(SHOP_ORIGIN, shopHome(false, 0), { referrer: 'https://www.bing.com/' });
  b.wait(5000);
  tab.scrollTo(600);
  fidget(tab, b, 40);
  let round = 0;
  for (const product of [...PRODUCTS, ...PRODUCTS.slice(0, 5)]) {
    tab.scrollTo(round % 2 === 0 ? 500 : 1000);
    tab.click(`product:${product.slug}`);
    b.wait(400);
    tab.open(SHOP_ORIGIN, shopProduct(false, 0, product));
    b.wait(6000);
    tab.scrollTo(700);
    fidget(tab, b, 50);
    if (product.slug === 'trail-runner-2' || product.slug === 'alpine-down-jacket') {
      tab.click('more-reviews');
      tab
        .mutation()
        .add('more-reviews', h('span', { class: 'spinner', 'aria-hidden': 'true', $key: 'spinner' }))
        .emit();
      b.wait(700);
      tab.network([{ url: `${SHOP_ORIGIN}/api/products/${product.sku}/reviews?page=2`, status: 200, durationMs: 480 }]);
      tab.mutation().remove('spinner').emit();
      fidget(tab, b, 45);
    }
    if (round === 4) {
      tab.console('warn', 'Layout was forced before the page was fully loaded. If stylesheets are not yet loaded this may cause a flash of unstyled content.');
      tab.resize(1280, 900);
      b.wait(1500);
    }
    tab.scrollTo(0);
    b.wait(2000);
    tab.click('logo');
    b.wait(400);
    tab.open(SHOP_ORIGIN, shopHome(false, 0));
    fidget(tab, b, 20);
    round++;
  }
  tab.click('nav:sale');
  b.wait(400);
  tab.open(SHOP_ORIGIN, shopCollection(false, 0, 'sale'));
  b.wait(3000);
  tab.choose('sort', 'price-asc');
  fidget(tab, b, 40);
};

const compressedMobile: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  const jacket = productBySlug('alpine-down-jacket');
  tab.open(SHOP_ORIGIN, shopCollection(true, 0, 'sale'), { referrer: 'https://www.instagram.com/' });
  tab.insertCssRule(null, '.product-card{scroll-snap-align:start}', 0);
  b.wait(2500);
  tab.scrollTo(700);
  b.wait(2000);
  tab.check('filter:M');
  b.wait(300);
  tab.network([{ url: `${SHOP_ORIGIN}/api/collections/sale?size=M`, status: 200, durationMs: 310 }]);
  tab.mutation().attr('filter:M', { checked: 'checked' }).emit();
  b.wait(1800);
  tab.choose('sort', 'price-desc');
  tab.insertCssRule(null, '.product-grid[data-sorted]{animation:fade-in .2s ease-out}', 1);
  tab.insertCssRule(null, MOBILE_GRID_RULE, 2);
  b.wait(2500);
  tab.resize(844, 390);
  b.wait(4000);
  tab.resize(390, 844);
  b.wait(1500);
  tab.click('product:alpine-down-jacket');
  b.wait(500);
  tab.open(SHOP_ORIGIN, shopProduct(true, 0, jacket));
  b.wait(5000);
  tab.scrollTo(900);
  b.wait(3000);
  tab.check('size:M');
  b.wait(700);
  addToCart(tab, b, jacket, 'M', 1, 'c_93d1');
  b.wait(1500);
  tab.console('log', '[cart] synced 1 item');
  tab.scrollTo(1700);
  b.wait(4000);
  tab.click('more-reviews');
  tab.mutation().text('more-reviews', 'Loading…').emit();
  b.wait(900);
  tab.network([{ url: `${SHOP_ORIGIN}/api/products/${jacket.sku}/reviews?page=2`, status: 200, durationMs: 640 }]);
  // A large mutation (> 1 KB), so posthog-js compresses it.
  tab
    .mutation()
    .text('more-reviews', 'Show more reviews')
    .add('reviews', h('ul', { class: 'review-list' }, REVIEWS.map(([who, text, stars]) => h('li', { class: 'review', 'data-stars': stars }, h('strong', null, who), h('p', null, text)))))
    .emit();
  b.wait(3000);
  tab.scrollTo(2600);
  b.wait(2500);
};

const REVIEWS: ReadonlyArray<[string, string, number]> = [
  ['Adaeze', 'Warm enough for harmattan mornings and packs down tiny. The hood fits over a climbing helmet.', 5],
  ['Tunde', 'Sleeves run a bit long, otherwise perfect. Zips are smooth and the baffles stayed even after washing.', 4],
  ['Kemi', 'I was worried about the light fabric but it survived a week of scrambling without a single tear.', 5],
  ['Ifeanyi', 'Great jacket, but the stuff sack pocket is fiddly with gloves on.', 4],
  ['Bisola', 'Ordered an M for layering over a fleece and it was just right. Colour is exactly as pictured.', 5],
  ['Chidi', 'Wore it on Kilimanjaro summit night with a base layer and a fleece underneath. No complaints at all.', 5],
  ['Ngozi', 'Lovely and light. Would like one more inside pocket for a phone.', 4],
  ['Emeka', 'Customer service swapped my size within three days. Jacket itself is excellent value on sale.', 5],
];

/** A CSS-in-JS library flushing a large rule; big enough that posthog-js compresses it. */
const MOBILE_GRID_RULE =
  '@media (max-width: 480px){' +
  Array.from({ length: 14 }, (_, i) => `.css-${(0x1a2b + i * 97).toString(16)}{display:grid;grid-template-columns:repeat(${(i % 3) + 1},minmax(0,1fr));gap:${8 + i}px;padding:${12 + (i % 4) * 4}px 16px}`).join('') +
  '}';

const twoTabs: Story = (b, seed) => {
  const a = b.tab(seed.windowIds[0]!);
  const c = b.tab(seed.windowIds[1]!);
  const jacket = productBySlug('alpine-down-jacket');
  const merino = productBySlug('merino-base-layer');
  a.open(SHOP_ORIGIN, shopHome(false, 0));
  b.wait(2500);
  a.scrollTo(500);
  a.click('product:alpine-down-jacket');
  b.wait(400);
  a.open(SHOP_ORIGIN, shopProduct(false, 0, jacket));
  b.wait(6000);
  // Opens the base layer in a new tab to compare (a second posthog-js window id).
  b.wait(1200);
  c.open(SHOP_ORIGIN, shopProduct(false, 0, merino), { referrer: `${SHOP_ORIGIN}/products/alpine-down-jacket` });
  b.wait(4000);
  c.scrollTo(800);
  b.wait(9000);
  c.check('size:M');
  b.wait(2000);
  // Back to the first tab.
  b.wait(800);
  a.move('price');
  b.wait(5000);
  a.check('size:L');
  b.wait(600);
  addToCart(a, b, jacket, 'L', 1, 'c_66f0');
  b.wait(1500);
  c.move({ x: 700, y: 300 });
  b.wait(1200);
  addToCart(c, b, merino, 'M', 2, 'c_66f0');
  b.wait(2000);
  c.console('warn', 'Cart was updated in another tab; refreshing cart state.');
  a.mutation().text('cart-count', '2').emit();
  b.wait(3000);
};

const anonymousBounce: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  tab.open(SHOP_ORIGIN, shopCollection(true, 0, 'sale'), { referrer: 'https://l.facebook.com/' });
  b.wait(3000);
  tab.scrollTo(900);
  b.wait(5000);
  tab.scrollTo(1800);
  b.wait(6000);
  tab.scrollTo(400);
  b.wait(4000);
  tab.click('menu');
  tab.mutation().attr('menu', { 'aria-expanded': 'true' }).emit();
  b.wait(3500);
};

const ongoing: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  const jacket = productBySlug('alpine-down-jacket');
  tab.open(SHOP_ORIGIN, shopHome(false, 0), { referrer: 'https://www.example.com/' });
  b.wait(3000);
  tab.click('nav:new');
  b.wait(400);
  tab.open(SHOP_ORIGIN, shopCollection(false, 0, 'new'));
  fidget(tab, b, 35);
  tab.check('filter:S');
  b.wait(2500);
  tab.click('product:alpine-down-jacket');
  b.wait(400);
  tab.open(SHOP_ORIGIN, shopProduct(false, 0, jacket));
  fidget(tab, b, 60);
  tab.scrollTo(1100);
  fidget(tab, b, 40);
  tab.scrollTo(300);
  tab.check('size:S');
  b.wait(800);
  addToCart(tab, b, jacket, 'S', 1, 'c_95a2');
  fidget(tab, b, 30);
  tab.click('cart-link');
  b.wait(300);
  tab.open(SHOP_ORIGIN, shopCart(false, [{ product: jacket, quantity: 1, size: 'S' }]));
  b.wait(4000);
  tab.type('qty:alpine-down-jacket', '2');
  tab.network([{ url: `${SHOP_ORIGIN}/api/cart/items/ADJ-118`, method: 'PATCH', status: 200, durationMs: 180 }]);
  tab.mutation().text('subtotal', '$498.00').text('cart-count', '2').emit();
  fidget(tab, b, 40);
  tab.type('qty:alpine-down-jacket', '1');
  tab.mutation().text('subtotal', '$249.00').text('cart-count', '1').emit();
  fidget(tab, b, 45);
};

const longTermStorage: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  const trail = productBySlug('trail-runner-2');
  tab.open(SHOP_ORIGIN, shopProduct(false, 0, trail), { referrer: 'https://www.google.com.au/' });
  b.wait(4000);
  tab.scrollTo(1200);
  b.wait(8000);
  tab.click('more-reviews');
  tab.mutation().add('more-reviews', h('span', { class: 'spinner', $key: 'spinner' })).emit();
  b.wait(600);
  tab.network([{ url: `${SHOP_ORIGIN}/api/products/TR2-042/reviews?page=2`, status: 200, durationMs: 420 }]);
  tab.mutation().remove('spinner').emit();
  b.wait(12_000);
  tab.scrollTo(300);
  tab.check('size:44');
  b.wait(900);
  addToCart(tab, b, trail, '44', 1, 'c_50b3');
  b.wait(6000);
};

const legacyBlob: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  const mug = productBySlug('enamel-camp-mug');
  const lamp = productBySlug('headlamp-400');
  tab.open(SHOP_ORIGIN, shopHome(false, 0));
  b.wait(3000);
  tab.scrollTo(900);
  b.wait(2000);
  addToCart(tab, b, mug, 'One size', 1, 'c_44e7');
  addToCart(tab, b, lamp, 'One size', 2, 'c_44e7');
  b.wait(2000);
  tab.click('cart-link');
  b.wait(300);
  const lines: CartLine[] = [
    { product: mug, quantity: 1, size: 'One size' },
    { product: lamp, quantity: 1, size: 'One size' },
  ];
  tab.open(SHOP_ORIGIN, shopCart(false, lines));
  b.wait(5000);
  tab.click('remove:enamel-camp-mug');
  tab.network([{ url: `${SHOP_ORIGIN}/api/cart/items/ECM-350`, method: 'DELETE', status: 204, durationMs: 150 }]);
  tab.mutation().remove('line:enamel-camp-mug').text('subtotal', '$39.00').text('cart-count', '1').emit();
  tab.capture('product_removed_from_cart', { sku: mug.sku, product_name: mug.name });
  fidget(tab, b, 40);
  tab.click('checkout');
  tab.capture('checkout_started', { cart_value: 39, items: 1, currency: 'USD' });
  b.wait(300);
  tab.open(SHOP_ORIGIN, shopCheckout(false, 1));
  fidget(tab, b, 30);
};

const accountSettings: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  tab.open(SHOP_ORIGIN, shopAccount(false, 'Olivia Martin', 'olivia.martin@example.com'));
  tab.console('warn', '[deprecation] /api/v1/account is deprecated and will be removed on 2025-03-01; use /api/v2/account.');
  fidget(tab, b, 20);
  tab.type('account-phone', '+44 7700 900123');
  b.wait(1200);
  tab.check('account-newsletter', false);
  b.wait(1500);
  tab.click('save-account');
  b.wait(250);
  tab.network([{ url: `${SHOP_ORIGIN}/api/v1/account`, method: 'PATCH', status: 200, durationMs: 230, requestBody: '{"phone":"+44 7700 900123","newsletter":false}' }]);
  tab.console('warn', '[deprecation] /api/v1/account is deprecated and will be removed on 2025-03-01; use /api/v2/account.');
  tab.console('log', 'Account saved');
  tab.mutation().add('toasts', h('div', { class: 'toast', role: 'status', $key: 'toast' }, 'Your details were saved')).emit();
  tab.capture('account_updated', { fields: ['phone', 'newsletter'] });
  b.wait(3000);
  tab.mutation().remove('toast').emit();
  b.wait(4000);
};

const internalQa: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  const mug = productBySlug('enamel-camp-mug');
  tab.open(SHOP_ORIGIN, shopProduct(false, 0, mug));
  b.wait(800);
  addToCart(tab, b, mug, 'One size', 1, 'c_qa01');
  tab.click('cart-link');
  tab.open(SHOP_ORIGIN, shopCart(false, [{ product: mug, quantity: 1, size: 'One size' }]));
  b.wait(600);
  tab.click('checkout');
  tab.capture('checkout_started', { cart_value: 18, items: 1, currency: 'USD' });
  tab.open(SHOP_ORIGIN, shopCheckout(false, 1));
  fillAddress(tab, b, { email: 'qa.bot@acme.example.com', name: 'QA Bot', address: '1 Test Street', city: 'London', postcode: 'EC1A 1AA', country: 'GB' });
  tab.click('place-order');
  b.wait(900);
  tab.network([{ url: `${SHOP_ORIGIN}/api/checkout`, method: 'POST', status: 200, durationMs: 870, responseBody: '{"order_id":"AC-TEST-5521","status":"paid"}' }]);
  tab.console('info', '[qa] synthetic checkout passed');
  tab.capture('order_completed', { order_id: 'AC-TEST-5521', revenue: 18, currency: 'USD', items: 1 });
  tab.open(SHOP_ORIGIN, shopConfirmation(false, 'QA', 'AC-TEST-5521'));
  b.wait(2000);
};

const searchRageClick: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  tab.open(SHOP_ORIGIN, shopHome(false, 0));
  b.wait(2500);
  tab.type('search', 'rain jacket');
  tab.click('search-button');
  b.wait(200);
  tab.network([{ url: `${SHOP_ORIGIN}/api/search?q=rain%20jacket`, status: 503, durationMs: 30, responseBody: '{"error":"search_unavailable"}' }]);
  tab.console('error', 'Search request failed: 503 Service Unavailable', [`runSearch (${SEARCH_JS}:1:4410)`, `onSubmit (${SEARCH_JS}:1:5120)`]);
  b.wait(700);
  tab.click('search-button', { times: 5, gap: 150 });
  tab.network([{ url: `${SHOP_ORIGIN}/api/search?q=rain%20jacket`, status: 503, durationMs: 28, responseBody: '{"error":"search_unavailable"}' }]);
  tab.console('error', 'Search request failed: 503 Service Unavailable', [`runSearch (${SEARCH_JS}:1:4410)`]);
  b.wait(2500);
  tab.open(SHOP_ORIGIN, shopSearch(false, 0, 'rain jacket', []));
  b.wait(4000);
  tab.click('empty-cta');
  b.wait(300);
  tab.open(SHOP_ORIGIN, shopCollection(false, 0, 'new'));
  b.wait(3000);
  tab.scrollTo(600);
  b.wait(6000);
};

const pricingVisit: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  tab.open(MARKETING_ORIGIN, marketingHome(), { referrer: 'https://www.google.com/' });
  b.wait(4000);
  tab.click('hero-cta');
  b.wait(300);
  tab.open(MARKETING_ORIGIN, marketingPricing());
  b.wait(5000);
  tab.check('yearly');
  tab.mutation().text('price:summit', '$90/year').text('price:expedition', '$190/year').emit();
  b.wait(6000);
  tab.click('faq-q:0');
  tab.mutation().attr('faq:0', { open: '' }).emit();
  b.wait(5000);
  tab.click('plan:summit');
  tab.capture('plan_cta_clicked', { plan: 'summit', billing: 'yearly' });
  b.wait(1500);
};

const blogReader: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  tab.open(MARKETING_ORIGIN, marketingBlogPost(), { referrer: 'https://news.ycombinator.com/' });
  b.wait(6000);
  for (const y of [500, 1000, 1500, 1900]) {
    tab.scrollTo(y);
    b.wait(9000);
  }
  tab.click('post-product');
  b.wait(800);
};

const newsletterSignup: Story = (b, seed) => {
  const tab = b.tab(seed.windowIds[0]!);
  tab.open(MARKETING_ORIGIN, marketingNewsletter());
  fidget(tab, b, 15);
  tab.type('nl-email', 'diego.ramirez@example.mx');
  tab.click('nl-submit');
  tab.mutation().text('nl-status', 'Please tick the consent box to subscribe.').attr('nl-status', { class: 'form-status error' }).emit();
  tab.console('warn', 'Newsletter form: consent is required');
  b.wait(2000);
  tab.check('nl-consent');
  tab.click('nl-submit');
  b.wait(300);
  tab.network([{ url: `${MARKETING_ORIGIN}/api/newsletter`, method: 'POST', status: 200, durationMs: 260, responseBody: '{"subscribed":true}' }]);
  tab.mutation().text('nl-status', "You're in! Check your inbox to confirm.").attr('nl-status', { class: 'form-status success' }).emit();
  tab.capture('newsletter_signed_up', { source: 'newsletter_page' });
  b.wait(4000);
};

export const STORIES: Record<ScriptedName, Story> = {
  checkoutFailure,
  successfulPurchase,
  longBrowse,
  compressedMobile,
  twoTabs,
  anonymousBounce,
  ongoing,
  longTermStorage,
  legacyBlob,
  accountSettings,
  internalQa,
  searchRageClick,
  pricingVisit,
  blogReader,
  newsletterSignup,
};
