// The reproduce room's pure logic: selector choice on a rebuilt DOM, the placeholder rule, and
// the quoting of hostile page text (every generated file is parsed with TypeScript's own parser).
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { NodeMirror } from '../src/digest/mirror.js';
import { renderSpec } from '../src/reproduce/code.js';
import { commentText, lit } from '../src/reproduce/literal.js';
import { placeholderFor, sensitiveReason } from '../src/reproduce/privacy.js';
import { SELECTOR_ATTRIBUTES, chooseSelector, looksGenerated } from '../src/reproduce/selectors.js';
import { Reproducer, STEPS_MAX } from '../src/reproduce/session.js';
import { dom, type Node } from './support/rrweb-dom.js';

// A tiny rrweb-snapshot builder: element and text nodes with ids in document order.

function mirrorOf(root: unknown): NodeMirror {
  const mirror = new NodeMirror({ extraAttributes: SELECTOR_ATTRIBUTES, optionValues: true });
  mirror.reset(root);
  return mirror;
}

/** Syntax errors TypeScript finds in a generated file (none allowed). */
function syntaxErrors(code: string): string[] {
  const out = ts.transpileModule(code, { reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  return (out.diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

/** Every string literal's value in a file, as TypeScript reads it. */
function stringLiterals(code: string): string[] {
  const file = ts.createSourceFile('x.ts', code, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node)) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('selector choice', () => {
  it("prefers a test id, then role and name, then an id, as Playwright's own generator does", () => {
    const { el, page } = dom();
    const byTestId = el('button', { 'data-testid': 'buy', id: 'buy-button' }, 'Buy Pro');
    const byDataTest = el('button', { 'data-test': 'sub"scribe' }, 'Subscribe');
    const byDataAttr = el('button', { 'data-attr': 'nav-pricing', id: 'pricing-btn' }, 'Plans');
    const byRole = el('button', { id: 'checkout' }, 'Go');
    const byId = el('div', { id: 'checkout-panel' });
    const generatedId = el('button', { id: ':r1:' }, 'Pay now');
    const plain = el('a', { href: '/pricing' }, 'Pricing');
    const mirror = mirrorOf(page(byTestId, byDataTest, byDataAttr, byRole, byId, generatedId, plain));
    expect(chooseSelector(mirror, byTestId.id)).toMatchObject({ kind: 'test-id', code: "getByTestId('buy')" });
    expect(chooseSelector(mirror, byDataTest.id)).toMatchObject({ kind: 'test-id', code: `locator('[data-test="sub\\\\"scribe"]')` });
    // PostHog's own attribute for naming elements (autocapture's data-attr).
    expect(chooseSelector(mirror, byDataAttr.id)).toMatchObject({ kind: 'test-id', code: `locator('[data-attr="nav-pricing"]')` });
    expect(chooseSelector(mirror, byRole.id)).toMatchObject({ kind: 'role', code: "getByRole('button', { name: 'Go', exact: true })" });
    expect(chooseSelector(mirror, byId.id)).toMatchObject({ kind: 'id', code: "locator('#checkout-panel')" });
    expect(chooseSelector(mirror, generatedId.id)).toMatchObject({ kind: 'role', code: "getByRole('button', { name: 'Pay now', exact: true })" });
    expect(chooseSelector(mirror, plain.id)).toMatchObject({ kind: 'role', code: "getByRole('link', { name: 'Pricing', exact: true })" });
  });

  it('names by content as the browser does: image alts in order, hidden parts left out', () => {
    const { el, page } = dom();
    const home = el('a', { href: '/' }, el('img', { alt: 'Lumen' }), ' Home');
    const cart = el('button', {}, el('span', { 'aria-hidden': 'true' }, '🛒'), 'Cart ', el('span', { 'aria-label': '2 items' }, '(2)'));
    const mirror = mirrorOf(page(home, cart));
    expect(chooseSelector(mirror, home.id).code).toBe("getByRole('link', { name: 'Lumen Home', exact: true })");
    expect(chooseSelector(mirror, cart.id).code).toBe("getByRole('button', { name: 'Cart 2 items', exact: true })");
  });

  it('takes a role the page wrote only when it is an ARIA role', () => {
    const { el, page } = dom();
    const tab = el('div', { role: 'tab' }, 'Details');
    const odd = el('div', { role: "button'); evil(" }, 'Odd');
    const mirror = mirrorOf(page(tab, odd));
    expect(chooseSelector(mirror, tab.id).code).toBe("getByRole('tab', { name: 'Details', exact: true })");
    expect(chooseSelector(mirror, odd.id).code).toBe("getByText('Odd', { exact: true })");
  });

  it('tells generated ids from authored ones', () => {
    for (const id of [':r1:', 'ember123', 'mui-42', 'radix-:R1:', '3f2a9c1e8b7d', 'css-1x2y3z', 'a'.repeat(41)]) expect(looksGenerated(id), id).toBe(true);
    for (const id of ['checkout', 'add-to-cart', 'email', 'step2', 'h1-title', 'full_name']) expect(looksGenerated(id), id).toBe(false);
  });

  it('names fields by label, then placeholder; other elements by text; a CSS path only as the last resort, said so', () => {
    const { el, page } = dom();
    const password = el('input', { type: 'password', id: 'pw-4f3a9c2e1b' });
    const pin = el('input', { type: 'password', placeholder: 'PIN' });
    const close = el('span', { class: 'x' }, 'Close');
    const icon1 = el('i', { class: 'icon' });
    const icon2 = el('i', { class: 'icon' });
    const mirror = mirrorOf(page(el('label', { for: 'pw-4f3a9c2e1b' }, 'Password'), password, pin, el('div', {}, close), el('div', {}, icon1, icon2)));
    // A password field has no ARIA role: its label is how a person finds it.
    expect(chooseSelector(mirror, password.id)).toMatchObject({ kind: 'label', code: "getByLabel('Password', { exact: true })" });
    expect(chooseSelector(mirror, pin.id)).toMatchObject({ kind: 'placeholder', code: "getByPlaceholder('PIN', { exact: true })" });
    expect(chooseSelector(mirror, close.id)).toMatchObject({ kind: 'text', code: "getByText('Close', { exact: true })" });
    const css = chooseSelector(mirror, icon2.id);
    expect(css.kind).toBe('css');
    expect(css.code).toBe("locator('html > body > div:nth-of-type(2) > i:nth-of-type(2)')");
    expect(css.note).toMatch(/CSS path \(last resort\)/);
  });

  it('checks uniqueness in the page as it is at that moment, and never names by masked text', () => {
    const { el, page } = dom();
    const save = el('button', {}, 'Save');
    const main = el('main', {}, save);
    const masked = el('button', {}, '****');
    const mirror = mirrorOf(page(main, masked));
    expect(chooseSelector(mirror, save.id).kind).toBe('role');
    // A second "Save" appears (a dialog): the role and name no longer name one element.
    mirror.mutate({ adds: [{ parentId: main.id, nextId: null, node: { type: 2, id: 9001, tagName: 'button', attributes: {}, childNodes: [{ type: 3, id: 9002, textContent: 'Save' }] } }] });
    const after = chooseSelector(mirror, save.id);
    expect(after.kind).toBe('css');
    expect(after.code).toBe("locator('html > body > main > button:nth-of-type(1)')");
    expect(chooseSelector(mirror, masked.id).code).not.toContain('****');
  });
});

describe('placeholder rule', () => {
  const field = (extra: Record<string, string>) => ({ tag: 'input', ...extra });

  it('never copies a password, a secret, payment data or a masked value, even when asked to', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ type: 'password', name: 'pw' }, 'hunter2'],
      [{ type: 'text', autocomplete: 'cc-number', name: 'n' }, '4000 0566 5566 5556'],
      [{ type: 'text', name: 'card_number' }, '4000 0566 5566 5556'],
      [{ type: 'text', name: 'cvv' }, '737'],
      [{ type: 'text', label: 'API token' }, 'phx_abc'],
      [{ type: 'text', autocomplete: 'one-time-code' }, '123456'],
      [{ type: 'text', name: 'iban' }, 'DE89370400440532013000'],
      [{ type: 'email', name: 'email' }, '*****************'],
    ];
    for (const [facts, value] of cases) {
      const placeholder = placeholderFor(field(facts), value, true, 'x', new Set());
      expect(placeholder.default, JSON.stringify(facts)).not.toBe(value);
      expect(placeholder.source).toBe('neutral');
      expect(placeholder.withheld).toMatch(/^not copied: /);
    }
    expect(sensitiveReason(field({ type: 'text', name: 'city' }))).toBeUndefined();
  });

  it('copies a plain value only when asked; otherwise a neutral default from an env var named after the field', () => {
    const taken = new Set<string>();
    expect(placeholderFor(field({ type: 'text', name: 'city' }), 'Lisbon', false, 'x', taken)).toMatchObject({ env: 'REPRO_CITY', default: 'test', source: 'neutral' });
    expect(placeholderFor(field({ type: 'text', name: 'city' }), 'Lisbon', true, 'x', taken)).toMatchObject({ env: 'REPRO_CITY_2', default: 'Lisbon', source: 'copied' });
    expect(placeholderFor(field({ type: 'email', name: 'workEmail' }), 'a@b.c', false, 'x', taken)).toMatchObject({ env: 'REPRO_WORK_EMAIL', default: 'user@example.test' });
  });

  it('keeps typed secrets out of a whole generated test made with copying on', () => {
    const { el, page } = dom();
    const email = el('input', { type: 'email', name: 'email' });
    const password = el('input', { type: 'password', name: 'password' });
    const card = el('input', { type: 'text', name: 'cc', autocomplete: 'cc-number' });
    const go = el('button', {}, 'Sign up');
    const r = new Reproducer();
    const t = 1_700_000_000_000;
    r.push('w', { type: 4, timestamp: t, data: { href: 'https://app.example.com/signup' } });
    r.push('w', { type: 2, timestamp: t + 1, data: { node: page(el('label', {}, 'Email', email), el('label', {}, 'Password', password), el('label', {}, 'Card', card), go) } });
    const typed: Array<[number, string]> = [[email.id, 'ada@example.com'], [password.id, 'correct horse'], [card.id, '5555 5555 5555 4444']];
    typed.forEach(([id, value], i) => {
      for (let n = 1; n <= value.length; n++) r.push('w', { type: 3, timestamp: t + 100 * (i + 1) + n, data: { source: 5, id, text: value.slice(0, n), isChecked: false } });
    });
    r.push('w', { type: 3, timestamp: t + 900, data: { source: 2, type: 2, id: go.id } });
    const spec = renderSpec(r.finish(), { recordingId: 'rec1', projectId: '1', copyTypedValues: true });
    expect(spec.steps.map((s) => s.action)).toEqual(['goto', 'fill', 'fill', 'fill', 'click']);
    expect(spec.code).toContain("process.env.REPRO_EMAIL ?? 'ada@example.com'");
    expect(spec.code).not.toContain('correct horse');
    expect(spec.code).not.toContain('5555');
    expect(spec.placeholders.map((p) => p.source)).toEqual(['copied', 'neutral', 'neutral']);
    expect(syntaxErrors(spec.code)).toEqual([]);
  });
});

