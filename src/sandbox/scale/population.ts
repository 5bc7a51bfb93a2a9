// The generated week (sandbox option `scale`): the shop's ~2,200 people and their ~3,300
// sessions (about 3,000 of them recorded), and a help centre with replay switched off. Drawn from
// one seed and pinned to the hour of the sandbox's clock: the same seed gives the same sessions,
// problems and counts at any hour, and the same ids within the same hour (session ids are UUIDv7s
// of their start). Generated once per process and kept (the last two are).

import type { CapturedEvent, RecordingStats } from '../demo/dataset.js';
import type { ProjectSeed } from '../demo/catalog.js';
import type { ConsoleEntry, Device } from '../demo/timeline.js';
import type { ConsoleRow, EventRow, PersonRecord, ProjectData, ReplayRow } from '../project-data.js';
import {
  DEFAULT_SCALE_SEED,
  HELP_PEOPLE,
  REFERRERS,
  SCALE_HELP_SEED,
  SCALE_STORE_SEED,
  STORE_MINIMUM_DURATION_MS,
  STORE_PEOPLE,
  STORE_SAMPLE_RATE,
} from './catalog.js';
import { helpJourney, storeJourney, type StorePlan } from './journeys.js';
import { datePerson, makePeople, type ScalePerson } from './people.js';
import { Random } from './random.js';
import { sessionReplay } from './replay.js';
import { SessionWriter, type ReplayMode, type SnapshotStep } from './session-writer.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Why a session with events has no recording. */
export type UnrecordedCause = 'sampled_out' | 'too_short' | 'replay_off';

export interface ScaleSession {
  id: string;
  projectId: number;
  windowId: string;
  person: ScalePerson;
  device: Device;
  /** The distinct id the session started with (an anonymous one until the person logs in). */
  distinctId: string;
  startMs: number;
  endMs: number;
  replay: ReplayMode;
  cause: UnrecordedCause | null;
  events: CapturedEvent[];
  /** Console lines (ms since the start), as the recorder saw them; none for a session not recorded. */
  console: ConsoleEntry[];
  steps: SnapshotStep[];
  replayRows: ReplayRow[];
  /** The console lines as console_logs_log_entries stores them. */
  consoleRows: ConsoleRow[];
  stats: RecordingStats | null;
}

export interface ScaleProject {
  seed: ProjectSeed;
  sampleRate: number | null;
  minimumDurationMs: number | null;
  people: ScalePerson[];
  sessions: ScaleSession[];
  data: ProjectData;
}

export interface Population {
  seed: number;
  /** The hour the week is pinned to: the week is [anchorMs − 7 days, anchorMs). */
  anchorMs: number;
  weekStartMs: number;
  store: ScaleProject;
  help: ScaleProject;
}

/**
 * A session start within the week, on a whole second, some hours of each day of the week busier
 * than others. The hours count from the week's start, not the clock's: the draws (and so every
 * count) are the same whatever hour the sandbox starts; only the times and the ids move.
 */
function sessionStart(rng: Random, weekStartMs: number, anchorMs: number): number {
  const from = 30 * MINUTE;
  const span = anchorMs - 45 * MINUTE - weekStartMs - from;
  for (;;) {
    const offset = from + rng.next() * span;
    const hour = Math.floor(offset / HOUR) % 24;
    if (rng.chance(0.25 + 0.75 * Math.max(0, Math.sin((Math.PI * (hour - 5)) / 19)))) return weekStartMs + Math.floor(offset / 1000) * 1000;
  }
}

interface ProjectSpec {
  seed: ProjectSeed;
  sampleRate: number | null;
  minimumDurationMs: number | null;
  replayOn: boolean;
  people: ScalePerson[];
  journey: (w: SessionWriter, plan: StorePlan) => void;
  plan: (rng: Random) => Omit<StorePlan, 'identify'>;
}

const NO_PROBLEMS: Omit<StorePlan, 'identify'> = { tooShort: false, variants: 0, failedCheckout: false, slowCheckoutRage: false, inventoryTimeouts: false, chunkError: false, deadReviews: false, promoRage: false };

