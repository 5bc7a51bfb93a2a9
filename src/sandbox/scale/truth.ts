// What was planted in the generated week, read back from the generated data (never typed in):
// per problem the recorded sessions and people it hit, the failed checkout's chain and each of
// its parts, the sequence "started checkout, never ordered", the sessions that have events but
// no recording with their cause, and a few people to look up. Tests compare the query API's
// answers (and later the tools') with these numbers.

import {
  CHECKOUT_FAILED_CONSOLE,
  CHUNK_ERROR,
  CHUNKS,
  DEAD_REVIEWS,
  DEFAULT_SCALE_SEED,
  INVENTORY_CONSOLE,
  PAYMENT_ERROR,
  PAYMENT_PAGE_MESSAGE,
  RAGE_PLACE_ORDER,
  RAGE_PROMO,
  REPLAY_OFF_PROJECT_ID,
  SCALE_PROJECT_ID,
  VARIANTS_CONSOLE,
  VARIANTS_ERROR,
} from './catalog.js';
import { scalePopulation, type ScaleSession, type UnrecordedCause } from './population.js';

/** How messages are folded here: every run of digits is `N`. */
export const foldNumbers = (message: string): string => message.replace(/\d+/g, 'N');

export interface Hit {
  /** Recorded sessions (those in session_replay_events) that have it, and their people. */
  sessions: number;
  people: number;
  sessionIds: string[];
  /** Including sessions that have events but no recording. */
  allSessions: number;
  firstSeenMs: number;
  lastSeenMs: number;
}

export interface ScaleTruth {
  seed: number;
  anchorMs: number;
  weekStartMs: number;
  projectId: number;
  replayOffProjectId: number;
  sampleRate: number;
  minimumDurationMs: number;
  /** The shop's recorded sessions and the people they belong to. */
  recorded: { sessions: number; people: number; sessionIds: Set<string> };
  /** All of the shop's sessions (recorded or not) and people; events and stored console lines. */
  all: { sessions: number; people: number; events: number; consoleLines: number; persons: number };
  planted: {
    /** The week's top problem: an uncaught TypeError about one session in seven has. */
    topException: Hit & { type: string; message: string; fingerprint: string; handled: boolean; consoleMessage: string };
    /** Each part of the failed checkout on its own, and the chain: all of them in one session, in order, within 10 s. */
    failedCheckout: {
      chain: Hit;
      request: Hit;
      exception: Hit & { type: string; message: string };
      consoleError: Hit & { folded: string };
      pageMessage: Hit & { text: string };
      rageClick: Hit & { text: string; pathname: string };
    };
    /** A handled error whose message carries a chunk number: one line per chunk, one problem folded. */
    chunkLoad: Hit & { type: string; folded: string; messages: Record<string, Hit> };
    /** A console error with numbers inside (request id, milliseconds), one message folded. */
    inventoryTimeouts: Hit & { folded: string; distinctMessages: number };
    deadClicks: Hit & { text: string; pathname: string };
    promoRageClicks: Hit & { text: string; pathname: string };
  };
  sequence: {
    /** Recorded sessions with checkout_started and no order_completed after the first of them. */
    checkoutWithoutOrder: Hit;
  };
  unrecorded: Array<{ sessionId: string; projectId: number; cause: UnrecordedCause; durationMs: number; sampleRate: number | null }>;
  unrecordedByCause: Record<UnrecordedCause, number>;
  examples: {
    sampledOut: string;
    tooShort: string;
    replayOff: string;
    /** Someone with anonymous and identified sessions on two devices. */
    personWithSeveralIds: { uuid: string; email: string; distinctIds: string[]; recordedSessionIds: string[]; sessionIds: string[] };
    /** Someone known only to the help centre (replay off there). */
    personOnlyInReplayOff: { uuid: string; email: string; distinctIds: string[]; projectId: number; sessionIds: string[] };
  };
}

function hit(sessions: ScaleSession[], times: (s: ScaleSession) => number[]): Hit {
  let first = Infinity;
  let last = -Infinity;
  const recorded: ScaleSession[] = [];
  let all = 0;
  for (const s of sessions) {
    const at = times(s);
    if (at.length === 0) continue;
    all++;
    if (!s.stats) continue;
    recorded.push(s);
    first = Math.min(first, ...at);
    last = Math.max(last, ...at);
  }
  return {
    sessions: recorded.length,
    people: new Set(recorded.map((s) => s.person.record.uuid)).size,
    sessionIds: recorded.map((s) => s.id).sort(),
    allSessions: all,
    firstSeenMs: first,
    lastSeenMs: last,
  };
}

