// Page templates for the two demo sites: the Acme Outdoor web shop (shop.example.com) and
// its marketing site (www.example.com). Each returns a whole <html> tree; `$at` positions
// are page coordinates for a desktop (≥ 1024 px) or a phone layout.

import { comment, h, type Props, type VElement, type VNode } from './dom.js';

export const SHOP_ORIGIN = 'https://shop.example.com';
export const MARKETING_ORIGIN = 'https://www.example.com';

export interface Product {
  sku: string;
  slug: string;
  name: string;
  price: number;
  blurb: string;
  sizes: string[];
}

export const PRODUCTS: readonly Product[] = [
  { sku: 'TR2-042', slug: 'trail-runner-2', name: 'Trail Runner 2', price: 129, blurb: 'Grippy, light trail shoe with a rock plate.', sizes: ['40', '41', '42', '43', '44'] },
  { sku: 'ADJ-118', slug: 'alpine-down-jacket', name: 'Alpine Down Jacket', price: 249, blurb: '800-fill responsibly sourced down, packs into its own pocket.', sizes: ['S', 'M', 'L', 'XL'] },
  { sku: 'MBL-207', slug: 'merino-base-layer', name: 'Merino Base Layer', price: 69, blurb: '200 gsm merino that stays warm when wet.', sizes: ['S', 'M', 'L'] },
  { sku: 'SDP-028', slug: 'summit-daypack-28l', name: 'Summit Daypack 28L', price: 89, blurb: 'Ventilated back panel and a hydration sleeve.', sizes: ['One size'] },
  { sku: 'ECM-350', slug: 'enamel-camp-mug', name: 'Enamel Camp Mug', price: 18, blurb: 'Classic speckled enamel, 350 ml.', sizes: ['One size'] },
  { sku: 'HL4-400', slug: 'headlamp-400', name: 'Headlamp 400', price: 39, blurb: '400 lumens, red night mode, USB-C charging.', sizes: ['One size'] },
];

export function productBySlug(slug: string): Product {
  const product = PRODUCTS.find((p) => p.slug === slug);
  if (!product) throw new Error(`unknown demo product ${slug}`);
  return product;
}

export interface PageView {
  path: string;
  title: string;
  html: VElement;
}

export interface CartLine {
  product: Product;
  quantity: number;
  size: string;
}

const money = (n: number): string => `$${n.toFixed(2)}`;

/** Centre of an element in a desktop layout or a phone layout. */
function pos(mobile: boolean, desktop: [number, number], phone: [number, number]): readonly [number, number] {
  return mobile ? phone : desktop;
}

const SHOP_CSS =
  ':root{--ink:#1d2a24;--accent:#2f6f4f}body{margin:0;font-family:Inter,system-ui,sans-serif;color:var(--ink)}' +
  '.site-header{display:flex;align-items:center;gap:24px;height:72px;padding:0 48px;border-bottom:1px solid #e3e7e5}' +
  '.product-grid{display:grid;grid-template-columns:repeat(3,1fr);gap:32px}.btn{border-radius:6px;padding:12px 20px}' +
  '.btn-primary{background:var(--accent);color:#fff}.alert-error{background:#fdecea;color:#8a1c14}' +
  '@media (max-width:768px){.product-grid{grid-template-columns:1fr}.site-header{padding:0 16px}}';

function head(title: string, origin: string): VElement {
  return h(
    'head',
    null,
    h('meta', { charset: 'utf-8' }),
    h('meta', { name: 'viewport', content: 'width=device-width, initial-scale=1' }),
    h('title', null, title),
    h('link', { rel: 'icon', href: `${origin}/favicon.ico` }),
    h('link', {
      rel: 'stylesheet',
      href: `${origin}/_next/static/css/9b1f4e2c7a.css`,
      _cssText: SHOP_CSS,
    }),
    h('style', { 'data-emotion': 'css' }, '.toast{position:fixed;right:24px;bottom:24px;padding:12px 16px;border-radius:8px;background:#1d2a24;color:#fff}'),
    h('script', { src: `${origin}/_next/static/chunks/main-5d2e8a.js`, defer: true }),
  );
}

