import { z } from 'zod';
import { UserInputError } from '../../errors.js';
import { CLICK, CUSTOM, DOUBLE_CLICK, FULL_SNAPSHOT, INCREMENTAL_SNAPSHOT, INPUT, META, MOUSE_INTERACTION, MUTATION, PLUGIN } from '../../posthog/rrweb.js';
import type { RrwebEvent, SnapshotSource } from '../../posthog/snapshots.js';
import { offsetOf, parseStartAt, TIME_FORMS, type StartAt } from './start-at.js';

/**
 * What part of a recording a snapshots page reads: a time window (start_at to end_at, both
 * included) and the kinds of events kept (`only`). Blocks the listing places wholly outside the
 * window are not fetched; events outside it, or of other kinds, are read past and not returned.
 */

/** The kinds `only` takes, each a set of rrweb events (docs/tools.md says which). */
export const EVENT_KINDS = ['network', 'console', 'navigation', 'click', 'input', 'dom'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export const onlyField = z
  .array(z.enum(EVENT_KINDS, { error: () => `only takes any of ${EVENT_KINDS.join(', ')}` }))
  .min(1)
  .max(EVENT_KINDS.length)
  .optional()
  .describe('Keep only these kinds.');

/**
 * The kind an event is: network and console are posthog-js's rrweb plugins (rrweb/network@1,
 * rrweb/console@1); navigation a Meta (page load) or posthog-js's `$pageview` custom event; click
 * a mouse interaction that is a click or double click; input the Input source; dom a full
 * snapshot or a mutation. Anything else (mouse moves, scrolls, resizes…) is of no kind.
 */
export function kindOf(event: RrwebEvent): EventKind | undefined {
  const data = (typeof event.data === 'object' && event.data !== null ? event.data : {}) as Record<string, unknown>;
  switch (event.type) {
    case FULL_SNAPSHOT:
      return 'dom';
    case META:
      return 'navigation';
    case CUSTOM:
      return data.tag === '$pageview' ? 'navigation' : undefined;
    case PLUGIN: {
      const plugin = typeof data.plugin === 'string' ? data.plugin : '';
      return plugin.startsWith('rrweb/network') ? 'network' : plugin.startsWith('rrweb/console') ? 'console' : undefined;
    }
    case INCREMENTAL_SNAPSHOT:
      if (data.source === MUTATION) return 'dom';
      if (data.source === INPUT) return 'input';
      if (data.source === MOUSE_INTERACTION && (data.type === CLICK || data.type === DOUBLE_CLICK)) return 'click';
      return undefined;
    default:
      return undefined;
  }
}

/** The window as asked (the inputs as written, compared with a cursor's) and as resolved to epoch ms once the recording's start is known. */
export interface SnapshotWindow {
  /** start_at and end_at as the caller wrote them */
  startAt?: string;
  endAt?: string;
  only?: EventKind[];
  /** epoch ms, both included; unset: open on that side */
  from?: number;
  to?: number;
}

/** The call's window, checked before any request: an end before the start is refused when both are of one form. */
export function askedWindow(startAt: string | undefined, endAt: string | undefined, only: EventKind[] | undefined): SnapshotWindow | undefined {
  if (startAt === undefined && endAt === undefined && only === undefined) return undefined;
  const window: SnapshotWindow = { ...(startAt !== undefined ? { startAt } : {}), ...(endAt !== undefined ? { endAt } : {}), ...(only ? { only: [...new Set(only)] } : {}) };
  const from = parseStartAt(startAt);
  const to = parseStartAt(endAt);
  if (from && to && from.kind === to.kind) checkOrder(from, to, 0);
  // Both times: nothing to learn from the recording.
  if (from?.kind === 'time') window.from = from.at;
  if (to?.kind === 'time') window.to = to.at;
  return window;
}

/** Places the window's offsets from the recording's start (epoch ms); a window already placed is kept. */
export function placeWindow(window: SnapshotWindow, start: number): void {
  const from = parseStartAt(window.startAt);
  const to = parseStartAt(window.endAt);
  if (from && to) checkOrder(from, to, start);
  if (from && window.from === undefined) window.from = start + offsetOf(from, start);
  if (to && window.to === undefined) window.to = start + offsetOf(to, start);
}

/** Whether the window still waits for the recording's start to place an offset. */
export function needsStart(window: SnapshotWindow | undefined): boolean {
  if (!window) return false;
  return (window.startAt !== undefined && window.from === undefined) || (window.endAt !== undefined && window.to === undefined);
}

function checkOrder(from: StartAt, to: StartAt, start: number): void {
  if (offsetOf(to, start) < offsetOf(from, start)) {
    throw new UserInputError(`end_at is before start_at. Each is ${TIME_FORMS}; end_at must be at or after start_at.`);
  }
}

/** Whether an event is one the page returns. */
export function wanted(window: SnapshotWindow | undefined, event: RrwebEvent): boolean {
  if (!window) return true;
  if (window.from !== undefined && !(event.timestamp >= window.from)) return false;
  if (window.to !== undefined && !(event.timestamp <= window.to)) return false;
  if (!window.only) return true;
  const kind = kindOf(event);
  return kind !== undefined && window.only.includes(kind);
}

/**
 * How far a listed block time may be from its events' own: the listing's times are the block's
 * first and last event, but a listing that gave whole seconds would place a block's last events up
 * to a second after its listed end. A block that near the window is fetched.
 */
const LISTING_SLACK_MS = 1_000;

const when = (value: string | null) => (value === null ? undefined : Date.parse(value));

/** The recording's start by its listing: the earliest start of a stored source (undefined when none says, as a long-term copy). */
export function listedStart(sources: SnapshotSource[]): number | undefined {
  let start: number | undefined;
  for (const s of sources) {
    const t = s.source === 'realtime' ? undefined : when(s.start_timestamp);
    if (t !== undefined && !Number.isNaN(t)) start = Math.min(start ?? t, t);
  }
  return start;
}

/** The recording's end by its listing: the latest end of a stored source; undefined while a realtime source may hold more, or when none says. */
export function listedEnd(sources: SnapshotSource[]): number | undefined {
  if (sources.some((s) => s.source === 'realtime')) return undefined;
  let end: number | undefined;
  for (const s of sources) {
    const t = when(s.end_timestamp);
    if (t !== undefined && !Number.isNaN(t)) end = Math.max(end ?? t, t);
  }
  return end;
}

/**
 * The sources worth fetching for the window: a source whose listed start and end both fall
 * before `from` or after `to` holds none of its events; one without times is kept. The realtime
 * source (events after the last stored block) goes when a stored block already ends past `to`.
 */
export function sourcesInWindow(sources: SnapshotSource[], window: SnapshotWindow | undefined): SnapshotSource[] {
  if (!window || (window.from === undefined && window.to === undefined)) return sources;
  const from = (window.from ?? -Infinity) - LISTING_SLACK_MS;
  const to = (window.to ?? Infinity) + LISTING_SLACK_MS;
  let storedEnd = -Infinity;
  for (const s of sources) {
    const end = s.source === 'realtime' ? undefined : when(s.end_timestamp);
    if (end !== undefined && !Number.isNaN(end)) storedEnd = Math.max(storedEnd, end);
  }
  return sources.filter((s) => {
    if (s.source === 'realtime') return storedEnd <= to;
    const start = when(s.start_timestamp);
    const end = when(s.end_timestamp);
    if (start === undefined || end === undefined || Number.isNaN(start) || Number.isNaN(end)) return true;
    return !(end < from || start > to);
  });
}
