// Ids as people paste them (docs/design.md, "Recording ids"): project ids as numbers or numeric strings, recordings by id
// or by the PostHog replay URL copied from the browser (US, EU, self-hosted), its `t` kept as the
// replay's start. A URL naming another project than project_id is refused before any request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { ALL_TOOLS } from '../src/tools/index.js';
import { PLAYER_META } from '../src/tools/recordings/player.js';
import { cloudRegionOf, parseReplayUrl, prepareArguments } from '../src/tools/input.js';
import { apiRequests, startHarness, text, type Harness } from './harness.js';

const P = DEMO.mainProjectId;
const R = DEMO.recordingIds.checkoutFailure;

describe('parseReplayUrl', () => {
  it('reads the id, project and t of replay URLs as people copy them', () => {
    expect(parseReplayUrl(`https://us.posthog.com/project/${P}/replay/${R}?t=42`)).toEqual({ id: R, project: String(P), t: '42' });
    expect(parseReplayUrl(`https://eu.posthog.com/project/${P}/replay/${R}`)).toEqual({ id: R, project: String(P) });
    // Self-hosted under a base path, the older /recordings/ form, a trailing slash.
    expect(parseReplayUrl(`https://posthog.example.com/analytics/project/7/recordings/${R}/`)).toEqual({ id: R, project: '7' });
    // The list view with a recording open.
    expect(parseReplayUrl(`https://us.posthog.com/project/${P}/replay/home?sessionRecordingId=${R}&t=3`)).toEqual({ id: R, project: String(P), t: '3' });
    expect(parseReplayUrl(`https://us.posthog.com/replay/${R}`)).toEqual({ id: R });
  });

  it('is undefined for what is not a replay URL', () => {
    for (const text of [R, 'https://example.com/', `https://us.posthog.com/project/${P}/replay/home`, 'ftp://x/replay/abc', 'not a url']) expect(parseReplayUrl(text), text).toBeUndefined();
  });
});

describe('a replay URL of the other PostHog Cloud region', () => {
  // Project numbers are per region: project 1001 on EU Cloud is not project 1001 on US Cloud.
  // Pure logic: the check runs before any request, so no upstream is needed (the sandbox, on
  // 127.0.0.1, is no cloud region and takes URLs of any host: see the tests below).
  const schemaOf = (name: string) => ALL_TOOLS.find((tool) => tool.name === name)!.inputSchema({});
  const get = schemaOf('session-recording-get');
  const us = `https://us.posthog.com/project/${P}/replay/${R}`;
  const eu = `https://eu.posthog.com/project/${P}/replay/${R}`;

  it('knows the cloud app hosts and nothing else', () => {
    expect([us, eu, 'https://app.posthog.com/x', 'https://US.PostHog.com', 'https://posthog.example.com', 'http://127.0.0.1:8000', 'not a url', undefined].map(cloudRegionOf)).toEqual(['US', 'EU', 'US', 'US', undefined, undefined, undefined, undefined]);
  });

  it('is refused, naming both regions and the setting, when the server talks to the other one', () => {
    const refused = prepareArguments(get, { id: eu }, { upstream: 'https://us.posthog.com' });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.message).toMatch(/replay URL is on PostHog EU Cloud \(eu\.posthog\.com\) but this server talks to US Cloud \(us\.posthog\.com\); nothing was sent\. Start it with POSTHOG_HOST=eu/);
    const fromEu = prepareArguments(schemaOf('session-recording-properties'), { session_ids: [R, us] }, { upstream: 'https://eu.posthog.com' });
    expect(!fromEu.ok && fromEu.message).toMatch(/on PostHog US Cloud .* talks to EU Cloud .*POSTHOG_HOST=us/);
  });

  it('is taken when the regions match, and on self-hosted or sandbox upstreams whatever the URL', () => {
    for (const [url, upstream] of [[eu, 'https://eu.posthog.com'], [us, 'https://us.posthog.com'], [us, 'https://app.posthog.com'], [eu, 'https://posthog.example.com'], [us, 'http://127.0.0.1:4010'], [`https://posthog.example.com/project/${P}/replay/${R}`, 'https://us.posthog.com']]) {
      const taken = prepareArguments(get, { id: url }, { upstream });
      expect(taken.ok, `${url} against ${upstream}`).toBe(true);
      expect(taken.ok && taken.value).toMatchObject({ id: R, project_id: String(P) });
    }
  });
});