function shopHeader(mobile: boolean, cartCount: number): VElement {
  return h(
    'header',
    { class: 'site-header' },
    h('a', { href: `${SHOP_ORIGIN}/`, class: 'logo', 'aria-label': 'Acme Outdoor home', $key: 'logo', $at: pos(mobile, [120, 36], [70, 28]) }, 'Acme Outdoor'),
    mobile
      ? h('button', { type: 'button', class: 'menu-toggle', 'aria-label': 'Open menu', 'aria-expanded': 'false', $key: 'menu', $at: [24, 28] }, 'Menu')
      : h(
          'nav',
          { 'aria-label': 'Main' },
          h(
            'ul',
            { class: 'nav-links' },
            h('li', null, h('a', { href: `${SHOP_ORIGIN}/collections/new`, $key: 'nav:new', $at: [380, 36] }, 'New arrivals')),
            h('li', null, h('a', { href: `${SHOP_ORIGIN}/collections/sale`, $key: 'nav:sale', $at: [500, 36] }, 'Sale')),
            h('li', null, h('a', { href: `${SHOP_ORIGIN}/collections/footwear`, $key: 'nav:footwear', $at: [590, 36] }, 'Footwear')),
            h('li', null, h('a', { href: `${SHOP_ORIGIN}/journal`, $key: 'nav:journal', $at: [700, 36] }, 'Journal')),
          ),
        ),
    mobile
      ? null
      : h(
          'form',
          { role: 'search', action: '/search', class: 'search-form' },
          h('input', { type: 'search', name: 'q', placeholder: 'Search gear', 'aria-label': 'Search products', autocomplete: 'off', $key: 'search', $at: [980, 36] }),
          h('button', { type: 'submit', id: 'search-button', class: 'btn', 'data-attr': 'search-submit', $key: 'search-button', $at: [1110, 36] }, 'Search'),
        ),
    h(
      'a',
      { href: `${SHOP_ORIGIN}/cart`, class: 'cart-link', 'aria-label': `Cart, ${cartCount} items`, 'data-attr': 'header-cart', $key: 'cart-link', $at: pos(mobile, [1330, 36], [350, 28]) },
      'Cart ',
      h('span', { class: 'badge', id: 'cart-count', $key: 'cart-count' }, String(cartCount)),
    ),
  );
}

function shopFooter(): VElement {
  return h(
    'footer',
    { class: 'site-footer' },
    h('p', null, '© Acme Outdoor Co. Free returns within 30 days.'),
    h('a', { href: `${SHOP_ORIGIN}/help/shipping` }, 'Shipping'),
    h('a', { href: `${SHOP_ORIGIN}/help/returns` }, 'Returns'),
    h('div', { id: 'toast-region', 'aria-live': 'polite', $key: 'toasts' }),
  );
}

function shopDocument(title: string, mobile: boolean, cartCount: number, main: VNode[]): VElement {
  return h(
    'html',
    { lang: 'en' },
    head(`${title} | Acme Outdoor`, SHOP_ORIGIN),
    h(
      'body',
      { class: mobile ? 'layout-mobile' : 'layout-desktop' },
      comment(' storefront build 2024.11.3 '),
      h('div', { id: '__next' }, shopHeader(mobile, cartCount), h('main', { id: 'main' }, ...main), shopFooter()),
    ),
  );
}

function productCard(product: Product, index: number, mobile: boolean, top: number): VElement {
  const col = index % 3;
  const row = Math.floor(index / 3);
  const buttonAt = pos(mobile, [330 + col * 390, top + row * 500 + 410], [195, top + index * 520 + 440]);
  const linkAt = pos(mobile, [330 + col * 390, top + row * 500 + 300], [195, top + index * 520 + 330]);
  return h(
    'article',
    { class: 'product-card', 'data-sku': product.sku },
    h(
      'a',
      { href: `${SHOP_ORIGIN}/products/${product.slug}`, class: 'product-link', $key: `product:${product.slug}`, $at: linkAt },
      h('img', { src: `https://cdn.example.com/products/${product.slug}-640.webp`, alt: product.name, width: 320, height: 320, loading: 'lazy' }),
      h('h3', null, product.name),
    ),
    h('p', { class: 'price' }, money(product.price)),
    h(
      'button',
      {
        type: 'button',
        class: 'btn btn-primary add-to-cart',
        id: `add-to-cart-${product.sku}`,
        'aria-label': `Add ${product.name} to cart`,
        'data-attr': 'product-card-add',
        $key: `add:${product.slug}`,
        $at: buttonAt,
      },
      'Add to cart',
    ),
  );
}

