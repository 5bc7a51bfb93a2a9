// Records a person's session on a site through Debian's Chromium, with the real rrweb recorder
// configured as posthog-js starts it (masked inputs), and returns what PostHog would serve for
// it: `[windowId, rrweb event]` lines, plus the `$exception` events posthog-js would send beside
// the recording. Tests hand the result to the sandbox (option `recordings`).
//
// The console and network plugins are small stand-ins written here (the real ones live in
// @rrweb/rrweb-plugin-console-record and posthog-js, which this repo does not install): they are
// registered through rrweb's own plugin interface and emit the formats of docs/posthog-api.md, "What posthog-js sends"
// (`rrweb/console@1` {level, trace, payload: JSON strings}; `rrweb/network@1` {requests:
// [{name, entryType, initiatorType, method, status, startTime, endTime, timeOrigin, timestamp,
// requestBody}]}), request bodies included, as posthog-js records them when body capture is on.
// To record with posthog-js itself instead (as scripts/record-fixtures/sdk.mjs does for the
// committed fixture, posthog-js being a pinned devDependency), only this file changes: load
// node_modules/posthog-js/dist/array.full.js in each page in place of rrweb and GLUE, init it with
// an api_host served by sdk.mjs's ingestion stand-in (replay, console and network capture on in its
// remote config), and return what the stand-in collected as `lines` (the /s/ snapshots) and
// `captured` (the $exception events); the tests and the sandbox option `recordings` stay as they are.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from './chromium.js';

export { CHROMIUM };

export type RecordedLine = [string, { type: number; timestamp: number; data: unknown }];
export interface CapturedEvent {
  event: string;
  timestamp: number;
  properties: Record<string, unknown>;
}

export interface RecordedSession {
  sessionId: string;
  lines: RecordedLine[];
  captured: CapturedEvent[];
}

/** What the person does: move to an element and click it, type into a field like a person. */
export interface Person {
  click(page: Page, selector: string): Promise<void>;
  type(page: Page, selector: string, text: string): Promise<void>;
  choose(page: Page, selector: string, value: string): Promise<void>;
}

const GLUE = `
(function () {
  if (window.top !== window || !window.rrweb || !/^https?:$/.test(location.protocol)) return;
  var ship = window.__reproShip;
  function emit(event) { try { ship(event); } catch (e) {} }
  var consolePlugin = {
    name: 'rrweb/console@1',
    observer: function (cb) {
      // 'assert' too, passed or failed, its condition first (as some recorders keep them), and
      // uncaught errors as rrweb's console plugin records them: level error, "Uncaught …".
      ['log', 'info', 'warn', 'error', 'assert'].forEach(function (level) {
        var original = console[level];
        console[level] = function () {
          var args = Array.prototype.slice.call(arguments);
          try { cb({ level: level, trace: [], payload: args.map(function (a) { try { return JSON.stringify(a); } catch (e) { return String(a); } }) }); } catch (e) {}
          return original.apply(this, arguments);
        };
      });
      window.addEventListener('error', function (event) {
        try { cb({ level: 'error', trace: [], payload: [JSON.stringify(event.message)] }); } catch (e) {}
      });
      return function () {};
    },
    options: {},
  };
  var networkPlugin = {
    name: 'rrweb/network@1',
    observer: function (cb) {
      var original = window.fetch;
      window.fetch = function (input, init) {
        var startTime = performance.now();
        var timestamp = Date.now();
        var method = ((init && init.method) || (input instanceof Request ? input.method : 'GET')).toUpperCase();
        var name = new URL(typeof input === 'string' ? input : input.url, location.href).href;
        var requestBody = init && typeof init.body === 'string' ? init.body : undefined;
        function report(status, error) {
          var entry = { name: name, entryType: 'resource', initiatorType: 'fetch', method: method, status: status, startTime: startTime, endTime: performance.now(), timeOrigin: performance.timeOrigin, timestamp: timestamp, requestBody: requestBody };
          if (error) entry.isFailed = true;
          cb({ requests: [entry] });
        }
        return original.apply(this, arguments).then(function (response) { report(response.status); return response; }, function (error) { report(0, true); throw error; });
      };
      return function () { window.fetch = original; };
    },
    options: {},
  };
  // posthog-js's defaults (LazyLoadedSessionRecording): every input masked, passwords too (unless a
  // test records as a recorder configured to keep typed text in clear: maskAllInputs false).
  window.rrweb.record({
    emit: emit,
    plugins: [consolePlugin, networkPlugin],
    recordAfter: 'DOMContentLoaded',
    blockClass: 'ph-no-capture',
    ignoreClass: 'ph-ignore-input',
    maskTextClass: 'ph-mask',
    maskAllInputs: MASK_ALL_INPUTS,
    maskInputOptions: { password: true },
    inlineStylesheet: true,
    recordCrossOriginIframes: false,
  });
})();
`;