/** The problems planted in one shop session, drawn independently (exact counts come from the result). */
function storePlan(rng: Random): Omit<StorePlan, 'identify'> {
  const failedCheckout = rng.chance(0.035);
  return {
    tooShort: false,
    variants: rng.chance(1 / 7) ? (rng.chance(0.2) ? 2 : 1) : 0,
    failedCheckout,
    slowCheckoutRage: !failedCheckout && rng.chance(0.008),
    inventoryTimeouts: rng.chance(0.09),
    chunkError: rng.chance(0.03),
    deadReviews: rng.chance(0.06),
    promoRage: rng.chance(0.02),
  };
}

function generateProject(spec: ProjectSpec, rng: Random, weekStartMs: number, anchorMs: number): ScaleProject {
  const sessions: ScaleSession[] = [];
  for (const person of spec.people) {
    const starts = Array.from({ length: person.sessionCount }, () => sessionStart(rng, weekStartMs, anchorMs)).sort((a, b) => a - b);
    const onDevice = starts.map((_, i) => (person.devices.length > 1 && (i === starts.length - 1 || rng.chance(0.4)) ? 1 : 0));
    if (person.devices.length > 1 && !onDevice.includes(0)) onDevice[0] = 0;
    const identified = person.devices.map((_, d) => person.kind === 'returning' && d === 0);
    // A new person logs in on one of their first device's sessions; anyone logs in on a second device's first session.
    const firstDeviceSessions = onDevice.map((d, i) => (d === 0 ? i : -1)).filter((i) => i >= 0);
    const newLogin = person.kind === 'new' ? rng.pick(firstDeviceSessions) : -1;
    let dated = person.kind !== 'new';
    starts.forEach((startMs, i) => {
      const d = onDevice[i]!;
      const profile = person.devices[d]!;
      const referrer = rng.weighted(REFERRERS);
      const sampled = spec.replayOn && (spec.sampleRate === null || rng.chance(spec.sampleRate));
      const replay: ReplayMode = !spec.replayOn ? 'off' : sampled ? 'sampled' : 'sampled_out';
      const id = rng.uuidV7(startMs);
      const windowId = rng.uuidV7(startMs + rng.int(1, 40));
      const logsIn = person.identifiedId !== null && !identified[d] && (i === newLogin || (d === 1 && !identified[1]));
      const problems = spec.plan(rng);
      // A session that logs in is never cut short: the person's profile is made there.
      const tooShort = sampled && spec.minimumDurationMs !== null && rng.chance(0.012) && !logsIn;
      const plan: StorePlan = tooShort ? { ...NO_PROBLEMS, tooShort: true, identify: null } : { ...problems, identify: logsIn ? { id: person.identifiedId!, set: { email: person.email, name: person.name } } : null };
      const distinctId = identified[d] ? person.identifiedId! : person.anonIds[d]!;
      const w = new SessionWriter(
        { id, windowId, startMs, device: profile, place: person.place, referrer, deviceId: person.anonIds[d]!, replay, sampleRate: spec.replayOn ? spec.sampleRate : null, deadClicks: spec.replayOn },
        rng,
        distinctId,
        identified[d]!,
      );
      spec.journey(w, plan);
      if (w.identities.length > 1) {
        identified[d] = true;
        if (!dated) {
          datePerson(person, startMs + w.identities[1]!.t);
          dated = true;
        }
      }
      w.events.sort((a, b) => a.timestampMs - b.timestampMs);
      const endMs = startMs + w.lastT;
      const tooShortNow = spec.minimumDurationMs !== null && endMs - startMs < spec.minimumDurationMs;
      const cause = replay === 'off' ? 'replay_off' : replay === 'sampled_out' ? 'sampled_out' : tooShortNow ? 'too_short' : null;
      const recorded = cause === null ? sessionReplay(w, id, endMs - startMs, rng) : undefined;
      sessions.push({
        id,
        projectId: spec.seed.id,
        windowId,
        person,
        device: { ...profile, countryCode: person.place[0], countryName: person.place[1], city: person.place[2], referrer },
        distinctId,
        startMs,
        endMs,
        replay,
        cause,
        events: w.events,
        console: recorded ? w.console : [],
        steps: w.steps,
        replayRows: recorded?.rows ?? [],
        consoleRows: recorded?.console ?? [],
        stats: recorded?.stats ?? null,
      });
    });
  }
  sessions.sort((a, b) => a.startMs - b.startMs || (a.id < b.id ? -1 : 1));
  return { seed: spec.seed, sampleRate: spec.sampleRate, minimumDurationMs: spec.minimumDurationMs, people: spec.people, sessions, data: projectTables(spec.seed.id, spec.people, sessions) };
}

