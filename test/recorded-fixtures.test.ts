import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { fixture } from '../src/sandbox/demo/recorded.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { urlPattern } from '../src/digest/aggregate.js';
import { RECORDED_DATA_NOTICE } from '../src/tools/format.js';
import { operationsOver } from '../src/posthog/operations/index.js';
import { digestRecording } from '../src/tools/recordings/recording-digest.js';
import { startHarness, text, type Harness } from './harness.js';

// The digest of recordings captured from real headless Chromium with the real rrweb recorder
// (fixtures/recordings, made by scripts/record-fixtures), checked against the ground truth the
// recording script wrote down from its own actions, not from the recording.

interface Item {
  t_ms: number;
  w: string;
  kind: string;
  target?: string;
  detail?: string;
  count?: number;
}
interface Summary {
  duration_ms: number;
  windows: Array<{ w: string; window_id: string | null }>;
  pages: Array<{ w: string; url: string; max_scroll_y?: number }>;
  timeline: Item[];
  counts: Record<string, number>;
  cut: Record<string, number>;
  exceptions?: Array<{ t_ms: number; w?: string; type: string; message: string }>;
}
interface Expected {
  pages: Array<{ window_id: string; path: string }>;
  clicks: Array<{ window_id: string; role: string; name: string; element: { tag: string; id: string | null } }>;
  typing: Array<{ window_id: string; field_label: string; char_count: number }>;
  secret_values: string[];
  rage_clicks: Array<{ window_id: string; name: string; clicks: number }>;
  dead_clicks: Array<{ window_id: string; name: string; element: { tag: string; id: string | null } }>;
  scrolls: Array<{ window_id: string; path: string; max_scroll_y: number }>;
  resizes: Array<{ window_id: string; to: { width: number; height: number } }>;
  visibility: Array<{ window_id: string; state: 'hidden' | 'visible' }>;
  console: Array<{ window_id: string; level: string; text: string }>;
  failed_requests: Array<{ window_id: string; method: string; url: string; status: number; recorded_fields: string }>;
  prompt_injection_probes?: { clicked_element_text: string; console_message: string };
}

/**
 * The digest's own fields, from the reader the tools share (digestRecording), against the same
 * sandbox; the exceptions as the summary's structured view lists them (m:ss as ms). The model's
 * views are the tool's text and structuredContent, checked beside.
 */
async function digestFacts(h: Harness, id: string, r: CallToolResult): Promise<Summary> {
  const { digest } = await digestRecording({ posthog: operationsOver(h.posthog), signal: new AbortController().signal }, String(DEMO.mainProjectId), id, null);
  const data = r.structuredContent as { exceptions?: Array<{ at: string; w?: string; type: string; message: string }>; cut?: string };
  const ms = (at: string) => at.split(':').reduce((n, part) => n * 60 + Number(part), 0) * 1000;
  return {
    duration_ms: digest.duration_ms,
    windows: digest.windows,
    pages: digest.pages,
    timeline: digest.timeline.map(({ t, ...item }) => ({ t_ms: t, ...item })),
    counts: { ...digest.counts },
    cut: data.cut ? { text: 1 } : {},
    ...(data.exceptions ? { exceptions: data.exceptions.map(({ at, ...e }) => ({ t_ms: ms(at), ...e })) } : {}),
  };
}

const RECORDINGS = [
  { name: 'recordedCheckout', slug: 'checkout-failure' },
  { name: 'recordedSearchTabs', slug: 'search-two-tabs' },
] as const;

const FIELD_ROLES = new Set(['textbox', 'searchbox', 'combobox']);

