// A session's events as the query API sees them, for a session PostHog has no recording of:
// what posthog-js wrote about its recorder on every event (docs/posthog-api.md, "Why a session has no recording"). The query is bounded by a window taken from the id,
// as PostHog's own diagnostics bound it.

import { z } from 'zod';
import { asText } from '../../words.js';
import { MAX_EVENTS_AFTER, sessionEventsAfterQuery, sessionRecorderStateQuery } from '../hogql-queries.js';
import type { CallOptions } from './options.js';
import type { QueryOperations } from './query.js';
import { parseAnswer, unusable } from './parse.js';

/** What all of a session's events say about its recorder: each property's distinct values, never one event's. */
export interface SessionRecorderState {
  /** Events of the session within the window (0: PostHog has none). */
  events: number;
  /** First and last event, ISO-8601 UTC; null without events. */
  firstSeen: string | null;
  lastSeen: string | null;
  /** `$recording_status` values, as sent. */
  statuses: string[];
  /** `$session_is_sampled` values: the session id (sampled in), `!` + the id (dropped), or true/false from older SDKs. */
  sampling: string[];
  /** `$replay_sample_rate` values that are numbers. */
  rates: number[];
  /** `$session_recording_start_reason` values. */
  reasons: string[];
}

/** An event PostHog has of a session (not its replay data): a page view, a screen, an exception or a custom event. */
export interface SessionEvent {
  /** Epoch ms. */
  at: number;
  event: string;
  url?: string | undefined;
  windowId?: string | undefined;
  /** An exception's type and message, as its event gives them. */
  type?: string | undefined;
  message?: string | undefined;
}

export interface SessionOperations {
  /**
   * The session's page views, screens, exceptions and custom events after `after` (the end of its
   * recording's stored blocks) and up to `to`, oldest first, at most MAX_EVENTS_AFTER (`limited`
   * when there may be more).
   */
  eventsAfter(projectId: string, sessionId: string, after: Date, to: Date, options?: CallOptions): Promise<{ events: SessionEvent[]; limited: boolean }>;
  /**
   * The recorder's state over all of a session's events, within the window its id gives; null
   * when the id carries no start time (not a UUIDv7), so no bounded query can be made.
   */
  recorderState(projectId: string, sessionId: string, options?: CallOptions): Promise<SessionRecorderState | null>;
}

/**
 * PostHog's slack around the start a session id carries: client clocks are wrong by that much
 * (docs/posthog-api.md, "Why a session has no recording"); a posthog-js session also ends within a day of its start, inside the same slack.
 */
const SESSION_WINDOW_SLACK_MS = 3 * 86_400_000;

/** The start (ms) a UUIDv7 session id carries in its first 48 bits; null for any other id. */
export function sessionIdStartMs(sessionId: string): number | null {
  const match = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.exec(sessionId);
  if (!match) return null;
  return Number.parseInt(match[1]! + match[2]!, 16);
}

/** The window the session's events are searched in: its start, 3 days of slack either side. */
export function sessionWindow(sessionId: string): [Date, Date] | null {
  const start = sessionIdStartMs(sessionId);
  return start === null ? null : [new Date(start - SESSION_WINDOW_SLACK_MS), new Date(start + SESSION_WINDOW_SLACK_MS)];
}

const texts = z.array(z.unknown()).transform((values) => values.filter((v) => v !== null && v !== '').map((v) => asText(v)));
const time = z.unknown().transform((v) => {
  if (v === null || v === undefined || v === '') return null;
  const ms = Date.parse(asText(v));
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
});
const optionalText = z.unknown().transform((v) => (v === null || v === undefined || v === '' ? undefined : asText(v)));
const eventRow = z.object({
  event: z.unknown().transform((v) => asText(v)),
  timestamp: z.unknown().transform((v) => Date.parse(asText(v))),
  url: optionalText,
  window_id: optionalText,
  type: optionalText,
  message: optionalText,
});

const stateRow = z.object({
  events: z.coerce.number().int().nonnegative(),
  first_seen: time,
  last_seen: time,
  statuses: texts,
  sampling: texts,
  // Properties read as text in PostHog (a number here only where its definition types it).
  rates: z.array(z.unknown()).transform((values) => values.map((v) => (typeof v === 'number' ? v : Number.parseFloat(asText(v)))).filter((n) => Number.isFinite(n))),
  reasons: texts,
});

export function sessionOperations(query: QueryOperations): SessionOperations {
  return {
    async eventsAfter(projectId, sessionId, after, to, options = {}) {
      const { rows } = await query.hogql(projectId, sessionEventsAfterQuery({ sessionId, after, to }), options);
      const events: SessionEvent[] = [];
      // The query's LIMIT, kept here too: an upstream answering more rows grows nothing.
      for (const raw of rows.slice(0, MAX_EVENTS_AFTER)) {
        const row = parseAnswer(eventRow, raw, () => unusable("a session's events", 'that are not the columns asked for'));
        if (!Number.isFinite(row.timestamp) || row.event === '') continue;
        const exception = row.event === '$exception';
        events.push({
          at: row.timestamp,
          event: row.event,
          ...(row.url !== undefined ? { url: row.url } : {}),
          ...(row.window_id !== undefined ? { windowId: row.window_id } : {}),
          ...(exception && row.type !== undefined ? { type: row.type } : {}),
          ...(exception && row.message !== undefined ? { message: row.message } : {}),
        });
      }
      return { events, limited: rows.length >= MAX_EVENTS_AFTER };
    },
    async recorderState(projectId, sessionId, options = {}) {
      const window = sessionWindow(sessionId);
      if (!window) return null;
      const { rows } = await query.hogql(projectId, sessionRecorderStateQuery({ sessionId, from: window[0], to: window[1] }), options);
      // An aggregate without GROUP BY is one row, also over no events.
      const row = parseAnswer(stateRow, rows[0] ?? { events: 0, first_seen: null, last_seen: null, statuses: [], sampling: [], rates: [], reasons: [] }, () => unusable("a session's events", 'that are not the columns asked for'));
      const none = row.events === 0;
      return {
        events: row.events,
        firstSeen: none ? null : row.first_seen,
        lastSeen: none ? null : row.last_seen,
        statuses: row.statuses,
        sampling: row.sampling,
        rates: row.rates,
        reasons: row.reasons,
      };
    },
  };
}
