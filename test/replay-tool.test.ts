import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { BIG_RECORDING_ID, DEMO } from '../src/sandbox/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { APP_MIME_TYPE, PLAYER_META, PLAYER_URI, type PlayerData } from '../src/tools/recordings/player.js';
import { parseStartAt } from '../src/tools/recordings/start-at.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds;

/** What the player reads of a replay result: its _meta, which the model does not see. */
const player = (result: CallToolResult) => result._meta![PLAYER_META] as PlayerData;

describe('session-recording-replay', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('lists the tool with the player as its MCP Apps view, and the events tool as app-only to a host that renders apps', async () => {
    const apps = await startHarness({ clientCapabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } });
    try {
      const { tools } = await apps.client.listTools();
      const replay = tools.find((t) => t.name === 'session-recording-replay')!;
      expect(replay._meta).toMatchObject({ ui: { resourceUri: PLAYER_URI } });
      const events = tools.find((t) => t.name === 'session-recording-replay-events')!;
      // The spec (2026-01-26, "Visibility"): the server lists it; the host keeps it out of the model's list.
      expect(events._meta).toMatchObject({ ui: { resourceUri: PLAYER_URI, visibility: ['app'] } });
    } finally {
      await apps.close();
    }
  });

  it('does not show the app-only tool to a client that declared no MCP Apps support, yet answers it', async () => {
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name)).toContain('session-recording-replay');
    expect(tools.map((t) => t.name)).not.toContain('session-recording-replay-events');
    const result = await h.call('session-recording-replay-events', { project_id: P, id: R.recordedCheckout });
    expect(result.isError).toBeFalsy();
  });

  it('serves the player as one self-contained HTML document with a CSP that allows no outside origin', async () => {
    expect(APP_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
    const { resources } = await h.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([PLAYER_URI]);
    const read = await h.client.readResource({ uri: PLAYER_URI });
    const content = read.contents[0] as unknown as { mimeType: string; text: string; _meta: { ui: { csp: Record<string, string[]> } } };
    expect(content.mimeType).toBe('text/html;profile=mcp-app');
    expect(content.text).toMatch(/^<!doctype html>/i);
    // nothing loaded from anywhere: no src= or href= pointing at a URL, no import of one
    expect(content.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=/i);
    expect(Object.values(content._meta.ui.csp).flat()).toEqual([]);
  });

  it('offers the player only with the recordings toolset', async () => {
    const projectsOnly = await startHarness({ toolsets: ['projects'] });
    try {
      // Resources are served (the project template), but not the player.
      expect((await projectsOnly.client.listResources()).resources).toEqual([]);
    } finally {
      await projectsOnly.close();
    }
  });

  it('returns the digest, where to start, and a link to PostHog\'s player at that moment', async () => {
    const result = await h.call('session-recording-replay', { project_id: P, id: R.recordedCheckout, start_at: '0:12' });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as { start_at: string; posthog_url: string; timeline: string[] };
    expect(data.start_at).toBe('0:12');
    expect(player(result).start_at_ms).toBe(12_000);
    expect(data.posthog_url).toBe(`${h.sandbox.url}/project/${P}/replay/${R.recordedCheckout}?t=12`);
    expect(player(result).posthog_url).toBe(data.posthog_url);
    expect(data.timeline.some((line) => / console error "/.test(line))).toBe(true);
    expect(player(result).moments.some((m) => m.kind === 'console-error')).toBe(true);
    expect(text(result)).toContain('Payment failed');
    expect(text(result)).toContain(data.posthog_url);
    // the sandbox's own answer at that link says what it is
    const page = await fetch(data.posthog_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`recording ${R.recordedCheckout} of project ${P} at 12 s`);
  });

  it('takes an ISO timestamp of a digest entry and clamps a moment past the end', async () => {
    const first = player(await h.call('session-recording-replay', { project_id: P, id: R.recordedCheckout }));
    expect(first.start_at_ms).toBe(0);
    const at = new Date(Date.parse(first.start_time!) + 5_500).toISOString();
    const iso = await h.call('session-recording-replay', { project_id: P, id: R.recordedCheckout, start_at: at });
    expect(player(iso).start_at_ms).toBe(5_500);
    expect((iso.structuredContent as { start_at: string }).start_at).toBe('0:05');
    const late = await h.call('session-recording-replay', { project_id: P, id: R.recordedCheckout, start_at: 99_999 });
    expect(player(late).start_at_ms).toBe(first.duration_ms);
    expect(text(late)).toContain('outside the recording');
  });

  it('rejects a malformed start_at before any upstream request', async () => {
    const before = apiRequests(h.sandbox).length;
    const result = await h.call('session-recording-replay', { project_id: P, id: R.recordedCheckout, start_at: 'yesterday' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('start_at must be');
    expect(apiRequests(h.sandbox).length).toBe(before);
  });

  it('resolves "@current" to the project number for the link', async () => {
    const result = await h.call('session-recording-replay', { project_id: '@current', id: R.recordedCheckout });
    const data = result.structuredContent as { posthog_url: string | null };
    expect(data.posthog_url).toMatch(new RegExp(`/project/\\d+/replay/${R.recordedCheckout}\\?t=0$`));
  });

  it('gives the player every event, decompressed, full snapshots whole, in pages that resume where they stopped', async () => {
    type Pair = [string | null, { type: number; timestamp: number; data?: unknown }];
    const parsed = (data: unknown) => {
      const { events, count, next_cursor } = data as { events: string; count: number; next_cursor: string | null };
      const list = JSON.parse(events) as Pair[];
      expect(list.length).toBe(count);
      return { events: list, next_cursor };
    };
    const all: Pair[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const result = await h.call('session-recording-replay-events', { project_id: P, id: R.recordedCheckout, max_bytes: 10_000, ...(cursor ? { cursor } : {}) });
      expect(result.isError, text(result)).toBeFalsy();
      const data = parsed(result.structuredContent);
      if (pages === 0) expect(data.events.some(([, e]) => e.type === 2)).toBe(true);
      all.push(...data.events);
      cursor = data.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 200);
    expect(pages).toBeGreaterThan(3);
    const whole = parsed((await h.call('session-recording-replay-events', { project_id: P, id: R.recordedCheckout })).structuredContent);
    expect(whole.next_cursor).toBeNull();
    expect(all).toEqual(whole.events);
    const full = whole.events.filter(([, e]) => e.type === 2).at(-1)![1]; // the checkout page
    expect(typeof full.data).toBe('object'); // posthog-js compressed it to a string in the sandbox
    expect(JSON.stringify(full.data)).toContain('Place order');
    expect(whole.events.every(([, e]) => !('cv' in e))).toBe(true);
  });
});

describe('parseStartAt', () => {
  it('reads seconds, digest clocks and ISO timestamps, and nothing else', () => {
    expect(parseStartAt('95')).toEqual({ kind: 'offset', ms: 95_000 });
    expect(parseStartAt('2.5')).toEqual({ kind: 'offset', ms: 2_500 });
    expect(parseStartAt('1:35')).toEqual({ kind: 'offset', ms: 95_000 });
    expect(parseStartAt('1:02:03')).toEqual({ kind: 'offset', ms: 3_723_000 });
    expect(parseStartAt('2026-11-20T10:15:31.250Z')).toEqual({ kind: 'time', at: Date.parse('2026-11-20T10:15:31.250Z') });
    for (const bad of ['', 'soon', '1:75', '-3', '2026-13-45T99:00Z']) expect(parseStartAt(bad), bad).toBeUndefined();
  });
});

describe('session-recording-replay on a long recording', { timeout: 120_000 }, () => {
  const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
  // 300 copies of the recorded checkout, ~35 MB: reading it whole takes seconds here (about
  // 1 s on an idle machine), far past the replay's REPLAY_READ_MS (250 ms).
  const sandbox = { bigRecording: { copies: 300 } };
  type Replay = { partial?: { reason: string; not_read?: string; next: string } };

  it('answers a client that shows the player with a digest of the start, marked partial, naming how to get the whole one', async () => {
    const h = await startHarness({ sandbox, clientCapabilities: APPS });
    try {
      const replay = await h.call('session-recording-replay', { project_id: P, id: BIG_RECORDING_ID, start_at: '20:00' });
      expect(replay.isError, text(replay)).toBeFalsy();
      const data = replay.structuredContent as Replay;
      expect(data.partial).toMatchObject({ reason: 'time' });
      expect(data.partial!.not_read).toMatch(/^\d+ of \d+ parts/);
      expect(data.partial!.next).toMatch(/^It covers the first [\d:]+ of [\d:]+\. For the whole digest, call session-recording-summary/);
      expect(text(replay)).toContain('PARTIAL digest');
      expect(text(replay)).toContain('For the whole digest, call session-recording-summary');
      // The whole one, for comparison: longer than what the replay covered, and not partial.
      const summary = (await h.call('session-recording-summary', { project_id: P, id: BIG_RECORDING_ID })).structuredContent as Replay & { duration: string };
      expect(summary.partial).toBeUndefined();
      const wholeMs = summary.duration.split(':').reduce((n, part) => n * 60 + Number(part), 0) * 1000;
      const seen = player(replay);
      expect(seen.partial!.digest_covers_ms).toBeLessThan(wholeMs);
      // The recording's length is PostHog's (whole seconds), not the covered span: start_at past the
      // covered part is kept, not clamped to it (the summary's length is rounded to the second).
      expect(Math.abs(seen.duration_ms - wholeMs)).toBeLessThan(1_500);
      expect(seen.start_at_ms).toBe(20 * 60_000);
      expect(text(replay)).toMatch(/^PARTIAL digest: .* It covers the first [\d:]+ of [\d:]+\./);
    } finally {
      await h.close();
    }
  });

  it('reads the whole recording for a client without MCP Apps, whose user sees only the text', async () => {
    const h = await startHarness({ sandbox });
    try {
      const replay = await h.call('session-recording-replay', { project_id: P, id: BIG_RECORDING_ID });
      expect(replay.isError, text(replay)).toBeFalsy();
      expect((replay.structuredContent as Replay).partial).toBeUndefined();
      expect(text(replay)).not.toContain('PARTIAL');
    } finally {
      await h.close();
    }
  });
});