export function shopHome(mobile: boolean, cartCount: number): PageView {
  return {
    path: '/',
    title: 'Acme Outdoor',
    html: shopDocument('Outdoor gear for the weekend', mobile, cartCount, [
      h(
        'section',
        { class: 'hero' },
        h('h1', null, 'Gear up for the weekend'),
        h('p', null, 'Trail-tested layers, packs and footwear. Free shipping over $75.'),
        h('a', { href: `${SHOP_ORIGIN}/collections/new`, class: 'btn btn-primary', $key: 'hero-cta', $at: pos(mobile, [260, 300], [195, 320]) }, 'Shop new arrivals'),
      ),
      h('h2', null, 'Best sellers'),
      h('div', { class: 'product-grid' }, PRODUCTS.map((p, i) => productCard(p, i, mobile, mobile ? 420 : 520))),
    ]),
  };
}

export function shopCollection(mobile: boolean, cartCount: number, handle: 'sale' | 'new' | 'footwear'): PageView {
  const titles = { sale: 'Sale', new: 'New arrivals', footwear: 'Footwear' } as const;
  const items = handle === 'footwear' ? PRODUCTS.slice(0, 1) : handle === 'sale' ? PRODUCTS.filter((_, i) => i % 2 === 1) : PRODUCTS.slice(0, 4);
  return {
    path: `/collections/${handle}`,
    title: titles[handle],
    html: shopDocument(titles[handle], mobile, cartCount, [
      h('h1', null, titles[handle]),
      h(
        'aside',
        { class: 'filters', 'aria-label': 'Filters' },
        h('h2', null, 'Size'),
        ['S', 'M', 'L'].map((size, i) =>
          h('label', null, h('input', { type: 'checkbox', name: 'size', value: size, $key: `filter:${size}`, $at: pos(mobile, [80, 260 + i * 40], [40, 200 + i * 36]) }), ` ${size}`),
        ),
        h(
          'select',
          { name: 'sort', 'aria-label': 'Sort by', $key: 'sort', $at: pos(mobile, [1240, 180], [300, 160]) },
          h('option', { value: 'featured', selected: true }, 'Featured'),
          h('option', { value: 'price-asc' }, 'Price: low to high'),
          h('option', { value: 'price-desc' }, 'Price: high to low'),
        ),
      ),
      h('div', { class: 'product-grid' }, items.map((p, i) => productCard(p, i, mobile, mobile ? 360 : 300))),
    ]),
  };
}