let rrwebSource: string | undefined;
function recorderScript(maskAllInputs: boolean): string {
  rrwebSource ??= readFileSync(fileURLToPath(new URL('../../node_modules/rrweb/dist/rrweb.umd.min.cjs', import.meta.url)), 'utf8');
  return `${rrwebSource};\n${GLUE.replace('MASK_ALL_INPUTS', String(maskAllInputs))}`;
}

/**
 * Opens `host` (served at `siteUrl`, reached by that name through Chromium's resolver, so the
 * recording names the host a real site has) and lets `drive` act as the person.
 */
export async function recordSession(options: { siteUrl: string; host: string; drive: (page: Page, person: Person) => Promise<void>; /** false: typed text in clear, as recorders configured so keep it (posthog-js masks it by default). */ maskAllInputs?: boolean }): Promise<RecordedSession> {
  const { chromium } = await import('playwright-core');
  const port = new URL(options.siteUrl).port;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS, `--host-resolver-rules=MAP ${options.host} 127.0.0.1:${port}`] });
  const sessionId = randomUUID();
  const lines: RecordedLine[] = [];
  const captured: CapturedEvent[] = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const windows = new Map<Page, string>();
    const windowOf = (page: Page) => {
      let id = windows.get(page);
      if (!id) windows.set(page, (id = randomUUID()));
      return id;
    };
    await context.exposeBinding('__reproShip', ({ page }, event: RecordedLine[1]) => {
      lines.push([windowOf(page), event]);
    });
    await context.addInitScript(recorderScript(options.maskAllInputs !== false));
    const watch = (page: Page) => {
      // posthog-js sends uncaught exceptions as $exception events, beside the recording, marked
      // mechanism.handled false as its onerror handler marks them (docs/posthog-exceptions.md).
      page.on('pageerror', (error) => {
        captured.push({
          event: '$exception',
          timestamp: Date.now(),
          properties: { $exception_type: error.name, $exception_message: error.message, $exception_list: [{ type: error.name, value: error.message, mechanism: { handled: false, synthetic: false } }], $window_id: windowOf(page), $session_id: sessionId },
        });
      });
    };
    context.on('page', watch);
    const page = await context.newPage();
    const person: Person = {
      async click(p, selector) {
        const target = p.locator(selector);
        await target.waitFor({ state: 'visible' });
        const box = (await target.boundingBox())!;
        await p.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 4 });
        await p.mouse.down();
        await p.mouse.up();
        await p.waitForTimeout(150);
      },
      async type(p, selector, text) {
        await person.click(p, selector);
        await p.keyboard.type(text, { delay: 20 });
        await p.waitForTimeout(100);
      },
      async choose(p, selector, value) {
        await person.click(p, selector);
        await p.locator(selector).selectOption(value);
        await p.waitForTimeout(100);
      },
    };
    await options.drive(page, person);
    // rrweb ships as it goes; a moment for the last events to cross the binding.
    await page.waitForTimeout(300);
    await context.close();
  } finally {
    await browser.close();
  }
  lines.sort((a, b) => a[1].timestamp - b[1].timestamp);
  return { sessionId, lines, captured };
}