const eventTimes = (s: ScaleSession, test: (e: ScaleSession['events'][number]) => boolean) => s.events.filter(test).map((e) => e.timestampMs);
const exceptionOf = (e: ScaleSession['events'][number]) => (e.event === '$exception' ? (e.properties.$exception_list as Array<{ type: string; value: string }>)[0] : undefined);
const isException = (type: string, value: (v: string) => boolean) => (e: ScaleSession['events'][number]) => exceptionOf(e)?.type === type && value(exceptionOf(e)!.value);
const isClick = (event: string, text: string, pathname: string) => (e: ScaleSession['events'][number]) => e.event === event && e.properties.$el_text === text && e.properties.$pathname === pathname;
const consoleTimes = (s: ScaleSession, test: (message: string, level: string) => boolean) => s.consoleRows.filter((c) => test(c.message, c.level)).map((c) => c.timestampMs);

/** The failed checkout in one session: request → console error → exception → page message → rage click, in order, within 10 s. */
function chainTimes(s: ScaleSession): number[] {
  const folded = foldNumbers(CHECKOUT_FAILED_CONSOLE(0));
  for (const request of s.steps) {
    if (request.do !== 'network' || request.status !== 500) continue;
    const at = s.startMs + request.t;
    const after = (times: number[]) => times.find((t) => t >= at && t <= at + 10_000);
    const consoleAt = after(consoleTimes(s, (m, l) => l === 'error' && foldNumbers(m) === folded));
    const exceptionAt = after(eventTimes(s, isException(PAYMENT_ERROR.type, (v) => v === PAYMENT_ERROR.value)));
    const messageAt = after(s.steps.filter((x) => x.do === 'alert' && x.text === PAYMENT_PAGE_MESSAGE).map((x) => s.startMs + x.t));
    const rageAt = after(eventTimes(s, isClick('$rageclick', RAGE_PLACE_ORDER.text, RAGE_PLACE_ORDER.pathname)));
    if (consoleAt !== undefined && exceptionAt !== undefined && messageAt !== undefined && rageAt !== undefined && consoleAt <= exceptionAt && exceptionAt <= messageAt && messageAt <= rageAt) return [at];
  }
  return [];
}