export function shopProduct(mobile: boolean, cartCount: number, product: Product): PageView {
  return {
    path: `/products/${product.slug}`,
    title: product.name,
    html: shopDocument(product.name, mobile, cartCount, [
      h(
        'nav',
        { 'aria-label': 'Breadcrumb', class: 'breadcrumbs' },
        h('a', { href: `${SHOP_ORIGIN}/` }, 'Home'),
        ' / ',
        h('span', { 'aria-current': 'page' }, product.name),
      ),
      h(
        'div',
        { class: 'product-detail', 'data-sku': product.sku },
        h('img', { src: `https://cdn.example.com/products/${product.slug}-1280.webp`, alt: product.name, width: 640, height: 640 }),
        h('h1', null, product.name),
        h('p', { class: 'price', $key: 'price', $at: pos(mobile, [820, 300], [80, 760]) }, money(product.price)),
        h('p', { class: 'description' }, product.blurb),
        h(
          'fieldset',
          { class: 'size-picker' },
          h('legend', null, 'Size'),
          product.sizes.map((size, i) =>
            h(
              'label',
              null,
              h('input', { type: 'radio', name: 'size', value: size, $key: `size:${size}`, $at: pos(mobile, [820 + i * 70, 520], [40 + i * 70, 860]) }),
              ` ${size}`,
            ),
          ),
        ),
        h('label', { for: 'quantity' }, 'Quantity'),
        h('input', { type: 'number', id: 'quantity', name: 'quantity', min: 1, max: 10, value: '1', $key: 'qty', $at: pos(mobile, [820, 600], [80, 940]) }),
        h(
          'button',
          { type: 'button', id: 'add-to-cart', class: 'btn btn-primary', 'aria-label': `Add ${product.name} to cart`, 'data-attr': 'pdp-add-to-cart', $key: `add:${product.slug}`, $at: pos(mobile, [940, 680], [195, 1010]) },
          'Add to cart',
        ),
        h('p', { class: 'stock', $key: 'stock' }, 'In stock, ships in 1-2 days'),
      ),
      h(
        'section',
        { class: 'reviews', id: 'reviews', $key: 'reviews' },
        h('h2', null, 'Reviews (128)'),
        h('blockquote', null, '"Held up on a rainy week in the Lake District." - Sam'),
        h('blockquote', null, '"Runs a half size small, order up." - Priya'),
        h('button', { type: 'button', class: 'link', $key: 'more-reviews', $at: pos(mobile, [330, 1380], [195, 1700]) }, 'Show more reviews'),
      ),
    ]),
  };
}

export function shopCart(mobile: boolean, lines: CartLine[]): PageView {
  const count = lines.reduce((n, l) => n + l.quantity, 0);
  const subtotal = lines.reduce((n, l) => n + l.quantity * l.product.price, 0);
  return {
    path: '/cart',
    title: 'Your cart',
    html: shopDocument('Your cart', mobile, count, [
      h('h1', null, 'Your cart'),
      h(
        'table',
        { class: 'cart-lines' },
        h('thead', null, h('tr', null, h('th', null, 'Item'), h('th', null, 'Qty'), h('th', null, 'Price'), h('th', null, ''))),
        h(
          'tbody',
          { $key: 'cart-body' },
          lines.map((line, i) =>
            h(
              'tr',
              { 'data-sku': line.product.sku, $key: `line:${line.product.slug}` },
              h('td', null, `${line.product.name} (${line.size})`),
              h('td', null, h('input', { type: 'number', name: `qty-${line.product.sku}`, value: String(line.quantity), min: 0, $key: `qty:${line.product.slug}`, $at: pos(mobile, [800, 300 + i * 120], [260, 260 + i * 150]) })),
              h('td', null, money(line.product.price * line.quantity)),
              h('td', null, h('button', { type: 'button', class: 'link remove', 'aria-label': `Remove ${line.product.name}`, $key: `remove:${line.product.slug}`, $at: pos(mobile, [1000, 300 + i * 120], [340, 300 + i * 150]) }, 'Remove')),
            ),
          ),
        ),
      ),
      h('p', { class: 'subtotal' }, 'Subtotal: ', h('strong', { $key: 'subtotal' }, money(subtotal))),
      h(
        'form',
        { class: 'promo' },
        h('input', { type: 'text', name: 'promo_code', placeholder: 'Promo code', $key: 'promo', $at: pos(mobile, [980, 640], [150, 700]) }),
        h('button', { type: 'button', class: 'btn', $key: 'apply-promo', $at: pos(mobile, [1140, 640], [320, 700]) }, 'Apply'),
        h('p', { class: 'promo-message', role: 'status', $key: 'promo-message' }, ''),
      ),
      h('button', { type: 'button', id: 'checkout-button', class: 'btn btn-primary', 'data-attr': 'cart-checkout', $key: 'checkout', $at: pos(mobile, [1150, 760], [195, 820]) }, 'Proceed to checkout'),
    ]),
  };
}

function field(label: string, props: Props): VElement {
  return h('div', { class: 'field' }, h('label', { for: String(props.id) }, label), h('input', props));
}