describe('the digest of real recorded sessions', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  async function summarize(id: string, maxChars = 20_000) {
    const r = await h.call('session-recording-summary', { project_id: String(DEMO.mainProjectId), id, max_chars: maxChars });
    expect(r.isError, text(r)).toBeFalsy();
    return { s: await digestFacts(h, id, r), t: text(r), all: JSON.stringify(r) };
  }

  for (const { name, slug } of RECORDINGS) {
    describe(slug, () => {
      const info = fixture(slug);
      const expected = info.expected as unknown as Expected;
      let s: Summary;
      let t: string;
      let all: string;
      let label: (windowId: string) => string;
      beforeAll(async () => {
        expect(DEMO.recordingIds[name]).toBe(info.session_id);
        ({ s, t, all } = await summarize(info.session_id));
        label = (windowId) => s.windows.find((w) => w.window_id === windowId)!.w;
      });
      const items = (kind: string | string[], windowId: string) => s.timeline.filter((i) => [kind].flat().includes(i.kind) && i.w === label(windowId));

      it('names its tabs and the pages visited in each, in order', () => {
        expect(s.windows.map((w) => w.window_id)).toEqual(info.window_ids);
        expect(s.pages.map((p) => [p.w, new URL(p.url).pathname + new URL(p.url).search])).toEqual(expected.pages.map((p) => [label(p.window_id), p.path]));
        expect(Math.abs(s.duration_ms - (Date.parse((info as unknown as { end_timestamp: string }).end_timestamp) - Date.parse((info as unknown as { start_timestamp: string }).start_timestamp)))).toBeLessThan(1000);
      });

      it('names every clicked button and link', () => {
        expect(s.counts.clicks).toBe(expected.clicks.length);
        for (const click of expected.clicks.filter((c) => !FIELD_ROLES.has(c.role))) {
          const quoted = JSON.stringify(click.name).slice(0, 50);
          const match = items(['click', 'rage-click', 'dead-click'], click.window_id).find((i) => i.target?.startsWith(click.element.tag) && i.target.includes(quoted));
          expect(match, `click on ${click.role} ${click.name}`).toBeDefined();
        }
      });

      it('describes typing by field and length, and never shows what was typed', () => {
        for (const field of expected.typing) {
          expect(items('input', field.window_id), field.field_label).toContainEqual(
            expect.objectContaining({ target: expect.stringContaining(JSON.stringify(field.field_label)), detail: `${field.char_count} chars` }),
          );
        }
        for (const secret of expected.secret_values) expect(all).not.toContain(secret);
      });

      it('finds the rage clicks and dead clicks, and nothing else as such', () => {
        expect(s.counts.rage_clicks).toBe(expected.rage_clicks.length);
        for (const rage of expected.rage_clicks) {
          expect(items('rage-click', rage.window_id)).toContainEqual(expect.objectContaining({ target: expect.stringContaining(JSON.stringify(rage.name)), count: rage.clicks }));
        }
        expect(s.counts.dead_clicks).toBe(expected.dead_clicks.length);
        for (const dead of expected.dead_clicks) {
          const target = `${dead.element.tag}${dead.element.id ? `#${dead.element.id}` : ''} ${JSON.stringify(dead.name)}`;
          expect(items('dead-click', dead.window_id)).toContainEqual(expect.objectContaining({ target }));
        }
      });

      it('reports console errors and warnings with their text, and the failed requests', () => {
        const levels = { error: 'console-error', warn: 'console-warn' } as Record<string, string>;
        const logged = expected.console.filter((c) => levels[c.level]);
        for (const entry of logged) {
          const found = items(levels[entry.level]!, entry.window_id).filter((i) => i.detail === entry.text);
          expect(found.reduce((n, i) => n + (i.count ?? 1), 0), entry.text).toBe(logged.filter((c) => c.text === entry.text && c.window_id === entry.window_id).length);
        }
        expect(s.counts.console_errors).toBe(expected.console.filter((c) => c.level === 'error').length);
        expect(s.counts.console_warnings).toBe(expected.console.filter((c) => c.level === 'warn').length);
        expect(s.counts.failed_requests).toBe(expected.failed_requests.length);
        for (const request of expected.failed_requests) {
          // Timing-only entries carry no method; the digest does not invent one.
          const target = request.recorded_fields.includes('no method') ? request.url : `${request.method} ${request.url}`;
          expect(items('request-failed', request.window_id)).toContainEqual(expect.objectContaining({ target, detail: String(request.status) }));
        }
      });

      it('reports scroll depth, resizes and the tab going hidden and visible', () => {
        for (const scroll of expected.scrolls) {
          const deepest = Math.max(...expected.scrolls.filter((x) => x.window_id === scroll.window_id && x.path === scroll.path).map((x) => x.max_scroll_y));
          const page = s.pages.find((p) => p.w === label(scroll.window_id) && new URL(p.url).pathname === scroll.path);
          expect(Math.abs((page?.max_scroll_y ?? 0) - deepest), scroll.path).toBeLessThanOrEqual(2);
        }
        expect(s.timeline.filter((i) => i.kind === 'resize').map((i) => i.detail)).toEqual(expected.resizes.map((r) => `${r.to.width}x${r.to.height}`));
        expect(s.timeline.filter((i) => i.kind.startsWith('tab-')).map((i) => [i.w, i.kind])).toEqual(expected.visibility.map((v) => [label(v.window_id), `tab-${v.state}`]));
      });

      it('keeps what matters in the default 4,000-character digest', async () => {
        const small = await summarize(info.session_id, 4000);
        expect(small.t.length).toBeLessThanOrEqual(4000);
        for (const entry of expected.console.filter((c) => c.level === 'error')) expect(small.t).toContain(JSON.stringify(entry.text));
        for (const rage of expected.rage_clicks) expect(small.t).toMatch(new RegExp(`RAGE CLICK .*${JSON.stringify(rage.name)}`));
        expect(t).toContain('<<recorded-data');
      });
    });
  }

  it('keeps the instructions planted in a recorded page and console inside the recorded-data fence', async () => {
    const info = fixture('search-two-tabs');
    const probes = (info.expected as unknown as Expected).prompt_injection_probes!;
    const { t } = await summarize(info.session_id, 4000);
    const lines = t.split('\n');
    const open = lines.findIndex((l) => /^<<recorded-data [0-9a-f]{8}>>$/.test(l));
    const close = lines.findIndex((l) => l === `<<end recorded-data ${lines[open]!.slice(16, -2)}>>`);
    expect(open).toBeGreaterThan(0);
    expect(close).toBeGreaterThan(open);
    for (const probe of [probes.console_message, probes.clicked_element_text.slice(0, 40)]) {
      const at = lines.flatMap((line, i) => (line.includes(probe) ? [i] : []));
      expect(at.length, probe).toBeGreaterThan(0);
      for (const i of at) {
        expect(i > open && i < close, `"${probe}" on line ${i}, outside the fence`).toBe(true);
        // …and inside a quoted string on that line, never the start of a line of its own.
        const before = lines[i]!.slice(0, lines[i]!.indexOf(probe));
        expect(before.endsWith('"'), lines[i]).toBe(true);
        expect(lines[i]!.startsWith(probe)).toBe(false);
      }
    }
    // The header tells the agent what the fence means, before any recorded data.
    expect(lines.slice(0, open).join('\n')).toContain(RECORDED_DATA_NOTICE);
  });
});

