/* Starts the real rrweb recorder the way posthog-js does it.
 *
 * Mirrors posthog-js 1.449.2, lib/src/extensions/replay/external/lazy-loaded-session-recorder.js:
 *  - the rrweb options object `sessionRecordingOptions` (_startRecorder) with posthog's defaults,
 *    plus `recordAfter: 'DOMContentLoaded'`;
 *  - plugins: the console plugin called with no options (`recordConsolePlugin()`), then the
 *    network plugin `rrweb/network@1` (posthog-js's own, from dist/posthog-recorder.js);
 *  - the `$session_options` custom event sent right after rrweb starts;
 *  - `window hidden` / `window visible` custom events with payload {} on visibilitychange
 *    (_onVisibilityChange);
 *  - optionally the `$pageview` custom event {href} (the eventCaptured hook), when the scenario
 *    says the recorder was already running when posthog-js captured the initial $pageview;
 *  - truncateLargeConsoleLogs (sessionrecording-utils.js) on console plugin events;
 *  - nothing recorded after pagehide reaches the server (posthog flushes on pagehide; anything
 *    buffered after that flush is never sent).
 * Config comes from window.__FIXTURE_CONFIG__, set by the driver with an init script.
 */
(function () {
  var cfg = window.__FIXTURE_CONFIG__ || {};
  var ship = window.__phShip;
  var unloading = false;

  function truncateLargeConsoleLogs(event) {
    if (event && event.type === 6 && event.data && event.data.plugin === 'rrweb/console@1') {
      var p = event.data.payload.payload;
      if (p.length > 10) {
        p = p.slice(0, 10);
        p.push('...[truncated]');
      }
      event.data.payload.payload = p.map(function (s) {
        return s && s.length > 2000 ? s.slice(0, 2000) + '...[truncated]' : s;
      });
    }
    return event;
  }

  function emit(event) {
    if (unloading || typeof ship !== 'function') return;
    try {
      ship(truncateLargeConsoleLogs(event));
    } catch (e) {
      /* never break the page */
    }
  }

  // posthog-js defaults (LazyLoadedSessionRecording._startRecorder), with the scenario's
  // client-side `session_recording.maskAllInputs`.
  var sessionRecordingOptions = {
    blockClass: 'ph-no-capture',
    ignoreClass: 'ph-ignore-input',
    maskTextClass: 'ph-mask',
    maskAllInputs: cfg.maskAllInputs !== false,
    maskInputOptions: { password: true },
    maskAllElementAttributes: false,
    slimDOMOptions: {},
    collectFonts: false,
    inlineStylesheet: true,
    inlineStylesheetBudgetRules: 10000,
    recordCrossOriginIframes: false,
  };

  // posthog-js config.js buildNetworkRequestOptions, default (no maskCapturedNetworkRequestFn) path:
  // redact denied headers, drop posthog ingestion paths, then scrub bodies (bodies are not
  // recorded in these scenarios, so the scrub step has nothing to do and is left out).
  var HEADER_DENY = ['authorization', 'x-forwarded-for', 'cookie', 'set-cookie', 'x-api-key', 'x-real-ip',
    'remote-addr', 'forwarded', 'proxy-authorization', 'x-csrf-token', 'x-csrftoken', 'x-xsrf-token'];
  var HEADER_DENY_SUB = ['auth', 'token', 'secret', 'session', 'api-key', 'apikey', 'api_key', 'credential',
    'password', 'passwd', 'cookie', 'csrf', 'xsrf'];
  function redact(h) {
    if (!h) return;
    Object.keys(h).forEach(function (k) {
      var l = k.toLowerCase();
      if (HEADER_DENY.indexOf(l) !== -1 || HEADER_DENY_SUB.some(function (s) { return l.indexOf(s) !== -1; })) {
        h[k] = 'redacted';
      }
    });
  }
  function maskRequestFn(data) {
    redact(data.requestHeaders);
    redact(data.responseHeaders);
    try {
      var p = new URL(data.name, location.href).pathname;
      if (['/s/', '/e/', '/i/'].some(function (x) { return p.indexOf(x) === 0; })) return undefined;
    } catch (e) {}
    return data;
  }

  var plugins = [];
  var activePlugins = [];
  var consolePlugin = window.rrwebPluginConsoleRecord.getRecordConsolePlugin();
  plugins.push(consolePlugin);
  var net = cfg.network;
  var ext = window.__PosthogExtensions__ && window.__PosthogExtensions__.rrwebPlugins;
  if (net && ext && typeof ext.getRecordNetworkPlugin === 'function') {
    plugins.push(
      ext.getRecordNetworkPlugin({
        maskRequestFn: maskRequestFn,
        recordHeaders: !!net.recordHeaders,
        recordBody: !!net.recordBody,
        recordPerformance: !!net.recordPerformance,
        recordInitialRequests: !!net.recordPerformance,
        streamNetworkBody: false,
        captureFetchSynchronously: true,
      }),
    );
  }
  plugins.forEach(function (p) { activePlugins.push(p && p.name); });

  var opts = { emit: emit, plugins: plugins, recordAfter: 'DOMContentLoaded' };
  Object.keys(sessionRecordingOptions).forEach(function (k) { opts[k] = sessionRecordingOptions[k]; });

  // cfg.lazyRecorder: like posthog-js's default snippet, which loads posthog-recorder.js lazily,
  // the recorder starts once the document is parsed, so rrweb snapshots at once and emits no
  // DomContentLoaded (type 0) / Load (type 1) events. Otherwise (recorder bundled and started
  // while the page is still loading) rrweb emits DomContentLoaded, then Meta + FullSnapshot,
  // and later Load.
  function start() {
    window.rrweb.record(opts);
    // rrweb registered its own DOMContentLoaded listener inside record() (or already took the
    // snapshot), so Meta + FullSnapshot come before these custom events, as in posthog-js.
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', afterStart);
    else afterStart();
  }
  function afterStart() {
    window.rrweb.record.addCustomEvent('$session_options', {
      sessionRecordingOptions: sessionRecordingOptions,
      activePlugins: activePlugins,
    });
    if (cfg.emitPageview) {
      window.rrweb.record.addCustomEvent('$pageview', { href: location.href });
    }
  }
  if (cfg.lazyRecorder && document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', function () {
      setTimeout(start, 0);
    });
  } else {
    start();
  }

  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState) {
      window.rrweb.record.addCustomEvent('window ' + document.visibilityState, {});
    }
  });
  window.addEventListener('pagehide', function () {
    unloading = true;
  });
})();
