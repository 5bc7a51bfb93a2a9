// Real recordings: rrweb data captured from headless Chromium by scripts/record-fixtures and
// committed under fixtures/recordings/. The sandbox serves them like any demo recording, so the
// digest is tested (and demoed) on what a real browser and the real rrweb recorder produce.

import { readFileSync } from 'node:fs';
import { consoleText } from '../../posthog/snapshots.js';
import { shiftedEvent, type RrwebEvent } from './rrweb.js';
import type { AnalyticsEvent, ConsoleEntry, ScriptEvent } from './timeline.js';

/** Same place from src/ (tests) and dist/ (the built server): the repository's fixtures folder. */
const FIXTURES = new URL('../../../fixtures/recordings/', import.meta.url);

export interface FixtureInfo {
  slug: string;
  file: string;
  session_id: string;
  distinct_id: string;
  title: string;
  story: string;
  window_ids: string[];
  /** Ground truth from the recording script, for tests. */
  expected: Record<string, unknown>;
}

let index: FixtureInfo[] | undefined;

export function fixtureIndex(): FixtureInfo[] {
  index ??= JSON.parse(readFileSync(new URL('index.json', FIXTURES), 'utf8')) as FixtureInfo[];
  return index;
}

export function fixture(slug: string): FixtureInfo {
  const found = fixtureIndex().find((f) => f.slug === slug);
  if (!found) throw new Error(`No recorded fixture "${slug}" in fixtures/recordings/index.json`);
  return found;
}

export interface RecordedScript {
  /** Times relative to the first event, as demo scripts keep them. */
  events: ScriptEvent[];
  analytics: AnalyticsEvent[];
  console: ConsoleEntry[];
}

/** A fixture's `[windowId, event]` lines as a script: the page views and console lines it implies. */
export function recordedScript(slug: string): RecordedScript {
  const info = fixture(slug);
  const lines = readFileSync(new URL(info.file, FIXTURES), 'utf8').split('\n').filter((l) => l.trim());
  return scriptFromLines(lines.map((line) => JSON.parse(line) as [string, RrwebEvent]));
}

/**
 * `[windowId, event]` lines recorded in a browser (a fixture's, or a test's own: sandbox option
 * `recordings`) as a script; `captured` are analytics events sent beside the recording (e.g.
 * `$exception`), with absolute times like the events'.
 */
export function scriptFromLines(raw: ReadonlyArray<readonly [string, RrwebEvent]>, captured: ReadonlyArray<{ event: string; timestamp: number; properties?: Record<string, unknown> }> = []): RecordedScript {
  const first = Math.min(...raw.map(([, e]) => e.timestamp));
  // Demo scripts hold times from the recording start.
  const events: ScriptEvent[] = raw.map(([windowId, event]) => ({ windowId, event: shiftedEvent(event, -first) }));
  const analytics: AnalyticsEvent[] = [];
  const consoleEntries: ConsoleEntry[] = [];
  for (const { event } of events) {
    const data = event.data as { href?: string; plugin?: string; payload?: { level?: string; payload?: unknown[] } };
    if (event.type === 4 && data.href) analytics.push({ event: '$pageview', t: event.timestamp, properties: { $current_url: data.href } });
    if (event.type === 6 && data.plugin === 'rrweb/console@1') {
      const level = data.payload?.level;
      if (level === 'log' || level === 'info' || level === 'warn' || level === 'error') {
        consoleEntries.push({ t: event.timestamp, level, message: consoleText(data.payload?.payload) });
      }
    }
  }
  for (const c of captured) analytics.push({ event: c.event, t: c.timestamp - first, properties: { ...c.properties } });
  analytics.sort((a, b) => a.t - b.t);
  return { events, analytics, console: consoleEntries };
}
