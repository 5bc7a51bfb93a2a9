// Real recordings: rrweb data captured from headless Chromium by scripts/record-fixtures and
// committed under fixtures/recordings/. The sandbox serves them like any demo recording, so the
// digest is tested (and demoed) on what a real browser and the real rrweb recorder produce.
// A fixture made by posthog-js itself (scripts/record-fixtures/sdk.mjs) also brings the events the
// SDK sent beside the recording ($pageview, $autocapture, $exception...): they become the
// recording's captured events, which the query endpoint and matching_events read.

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
  event_count: number;
  /** Ground truth from the recording script, for tests (from `truth_file` when there is one). */
  expected: Record<string, unknown>;
  /** SDK recordings: the events posthog-js sent beside the recording, as sent. */
  events_file?: string;
  /** SDK recordings: the recorder's ground truth, a JSON file of its own. */
  truth_file?: string;
}

/** An event as posthog-js sends it to /e/ (transport compression undone). */
interface SentEvent {
  event: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

const readJson = (file: string): unknown => JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8'));

let index: FixtureInfo[] | undefined;

export function fixtureIndex(): FixtureInfo[] {
  index ??= (readJson('index.json') as FixtureInfo[]).map((f) => (f.truth_file ? { ...f, expected: readJson(f.truth_file) as Record<string, unknown> } : f));
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
  // What the SDK sent beside the recording; fixtures without it get a $pageview per page load.
  const sent = info.events_file ? (readJson(info.events_file) as SentEvent[]) : undefined;
  return scriptFromLines(
    lines.map((line) => JSON.parse(line) as [string, RrwebEvent]),
    (sent ?? []).map((e) => ({ event: e.event, timestamp: Date.parse(e.timestamp), properties: e.properties })),
    sent !== undefined,
  );
}

/**
 * `[windowId, event]` lines recorded in a browser (a fixture's, or a test's own: sandbox option
 * `recordings`) as a script. `captured` are analytics events sent beside the recording (e.g.
 * `$exception`), with absolute times like the events'; unless `allSent` says they are all the
 * SDK sent, a `$pageview` is added per page load.
 */
export function scriptFromLines(
  raw: ReadonlyArray<readonly [string, RrwebEvent]>,
  captured: ReadonlyArray<{ event: string; timestamp: number; properties?: Record<string, unknown> }> = [],
  allSent = false,
): RecordedScript {
  const first = Math.min(...raw.map(([, e]) => e.timestamp));
  // Demo scripts hold times from the recording start.
  const events: ScriptEvent[] = raw.map(([windowId, event]) => ({ windowId, event: shiftedEvent(event, -first) }));
  const analytics: AnalyticsEvent[] = captured.map((c) => ({ event: c.event, t: c.timestamp - first, properties: { ...c.properties } }));
  const consoleEntries: ConsoleEntry[] = [];
  for (const { event } of events) {
    const data = event.data as { href?: string; plugin?: string; payload?: { level?: string; payload?: unknown[] } };
    if (!allSent && event.type === 4 && data.href) analytics.push({ event: '$pageview', t: event.timestamp, properties: { $current_url: data.href } });
    if (event.type === 6 && data.plugin === 'rrweb/console@1') {
      const level = data.payload?.level;
      if (level === 'log' || level === 'info' || level === 'warn' || level === 'error') {
        consoleEntries.push({ t: event.timestamp, level, message: consoleText(data.payload?.payload) });
      }
    }
  }
  // A test's own events go among the page views in time order (the SDK's are in its order).
  if (!allSent && captured.length > 0) analytics.sort((a, b) => a.t - b.t);
  return { events, analytics, console: consoleEntries };
}
