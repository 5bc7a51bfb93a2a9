// Placeholders the page accepts and keep nothing of the person's: dates inside a field's bounds,
// counted from the day the test runs where the page counted them from the day it was recorded;
// numbers, times and text inside min, max, step, pattern and length; a select's choice as the page
// holds it (by label where its options have no value) that is not the person's unless the journey
// needs it; a search that finds the result the person clicked; no typed word of any length.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { renderSpec } from '../src/reproduce/code.js';
import { fromPattern } from '../src/reproduce/fields.js';
import { Reproducer } from '../src/reproduce/session.js';
import { dom, type Node } from './support/rrweb-dom.js';

// 2023-11-14T22:13:20Z: the recording's day is 2023-11-14.
const t = 1_700_000_000_000;
const meta = (href: string, at = 0) => ({ type: 4, timestamp: t + at, data: { href } });
const snapshot = (node: Node, at = 1) => ({ type: 2, timestamp: t + at, data: { node } });
const click = (id: number, at: number) => ({ type: 3, timestamp: t + at, data: { source: 2, type: 2, id } });
const input = (id: number, at: number, text: string) => ({ type: 3, timestamp: t + at, data: { source: 5, id, text } });
const added = (parentId: number, node: Node, at: number) => ({ type: 3, timestamp: t + at, data: { source: 0, adds: [{ parentId, nextId: null, node }], removes: [], texts: [], attributes: [] } });

