// A project's data as the query API's tables hold it: events (with the person each belongs to),
// replay metadata rows, console log lines, persons and their distinct ids. The demo projects'
// come from their recordings, read afresh on each query (there are a handful); a project at
// scale (scale/) brings its own, generated once.

import type { CapturedEvent, LiveRecording } from './demo/dataset.js';
import type { PersonSeed } from './demo/catalog.js';
import type { SandboxState } from './state.js';
import { teamNamespace, uuidV5 } from './util.js';

const DAY = 86_400_000;

export interface PersonRecord {
  /** The person's UUID: `persons.id` and `person_id` in HogQL. */
  uuid: string;
  /** The integer id of PostHog's persons API. */
  id: number;
  createdMs: number;
  properties: Record<string, unknown>;
  distinctIds: readonly string[];
  isIdentified: boolean;
}

export interface EventRow {
  e: CapturedEvent;
  sessionId: string | null;
  windowId: string | null;
  personId: string;
  person: PersonRecord | undefined;
}

/** One stored row of replay metadata (one ingestion batch), the columns of raw_session_replay_events. */
export interface ReplayRow {
  session_id: string;
  distinct_id: string;
  min_first_timestamp: number;
  max_last_timestamp: number;
  first_url: string | null;
  all_urls: readonly string[];
  click_count: number;
  keypress_count: number;
  mouse_activity_count: number;
  active_milliseconds: number;
  console_log_count: number;
  console_warn_count: number;
  console_error_count: number;
  size: number;
  event_count: number;
  message_count: number;
  retention_period_days: number;
  /** When the batch was ingested. */
  _timestamp: number;
}

/** A console line as replay ingestion stores it: only three levels. */
export interface ConsoleRow {
  sessionId: string;
  timestampMs: number;
  level: 'info' | 'warn' | 'error';
  message: string;
}

export interface ProjectData {
  teamId: number;
  events: readonly EventRow[];
  replay: readonly ReplayRow[];
  console: readonly ConsoleRow[];
  persons: readonly PersonRecord[];
  personByDistinctId: ReadonlyMap<string, PersonRecord>;
}

/** The project's tables: its generated ones at scale, else read from its demo recordings. */
export function projectData(state: SandboxState, projectId: number): ProjectData {
  return state.scaleData(projectId) ?? demoData(state, projectId);
}

/** A person of a generated project knows when it was created; a demo person, how many days ago. */
export type DatedPersonSeed = PersonSeed & { createdMs?: number };

/** When the persons API says a person was created (recordings.ts shows the same). */
export function personCreatedMs(seed: DatedPersonSeed, pinnedNowMs: number): number {
  return seed.createdMs ?? Math.floor((pinnedNowMs - seed.createdDaysAgo * DAY) / 1000) * 1000 - 17_000;
}

function personRecord(seed: PersonSeed, pinnedNowMs: number): PersonRecord {
  return {
    uuid: seed.uuid,
    id: seed.id,
    createdMs: personCreatedMs(seed, pinnedNowMs),
    properties: seed.properties,
    distinctIds: seed.distinctIds,
    isIdentified: typeof seed.properties.email === 'string',
  };
}

/** PostHog's stored levels: log, info, debug and anything else are `info`. */
export function storedLevel(level: string): ConsoleRow['level'] {
  return level === 'error' || level === 'warn' ? level : 'info';
}

function demoData(state: SandboxState, projectId: number): ProjectData {
  const recordings = [...state.recordings().values()].filter((r) => r.seed.projectId === projectId);
  const persons = new Map<number, PersonRecord>();
  const byDistinctId = new Map<string, PersonRecord>();
  for (const rec of recordings) {
    const seed = rec.seed.person;
    if (!seed || persons.has(seed.id)) continue;
    const person = personRecord(seed, rec.pinnedNowMs);
    persons.set(seed.id, person);
    for (const id of seed.distinctIds) byDistinctId.set(id, person);
  }
  const events: EventRow[] = [];
  // Deleting a recording leaves its events in place, as in PostHog.
  for (const rec of recordings) {
    for (const e of rec.captured()) {
      const person = byDistinctId.get(e.distinctId);
      const windowId = e.properties.$window_id;
      events.push({ e, sessionId: rec.id, windowId: typeof windowId === 'string' ? windowId : null, person, personId: person?.uuid ?? uuidV5(teamNamespace(projectId), e.distinctId) });
    }
  }
  const live = recordings.filter((r) => !state.deletedRecordings.has(r.id));
  return {
    teamId: projectId,
    events,
    replay: live.map(replayRow),
    console: live.flatMap((rec) => rec.script.console.map((c) => ({ sessionId: rec.id, timestampMs: rec.startMs + c.t, level: storedLevel(c.level), message: c.message }))),
    persons: [...persons.values()],
    personByDistinctId: byDistinctId,
  };
}

/** A demo recording's metadata as one stored row (the demo recordings were ingested long ago, in one piece). */
function replayRow(rec: LiveRecording): ReplayRow {
  const s = rec.script.stats;
  const urls = new Set<string>();
  for (const e of rec.captured()) if (typeof e.properties.$current_url === 'string') urls.add(e.properties.$current_url);
  return {
    session_id: rec.id,
    distinct_id: rec.seed.distinctId,
    min_first_timestamp: rec.startMs,
    max_last_timestamp: rec.endMs,
    first_url: s.startUrl,
    all_urls: [...urls],
    click_count: s.clickCount,
    keypress_count: s.keypressCount,
    mouse_activity_count: s.mouseActivityCount,
    active_milliseconds: s.activeMs,
    console_log_count: s.consoleLogCount,
    console_warn_count: s.consoleWarnCount,
    console_error_count: s.consoleErrorCount,
    size: rec.script.events.length * 180,
    event_count: rec.script.events.length,
    message_count: Math.max(1, Math.ceil(rec.script.events.length / 50)),
    retention_period_days: 30,
    _timestamp: rec.endMs + 4_000,
  };
}
