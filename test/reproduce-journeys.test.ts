// What session-recording-reproduce writes for journeys that once came out wrong: failures that
// show as an uncaught error or a failed assert, a name the page echoes, the end of a journey that
// leaves, fields that must get a value they accept, steps the test cannot replay, frames.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { renderSpec } from '../src/reproduce/code.js';
import { Reproducer } from '../src/reproduce/session.js';
import { dom, type Node } from './support/rrweb-dom.js';


const t = 1_700_000_000_000;
const meta = (href: string, at = 0) => ({ type: 4, timestamp: t + at, data: { href } });
const snapshot = (node: Node, at = 1) => ({ type: 2, timestamp: t + at, data: { node } });
const click = (id: number, at: number, type = 2) => ({ type: 3, timestamp: t + at, data: { source: 2, type, id } });
const input = (id: number, at: number, text: string) => ({ type: 3, timestamp: t + at, data: { source: 5, id, text } });
const consoleLog = (level: string, payload: string[], at: number) => ({ type: 6, timestamp: t + at, data: { plugin: 'rrweb/console@1', payload: { level, trace: [], payload } } });

function spec(events: Array<{ type: number; timestamp: number; data: unknown }>, copyTypedValues = false) {
  const r = new Reproducer();
  for (const e of events) r.push('w', e);
  const out = renderSpec(r.finish(), { recordingId: 'r', projectId: '1', copyTypedValues });
  const diagnostics = ts.transpileModule(out.code, { reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).diagnostics ?? [];
  expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  return out;
}

describe('a failure however it shows', () => {
  it('listens for uncaught errors and failed asserts as well as console errors, in one list every assertion reads', () => {
    const { el, page } = dom();
    const pay = el('button', {}, 'Pay');
    const out = spec([meta('https://shop.test/cart'), snapshot(page(pay)), click(pay.id, 100), consoleLog('error', ['"Uncaught TypeError: total is undefined"'], 150)]);
    expect(out.code).toContain("p.on('pageerror', (e) => { seen.errors.push(`uncaught ${e.name}: ${e.message}`); });");
    expect(out.code).toContain("m.type() === 'assert'");
    expect(out.code).toContain(`expect(seen.errors, 'console error "Uncaught TypeError: total is undefined" in the recording after step 2').toEqual([]);`);
  });

  it('counts a failed console.assert, names it, and does not count a passed one', () => {
    const { el, page } = dom();
    const pay = el('button', {}, 'Pay');
    const out = spec([
      meta('https://shop.test/cart'),
      snapshot(page(pay)),
      click(pay.id, 100),
      consoleLog('assert', ['true', '"cart loaded"'], 120),
      consoleLog('assert', ['false', '"cart total matches its lines"'], 150),
    ]);
    expect(out.failures.map((f) => f.says)).toEqual(['failed console.assert "cart total matches its lines"']);
    expect(out.asserts[0]!.says).toBe('failed console.assert "cart total matches its lines" in the recording after step 2');
  });
});

describe('nothing personal in the test', () => {
  it('keeps a typed name out of the selectors and the final heading, which is asserted by its start', () => {
    const { el, page } = dom();
    const name = el('input', { name: 'fullname', id: 'fullname' });
    const label = el('label', { for: 'fullname' }, 'Your name');
    const send = el('button', {}, 'Place order');
    const greeting = el('h1', {}, 'Thank you, Marcus!');
    const echo = el('button', {}, 'Marcus Chen');
    // In clear, the page's echo of the name is kept out of a selector too; masked, the heading still is asserted by its start.
    for (const typed of ['Marcus Chen', '***********']) {
      const out = spec([
        meta('https://shop.test/checkout'),
        snapshot(page(label, name, send)),
        input(name.id, 100, typed),
        click(send.id, 200),
        meta('https://shop.test/thanks', 300),
        snapshot(page(greeting, echo), 301),
        ...(typed.startsWith('*') ? [] : [click(echo.id, 400)]),
      ]);
      expect(out.code).not.toMatch(/Marcus|Chen/);
      expect(JSON.stringify(out)).not.toMatch(/Marcus|Chen/);
      expect(out.code).toContain("getByRole('heading', { name: new RegExp('^Thank you, .+$') })");
    }
  });

  it('declares each placeholder once, saying where it was typed and which steps depend on it', () => {
    const { el, page } = dom();
    const email = el('input', { type: 'email', name: 'email', 'aria-label': 'Email' });
    const news = el('input', { type: 'checkbox', name: 'news', 'aria-label': 'News' });
    const send = el('button', {}, 'Sign up');
    const out = spec([meta('https://shop.test/join'), snapshot(page(email, news, send)), input(email.id, 100, '*****'), { type: 3, timestamp: t + 150, data: { source: 5, id: news.id, isChecked: true } }, click(send.id, 200), meta('https://shop.test/welcome', 300)]);
    expect(out.code).toContain('  // REPRO_EMAIL: typed at step 2; steps 2-4 depend on it.\n  const REPRO_EMAIL = process.env.REPRO_EMAIL ?? \'user@example.test\';');
    expect(out.code).toContain("getByRole('textbox', { name: 'Email', exact: true }).fill(REPRO_EMAIL);");
  });

  it("a page's own number in its query (an id) is kept; typed or wordy values are placeholders", () => {
    const { el, page } = dom();
    const buy = el('button', {}, 'Buy');
    const out = spec([meta('https://shop.test/product?id=1042&q=lamp&ref=mail-to-ada'), snapshot(page(buy)), click(buy.id, 100)]);
    expect(out.code).toContain("await page.goto('/product?' + new URLSearchParams([['id', REPRO_ID], ['q', REPRO_Q], ['ref', REPRO_REF]]));");
    expect(out.code).toContain("const REPRO_ID = process.env.REPRO_ID ?? '1042';");
    expect(out.code).not.toMatch(/lamp|ada/);
  });

  it("a search the URL carries is a placeholder by default; with copy_typed_values it is copied and the header says so", () => {
    const { el, page } = dom();
    const first = el('a', { href: '/p/1' }, 'Desk lamp');
    const events = [meta('https://shop.test/search?q=desk+lamp'), snapshot(page(first)), click(first.id, 100)];
    const plain = spec(events);
    expect(plain.code).not.toMatch(/desk/i);
    expect(plain.code).toContain("await page.goto('/search?' + new URLSearchParams([['q', REPRO_Q]]));");
    expect(plain.code).toContain("const REPRO_Q = process.env.REPRO_Q ?? 'test';");
    const copied = spec(events, true);
    expect(copied.code).toContain("const REPRO_Q = process.env.REPRO_Q ?? 'desk lamp';");
    expect(copied.code).toContain('// Copied from the recording at your request (copy_typed_values): 1 typed value(s) the recording holds in clear');
    expect(copied.code).toContain('and the page query of step(s) 1, as the REPRO_* defaults below.');
  });
});

describe('the end state a working site shows', () => {
  it("when the recording ends as the last link is followed, asserts the link's target, not the page left", () => {
    const { el, page } = dom();
    const done = el('a', { href: '/book/done' }, 'Finish');
    const out = spec([meta('https://rail.test/book/review'), snapshot(page(done)), click(done.id, 100)]);
    expect(out.asserts.map((a) => a.says)).toEqual(["the journey ends at /book/done (the last click's link target)"]);
    expect(out.code).toContain("toHaveURL((url) => url.pathname === '/book/done'");
    expect(out.code).not.toContain("url.pathname === '/book/review'");
  });

  it('where the last link leaves the site, asserts the page the person reached there (its host alone where the path held a token)', () => {
    const { el, page } = dom();
    const pay = el('a', { href: 'https://pay.example/checkout/123' }, 'Pay with PayCo');
    for (const events of [
      [meta('https://shop.test/cart'), snapshot(page(pay)), click(pay.id, 100)],
      [meta('https://shop.test/cart'), snapshot(page(pay)), click(pay.id, 100), meta('https://pay.example/checkout/123', 300)],
    ]) {
      const out = spec(events);
      expect(out.code).toContain("page.on('request', (r) => { if (r.isNavigationRequest()) { const u = new URL(r.url()); went2.push(u.host + u.pathname); } });");
      expect(out.code).toContain("await expect.poll(() => went2, { message: 'the last step goes to pay.example/checkout/123, as in the recording', timeout: 15_000 }).toContain('pay.example/checkout/123');");
      expect(out.code).not.toContain("url.pathname === '/cart'");
    }
    // Reached with no link of the page's (a redirect, a sign-in): its path may be the person's, so the host alone.
    const go = el('button', {}, 'Continue');
    const redirected = spec([meta('https://shop.test/cart'), snapshot(page(go)), click(go.id, 100), meta('https://sso.example/u/ada-lovelace/consent', 400)]);
    expect(redirected.code).toContain(".toContain('sso.example');");
    expect(redirected.code).not.toContain('ada-lovelace');
    const reset = el('a', { href: 'https://id.example/reset/0123456789abcdef0123456789abcdef' }, 'Reset');
    const out = spec([meta('https://shop.test/login'), snapshot(page(reset)), click(reset.id, 100)]);
    expect(out.code).toContain(".toContain('id.example');");
    expect(out.code).not.toContain('0123456789abcdef');
  });
});

describe('inputs that replay', () => {
  it('a number for a field that takes one, a select\'s first option other than the person\'s (masked: the one of its length), and an untouched field left alone', () => {
    const { el, page } = dom();
    const qty = el('input', { name: 'qty', inputmode: 'numeric', 'aria-label': 'Quantity' });
    const zip = el('input', { name: 'code', pattern: '\\d{5}', 'aria-label': 'Code' });
    const city = el('select', { name: 'city', 'aria-label': 'City' }, el('option', { value: '' }, 'Choose'), el('option', { value: 'lisbon' }, 'Lisbon'), el('option', { value: 'porto' }, 'Porto'), el('option', { value: 'faro' }, 'Faro'));
    const note = el('textarea', { name: 'note', 'aria-label': 'Note' });
    const go = el('button', {}, 'Go');
    const out = spec([meta('https://shop.test/order'), snapshot(page(qty, zip, city, note, go)), input(qty.id, 100, '**'), input(zip.id, 150, '*****'), input(city.id, 200, '*****'), input(note.id, 250, ''), click(go.id, 300)]);
    expect(out.code).toContain("const REPRO_QTY = process.env.REPRO_QTY ?? '1';");
    expect(out.code).toContain("const REPRO_CODE = process.env.REPRO_CODE ?? '11111';");
    expect(out.code).toContain("const REPRO_CITY = process.env.REPRO_CITY ?? 'lisbon';");
    expect(out.code).not.toMatch(/Note.*\.fill\(/);
    expect(out.skipped.join('\n')).toMatch(/1 field\(s\) the person left empty, not filled: getByRole\('textbox', \{ name: 'Note'/);
  });
});

describe('nothing dropped silently', () => {
  it('a 4-click burst is one click, said so, never a dblclick "5 times"', () => {
    const { el, page } = dom();
    const plus = el('button', {}, 'Add one');
    const out = spec([meta('https://shop.test/cart'), snapshot(page(plus)), click(plus.id, 100), click(plus.id, 150), click(plus.id, 151, 4), click(plus.id, 200), click(plus.id, 250)]);
    expect(out.steps.map((s) => s.action)).toEqual(['goto', 'click']);
    expect(out.code).not.toContain('dblclick');
    expect(out.code).not.toContain('5 times');
    expect(out.skipped).toContain("Not replayed: step 2: 4 clicks in a row (the browser also reported a double click) on getByRole('button', { name: 'Add one', exact: true }), replayed as one click.");
    expect(out.code).toContain('// Not replayed (also in the result\'s skipped):');
  });

  it('media, blocked fields and canvas drawing are listed in the spec and the result', () => {
    const { el, page } = dom();
    const video = el('video', { src: '/intro.mp4' });
    const card = el('div', { class: 'ph-no-capture', rr_width: '300px', rr_height: '40px' });
    const pay = el('button', {}, 'Pay');
    const out = spec([
      meta('https://shop.test/pay'),
      snapshot(page(video, card, pay)),
      { type: 3, timestamp: t + 100, data: { source: 7, type: 0, id: video.id } },
      { type: 3, timestamp: t + 200, data: { source: 7, type: 2, id: video.id, currentTime: 30 } },
      click(card.id, 300),
      { type: 3, timestamp: t + 350, data: { source: 9, id: 99, commands: [] } },
      click(pay.id, 400),
    ]);
    const listed = out.skipped.filter((s) => s.startsWith('Not replayed: '));
    expect(listed.join('\n')).toMatch(/play on a video on \/pay/);
    expect(listed.join('\n')).toMatch(/seek on a video/);
    expect(listed.join('\n')).toMatch(/a click on an element the recorder blocked \(ph-no-capture\)/);
    expect(listed.join('\n')).toMatch(/\/pay holds 1 element\(s\) the recorder blocked/);
    expect(listed.join('\n')).toMatch(/drawing\(s\) or click\(s\) on a canvas/);
    for (const line of listed) expect(out.code).toContain(line.replace(/^Not replayed: /, '').replace(/\.$/, '').slice(0, 40));
  });

  it('a recording on about:blank or a data: page is refused, naming why', () => {
    const { el, page } = dom();
    const b = el('button', {}, 'Go');
    const r = new Reproducer();
    for (const e of [meta('about:blank'), snapshot(page(b)), click(b.id, 100)]) r.push('w', e);
    expect(() => renderSpec(r.finish(), { recordingId: 'r', projectId: '1', copyTypedValues: false })).toThrow(/Nothing in recording r can be replayed.*showed about:blank, which a test cannot go to/);
  });
});

describe('locators as a browser resolves them', () => {
  it('a label shared through <label for> and aria-label is not unique; an element in an iframe is addressed in its frame', () => {
    const { el, page, doc } = dom();
    const a = el('input', { id: 'mail', type: 'email' });
    const b = el('input', { type: 'email', 'aria-label': 'Email', name: 'backup' });
    const inner = el('button', {}, 'Pay');
    const frame = el('iframe', { name: 'payment', src: '/pay-frame' }, doc(inner));
    const outerPay = el('button', {}, 'Pay');
    const out = spec([meta('https://shop.test/pay'), snapshot(page(el('label', { for: 'mail' }, 'Email'), a, b, frame, outerPay)), input(a.id, 100, '*'), click(inner.id, 200)]);
    expect(out.steps[1]!.selector).not.toMatch(/getByLabel\('Email'|name: 'Email'/);
    expect(out.steps[2]!.selector).toBe("locator('iframe[name=\"payment\"]').contentFrame().getByRole('button', { name: 'Pay', exact: true })");
  });

  it('a field inside a label whose for names another id is not labelled by it (as in a recorded login page)', () => {
    const { el, page } = dom();
    const user = el('input', { type: 'text', name: 'username' });
    const out = spec([meta('https://app.test/login'), snapshot(page(el('label', { for: 'username' }, ' username:', user))), input(user.id, 100, '*****')]);
    expect(out.steps[1]!.selector).toBe('locator(\'input[name="username"]\')');
  });
});

describe('what followed a step, read into the spec', () => {
  it('a failure 14 s after its step is waited for 14 s x1.5 + 2 s, the test given the time; a later one is capped at 60 s', () => {
    const { el, page } = dom();
    const refresh = el('button', {}, 'Refresh');
    const late = spec([meta('https://dash.test/'), snapshot(page(refresh)), click(refresh.id, 1_000), consoleLog('assert', ['false', '"totals reconcile"'], 15_000)]);
    expect(late.code).toContain('await page.waitForTimeout(23000);');
    expect(late.code).toContain('test.setTimeout(83000);');
    const later = spec([meta('https://dash.test/'), snapshot(page(refresh)), click(refresh.id, 1_000), consoleLog('error', ['"late"'], 101_000)]);
    expect(later.code).toContain('await page.waitForTimeout(60000);');
    expect(later.code).toContain('(at most 60 s)');
  });

  it('typing answered by the same request while still typing (search as one types) is no Enter; answered only after, it is', () => {
    const { el, page } = dom();
    const box = el('input', { type: 'search', name: 'q', 'aria-label': 'Search recipes' });
    const search = (at: number) => ({ name: `https://recipes.test/api/search?q=${at}`, method: 'GET', responseStatus: 200, timestamp: t + at, initiatorType: 'fetch', entryType: 'resource' });
    const typing = [meta('https://recipes.test/'), snapshot(page(box)), input(box.id, 1_000, 'l'), input(box.id, 1_400, 'le'), input(box.id, 1_800, 'len')];
    const asTyped = spec([...typing, { type: 6, timestamp: t + 3_000, data: { plugin: 'rrweb/network@1', payload: { requests: [search(1_200), search(2_000)] } } }]);
    expect(asTyped.steps.map((s) => s.action)).toEqual(['goto', 'fill']);
    const entered = spec([...typing, { type: 6, timestamp: t + 3_000, data: { plugin: 'rrweb/network@1', payload: { requests: [search(2_000)] } } }]);
    expect(entered.steps.map((s) => s.action)).toEqual(['goto', 'fill', 'press Enter']);
    expect(entered.steps[2]!.note).toBe('Enter (inferred: GET /api/search followed the typing, with no click)');
  });
});

describe('a menu closed by a key', () => {
  it('is Escape when it closed with no click or typing since; closed by a click on its toggle, it is not', () => {
    const { el, page } = dom();
    const more = el('button', { 'aria-expanded': 'false' }, 'More');
    const opened = { type: 3, timestamp: t + 1_010, data: { source: 0, adds: [], removes: [], texts: [], attributes: [{ id: more.id, attributes: { 'aria-expanded': 'true' } }] } };
    const closed = (at: number) => ({ type: 3, timestamp: t + at, data: { source: 0, adds: [], removes: [], texts: [], attributes: [{ id: more.id, attributes: { 'aria-expanded': 'false' } }] } });
    const start = [meta('https://app.test/'), snapshot(page(more)), click(more.id, 1_000), opened];
    expect(spec([...start, closed(2_500)]).steps.map((s) => s.action)).toEqual(['goto', 'click', 'press Escape']);
    expect(spec([...start, click(more.id, 2_490), closed(2_500)]).steps.map((s) => s.action)).toEqual(['goto', 'click', 'click']);
  });
});

describe('Enter read from results appearing', () => {
  it('results added after the typing, with no request or click, are Enter; added while typing, or as suggestions, they are not', () => {
    const { el, page } = dom();
    const box = el('input', { type: 'search', name: 'q', 'aria-label': 'Filter' });
    const list = el('ul', {});
    const grow = (at: number, role?: string) => ({
      type: 3,
      timestamp: t + at,
      data: { source: 0, removes: [], texts: [], attributes: [], adds: [1, 2].map((k) => ({ parentId: list.id, nextId: null, node: { type: 2, id: 900 + at + k, tagName: 'li', attributes: role ? { role } : {}, childNodes: [] } })) },
    });
    const typing = [meta('https://app.test/'), snapshot(page(box, list)), input(box.id, 1_000, 'l'), input(box.id, 1_500, 'len')];
    const entered = spec([...typing, grow(2_200)]);
    expect(entered.steps.map((s) => s.action)).toEqual(['goto', 'fill', 'press Enter']);
    expect(entered.steps[2]!.note).toBe('Enter (inferred: results appeared after the typing, with no click)');
    expect(spec([...typing.slice(0, 3), grow(1_200), typing[3]!, grow(2_200)]).steps.map((s) => s.action)).toEqual(['goto', 'fill']);
    expect(spec([...typing, grow(2_200, 'option')]).steps.map((s) => s.action)).toEqual(['goto', 'fill']);
  });
});