function spec(events: Array<{ type: number; timestamp: number; data: unknown }>) {
  const r = new Reproducer();
  for (const e of events) r.push('w', e);
  const out = renderSpec(r.finish(), { recordingId: 'r', projectId: '1', copyTypedValues: false });
  const diagnostics = ts.transpileModule(out.code, { reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).diagnostics ?? [];
  expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  return out;
}

describe('dates the page accepts', () => {
  it("a date whose min was the recording's day is counted from the run's day, as far past min as the recorded one", () => {
    for (const [recorded, expression] of [
      ['2023-11-17', 'fromToday(3)'],
      ['**********', 'fromToday(0)'],
    ] as const) {
      const { el, page } = dom();
      const day = el('input', { type: 'date', name: 'day', min: '2023-11-14', max: '2024-02-14', 'aria-label': 'Day' });
      const book = el('button', {}, 'Book');
      const out = spec([meta('https://tables.test/book'), snapshot(page(day, book)), input(day.id, 100, recorded), click(book.id, 200)]);
      expect(out.code).toContain(`const REPRO_DAY = process.env.REPRO_DAY ?? ${expression};`);
      expect(out.code).toContain('const fromToday = (days: number, months = 0): string => {');
      expect(out.placeholders[0]).toMatchObject({ env: 'REPRO_DAY', default: expression, expression });
      expect(out.code).not.toContain('2024-01-01');
      expect(JSON.stringify(out)).not.toContain('2023-11-17');
    }
  });

  it('never the date the person gave: a birthday far from any bound, or a day past a fixed min, is not written', () => {
    const { el, page } = dom();
    const born = el('input', { type: 'date', name: 'born', 'aria-label': 'Born' });
    const since = el('input', { type: 'date', name: 'since', min: '2001-01-01', 'aria-label': 'Customer since' });
    const go = el('button', {}, 'Go');
    const out = spec([meta('https://tables.test/me'), snapshot(page(born, since, go)), input(born.id, 100, '1985-04-12'), input(since.id, 150, '2009-06-30'), click(go.id, 200)]);
    expect(out.code).toContain('const REPRO_BORN = process.env.REPRO_BORN ?? fromToday(0);');
    expect(out.code).toContain("const REPRO_SINCE = process.env.REPRO_SINCE ?? '2001-01-01';");
    expect(JSON.stringify(out)).not.toMatch(/1985|2009/);
  });

  it('a fixed min stays a fixed date inside the bounds; a datetime and a month are counted like a date', () => {
    const { el, page } = dom();
    const from = el('input', { type: 'date', name: 'from', min: '2020-03-01', 'aria-label': 'From' });
    const at = el('input', { type: 'datetime-local', name: 'at', min: '2023-11-14T09:00', 'aria-label': 'At' });
    const month = el('input', { type: 'month', name: 'month', min: '2023-12', 'aria-label': 'Month' });
    const go = el('button', {}, 'Go');
    const out = spec([meta('https://tables.test/book'), snapshot(page(from, at, month, go)), input(from.id, 100, '**********'), input(at.id, 150, '****************'), input(month.id, 170, '*******'), click(go.id, 200)]);
    expect(out.code).toContain("const REPRO_FROM = process.env.REPRO_FROM ?? '2020-03-01';");
    expect(out.code).toContain('const REPRO_AT = process.env.REPRO_AT ?? `${fromToday(0)}T23:59`;');
    expect(out.code).toContain('const REPRO_MONTH = process.env.REPRO_MONTH ?? fromToday(0, 1).slice(0, 7);');
  });
});

describe('numbers, times and text inside their constraints', () => {
  it('min, max, step, pattern and maxlength are met', () => {
    const { el, page } = dom();
    const guests = el('input', { type: 'number', name: 'guests', min: '2', max: '12', step: '2', 'aria-label': 'Guests' });
    const volume = el('input', { type: 'range', name: 'volume', min: '10', max: '20', 'aria-label': 'Volume' });
    const time = el('input', { type: 'time', name: 'time', min: '18:00', max: '22:00', 'aria-label': 'Time' });
    const ref = el('input', { name: 'ref', pattern: '[A-Z]{2}-[0-9]{4}', 'aria-label': 'Reference' });
    const initials = el('input', { name: 'initials', maxlength: '3', 'aria-label': 'Your name' });
    const go = el('button', {}, 'Go');
    const fields = [guests, volume, time, ref, initials];
    const out = spec([meta('https://tables.test/book'), snapshot(page(...fields, go)), ...fields.map((f, i) => input(f.id, 100 + i * 10, '****')), click(go.id, 300)]);
    expect(out.placeholders.map((p) => [p.env, p.default])).toEqual([
      ['REPRO_GUESTS', '2'],
      ['REPRO_VOLUME', '10'],
      ['REPRO_TIME', '18:00'],
      ['REPRO_REF', 'AA-0000'],
      ['REPRO_INITIALS', 'tes'],
    ]);
  });

  it('builds the shortest value of a simple pattern, and gives up on one it cannot read', () => {
    expect(fromPattern('\\d{5}(-\\d{4})?')).toBe('11111');
    expect(fromPattern('(?:GB|FR)[0-9]{2}')).toBe('GB00');
    expect(fromPattern('[a-z]+@corp\\.test')).toBe('a@corp.test');
    expect(fromPattern('(?=x)y')).toBeUndefined();
  });
});

describe('selects as the page holds them', () => {
  it('options without a value are chosen by label, never the recorded one nor an empty string', () => {
    const { el, page } = dom();
    const size = el('select', { name: 'size', 'aria-label': 'Size' }, el('option', {}, 'Pick a size'), el('option', {}, 'Small'), el('option', { disabled: '' }, 'Medium'), el('option', {}, 'Large'));
    const add = el('button', {}, 'Add to bag');
    const out = spec([meta('https://wear.test/p/7'), snapshot(page(size, add)), input(size.id, 100, 'Small'), click(add.id, 200)]);
    expect(out.code).toContain(".selectOption({ label: REPRO_SIZE });");
    expect(out.code).toContain("const REPRO_SIZE = process.env.REPRO_SIZE ?? 'Large';");
    expect(out.code).not.toContain("selectOption('')");
  });

  it("the person's country is not the default; a choice that brought the next field is kept, and said so", () => {
    const { el, page } = dom();
    const us = el('option', { value: 'US' }, 'United States');
    const country = el('select', { name: 'country', 'aria-label': 'Country' }, el('option', { value: '' }, 'Choose…'), us, el('option', { value: 'PT' }, 'Portugal'));
    const form = el('form', {}, country);
    const send = el('button', {}, 'Send');
    // Without anything after the choice, the first option other than the recorded one.
    const plain = spec([meta('https://wear.test/address'), snapshot(page(form, send)), input(country.id, 100, 'PT'), click(send.id, 200)]);
    expect(plain.code).toContain("const REPRO_COUNTRY = process.env.REPRO_COUNTRY ?? 'US';");
    // The choice adds a state field, which the person then fills: the recorded option is needed.
    const d2 = dom();
    const country2 = d2.el('select', { name: 'country', 'aria-label': 'Country' }, d2.el('option', { value: '' }, 'Choose…'), d2.el('option', { value: 'US' }, 'United States'), d2.el('option', { value: 'PT' }, 'Portugal'));
    const form2 = d2.el('form', {}, country2);
    const doc = d2.page(form2);
    const state: Node = { type: 2, id: 500, tagName: 'input', attributes: { name: 'district', 'aria-label': 'District' }, childNodes: [] };
    const needed = spec([meta('https://wear.test/address'), snapshot(doc), input(country2.id, 100, 'PT'), added(form2.id, state, 120), input(500, 200, '*****')]);
    expect(needed.code).toContain("const REPRO_COUNTRY = process.env.REPRO_COUNTRY ?? 'PT';");
    expect(needed.code).toContain('the recorded option: what the journey did next depends on it');
  });
});

describe('a search that finds what the person clicked', () => {
  it("defaults the search to a word of the clicked result's text, never a typed one", () => {
    const { el, page } = dom();
    const q = el('input', { type: 'search', name: 'q', 'aria-label': 'Search' });
    const go = el('button', { type: 'submit' }, 'Search');
    const results = el('ul', {});
    const d2 = dom();
    const hit = d2.el('a', { href: '/books/88' }, 'The Lighthouse Keeper of Orkney');
    const other = d2.el('a', { href: '/books/89' }, 'Keeper of bees');
    const out = spec([
      meta('https://books.test/'),
      snapshot(page(q, go, results)),
      input(q.id, 100, 'keeper'),
      click(go.id, 200),
      meta('https://books.test/search?q=keeper', 300),
      snapshot(d2.page(hit, other), 301),
      click(hit.id, 400),
      meta('https://books.test/books/88', 500),
    ]);
    expect(out.code).toContain("const REPRO_Q = process.env.REPRO_Q ?? 'Lighthouse';");
    expect(out.code.toLowerCase()).not.toContain('keeper');
  });

  it('a search opened by its address (a link, a bookmark), then a result clicked: the query defaults to a word of the result', () => {
    const { el, page } = dom();
    const hit = el('a', { href: '/books/88' }, 'The Lighthouse Keeper of Orkney');
    const out = spec([meta('https://books.test/search?q=keeper&page=2'), snapshot(page(hit)), click(hit.id, 400), meta('https://books.test/books/88', 500)]);
    expect(out.code).toContain("new URLSearchParams([['q', REPRO_Q], ['page', REPRO_PAGE]])");
    expect(out.code).toContain("const REPRO_Q = process.env.REPRO_Q ?? 'Lighthouse';");
    expect(out.code.toLowerCase()).not.toContain('keeper');
  });
});

describe('no part of a typed value, however short', () => {
  it('"QA" typed and "QA Bot" shown: the heading is not asserted and no selector names it', () => {
    const { el, page } = dom();
    const name = el('input', { name: 'botname', 'aria-label': 'Bot name' });
    const create = el('button', {}, 'Create');
    const d2 = dom();
    const heading = d2.el('h1', {}, 'QA Bot');
    const edit = d2.el('button', {}, 'Edit QA Bot');
    const out = spec([meta('https://bots.test/new'), snapshot(page(name, create)), input(name.id, 100, 'QA'), click(create.id, 200), meta('https://bots.test/bots/1', 300), snapshot(d2.page(heading, edit), 301), click(edit.id, 400)]);
    expect(out.code).not.toMatch(/\bQA\b/i);
    expect(out.asserts.map((a) => a.kind)).toEqual(['final-url']);
    // Console text the test quotes is scrubbed the same way.
    const logged = spec([meta('https://bots.test/new'), snapshot(page(name, create)), input(name.id, 100, 'QA'), click(create.id, 200), { type: 6, timestamp: t + 250, data: { plugin: 'rrweb/console@1', payload: { level: 'error', trace: [], payload: ['"Could not create QA Bot"'] } } }]);
    expect(logged.asserts.map((a) => a.says)).toEqual(['console error "Could not create … Bot" in the recording after step 3']);
    expect(logged.code).not.toMatch(/\bQA\b/i);
    // Two letters inside a word are not the person's: a page saying "Aqua" is still named.
    const d3 = dom();
    const aqua = d3.el('button', {}, 'Aqua theme');
    const kept = spec([meta('https://bots.test/new'), snapshot(d3.page(d3.el('input', { name: 'botname', 'aria-label': 'Bot name' }), aqua)), input(3 - 2, 100, 'QA'), click(aqua.id, 200)]);
    expect(kept.code).toContain("getByRole('button', { name: 'Aqua theme', exact: true })");
  });
});

describe('the test takes what it uses', () => {
  it('destructures context only when it waits on a request or a tab', () => {
    const { el, page } = dom();
    const go = el('button', {}, 'Go');
    const quiet = spec([meta('https://bots.test/'), snapshot(page(go)), click(go.id, 100)]);
    expect(quiet.code).toContain('async ({ page }) => {');
    const failing = spec([meta('https://bots.test/'), snapshot(page(go)), click(go.id, 100), { type: 6, timestamp: t + 150, data: { plugin: 'rrweb/network@1', payload: { requests: [{ name: 'https://bots.test/api/go', method: 'POST', status: 500, timestamp: t + 150 }] } } }]);
    expect(failing.code).toContain('async ({ page, context }) => {');
  });
});