describe('what the page says back', () => {
  it('quotes no console text or heading holding what the person typed, or an email address', () => {
    const { el, page } = dom();
    const name = el('input', { type: 'text', name: 'nickname' });
    const save = el('button', {}, 'Save');
    const r = new Reproducer();
    const t = 1_700_000_000_000;
    r.push('w', { type: 4, timestamp: t, data: { href: 'https://app.test/profile' } });
    r.push('w', { type: 2, timestamp: t + 1, data: { node: page(el('label', {}, 'Nickname', name), save) } });
    r.push('w', { type: 3, timestamp: t + 100, data: { source: 5, id: name.id, text: 'Amazing Grace' } });
    r.push('w', { type: 3, timestamp: t + 200, data: { source: 2, type: 2, id: save.id } });
    r.push('w', { type: 6, timestamp: t + 300, data: { plugin: 'rrweb/console@1', payload: { level: 'error', trace: [], payload: ['"could not save Amazing Grace for grace@navy.example"'] } } });
    const spec = renderSpec(r.finish(), { recordingId: 'r', projectId: '1', copyTypedValues: false });
    expect(spec.code).toContain('console error "could not save … for …@…"');
    expect(spec.code).not.toMatch(/Amazing|grace@/);

    const done = new Reproducer();
    done.push('w', { type: 4, timestamp: t, data: { href: 'https://app.test/profile' } });
    done.push('w', { type: 2, timestamp: t + 1, data: { node: page(el('h1', {}, 'Welcome, Amazing Grace'), el('label', {}, 'Nickname', name), save) } });
    done.push('w', { type: 3, timestamp: t + 100, data: { source: 5, id: name.id, text: 'Amazing Grace' } });
    const journey = renderSpec(done.finish(), { recordingId: 'r', projectId: '1', copyTypedValues: false });
    expect(journey.code).not.toMatch(/Amazing|Grace/);
    // The heading is asserted by its page-authored start only.
    expect(journey.asserts.map((a) => [a.kind, a.says])).toEqual([
      ['final-url', 'the journey ends at /profile'],
      ['final-heading', 'a heading matching "^Welcome, .+$" is visible'],
    ]);
    expect(journey.code).toContain("getByRole('heading', { name: new RegExp('^Welcome, .+$') })");
  });
});

