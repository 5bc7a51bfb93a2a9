// Questions about a project's whole population, answered by one HogQL query each (docs/posthog-api.md, "Tables the query API reads"): which sessions went through a sequence of events, and who a person is with every distinct id
// they had. The queries are built in hogql-queries.ts; here their rows are read, with zod, into values.

import { z } from 'zod';
import { asText } from '../../words.js';
import { matchedEventsQuery, MAX_PERSONS_FOUND, MAX_SEQUENCE_SESSIONS, MAX_UNRECORDED_SESSIONS, personLookupQuery, personUnrecordedQuery, sequenceSessionsQuery, type MatchedEventsOptions, type PersonUnrecordedOptions, type SequenceSessionsOptions } from '../hogql-queries.js';
import type { CallOptions } from './options.js';
import { unusable } from './parse.js';
import type { QueryOperations } from './query.js';

export type { EventPropertyCondition, MatchedEventsOptions, PersonUnrecordedOptions, RequestedEntity, SequenceStep, SequenceSessionsOptions } from '../hogql-queries.js';

/** A session that went through the sequence, and what posthog-js said on its events about recording it. */
export interface SequenceSession {
  sessionId: string;
  /** In session_replay_events within the dates asked. */
  recorded: boolean;
  /** Its recording of the period is stored but past the TTL or its retention. */
  expired: boolean;
  /** `$session_is_sampled` on its latest step event: the session id (sampled in), `!` + id (dropped), or null. */
  sampled: string | null;
  /** `$replay_sample_rate`, where a rate was set. */
  sampleRate: number | null;
  /** Every `$recording_status` its step events carried. */
  statuses: string[];
}

/** A session with events and no recording, and what posthog-js said on its events about recording it. */
export type UnrecordedSession = Omit<SequenceSession, 'recorded'>;

export interface UnrecordedAnswer {
  /** The latest first. */
  sessions: UnrecordedSession[];
  /** PostHog cut the rows at MAX_UNRECORDED_SESSIONS: there may be more. */
  truncated: boolean;
}

export interface SequenceAnswer {
  /** The matching sessions, the latest first step first. */
  sessions: SequenceSession[];
  /** PostHog cut the rows at MAX_SEQUENCE_SESSIONS sessions that had the first step. */
  truncated: boolean;
}

/** A person as the lookup finds them. */
export interface FoundPerson {
  uuid: string;
  distinctIds: string[];
  email: string | null;
  name: string | null;
  /** `$geoip_country_code` of the person record, where it has one. */
  country: string | null;
}

export interface SegmentOperations {
  /** The sessions whose events went through `options.steps` in order (the last absent when asked), within the dates. */
  sequenceSessions(projectId: string, options: SequenceSessionsOptions, call?: CallOptions): Promise<SequenceAnswer>;
  /** The people's sessions within the dates that have events but no recording (one query). */
  personUnrecorded(projectId: string, options: PersonUnrecordedOptions, call?: CallOptions): Promise<UnrecordedAnswer>;
  /** The people whose email or name is `search` (any case) or who had it as a distinct id; at most MAX_PERSONS_FOUND. */
  findPersons(projectId: string, search: string, call?: CallOptions): Promise<FoundPerson[]>;
  /**
   * For each of the sessions, how many of its events match each of `options.entities` (in their
   * order): one query for all of them. A session with none of those events is absent from the map.
   */
  matchedEvents(projectId: string, options: MatchedEventsOptions, call?: CallOptions): Promise<Map<string, number[]>>;
}

const text = z.unknown().transform((v) => (v === null || v === undefined || v === '' ? null : asText(v)));
const time = z.unknown().transform((v) => {
  const ms = typeof v === 'number' ? v * 1000 : Date.parse(asText(v ?? ''));
  return Number.isFinite(ms) ? ms : 0;
});
const times = z.array(z.unknown()).catch([]).transform((list) => list.map((v) => time.parse(v)));
const flag = z.unknown().transform((v) => v === true || v === 1 || v === '1' || v === 'true');
const rate = z.unknown().transform((v) => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
});

/** What posthog-js said about recording a session, as the sequence and person queries give it. */
const recorderColumns = {
  session_id: z.unknown().transform((v) => asText(v ?? '')),
  sampled: text,
  sample_rate: rate,
  statuses: z.array(z.unknown()).catch([]).transform((list) => list.filter((v) => v !== null && v !== '').map((v) => asText(v))),
  expired: flag,
};