// ---------------------------------------------------------------------------------------------
// A recording made by posthog-js 1.449.2 itself (scripts/record-fixtures/sdk.mjs): what the SDK
// sent, served by the sandbox, read by every recording tool, checked against the recorder's own
// ground truth (fixtures/recordings/posthog-js-signup.truth.json).

interface SdkTruth {
  session_id: string;
  window_ids: string[];
  pages: Array<{ url: string; path: string }>;
  clicks: Array<{ path: string; role: string; name: string; element: { tag: string; id: string | null } }>;
  typing: Array<{ path: string; field_label: string; field_id: string; input_type: string; char_count: number; value_key: string }>;
  secret_values: string[];
  typed_values: Record<string, string>;
  requests: Array<{ method: string; url: string; path: string; status: number | null }>;
  failed_requests: Array<{ method: string; url: string; path: string; status: number; request_body_keys: string[] }>;
  console: Array<{ level: string; text: string }>;
  exceptions: Array<{ type: string; message: string; t_ms: number }>;
}

interface SentEvent {
  event: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

const FIXTURES = new URL('../fixtures/recordings/', import.meta.url);

describe('a recording made by posthog-js itself', () => {
  const info = fixture('posthog-js-signup');
  const truth = info.expected as unknown as SdkTruth;
  const P = String(DEMO.mainProjectId);
  const id = info.session_id;
  let h: Harness;
  /** Every tool answer of this describe, for the privacy check at the end. */
  const answers: Array<{ tool: string; json: string }> = [];
  async function call(tool: string, args: Record<string, unknown>) {
    const r = await h.call(tool, args);
    answers.push({ tool, json: JSON.stringify(r) });
    expect(r.isError, text(r)).toBeFalsy();
    return r;
  }
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  describe('the fixture is what the SDK sent', () => {
    const lines = readFileSync(new URL(info.file, FIXTURES), 'utf8')
      .split('\n')
      .filter((l) => l)
      .map((l) => JSON.parse(l) as [string, { type: number; timestamp: number; data: unknown; cv?: string }]);
    const sent = JSON.parse(readFileSync(new URL(info.events_file!, FIXTURES), 'utf8')) as SentEvent[];

    it('keeps posthog-js compression as sent, and every event decodes', () => {
      const compressed = lines.filter(([, e]) => e.cv !== undefined);
      // Both page loads' full snapshots at least.
      expect(compressed.filter(([, e]) => e.type === 2).length).toBe(truth.pages.length);
      for (const [, e] of compressed) {
        expect(e.cv).toBe('2024-10');
        const parts = typeof e.data === 'string' ? [e.data] : Object.values(e.data as Record<string, unknown>).filter((v): v is string => typeof v === 'string');
        expect(parts.length).toBeGreaterThan(0);
        for (const part of parts) expect(() => JSON.parse(gunzipSync(Buffer.from(part, 'latin1')).toString('utf8'))).not.toThrow();
      }
      expect(new Set(lines.map(([w]) => w))).toEqual(new Set(truth.window_ids));
    });

    it('masks every input (posthog-js maskAllInputs), one "*" per typed character', () => {
      const inputs = lines.filter(([, e]) => e.type === 3 && (e.data as { source: number }).source === 5).map(([, e]) => (e.data as { text: string }).text);
      expect(inputs.length).toBe(truth.typing.reduce((n, f) => n + f.char_count, 0));
      for (const t of inputs) expect(t).toMatch(/^\*+$/);
      const longest = Math.max(...inputs.map((t) => t.length));
      expect(longest).toBe(Math.max(...truth.typing.map((f) => f.char_count)));
    });

    it('sent the uncaught exception as an $exception event beside the recording, and one $pageview per page', () => {
      expect(sent.every((e) => e.properties.$session_id === id)).toBe(true);
      const exceptions = sent.filter((e) => e.event === '$exception');
      expect(exceptions.map((e) => (e.properties.$exception_list as Array<{ type: string; value: string }>).map((x) => [x.type, x.value])).flat()).toEqual(
        truth.exceptions.map((x) => [x.type, x.message]),
      );
      expect(sent.filter((e) => e.event === '$pageview').map((e) => e.properties.$current_url)).toEqual(truth.pages.map((p) => p.url));
      expect(sent.some((e) => e.event === '$snapshot')).toBe(false);
    });
  });

  describe('what the tools show', () => {
    let summary: Summary;
    let summaryText: string;
    beforeAll(async () => {
      const r = await call('session-recording-summary', { project_id: P, id });
      summary = await digestFacts(h, id, r);
      summaryText = text(r);
    });
    const failed = () => truth.failed_requests[0]!;
    const consoleErrors = () => truth.console.filter((c) => c.level === 'error').map((c) => c.text);
    // rrweb's console plugin (as posthog-js runs it) also records an uncaught error, as
    // console.error "Uncaught <type>: <message>", besides the $exception event.
    const uncaught = () => truth.exceptions.map((x) => `Uncaught ${x.type}: ${x.message}`);

    it('summary: pages, clicked buttons and typing by field and length', () => {
      expect(truth.failed_requests).toHaveLength(1);
      expect(summary.windows.map((w) => w.window_id)).toEqual(truth.window_ids);
      expect(summary.pages.map((p) => new URL(p.url).pathname)).toEqual(truth.pages.map((p) => p.path));
      expect(summary.counts.clicks).toBe(truth.clicks.length);
      for (const click of truth.clicks.filter((c) => c.role === 'button')) {
        expect(summary.timeline).toContainEqual(expect.objectContaining({ kind: 'click', target: `${click.element.tag}#${click.element.id} ${JSON.stringify(click.name)}` }));
      }
      for (const field of truth.typing) {
        expect(summary.timeline).toContainEqual(
          expect.objectContaining({ kind: 'input', target: expect.stringContaining(`#${field.field_id} ${JSON.stringify(field.field_label)}`), detail: `${field.char_count} chars` }),
        );
      }
    });

    it('summary: the failed request with method, path and status, the console error and the exception', () => {
      const f = failed();
      expect(summary.timeline).toContainEqual(expect.objectContaining({ kind: 'request-failed', target: `${f.method} ${f.url}`, detail: String(f.status) }));
      expect(summaryText).toContain(`request failed ${f.method} ${JSON.stringify(f.path)} → ${f.status}`);
      const errors = summary.timeline.filter((i) => i.kind === 'console-error').map((i) => i.detail);
      expect(errors).toEqual([...consoleErrors(), ...uncaught()]);
      expect(summary.counts.console_errors).toBe(consoleErrors().length + uncaught().length);
      expect(summary.counts.failed_requests).toBe(truth.failed_requests.length);
      for (const line of [...consoleErrors(), ...uncaught()]) expect(summaryText).toContain(JSON.stringify(line));
    });

    it('summary: the uncaught exception also from its $exception event (query API), at its moment, fenced as recorded data', () => {
      // Without console capture the recording would not show it at all: the event is the source.
      expect(summary.exceptions?.map((x) => [x.type, x.message])).toEqual(truth.exceptions.map((x) => [x.type, x.message]));
      for (const [i, x] of truth.exceptions.entries()) {
        // m:ss in the view: within the second it says, and the 2 s the event may lag its console line.
        expect(Math.abs(summary.exceptions![i]!.t_ms - x.t_ms)).toBeLessThan(3_000);
      }
      const block = /Exceptions \(1 \$exception event: 1 uncaught; recorded data\):\n<<recorded-data ([0-9a-f]{8})>>\n(.*)\n<<end recorded-data \1>>$/.exec(summaryText);
      expect(block, summaryText.slice(-600)).not.toBeNull();
      expect(block![2]).toContain(`${JSON.stringify(truth.exceptions[0]!.type)} ${JSON.stringify(truth.exceptions[0]!.message)}`);
    });

    it('triage: ranks the failed request, the console error and the exception', async () => {
      // The recording is older than PostHog's default 3-day window.
      const r = await call('session-recordings-triage', { project_id: P, session_ids: [id], date_from: '-30d' });
      type Problem = { kind: string; signature: string; sessions: number; parts?: Problem[] };
      const triage = r.structuredContent as { read: number; problems: Problem[] };
      expect(triage.read).toBe(1);
      // A failure's symptoms are the parts of one entry.
      const problems = triage.problems.flatMap((p) => p.parts ?? [p]);
      const f = failed();
      expect(problems.filter((p) => p.kind === 'request-failed').map((p) => p.signature)).toEqual([`${f.method} ${urlPattern(f.url)} → ${f.status}`]);
      // A failure's part by the text it showed: each message here was logged once, as it is.
      expect(problems.filter((p) => p.kind === 'console-error').map((p) => p.signature).sort()).toEqual([...consoleErrors(), ...uncaught()].sort());
      const t = text(r);
      expect(t).toContain(`${f.method} ${new URL(f.url).host}${f.path} → ${f.status}`);
      for (const line of uncaught()) expect(t).toContain(JSON.stringify(line));
    });

    it('snapshots: every event, the failed request with its status, request bodies masked unless asked', async () => {
      const events: Array<Record<string, unknown>> = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const r = await call('session-recording-snapshots', { project_id: P, id, max_events: 500, ...(cursor ? { cursor } : {}) });
        const sc = r.structuredContent as { events: Array<Record<string, unknown>>; next_cursor: string | null };
        events.push(...sc.events);
        if (!sc.next_cursor) break;
        cursor = sc.next_cursor;
      }
      expect(events).toHaveLength(info.event_count);
      const f = failed();
      const requests = events
        .filter((e) => e.type === 6 && (e.data as { plugin: string }).plugin === 'rrweb/network@1')
        .flatMap((e) => (e.data as { payload: { requests: Array<Record<string, unknown>> } }).payload.requests);
      const post = requests.find((r) => r.name === f.url && r.method === f.method);
      expect(post, 'the failed request').toBeDefined();
      expect(post!.status).toBe(f.status);
      // Keys kept, every value masked to its length.
      const body = JSON.parse(post!.requestBody as string) as Record<string, string>;
      expect(Object.keys(body)).toEqual(f.request_body_keys);
      for (const v of Object.values(body)) expect(v).toMatch(/^\*+$/);
      expect(body.full_name).toHaveLength(truth.typed_values.full_name!.length);
    });

    it('snapshots with reveal_input_values shows the request body as recorded, and still no password', async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const r = await h.call('session-recording-snapshots', { project_id: P, id, max_events: 500, reveal_input_values: true, ...(cursor ? { cursor } : {}) });
        seen.push(JSON.stringify(r));
        cursor = (r.structuredContent as { next_cursor: string | null }).next_cursor ?? undefined;
        if (!cursor) break;
      }
      const all = seen.join('\n');
      expect(all).toContain(truth.typed_values.full_name);
      // posthog-js redacted the sign-up body itself (it names a password), and masked the field.
      expect(all).not.toContain(truth.typed_values.password);
    });

    it('replay: the digest names the failure, and the player feed carries every event', async () => {
      const r = await call('session-recording-replay', { project_id: P, id });
      const t = text(r);
      const f = failed();
      expect(t).toContain(`${f.method} ${JSON.stringify(f.path)} → ${f.status}`);
      for (const line of consoleErrors()) expect(t).toContain(JSON.stringify(line));
      let count = 0;
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const feed = await call('session-recording-replay-events', { project_id: P, id, ...(cursor ? { cursor } : {}) });
        const sc = feed.structuredContent as { events: string; count: number; next_cursor: string | null };
        expect(JSON.parse(sc.events)).toHaveLength(sc.count);
        count += sc.count;
        if (!sc.next_cursor) break;
        cursor = sc.next_cursor;
      }
      expect(count).toBe(info.event_count);
    });