describe('quoting of hostile page text', () => {
  const hostile = [
    "it's",
    'say "hi"',
    'back`tick`',
    '${process.exit(1)}',
    'two\nlines\r\n',
    '</script><script>alert(1)</script>',
    'line\u2028sep\u2029para',
    'bidi \u202eevil\u202c text',
    'lone \ud800 surrogate',
    'emoji 🙂 and nul \u0000',
    "'); process.exit(1); ('",
    '\\',
    '*/ // comment',
  ];

  it('lit() always parses and means exactly the text', () => {
    for (const text of hostile) {
      const code = `const x = ${lit(text)};`;
      expect(syntaxErrors(code), JSON.stringify(text)).toEqual([]);
      expect(stringLiterals(code), JSON.stringify(text)).toEqual([text]);
      expect(code).not.toMatch(/[\n\r\u2028\u2029\u202e<]/);
    }
  });

  it('comment text stays on its line', () => {
    for (const text of hostile) expect(commentText(text)).not.toMatch(/[\n\r\u2028\u2029\u0085\u202e<]/);
  });

  it('a page made of hostile text still gives a test that parses, with each name read back exactly', () => {
    const { el, page } = dom();
    const targets = hostile.filter((t) => t.trim() && !t.includes('\n') && !t.includes('\u0000')).map((t) => el('button', {}, t));
    const heading = el('h1', {}, 'Done ${`x`} \u2028 </script>');
    const r = new Reproducer();
    const t = 1_700_000_000_000;
    r.push('w', { type: 4, timestamp: t, data: { href: "https://evil.example/it's`${x}`/\u2028?q='" } });
    r.push('w', { type: 2, timestamp: t + 1, data: { node: page(heading, ...targets) } });
    targets.forEach((target, i) => r.push('w', { type: 3, timestamp: t + 10 + i, data: { source: 2, type: 2, id: target.id } }));
    r.push('w', { type: 6, timestamp: t + 100, data: { plugin: 'rrweb/console@1', payload: { level: 'error', trace: [], payload: ['"\'); process.exit(1)\\n</script>\u2028"'] } } });
    const spec = renderSpec(r.finish(), { recordingId: 'rec-1', projectId: '1', copyTypedValues: false });
    expect(syntaxErrors(spec.code)).toEqual([]);
    const literals = stringLiterals(spec.code);
    for (const target of targets) {
      const name = (target.childNodes![0]!.textContent as string).replace(/\s+/g, ' ').trim();
      expect(literals, JSON.stringify(name)).toContain(name);
    }
    // Nothing in the file ends a line early or closes an enclosing <script>.
    expect(spec.code).not.toMatch(/[\u2028\u2029\u202e]|<\/script/i);
  });
});