function projectTables(teamId: number, people: ScalePerson[], sessions: ScaleSession[]): ProjectData {
  const identified = people.filter((p) => p.identifiedId !== null);
  const personByDistinctId = new Map<string, PersonRecord>();
  for (const p of identified) for (const id of p.record.distinctIds) personByDistinctId.set(id, p.record);
  const events: EventRow[] = [];
  const replay: ReplayRow[] = [];
  const console: ConsoleRow[] = [];
  for (const s of sessions) {
    const person = s.person.identifiedId !== null ? s.person.record : undefined;
    for (const e of s.events) events.push({ e, sessionId: s.id, windowId: s.windowId, personId: s.person.record.uuid, person });
    replay.push(...s.replayRows);
    console.push(...s.consoleRows);
  }
  return { teamId, events, replay, console, persons: identified.map((p) => p.record), personByDistinctId };
}

function generate(seed: number, anchorMs: number): Population {
  const weekStartMs = anchorMs - 7 * DAY;
  const storeRng = new Random(seed);
  const emails = new Set<string>();
  const storePeople = makePeople(storeRng, {
    projectId: SCALE_STORE_SEED.id,
    count: STORE_PEOPLE,
    weekStartMs,
    kinds: [
      ['returning', 28],
      ['new', 27],
      ['anonymous', 45],
    ],
    idPrefix: 'cus_',
    emails,
    firstNumber: 10_000,
  });
  const store = generateProject(
    { seed: SCALE_STORE_SEED, sampleRate: STORE_SAMPLE_RATE, minimumDurationMs: STORE_MINIMUM_DURATION_MS, replayOn: true, people: storePeople, journey: storeJourney, plan: storePlan },
    storeRng,
    weekStartMs,
    anchorMs,
  );
  // Its own stream: the help centre can change without changing the shop's week.
  const helpRng = new Random(seed ^ 0x5eed);
  const helpPeople = makePeople(helpRng, { projectId: SCALE_HELP_SEED.id, count: HELP_PEOPLE, weekStartMs, kinds: [['new', 35], ['anonymous', 65]], idPrefix: 'hc_', emails, firstNumber: 50_000 });
  const help = generateProject(
    { seed: SCALE_HELP_SEED, sampleRate: null, minimumDurationMs: null, replayOn: false, people: helpPeople, journey: (w, plan) => helpJourney(w, plan.identify), plan: () => NO_PROBLEMS },
    helpRng,
    weekStartMs,
    anchorMs,
  );
  return { seed, anchorMs, weekStartMs, store, help };
}

const cache = new Map<string, Population>();

/** The population for a sandbox whose clock starts at `nowMs`: pinned to the start of that hour. */
export function scalePopulation(nowMs: number, seed = DEFAULT_SCALE_SEED): Population {
  const anchorMs = Math.floor(nowMs / HOUR) * HOUR;
  const key = `${seed}:${anchorMs}`;
  let population = cache.get(key);
  if (!population) {
    population = generate(seed, anchorMs);
    if (cache.size >= 2) cache.delete(cache.keys().next().value!);
    cache.set(key, population);
  }
  return population;
}