export function shopCheckout(mobile: boolean, cartCount: number): PageView {
  const at = (x: number, y: number, py: number) => pos(mobile, [x, y], [195, py]);
  return {
    path: '/checkout',
    title: 'Checkout',
    html: shopDocument('Checkout', mobile, cartCount, [
      h('h1', null, 'Checkout'),
      h('div', { id: 'form-errors', class: 'form-errors', role: 'alert', $key: 'errors' }),
      h(
        'form',
        { id: 'checkout-form', method: 'post', action: '/api/checkout', novalidate: true },
        h(
          'fieldset',
          null,
          h('legend', null, 'Contact'),
          field('Email', { type: 'email', id: 'email', name: 'email', autocomplete: 'email', required: true, $key: 'email', $at: at(480, 260, 300) }),
        ),
        h(
          'fieldset',
          null,
          h('legend', null, 'Shipping address'),
          field('Full name', { type: 'text', id: 'full_name', name: 'full_name', autocomplete: 'name', $key: 'full_name', $at: at(480, 380, 420) }),
          field('Address', { type: 'text', id: 'address_line1', name: 'address_line1', autocomplete: 'address-line1', $key: 'address', $at: at(480, 450, 500) }),
          field('City', { type: 'text', id: 'city', name: 'city', autocomplete: 'address-level2', $key: 'city', $at: at(400, 520, 580) }),
          field('Postcode', { type: 'text', id: 'postcode', name: 'postcode', autocomplete: 'postal-code', $key: 'postcode', $at: at(640, 520, 660) }),
          h(
            'select',
            { id: 'country', name: 'country', autocomplete: 'country', $key: 'country', $at: at(480, 590, 740) },
            h('option', { value: 'US' }, 'United States'),
            h('option', { value: 'GB' }, 'United Kingdom'),
            h('option', { value: 'DE' }, 'Germany'),
            h('option', { value: 'FR' }, 'France'),
          ),
        ),
        h(
          'fieldset',
          { class: 'payment' },
          h('legend', null, 'Payment'),
          field('Card number', { type: 'text', id: 'card_number', name: 'card_number', autocomplete: 'cc-number', inputmode: 'numeric', class: 'ph-no-capture', $key: 'card', $at: at(480, 720, 880) }),
          field('Expiry', { type: 'text', id: 'card_expiry', name: 'card_expiry', placeholder: 'MM / YY', class: 'ph-no-capture', $key: 'expiry', $at: at(400, 790, 960) }),
          field('CVC', { type: 'password', id: 'card_cvc', name: 'card_cvc', class: 'ph-no-capture', $key: 'cvc', $at: at(560, 790, 1040) }),
        ),
        h('label', null, h('input', { type: 'checkbox', id: 'save_details', name: 'save_details', $key: 'save', $at: pos(mobile, [330, 860], [30, 1110]) }), ' Save my details for next time'),
        h(
          'button',
          { type: 'submit', id: 'place-order', class: 'btn btn-primary', 'aria-label': 'Place order', 'data-attr': 'checkout-place-order', $key: 'place-order', $at: at(480, 940, 1190) },
          'Place order',
        ),
      ),
    ]),
  };
}

export function shopConfirmation(mobile: boolean, firstName: string, orderNumber: string): PageView {
  return {
    path: `/checkout/confirmation?order=${orderNumber}`,
    title: 'Order confirmed',
    html: shopDocument('Order confirmed', mobile, 0, [
      h('h1', null, `Thank you, ${firstName}!`),
      h('p', null, 'Your order ', h('strong', null, orderNumber), ' is confirmed. We sent a receipt to your email.'),
      h('a', { href: `${SHOP_ORIGIN}/account/orders`, class: 'btn', $key: 'view-orders', $at: pos(mobile, [400, 420], [195, 460]) }, 'View my orders'),
    ]),
  };
}