describe('steps from events', () => {
  it('collapses typing to one fill, infers Enter, replays a rage click once and follows a new tab', () => {
    const { el, page } = dom();
    const q = el('input', { type: 'search', name: 'q', 'aria-label': 'Search' });
    const buy = el('button', {}, 'Buy');
    const help = el('a', { href: '/help', target: '_blank' }, 'Help');
    const r = new Reproducer();
    const t = 1_700_000_000_000;
    r.push('a', { type: 4, timestamp: t, data: { href: 'https://shop.test/?ref=mail-to-ada' } });
    r.push('a', { type: 2, timestamp: t + 1, data: { node: page(q, buy, help) } });
    for (let n = 1; n <= 4; n++) r.push('a', { type: 3, timestamp: t + 100 + n, data: { source: 5, id: q.id, text: '*'.repeat(n) } });
    r.push('a', { type: 4, timestamp: t + 500, data: { href: 'https://shop.test/search?q=lamp' } });
    r.push('a', { type: 2, timestamp: t + 501, data: { node: dom().page() } });
    // The search page: a fresh DOM with the same ids (a new page restarts them).
    r.push('a', { type: 2, timestamp: t + 502, data: { node: page(q, buy, help) } });
    for (let n = 0; n < 5; n++) r.push('a', { type: 3, timestamp: t + 600 + n * 100, data: { source: 2, type: 2, id: buy.id } });
    r.push('a', { type: 3, timestamp: t + 2_000, data: { source: 2, type: 2, id: help.id } });
    r.push('b', { type: 4, timestamp: t + 2_300, data: { href: 'https://shop.test/help' } });
    r.push('b', { type: 2, timestamp: t + 2_301, data: { node: dom().page() } });
    r.push('b', { type: 6, timestamp: t + 2_400, data: { plugin: 'rrweb/network@1', payload: { requests: [{ name: 'https://shop.test/api/chat', method: 'get', status: 503, timestamp: t + 2_350 }] } } });
    const rep = r.finish();
    expect(rep.steps.map((s) => [s.action, s.window])).toEqual([
      ['goto', 0],
      ['fill', 0],
      ['press', 0],
      ['click', 0],
      ['click', 0],
    ]);
    expect(rep.steps[2]).toMatchObject({ navigates: '/search' });
    expect(rep.steps[3]).toMatchObject({ repeats: 5 });
    expect(rep.steps[4]).toMatchObject({ opens: 1 });
    // The new tab's request on load belongs to the click that opened it.
    expect(rep.problems).toMatchObject([{ kind: 'request', method: 'GET', path: '/api/chat', status: 503, step: 4 }]);
    const spec = renderSpec(rep, { recordingId: 'r', projectId: '1', copyTypedValues: false });
    expect(spec.code).toContain("await page.getByRole('searchbox', { name: 'Search', exact: true }).press('Enter');");
    expect(spec.code).toContain("const page2Opened = context.waitForEvent('page');");
    expect(spec.code).not.toContain('lamp');
    expect(spec.code).not.toContain('ada');
    // The page's query is the person's (a search, a campaign link): each value is a placeholder.
    expect(spec.code).toContain("await page.goto('/?' + new URLSearchParams([['ref', REPRO_REF]]));");
    expect(spec.skipped).toContain("Not replayed: step 4: 5 clicks in a row on getByRole('button', { name: 'Buy', exact: true }), replayed as one click.");
    expect(syntaxErrors(spec.code)).toEqual([]);
  });

  it('refuses a recording with nothing to replay rather than write a test that asserts nothing', () => {
    const r = new Reproducer();
    r.push('w', { type: 4, timestamp: 1_700_000_000_000, data: { href: 'about:blank' } });
    expect(() => renderSpec(r.finish(), { recordingId: 'r', projectId: '1', copyTypedValues: false })).toThrow(/Nothing in recording r can be replayed/);
  });

  it('keeps at most STEPS_MAX steps and says the test was cut, when the cut reaches the test', () => {
    const { el, page } = dom();
    const more = el('button', {}, 'More');
    const r = new Reproducer();
    const t = 1_700_000_000_000;
    r.push('w', { type: 4, timestamp: t, data: { href: 'https://feed.test/' } });
    r.push('w', { type: 2, timestamp: t + 1, data: { node: page(more) } });
    for (let i = 0; i < STEPS_MAX + 50; i++) r.push('w', { type: 3, timestamp: t + 2_000 * (i + 1), data: { source: 2, type: 2, id: more.id } });
    const rep = r.finish();
    expect(rep.steps).toHaveLength(STEPS_MAX);
    expect(rep.droppedSteps).toBe(51);
    const spec = renderSpec(rep, { recordingId: 'r', projectId: '1', copyTypedValues: false });
    expect(spec.skipped[0]).toBe(`PARTIAL: the journey has more than ${STEPS_MAX} steps; the test replays the first ${STEPS_MAX}, and 51 later step(s) are left out.`);
  });
});