    it('matching-events: finds the $exception and the page views through the query API, at their moments', async () => {
      const before = h.sandbox.requests.length;
      const r = await call('session-recording-matching-events', { project_id: P, session_id: id, events: [{ id: '$exception' }] });
      const results = (r.structuredContent as { results: Array<{ uuid: string; timestamp: string }> }).results;
      expect(results).toHaveLength(truth.exceptions.length);
      // Today's PostHog answers this through POST /query/ (HogQL over the events table).
      expect(h.sandbox.requests.slice(before).some((q) => q.method === 'POST' && q.path === `/api/projects/${P}/query/`)).toBe(true);
      const got = await call('session-recording-get', { project_id: P, id });
      const start = Date.parse((got.structuredContent as { recording: { start_time: string } }).recording.start_time);
      for (const [i, x] of truth.exceptions.entries()) expect(Math.abs(Date.parse(results[i]!.timestamp) - start - x.t_ms)).toBeLessThan(2_000);
      const views = await call('session-recording-matching-events', { project_id: P, session_id: id, events: [{ id: '$pageview' }] });
      expect((views.structuredContent as { results: unknown[] }).results).toHaveLength(truth.pages.length);
    });

    it('the query endpoint answers the $exception with its type, message and stack, as PostHog stores it', async () => {
      // What an agent (or a later tool) asks PostHog's query API for this session's exceptions.
      const res = await fetch(`${h.sandbox.url}/api/projects/${P}/query/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.sandbox.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: {
            kind: 'HogQLQuery',
            query: 'SELECT uuid, event, properties.$exception_list FROM events WHERE $session_id = {session_id} AND event = {event} ORDER BY timestamp ASC LIMIT 10',
            values: { session_id: id, event: '$exception' },
          },
        }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { results: Array<[string, string, string]> };
      expect(body.results).toHaveLength(truth.exceptions.length);
      for (const [i, x] of truth.exceptions.entries()) {
        const [, event, list] = body.results[i]!;
        expect(event).toBe('$exception');
        const [exception] = JSON.parse(list) as Array<{ type: string; value: string; mechanism: { handled: boolean }; stacktrace: { frames: Array<{ filename: string }> } }>;
        expect([exception!.type, exception!.value, exception!.mechanism.handled]).toEqual([x.type, x.message, false]);
        expect(exception!.stacktrace.frames.map((f) => new URL(f.filename).pathname)).toContain('/static/sdk-app.js');
      }
    });

    it('no tool answer shows a typed value by default', async () => {
      await call('session-recording-get', { project_id: P, id });
      await call('session-recording-properties', { project_id: P, session_ids: [id] });
      await call('session-recordings-list', { project_id: P, session_ids: [id], date_from: '-30d' });
      const tools = new Set(answers.map((a) => a.tool));
      for (const tool of ['session-recording-summary', 'session-recordings-triage', 'session-recording-snapshots', 'session-recording-replay', 'session-recording-replay-events', 'session-recording-matching-events']) {
        expect(tools, tool).toContain(tool);
      }
      expect(truth.secret_values).toEqual(expect.arrayContaining(Object.values(truth.typed_values)));
      for (const { tool, json } of answers) {
        for (const secret of truth.secret_values) {
          expect(json.includes(secret) || json.includes(JSON.stringify(secret).slice(1, -1)), `${tool} shows ${secret}`).toBe(false);
        }
      }
    });
  });
});