export function shopSearch(mobile: boolean, cartCount: number, query: string, results: Product[]): PageView {
  return {
    path: `/search?q=${encodeURIComponent(query)}`,
    title: `Search: ${query}`,
    html: shopDocument(`Search results for "${query}"`, mobile, cartCount, [
      h('h1', { $key: 'search-title' }, `Results for "${query}"`),
      results.length === 0
        ? h(
            'div',
            { class: 'empty-state', $key: 'empty' },
            h('p', { $key: 'empty-text' }, `No products match "${query}".`),
            h('a', { href: `${SHOP_ORIGIN}/collections/new`, $key: 'empty-cta', $at: pos(mobile, [400, 360], [195, 400]) }, 'Browse new arrivals'),
          )
        : h('div', { class: 'product-grid' }, results.map((p, i) => productCard(p, i, mobile, 300))),
    ]),
  };
}

export function shopAccount(mobile: boolean, name: string, email: string): PageView {
  const at = (x: number, y: number, py: number) => pos(mobile, [x, y], [195, py]);
  return {
    path: '/account/settings',
    title: 'Account settings',
    html: shopDocument('Account settings', mobile, 0, [
      h('h1', null, 'Account settings'),
      h(
        'form',
        { id: 'account-form' },
        field('Name', { type: 'text', id: 'account_name', name: 'name', value: name, $key: 'account-name', $at: at(480, 300, 300) }),
        field('Email', { type: 'email', id: 'account_email', name: 'email', value: email, $key: 'account-email', $at: at(480, 380, 380) }),
        field('Phone', { type: 'tel', id: 'account_phone', name: 'phone', $key: 'account-phone', $at: at(480, 460, 460) }),
        h('label', null, h('input', { type: 'checkbox', name: 'newsletter', checked: true, $key: 'account-newsletter', $at: pos(mobile, [330, 540], [30, 540]) }), ' Email me about new gear'),
        h('button', { type: 'submit', class: 'btn btn-primary', id: 'save-account', $key: 'save-account', $at: at(480, 620, 620) }, 'Save changes'),
      ),
    ]),
  };
}

// ---------------------------------------------------------------------------------------
// Marketing site

function marketingDocument(title: string, main: VNode[]): VElement {
  return h(
    'html',
    { lang: 'en' },
    head(`${title} - Acme Outdoor`, MARKETING_ORIGIN),
    h(
      'body',
      null,
      h(
        'header',
        { class: 'site-header' },
        h('a', { href: `${MARKETING_ORIGIN}/`, class: 'logo', $key: 'logo', $at: [120, 36] }, 'Acme Outdoor'),
        h(
          'nav',
          null,
          h('a', { href: `${MARKETING_ORIGIN}/pricing`, $key: 'nav:pricing', $at: [700, 36] }, 'Membership'),
          h('a', { href: `${MARKETING_ORIGIN}/blog`, $key: 'nav:blog', $at: [820, 36] }, 'Journal'),
          h('a', { href: SHOP_ORIGIN, $key: 'nav:shop', $at: [930, 36] }, 'Shop'),
        ),
        h('a', { href: `${MARKETING_ORIGIN}/signup`, class: 'btn btn-primary', 'data-attr': 'nav-join', $key: 'nav:join', $at: [1300, 36] }, 'Join Acme Club'),
      ),
      h('main', null, ...main),
      h('footer', null, h('p', null, '© Acme Outdoor Co.')),
    ),
  );
}

export function marketingHome(): PageView {
  return {
    path: '/',
    title: 'Acme Outdoor',
    html: marketingDocument('Adventure, well equipped', [
      h('h1', null, 'Adventure, well equipped'),
      h('p', null, 'Members get free repairs, early access to drops and 10% back on every order.'),
      h('a', { href: `${MARKETING_ORIGIN}/pricing`, class: 'btn btn-primary', $key: 'hero-cta', $at: [720, 420] }, 'See membership plans'),
    ]),
  };
}

const PLANS = [
  { id: 'trail', name: 'Trail', monthly: 0, yearly: 0, perks: 'Free returns, member prices' },
  { id: 'summit', name: 'Summit', monthly: 9, yearly: 90, perks: 'Free repairs, early access' },
  { id: 'expedition', name: 'Expedition', monthly: 19, yearly: 190, perks: 'Everything, plus gear rental credits' },
] as const;

