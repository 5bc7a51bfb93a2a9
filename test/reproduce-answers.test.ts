// What rrweb does not record, read from what followed a step, on sites of our own served on
// 127.0.0.1 in two variants (behaving as recorded, and broken or fixed): a confirm() the person
// accepted (the DELETE it let through) or dismissed (nothing followed), Enter in a search box (a
// request after typing, no click) and in a filter (results appearing, no request), Escape closing
// a menu (it closed with no click), a failed console.assert 3 s after a click (the wait comes from
// the recording), a sign-up whose request answers 500, or 200 with the page saying it failed,
// with nothing else changing (the end check asserts the journey's request and the message shown),
// and a blog visit that leaves for another site (the end check asserts the page reached there).
// Recordings are rrweb events built here, turned into a spec by the Reproducer, and run with
// @playwright/test in Debian's Chromium.
import { existsSync } from 'node:fs';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSpec } from '../src/reproduce/code.js';
import { Reproducer } from '../src/reproduce/session.js';
import { page as htmlPage, serveSite, type Routes, type ServedSite } from './fixtures/sites/serve.js';
import { runSpec } from './reproduce/run-spec.js';
import { CHROMIUM } from './support/record-session.js';
import { dom, type Node } from './support/rrweb-dom.js';

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`reproduce answers browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);

type Event = { type: number; timestamp: number; data: unknown };
const t = 1_700_000_000_000;
const meta = (href: string, at = 0): Event => ({ type: 4, timestamp: t + at, data: { href } });
const snapshot = (node: Node, at = 1): Event => ({ type: 2, timestamp: t + at, data: { node } });
const click = (id: number, at: number): Event => ({ type: 3, timestamp: t + at, data: { source: 2, type: 2, id } });
const input = (id: number, at: number, text: string): Event => ({ type: 3, timestamp: t + at, data: { source: 5, id, text, isChecked: false } });
const mutation = (at: number, change: { removes?: Array<{ parentId: number; id: number }>; texts?: Array<{ id: number; value: string }>; attributes?: Array<{ id: number; attributes: Record<string, string | null> }> }): Event => ({ type: 3, timestamp: t + at, data: { source: 0, adds: [], removes: [], texts: [], attributes: [], ...change } });
const consoleLog = (level: string, payload: string[], at: number): Event => ({ type: 6, timestamp: t + at, data: { plugin: 'rrweb/console@1', payload: { level, trace: [], payload } } });
/** posthog-js's network capture sends its records in batches, after the steps that follow. */
const network = (flushedAt: number, requests: Array<{ url: string; method: string; status: number; at: number }>): Event => ({
  type: 6,
  timestamp: t + flushedAt,
  data: { plugin: 'rrweb/network@1', payload: { requests: requests.map((r) => ({ name: r.url, method: r.method, responseStatus: r.status, timestamp: t + r.at, initiatorType: 'fetch', entryType: 'resource' })) } },
});

function generate(events: Event[]) {
  const r = new Reproducer();
  for (const e of events) r.push('w', e);
  const out = renderSpec(r.finish(), { recordingId: 'answers', projectId: '1', copyTypedValues: false });
  const diagnostics = ts.transpileModule(out.code, { reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).diagnostics ?? [];
  expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  return out;
}

const NOTES_SCRIPT = `
document.getElementById('delete-3').addEventListener('click', async () => {
  if (!confirm('Delete this note?')) return;
  const r = await fetch('/api/notes/3', { method: 'DELETE' });
  if (!r.ok) { console.error('Delete failed: the server answered ' + r.status); return; }
  document.getElementById('note-3').remove();
  document.getElementById('status').textContent = 'Note deleted';
});`;

/** A notes page whose Delete asks confirm() first; its DELETE answers `status`. */
function notesSite(status: number): Routes {
  return {
    'GET /': htmlPage('Notes', '<h1>Notes</h1><ul><li id="note-3">Water the plants <button type="button" id="delete-3">Delete</button></li></ul><p id="status" role="status"></p>', NOTES_SCRIPT),
    'DELETE /api/notes/3': { status, type: 'text/plain', body: status < 400 ? '' : 'database is locked' },
  };
}

/** The notes page as the recording's full snapshot holds it. */
function notesDom() {
  const { el, page } = dom();
  const del = el('button', { type: 'button', id: 'delete-3' }, 'Delete');
  const note = el('li', { id: 'note-3' }, 'Water the plants ', del);
  const list = el('ul', {}, note);
  const status = el('p', { id: 'status', role: 'status' });
  return { del, note, list, status, doc: page(el('h1', {}, 'Notes'), list, status) };
}

const SEARCH_SCRIPT = `
const box = document.querySelector('input[name=q]');
box.addEventListener('keydown', async (e) => {
  if (e.key !== 'Enter') return;
  const r = await fetch('/api/search?q=' + encodeURIComponent(box.value));
  if (!r.ok) { console.error('Search failed: the server answered ' + r.status); return; }
  const found = await r.json();
  document.getElementById('results').replaceChildren(...found.map((name) => Object.assign(document.createElement('li'), { textContent: name })));
});`;

/** Recipes searched in place: Enter in the box fetches the results, no form, no button. */
function searchSite(status: number): Routes {
  return {
    'GET /': htmlPage('Recipes', '<h1>Recipes</h1><input type="search" name="q" aria-label="Search recipes"><ul id="results"></ul>', SEARCH_SCRIPT),
    'GET /api/search': { status, type: 'application/json', body: status < 400 ? '["Red lentil dal"]' : '{"error":"index offline"}' },
  };
}

/** A dashboard whose Refresh checks its totals 3 s later (a slow report), failing the check when broken. */
function dashboardSite(broken: boolean): Routes {
  const script = `document.getElementById('refresh').addEventListener('click', () => { setTimeout(() => console.assert(${broken ? 'false' : 'true'}, 'totals reconcile after refresh'), 3000); });`;
  return { 'GET /': htmlPage('Dashboard', '<h1>Dashboard</h1><button type="button" id="refresh">Refresh</button>', script) };
}

const LETTERS_SCRIPT = `
document.getElementById('signup').addEventListener('submit', async (e) => {
  e.preventDefault();
  const r = await fetch('/api/newsletter', { method: 'POST', body: new FormData(e.target) });
  const ok = r.ok && (await r.json()).ok === true;
  document.getElementById('msg').textContent = ok ? 'You are on the list' : 'Please try again later';
});`;

/** A newsletter sign-up whose POST answers `status` (and `ok` in its body); the page's URL and heading stay as they are either way. */
function lettersSite(status: number, ok = status < 400): Routes {
  return {
    'GET /': htmlPage('Letters', '<h1>Letters</h1><form id="signup"><label for="email">Email</label><input id="email" name="email" type="email"><button type="submit">Subscribe</button></form><p id="msg"></p>', LETTERS_SCRIPT),
    'POST /api/newsletter': { status, type: 'application/json', body: JSON.stringify({ ok }) },
  };
}

/** Parts filtered in place on Enter, with no request; broken, filtering logs an error. */
function partsSite(broken: boolean): Routes {
  const script = `