export function scaleTruth(options: { now: Date | number; seed?: number }): ScaleTruth {
  const seed = options.seed ?? DEFAULT_SCALE_SEED;
  const population = scalePopulation(typeof options.now === 'number' ? options.now : options.now.getTime(), seed);
  const { store, help } = population;
  const sessions = store.sessions;
  const recorded = sessions.filter((s) => s.stats);
  const chunkFolded = foldNumbers(CHUNK_ERROR(0).value);
  const inventoryFolded = foldNumbers(INVENTORY_CONSOLE(0, 0));
  const inventoryMessages = new Set(recorded.flatMap((s) => s.consoleRows.filter((c) => foldNumbers(c.message) === inventoryFolded).map((c) => c.message)));
  const checkoutWithoutOrder = (s: ScaleSession): number[] => {
    const started = eventTimes(s, (e) => e.event === 'checkout_started');
    if (started.length === 0) return [];
    const ordered = eventTimes(s, (e) => e.event === 'order_completed');
    return Math.max(0, ...ordered) < Math.min(...started) ? [Math.min(...started)] : [];
  };
  const unrecorded = [...sessions, ...help.sessions]
    .filter((s) => s.cause !== null)
    .map((s) => ({ sessionId: s.id, projectId: s.projectId, cause: s.cause!, durationMs: s.endMs - s.startMs, sampleRate: s.projectId === SCALE_PROJECT_ID ? store.sampleRate : null }));
  const firstWith = (cause: UnrecordedCause) => unrecorded.find((u) => u.cause === cause)!.sessionId;

  const several = store.people.find((p) => p.kind === 'new' && p.anonIds.length > 1 && sessions.filter((s) => s.person === p && s.stats).length >= 3) ?? store.people.find((p) => p.anonIds.length > 1)!;
  const severalSessions = sessions.filter((s) => s.person === several);
  const helpPerson = help.people.find((p) => p.identifiedId !== null)!;

  return {
    seed,
    anchorMs: population.anchorMs,
    weekStartMs: population.weekStartMs,
    projectId: SCALE_PROJECT_ID,
    replayOffProjectId: REPLAY_OFF_PROJECT_ID,
    sampleRate: store.sampleRate!,
    minimumDurationMs: store.minimumDurationMs!,
    recorded: { sessions: recorded.length, people: new Set(recorded.map((s) => s.person.record.uuid)).size, sessionIds: new Set(recorded.map((s) => s.id)) },
    all: {
      sessions: sessions.length,
      people: new Set(sessions.map((s) => s.person.record.uuid)).size,
      events: store.data.events.length,
      consoleLines: store.data.console.length,
      persons: store.data.persons.length,
    },
    planted: {
      topException: {
        ...hit(sessions, (s) => eventTimes(s, isException(VARIANTS_ERROR.type, (v) => v === VARIANTS_ERROR.value))),
        type: VARIANTS_ERROR.type,
        message: VARIANTS_ERROR.value,
        fingerprint: VARIANTS_ERROR.fingerprint,
        handled: VARIANTS_ERROR.handled,
        consoleMessage: VARIANTS_CONSOLE,
      },
      failedCheckout: {
        chain: hit(sessions, chainTimes),
        request: hit(sessions, (s) => s.steps.filter((x) => x.do === 'network' && x.status === 500).map((x) => s.startMs + x.t)),
        exception: { ...hit(sessions, (s) => eventTimes(s, isException(PAYMENT_ERROR.type, (v) => v === PAYMENT_ERROR.value))), type: PAYMENT_ERROR.type, message: PAYMENT_ERROR.value },
        consoleError: { ...hit(sessions, (s) => consoleTimes(s, (m, l) => l === 'error' && foldNumbers(m) === foldNumbers(CHECKOUT_FAILED_CONSOLE(0)))), folded: foldNumbers(CHECKOUT_FAILED_CONSOLE(0)) },
        pageMessage: { ...hit(sessions, (s) => s.steps.filter((x) => x.do === 'alert' && x.text === PAYMENT_PAGE_MESSAGE).map((x) => s.startMs + x.t)), text: PAYMENT_PAGE_MESSAGE },
        rageClick: { ...hit(sessions, (s) => eventTimes(s, isClick('$rageclick', RAGE_PLACE_ORDER.text, RAGE_PLACE_ORDER.pathname))), text: RAGE_PLACE_ORDER.text, pathname: RAGE_PLACE_ORDER.pathname },
      },
      chunkLoad: {
        ...hit(sessions, (s) => eventTimes(s, isException('ChunkLoadError', (v) => foldNumbers(v) === chunkFolded))),
        type: 'ChunkLoadError',
        folded: chunkFolded,
        messages: Object.fromEntries(CHUNKS.map((chunk) => [CHUNK_ERROR(chunk).value, hit(sessions, (s) => eventTimes(s, isException('ChunkLoadError', (v) => v === CHUNK_ERROR(chunk).value)))])),
      },
      inventoryTimeouts: { ...hit(sessions, (s) => consoleTimes(s, (m, l) => l === 'error' && foldNumbers(m) === inventoryFolded)), folded: inventoryFolded, distinctMessages: inventoryMessages.size },
      deadClicks: { ...hit(sessions, (s) => eventTimes(s, isClick('$dead_click', DEAD_REVIEWS.text, `/products/${DEAD_REVIEWS.product}`))), text: DEAD_REVIEWS.text, pathname: `/products/${DEAD_REVIEWS.product}` },
      promoRageClicks: { ...hit(sessions, (s) => eventTimes(s, isClick('$rageclick', RAGE_PROMO.text, RAGE_PROMO.pathname))), text: RAGE_PROMO.text, pathname: RAGE_PROMO.pathname },
    },
    sequence: { checkoutWithoutOrder: hit(sessions, checkoutWithoutOrder) },
    unrecorded,
    unrecordedByCause: {
      sampled_out: unrecorded.filter((u) => u.cause === 'sampled_out').length,
      too_short: unrecorded.filter((u) => u.cause === 'too_short').length,
      replay_off: unrecorded.filter((u) => u.cause === 'replay_off').length,
    },
    examples: {
      sampledOut: firstWith('sampled_out'),
      tooShort: firstWith('too_short'),
      replayOff: firstWith('replay_off'),
      personWithSeveralIds: {
        uuid: several.record.uuid,
        email: several.email!,
        distinctIds: [...several.record.distinctIds],
        recordedSessionIds: severalSessions.filter((s) => s.stats).map((s) => s.id),
        sessionIds: severalSessions.map((s) => s.id),
      },
      personOnlyInReplayOff: {
        uuid: helpPerson.record.uuid,
        email: helpPerson.email!,
        distinctIds: [...helpPerson.record.distinctIds],
        projectId: REPLAY_OFF_PROJECT_ID,
        sessionIds: help.sessions.filter((s) => s.person === helpPerson).map((s) => s.id),
      },
    },
  };
}