export function marketingPricing(): PageView {
  return {
    path: '/pricing',
    title: 'Membership',
    html: marketingDocument('Membership plans', [
      h('h1', null, 'Pick your membership'),
      h('label', { class: 'billing-toggle' }, h('input', { type: 'checkbox', name: 'billing_yearly', $key: 'yearly', $at: [720, 260] }), ' Bill yearly (2 months free)'),
      h(
        'div',
        { class: 'plans' },
        PLANS.map((plan, i) =>
          h(
            'section',
            { class: 'plan', 'data-plan': plan.id },
            h('h2', null, plan.name),
            h('p', { class: 'plan-price', $key: `price:${plan.id}` }, plan.monthly === 0 ? 'Free' : `$${plan.monthly}/month`),
            h('p', null, plan.perks),
            h('a', { href: `${MARKETING_ORIGIN}/signup?plan=${plan.id}`, class: 'btn btn-primary', 'data-attr': `plan-cta-${plan.id}`, $key: `plan:${plan.id}`, $at: [330 + i * 390, 760] }, plan.monthly === 0 ? 'Join free' : 'Start free trial'),
          ),
        ),
      ),
      h(
        'section',
        { class: 'faq' },
        h('h2', null, 'Questions'),
        ['Can I cancel anytime?', 'What do repairs cover?', 'Do points expire?'].map((q, i) =>
          h('details', { $key: `faq:${i}` }, h('summary', { $key: `faq-q:${i}`, $at: [720, 1100 + i * 80] }, q), h('p', null, 'Yes. Manage it from your account page.')),
        ),
      ),
    ]),
  };
}

export function marketingBlogPost(): PageView {
  const paragraphs = [
    'Three days, 58 kilometres and one very stubborn stove: here is what we packed for the Cairngorms loop.',
    'Layering beats bulk. A merino base, a light fleece and a shell handled everything from frost at dawn to sun on the plateau.',
    'We cut 900 g by swapping the tent for a tarp and bivvy. Worth it on clear nights, less so in the sideways rain of day two.',
    'Water is everywhere up there, so we carried only a litre each and a filter.',
    'The one thing we would not leave behind again: a spare headlamp battery.',
  ];
  return {
    path: '/blog/packing-list-cairngorms',
    title: 'Our Cairngorms packing list',
    html: marketingDocument('Our Cairngorms packing list', [
      h(
        'article',
        { class: 'post' },
        h('h1', null, 'What we packed for three days in the Cairngorms'),
        h('p', { class: 'byline' }, 'By the Acme field team - 7 min read'),
        paragraphs.map((p) => h('p', null, p)),
        h('a', { href: `${SHOP_ORIGIN}/products/merino-base-layer`, $key: 'post-product', $at: [640, 1900] }, 'Shop the Merino Base Layer'),
      ),
      h(
        'form',
        { class: 'newsletter', id: 'newsletter-inline' },
        h('label', { for: 'nl-email' }, 'Get the next trip report'),
        h('input', { type: 'email', id: 'nl-email', name: 'email', placeholder: 'you@example.com', $key: 'nl-email', $at: [640, 3200] }),
        h('button', { type: 'submit', class: 'btn', $key: 'nl-submit', $at: [900, 3200] }, 'Subscribe'),
      ),
    ]),
  };
}

export function marketingNewsletter(): PageView {
  return {
    path: '/newsletter',
    title: 'Newsletter',
    html: marketingDocument('Newsletter', [
      h('h1', null, 'Trip reports, twice a month'),
      h(
        'form',
        { id: 'newsletter-form' },
        h('label', { for: 'newsletter-email' }, 'Email'),
        h('input', { type: 'email', id: 'newsletter-email', name: 'email', autocomplete: 'email', $key: 'nl-email', $at: [720, 400] }),
        h('label', null, h('input', { type: 'checkbox', name: 'consent', $key: 'nl-consent', $at: [560, 470] }), ' I agree to receive emails'),
        h('button', { type: 'submit', class: 'btn btn-primary', $key: 'nl-submit', $at: [720, 540] }, 'Subscribe'),
        h('p', { class: 'form-status', role: 'status', $key: 'nl-status' }, ''),
      ),
    ]),
  };
}