const box = document.querySelector('input[name=filter]');
box.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  const all = ['Hex bolt', 'Hex nut', 'Washer'];
  document.getElementById('parts').replaceChildren(...all.filter((p) => p.toLowerCase().includes(box.value.toLowerCase())).map((p) => Object.assign(document.createElement('li'), { textContent: p })));
  ${broken ? "console.error('Filter index out of date');" : ''}
});`;
  return { 'GET /': htmlPage('Parts', '<h1>Parts</h1><input type="search" name="filter" aria-label="Filter parts"><ul id="parts"></ul>', script) };
}

/** A settings page whose More menu closes on Escape; broken, closing it logs an error. */
function menuSite(broken: boolean): Routes {
  const script = `
const more = document.getElementById('more');
const menu = document.getElementById('menu');
more.addEventListener('click', () => { more.setAttribute('aria-expanded', 'true'); menu.hidden = false; });
document.addEventListener('keydown', (e) => {
  if (e.key !== 'Escape' || more.getAttribute('aria-expanded') !== 'true') return;
  more.setAttribute('aria-expanded', 'false');
  menu.hidden = true;
  ${broken ? "console.error('Menu closed without returning focus');" : 'more.focus();'}
});`;
  return { 'GET /': htmlPage('Settings', '<h1>Settings</h1><button type="button" id="more" aria-expanded="false">More</button><ul id="menu" role="menu" hidden><li role="menuitem">Export</li></ul>', script) };
}

/** A blog whose essay link leads to another site (`essays`: that site's address as the test serves it), at `path` there. */
function blogSite(essays: string, path: string): Routes {
  return { 'GET /': htmlPage('Field notes', `<h1>Field notes</h1><a href="${essays}${path}">Read the essay on Tides Weekly</a>`) };
}

describe.skipIf(!hasChromium)('specs that answer dialogs, press Enter, wait for late failures and check the journey’s request, run in Chromium', () => {
  const sites: Record<string, ServedSite> = {};
  beforeAll(async () => {
    const entries = await Promise.all(
      Object.entries({
        notesBroken: notesSite(500),
        notesFixed: notesSite(204),
        searchBroken: searchSite(500),
        searchFixed: searchSite(200),
        dashboardBroken: dashboardSite(true),
        dashboardFixed: dashboardSite(false),
        lettersBroken: lettersSite(500),
        lettersFixed: lettersSite(200),
        lettersRefused: lettersSite(200, false),
        menuBroken: menuSite(true),
        partsBroken: partsSite(true),
        partsFixed: partsSite(false),
        menuFixed: menuSite(false),
      }).map(async ([name, routes]) => [name, await serveSite(routes)] as const),
    );
    for (const [name, site] of entries) sites[name] = site;
    // Another origin (localhost, not 127.0.0.1) plays the other site the blog links to.
    const essays = await serveSite({ 'GET /essays/tides': htmlPage('Tides', '<h1>Tides</h1>') });
    sites.essays = essays;
    const elsewhere = essays.url.replace('127.0.0.1', 'localhost');
    sites.blogGood = await serveSite(blogSite(elsewhere, '/essays/tides'));
    sites.blogMoved = await serveSite(blogSite(elsewhere, '/essays/'));
  });
  afterAll(async () => {
    await Promise.all(Object.values(sites).map((s) => s.close()));
  });

  it('a confirmed delete that failed: the spec accepts the confirm, fails on the DELETE where the session did, passes fixed', async () => {
    const { del, doc } = notesDom();
    const out = generate([
      meta('https://notes.test/'),
      snapshot(doc),
      click(del.id, 1_000),
      consoleLog('error', ['"Delete failed: the server answered 500"'], 2_600),
      network(5_000, [{ url: 'https://notes.test/api/notes/3', method: 'DELETE', status: 500, at: 2_500 }]),
    ]);
    expect(out.code).toContain('// A dialog this step shows is accepted: DELETE /api/notes/3 followed it in the recording.');
    expect(out.asserts[0]!.says).toBe('DELETE /api/notes/3 answered 500 in the recording (step 2)');
    const broken = await runSpec(out, sites.notesBroken!.url);
    expect(broken.status).toBe('failed');
    expect(broken.message).toContain('DELETE /api/notes/3 answered 500 in the recording (step 2)');
    expect(sites.notesBroken!.requests).toContain('DELETE /api/notes/3');
    const fixed = await runSpec(out, sites.notesFixed!.url);
    expect(fixed, fixed.message).toMatchObject({ status: 'passed' });
  }, 120_000);

  it('a confirmed delete that worked: the end check is the DELETE, so a 500 fails the spec (dismissing would have passed it)', async () => {
    const { del, note, list, doc } = notesDom();
    const out = generate([
      meta('https://notes.test/'),
      snapshot(doc),
      click(del.id, 1_000),
      mutation(2_600, { removes: [{ parentId: list.id, id: note.id }] }),
      network(5_000, [{ url: 'https://notes.test/api/notes/3', method: 'DELETE', status: 204, at: 2_500 }]),
    ]);
    expect(out.asserts.map((a) => a.kind)).toEqual(['final-request', 'final-url', 'final-heading']);
    expect(out.asserts[0]!.says).toBe("DELETE /api/notes/3 answered 204 in the recording: the journey's request must succeed");
    const broken = await runSpec(out, sites.notesBroken!.url);
    expect(broken.status).toBe('failed');
    expect(broken.message).toContain("DELETE /api/notes/3 answered 204 in the recording: the journey's request must succeed");
    // The bug this fixes: the same journey with the confirm dismissed (Playwright's default) and no request
    // awaited sends no DELETE, and passes on the broken site.
    const dismissing = out.code.replace("answer: 'accept' as", "answer: 'dismiss' as").replace(/\n {2}const journey = [^\n]*\n/, '\n').replace(/\n {2}expect\(\(await journey\)[^\n]*\n/, '\n');
    expect(dismissing).not.toMatch(/const journey|await journey|answer: 'accept'/);
    expect(await runSpec({ ...out, code: dismissing }, sites.notesBroken!.url)).toMatchObject({ status: 'passed' });
    const fixed = await runSpec(out, sites.notesFixed!.url);
    expect(fixed, fixed.message).toMatchObject({ status: 'passed' });
  }, 120_000);

  it('a delete the person dismissed (nothing followed): the spec dismisses, and no DELETE is sent', async () => {
    const { del, doc } = notesDom();
    const out = generate([meta('https://notes.test/'), snapshot(doc), click(del.id, 1_000), consoleLog('log', ['"still here"'], 4_000)]);
    expect(out.code).toContain('// A dialog this step shows is dismissed: nothing followed it in the recording.');
    expect(out.code).toContain("dialogs.answer = 'dismiss';");
    const before = sites.notesFixed!.requests.filter((r) => r === 'DELETE /api/notes/3').length;
    const run = await runSpec(out, sites.notesFixed!.url);
    expect(run, run.message).toMatchObject({ status: 'passed' });
    expect(sites.notesFixed!.requests.filter((r) => r === 'DELETE /api/notes/3').length).toBe(before);
  }, 120_000);

  it('a search sent with Enter (a request after typing, no click): the spec presses Enter, fails on the failed search, passes fixed', async () => {
    const { el, page } = dom();
    const box = el('input', { type: 'search', name: 'q', 'aria-label': 'Search recipes' });
    const results = el('ul', { id: 'results' });
    const out = generate([
      meta('https://recipes.test/'),
      snapshot(page(el('h1', {}, 'Recipes'), box, results)),
      input(box.id, 1_000, 'l'),
      input(box.id, 1_300, 'lentil soup'),
      network(4_000, [{ url: 'https://recipes.test/api/search?q=lentil+soup', method: 'GET', status: 500, at: 2_100 }]),
      consoleLog('error', ['"Search failed: the server answered 500"'], 2_150),
    ]);
    expect(out.steps.map((s) => s.action)).toEqual(['goto', 'fill', 'press Enter']);
    expect(out.code).toContain("await page.getByRole('searchbox', { name: 'Search recipes', exact: true }).press('Enter');");
    expect(out.code.toLowerCase()).not.toMatch(/lentil|soup/);
    expect(out.asserts[0]!.says).toBe('GET /api/search answered 500 in the recording (step 3)');
    const broken = await runSpec(out, sites.searchBroken!.url);
    expect(broken.status).toBe('failed');
    expect(broken.message).toContain('GET /api/search answered 500 in the recording (step 3)');
    const fixed = await runSpec(out, sites.searchFixed!.url);
    expect(fixed, fixed.message).toMatchObject({ status: 'passed' });
  }, 120_000);

  it('a failed console.assert 3 s after the click is waited for (3 s x1.5 + 2 s) and caught; fixed, the spec passes', async () => {
    const { el, page } = dom();
    const refresh = el('button', { type: 'button', id: 'refresh' }, 'Refresh');
    const out = generate([meta('https://dash.test/'), snapshot(page(el('h1', {}, 'Dashboard'), refresh)), click(refresh.id, 1_000), consoleLog('assert', ['false', '"totals reconcile after refresh"'], 4_000)]);
    expect(out.code).toContain('await page.waitForTimeout(6500);');
    const broken = await runSpec(out, sites.dashboardBroken!.url);
    expect(broken.status).toBe('failed');
    expect(broken.message).toContain('failed console.assert "totals reconcile after refresh" in the recording after step 2');
    expect(broken.message).toContain('console.assert: totals reconcile after refresh');
    const fixed = await runSpec(out, sites.dashboardFixed!.url);
    expect(fixed, fixed.message).toMatchObject({ status: 'passed' });
  }, 120_000);

  it('a sign-up whose POST answers 500, or 200 with the page saying it failed, fails the spec, though the URL and heading stay the same; working, it passes', async () => {
    const { el, page } = dom();
    const email = el('input', { id: 'email', name: 'email', type: 'email' });
    const subscribe = el('button', { type: 'submit' }, 'Subscribe');
    const said = { type: 3, id: 900, textContent: '' };
    const msg = el('p', { id: 'msg' });
    msg.childNodes!.push(said);
    const out = generate([
      meta('https://letters.test/'),
      snapshot(page(el('h1', {}, 'Letters'), el('form', { id: 'signup' }, el('label', { for: 'email' }, 'Email'), email, subscribe), msg)),
      // posthog-js masks what is typed: one * a character.
      input(email.id, 1_000, '*****************'),
      click(subscribe.id, 2_000),
      mutation(2_400, { texts: [{ id: said.id, value: 'You are on the list' }] }),
      network(5_000, [{ url: 'https://letters.test/api/newsletter', method: 'POST', status: 200, at: 2_300 }]),
    ]);
    expect(out.steps.map((s) => s.action)).toEqual(['goto', 'fill', 'click']);
    expect(out.asserts.map((a) => [a.kind, a.says])).toEqual([
      ['final-request', "POST /api/newsletter answered 200 in the recording: the journey's request must succeed"],
      ['final-url', 'the journey ends at /'],
      ['final-heading', 'the heading "Letters" is visible'],
      // The message the page showed after the request: what proves the sign-up, never typed text.
      ['final-text', 'the page shows "You are on the list", as it did after the last step in the recording'],
    ]);
    const broken = await runSpec(out, sites.lettersBroken!.url);
    expect(broken.status).toBe('failed');
    expect(broken.message).toContain("POST /api/newsletter answered 200 in the recording: the journey's request must succeed");
    expect(broken.message).toMatch(/Received:\s+500/);
    // Answered 200 but refused: only the message the page shows tells.
    const refused = await runSpec(out, sites.lettersRefused!.url);
    expect(refused.status).toBe('failed');
    expect(refused.message).toContain('the page shows "You are on the list", as it did after the last step in the recording');
    const fixed = await runSpec(out, sites.lettersFixed!.url);
    expect(fixed, fixed.message).toMatchObject({ status: 'passed' });
  }, 120_000);

  it('a visit that leaves the blog for another site: the spec asserts the page reached there, not only that it left', async () => {
    const { el, page } = dom();
    const elsewhere = sites.essays!.url.replace('127.0.0.1', 'localhost');
    const link = el('a', { href: `${elsewhere}/essays/tides` }, 'Read the essay on Tides Weekly');
    const out = generate([meta('https://blog.test/'), snapshot(page(el('h1', {}, 'Field notes'), link)), click(link.id, 1_000), meta(`${elsewhere}/essays/tides`, 1_400)]);
    const says = `the last step goes to ${new URL(elsewhere).host}/essays/tides, as in the recording`;
    expect(out.asserts.map((a) => a.says)).toEqual([says]);
    const good = await runSpec(out, sites.blogGood!.url);
    expect(good, good.message).toMatchObject({ status: 'passed' });
    const moved = await runSpec(out, sites.blogMoved!.url);
    expect(moved.status).toBe('failed');
    expect(moved.message).toContain(says);
  }, 120_000);

  it('a menu closed with Escape (it closed with no click): the spec presses Escape, fails where closing logged an error, passes fixed', async () => {
    const { el, page } = dom();
    const more = el('button', { type: 'button', id: 'more', 'aria-expanded': 'false' }, 'More');
    const menu = el('ul', { id: 'menu', role: 'menu', hidden: '' }, el('li', { role: 'menuitem' }, 'Export'));
    const out = generate([
      meta('https://settings.test/'),
      snapshot(page(el('h1', {}, 'Settings'), more, menu)),
      click(more.id, 1_000),
      mutation(1_010, { attributes: [{ id: more.id, attributes: { 'aria-expanded': 'true' } }, { id: menu.id, attributes: { hidden: null } }] }),
      mutation(2_500, { attributes: [{ id: more.id, attributes: { 'aria-expanded': 'false' } }, { id: menu.id, attributes: { hidden: '' } }] }),
      consoleLog('error', ['"Menu closed without returning focus"'], 2_510),
    ]);
    expect(out.steps.map((s) => s.action)).toEqual(['goto', 'click', 'press Escape']);
    expect(out.code).toContain("await page.keyboard.press('Escape');");
    const broken = await runSpec(out, sites.menuBroken!.url);
    expect(broken.status).toBe('failed');
    expect(broken.message).toContain('console error "Menu closed without returning focus" in the recording after step 3');
    const fixed = await runSpec(out, sites.menuFixed!.url);
    expect(fixed, fixed.message).toMatchObject({ status: 'passed' });
  }, 120_000);

  it('a list filtered in place on Enter (results appeared after typing, no request, no click): the spec presses Enter, fails where filtering logged an error, passes fixed', async () => {
    const { el, page } = dom();
    const box = el('input', { type: 'search', name: 'filter', 'aria-label': 'Filter parts' });
    const parts = el('ul', { id: 'parts' });
    const shown = (at: number) => ({
      type: 3,
      timestamp: t + at,
      data: { source: 0, removes: [], texts: [], attributes: [], adds: [1, 2].map((k) => ({ parentId: parts.id, nextId: null, node: { type: 2, id: 800 + k, tagName: 'li', attributes: {}, childNodes: [] } })) },
    });
    const out = generate([
      meta('https://parts.test/'),
      snapshot(page(el('h1', {}, 'Parts'), box, parts)),
      input(box.id, 1_000, 'h'),
      input(box.id, 1_200, 'hex'),
      shown(1_900),
      consoleLog('error', ['"Filter index out of date"'], 1_905),
    ]);
    expect(out.steps.map((s) => s.action)).toEqual(['goto', 'fill', 'press Enter']);
    const broken = await runSpec(out, sites.partsBroken!.url);
    expect(broken.status).toBe('failed');
    expect(broken.message).toContain('console error "Filter index out of date" in the recording after step 3');
    const fixed = await runSpec(out, sites.partsFixed!.url);
    expect(fixed, fixed.message).toMatchObject({ status: 'passed' });
  }, 120_000);
});