const sequenceRowSchema = z.looseObject({ ...recorderColumns, first_at: time, last_at: time, recorded: flag });
const unrecordedRowSchema = z.looseObject(recorderColumns);

const personRowSchema = z.looseObject({
  person_id: z.unknown().transform((v) => asText(v ?? '')),
  distinct_ids: z.array(z.unknown()).catch([]).transform((list) => list.filter((v) => v !== null && v !== '').map((v) => asText(v))),
  email: text,
  name: text,
  country: text,
});

/**
 * Whether a session's step times go in order: the earliest first step, then each middle step's
 * earliest time after the step before (the earliest completion leaves the most room for the
 * rest); the last step after that, or, when it is absent, none after it.
 */
export function followsInOrder(first: number, middles: readonly (readonly number[])[], last: number, lastAbsent: boolean): boolean {
  let at = first;
  for (const middle of middles) {
    const next = middle.filter((t) => t > at);
    if (next.length === 0) return false;
    at = Math.min(...next);
  }
  return lastAbsent ? !(last > at) : last > at;
}

export function segmentOperations(query: QueryOperations): SegmentOperations {
  return {
    async sequenceSessions(projectId, options, call = {}) {
      const result = await query.hogql(projectId, sequenceSessionsQuery(options), call);
      const middles = options.steps.length - 2;
      const sessions: SequenceSession[] = [];
      for (const raw of result.rows) {
        const parsed = sequenceRowSchema.safeParse(raw);
        if (!parsed.success) throw unusable('a sequence query answer', 'whose rows are not sessions');
        const row = parsed.data;
        if (row.session_id === '') continue;
        const middleTimes = Array.from({ length: middles }, (_, i) => times.parse(raw[`middle_${i + 1}`]));
        if (!followsInOrder(row.first_at, middleTimes, row.last_at, options.lastAbsent)) continue;
        sessions.push({ sessionId: row.session_id, recorded: row.recorded, expired: row.expired, sampled: row.sampled, sampleRate: row.sample_rate, statuses: row.statuses });
      }
      return { sessions, truncated: result.hasMore || result.rows.length >= MAX_SEQUENCE_SESSIONS };
    },

    async personUnrecorded(projectId, options, call = {}) {
      const result = await query.hogql(projectId, personUnrecordedQuery(options), call);
      const sessions: UnrecordedSession[] = [];
      for (const raw of result.rows) {
        const parsed = unrecordedRowSchema.safeParse(raw);
        if (!parsed.success) throw unusable('a person\'s sessions answer', 'whose rows are not sessions');
        const row = parsed.data;
        if (row.session_id !== '') sessions.push({ sessionId: row.session_id, expired: row.expired, sampled: row.sampled, sampleRate: row.sample_rate, statuses: row.statuses });
      }
      return { sessions, truncated: result.hasMore || result.rows.length >= MAX_UNRECORDED_SESSIONS };
    },

    async findPersons(projectId, search, call = {}) {
      const result = await query.hogql(projectId, personLookupQuery({ search }), call);
      const found: FoundPerson[] = [];
      for (const raw of result.rows.slice(0, MAX_PERSONS_FOUND)) {
        const parsed = personRowSchema.safeParse(raw);
        if (!parsed.success) throw unusable('a person lookup answer', 'whose rows are not people');
        const row = parsed.data;
        if (row.person_id === '') continue;
        found.push({ uuid: row.person_id, distinctIds: row.distinct_ids, email: row.email, name: row.name, country: row.country });
      }
      return found;
    },

    async matchedEvents(projectId, options, call = {}) {
      const result = await query.hogql(projectId, matchedEventsQuery(options), call);
      const asked = new Set(options.sessionIds);
      const counts = new Map<string, number[]>();
      for (const raw of result.rows) {
        const id = asText(raw.session_id ?? '');
        // Only the sessions asked about: an answer naming others grows nothing.
        if (!asked.has(id)) continue;
        const row = options.entities.map((_, i) => {
          const n = Number(raw[`matched_${i}`]);
          if (!Number.isFinite(n) || n < 0) throw unusable('a matched-events answer', 'whose counts are not numbers');
          return n;
        });
        counts.set(id, row);
      }
      return counts;
    },
  };
}