describe('ids as people paste them', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('project tools take the id as a number or a numeric string', async () => {
    for (const id of [P, String(P)]) {
      const r = await h.call('project-get', { id });
      expect(r.isError, text(r)).toBeFalsy();
      expect((r.structuredContent as { project: { id: number } }).project.id).toBe(P);
    }
  });

  it('recording tools take project_id as a number or a string', async () => {
    for (const project_id of [P, String(P)]) {
      const r = await h.call('session-recording-get', { project_id, id: R });
      expect(r.isError, text(r)).toBeFalsy();
    }
  });

  it.each([
    ['US', `https://us.posthog.com/project/${P}/replay/${R}`],
    ['EU', `https://eu.posthog.com/project/${P}/replay/${R}?t=12`],
    ['self-hosted', `https://posthog.example.com/project/${P}/replay/${R}`],
  ])('a %s replay URL works as the id, its project as project_id', async (_where, url) => {
    const r = await h.call('session-recording-get', { id: url });
    expect(r.isError, text(r)).toBeFalsy();
    expect(apiRequests(h.sandbox).map((q) => q.path)).toContain(`/api/projects/${P}/session_recordings/${R}/`);
  });

  it('a URL and the same project_id agree; another project_id is refused naming both, before any request', async () => {
    const url = `https://us.posthog.com/project/${P}/replay/${R}`;
    expect((await h.call('session-recording-get', { project_id: String(P), id: url })).isError).toBeFalsy();
    h.sandbox.reset();
    const r = await h.call('session-recording-get', { project_id: DEMO.marketingProjectId, id: url });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`project_id is "${DEMO.marketingProjectId}" but the replay URL is in project ${P}`);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('replay URLs work in session_ids lists too', async () => {
    const r = await h.call('session-recordings-list', { session_ids: [`https://us.posthog.com/project/${P}/replay/${R}`] });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { results: Array<{ id: string }> }).results.map((x) => x.id)).toEqual([R]);
  });

  it('keeps ?t= as the replay\'s start_at (unless start_at is given)', async () => {
    const url = `https://us.posthog.com/project/${P}/replay/${R}?t=5`;
    const r = await h.call('session-recording-replay', { id: url });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { start_at: string }).start_at).toBe('0:05');
    expect((r._meta![PLAYER_META] as { start_at_ms: number }).start_at_ms).toBe(5000);
    const given = await h.call('session-recording-replay', { id: url, start_at: '2' });
    expect((given.structuredContent as { start_at: string }).start_at).toBe('0:02');
  });

  it('keeps ?t= as the snapshots page\'s start_at too: the page opens at that moment', async () => {
    const r = await h.call('session-recording-snapshots', { id: `https://us.posthog.com/project/${P}/replay/${R}?t=5` });
    expect(r.isError, text(r)).toBeFalsy();
    const page = r.structuredContent as { window?: { start_at?: string; from?: string }; events: Array<{ timestamp: number }> };
    expect(page.window?.start_at).toBe('5');
    expect(page.events.length).toBeGreaterThan(0);
    expect(page.events.every((e) => e.timestamp >= Date.parse(page.window!.from!))).toBe(true);
  });

  it('refuses a URL that is no replay URL, and a replay URL whose id is malformed, before any request', async () => {
    for (const id of ['https://example.com/some/page', `https://us.posthog.com/project/${P}/replay/abc.def`]) {
      const r = await h.call('session-recording-get', { id });
      expect(r.isError, id).toBe(true);
      expect(text(r)).toMatch(/recording id is 1-200 letters/);
    }
    expect(h.sandbox.requests).toHaveLength(0);
  });
});
