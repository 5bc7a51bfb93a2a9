// A recorded session's replay metadata as PostHog stores it: several rows, one per ingestion
// batch, whose counts add up to what the recordings list shows for the session (its duration,
// clicks, console counts, active time), and its console lines as console_logs_log_entries keeps
// them (three levels; identical lines of one batch stored once).

import type { RecordingStats } from '../demo/dataset.js';
import { storedLevel, type ConsoleRow, type ReplayRow } from '../project-data.js';
import type { Random } from './random.js';
import type { SessionWriter } from './session-writer.js';

export interface SessionReplay {
  rows: ReplayRow[];
  console: ConsoleRow[];
  stats: RecordingStats;
}

/** `total` split over batches in proportion to their length, the remainder on the last. */
function split(total: number, shares: number[]): number[] {
  const out = shares.map((share) => Math.floor(total * share));
  out[out.length - 1]! += total - out.reduce((a, b) => a + b, 0);
  return out;
}

export function sessionReplay(w: SessionWriter, sessionId: string, durationMs: number, rng: Random): SessionReplay {
  const start = w.setup.startMs;
  const bounds = [0];
  while (bounds[bounds.length - 1]! < durationMs) bounds.push(Math.min(durationMs, bounds[bounds.length - 1]! + rng.int(20_000, 90_000)));
  if (bounds.length === 1) bounds.push(durationMs);
  const batches = bounds.slice(0, -1).map((a, i) => ({ a, b: bounds[i + 1]! }));
  const last = batches.length - 1;
  const inBatch = (t: number, i: number) => t >= batches[i]!.a && (t < batches[i]!.b || (i === last && t <= batches[i]!.b));

  const clicks = w.events.filter((e) => e.event === '$autocapture' && e.properties.$event_type === 'click').map((e) => e.timestampMs - start);
  const mouse = w.mouseMoves + clicks.length * 3;
  const keypresses = w.keypresses;
  const activeMs = Math.min(durationMs, w.activeMs);
  const size = w.pages.length * 24_000 + mouse * 60 + clicks.length * 150 + w.console.length * 200;
  const eventCount = w.pages.length * 4 + mouse + w.console.length;
  const shares = batches.map(({ a, b }) => (durationMs === 0 ? 1 : (b - a) / durationMs));
  const parts = {
    keypress: split(keypresses, shares),
    mouse: split(mouse - clicks.length * 3, shares),
    active: split(activeMs, shares),
    size: split(size, shares),
    events: split(eventCount, shares),
  };
  const urlAt = (t: number) => [...w.pages].reverse().find((p) => p.t <= t)?.url ?? w.pages[0]!.url;
  const distinctIdAt = (t: number) => [...w.identities].reverse().find((i) => i.t <= t)!.distinctId;

  const rows: ReplayRow[] = batches.map(({ a, b }, i) => {
    const batchClicks = clicks.filter((t) => inBatch(t, i)).length;
    const lines = w.console.filter((c) => inBatch(c.t, i));
    const level = (l: string) => lines.filter((c) => storedLevel(c.level) === l).length;
    const urls = new Set([urlAt(a), ...w.pages.filter((p) => inBatch(p.t, i)).map((p) => p.url)]);
    return {
      session_id: sessionId,
      distinct_id: distinctIdAt(a),
      min_first_timestamp: start + a,
      max_last_timestamp: start + b,
      first_url: urlAt(a),
      all_urls: [...urls],
      click_count: batchClicks,
      keypress_count: parts.keypress[i]!,
      mouse_activity_count: parts.mouse[i]! + batchClicks * 3,
      active_milliseconds: parts.active[i]!,
      console_log_count: level('info'),
      console_warn_count: level('warn'),
      console_error_count: level('error'),
      size: parts.size[i]!,
      event_count: parts.events[i]!,
      message_count: Math.max(1, Math.ceil(parts.events[i]! / 12)),
      retention_period_days: 30,
      _timestamp: start + b + rng.int(1_000, 8_000),
    };
  });

  const console: ConsoleRow[] = [];
  batches.forEach((_, i) => {
    const seen = new Set<string>();
    for (const line of w.console) {
      if (!inBatch(line.t, i)) continue;
      const level = storedLevel(line.level);
      const key = `${level}\u0000${line.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      console.push({ sessionId, timestampMs: start + line.t, level, message: line.message });
    }
  });

  const count = (l: string) => w.console.filter((c) => storedLevel(c.level) === l).length;
  return {
    rows,
    console,
    stats: {
      durationMs,
      startUrl: w.pages[0]!.url,
      clickCount: clicks.length,
      keypressCount: keypresses,
      mouseActivityCount: mouse,
      consoleLogCount: count('info'),
      consoleWarnCount: count('warn'),
      consoleErrorCount: count('error'),
      activeMs,
    },
  };
}
