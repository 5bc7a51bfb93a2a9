/**
 * The operations: the one room that knows PostHog's paths and the shapes of its answers. Each
 * operation sends its request through the client (posthog/client.ts: auth, pacing, retries,
 * budgets) and parses the answer once, with a zod schema (resources.ts, answers.ts), into a typed
 * value; an answer that cannot be used is an UpstreamUnavailableError('malformed') saying so.
 * Tools receive these, never the client: a test gives a tool a stand-in for them.
 *
 * Layering: tools → operations → the client.
 */
import type { Rate } from '../../replay-rates.js';
import type { CallBudget } from '../budget.js';
import type { PostHogClient } from '../client.js';
import { definitionOperations, type DefinitionOperations } from './definitions.js';
import { populationOperations, type PopulationOperations } from './population.js';
import { segmentOperations, type SegmentOperations } from './segments.js';
import { projectOperations, type ProjectOperations } from './projects.js';
import { queryOperations, type QueryOperations } from './query.js';
import { recordingOperations, type RecordingOperations } from './recordings.js';
import { sessionOperations, type SessionOperations } from './sessions.js';
import { snapshotOperations, type SnapshotOperations } from './snapshots.js';

export type { CallOptions } from './options.js';
export type { DefinitionOperations, DefinitionQuery, EventDefinition, PropertyDefinition, PropertyValue } from './definitions.js';
export type { EventPropertyCondition, FoundPerson, MatchedEventsOptions, RequestedEntity, SegmentOperations, SequenceAnswer, SequenceSession, SequenceStep, UnrecordedAnswer, UnrecordedSession } from './segments.js';
export type { ChainConsoleLine, ChainEvent, ClickGroup, ConsoleGroup, ExceptionGroup, PeriodOptions, PopulationOperations } from './population.js';
export type { Organization, PersonalApiKey, ProjectListQuery, ProjectOperations, User } from './projects.js';
export type { HogQLRows, QueryOperations } from './query.js';
export type { Answered, Match, MatchingEventsRequest, RecordingListQuery, RecordingOperations, SessionProperties } from './recordings.js';
export type { SessionEvent, SessionOperations, SessionRecorderState } from './sessions.js';
export type { SnapshotOperations, SnapshotSource, StreamedResponse } from './snapshots.js';
export type { Page } from '../pagination.js';
export type { Person, Project, ProjectListItem, Recording } from '../resources.js';

export interface PostHogOperations {
  readonly recordings: RecordingOperations;
  readonly snapshots: SnapshotOperations;
  readonly projects: ProjectOperations;
  readonly query: QueryOperations;
  readonly sessions: SessionOperations;
  readonly definitions: DefinitionOperations;
  /** A period's recordings counted as a whole (the query API). */
  readonly population: PopulationOperations;
  /** Which sessions and people match: sequences of events, a person with every distinct id (the query API). */
  readonly segments: SegmentOperations;

  // What a caller needs of the client besides its requests.
  /** The upstream's base URL (PostHog's player links, the digest cache's key). */
  readonly baseUrl: string;
  /** A key to send requests with is known (the digest cache keeps digests per key). */
  readonly hasApiKey: boolean;
  /** Who the key is on its host, for what must be kept per user: a hash of host and key, never the key; '' without one. */
  readonly keyIdentity: string;
  /** This key's replay requests are being paced now (configured rates, or learned from PostHog's 429s). */
  readonly pacesReplay: boolean;
  /** Replay requests this key may still send now without waiting, under its known rates, else `assumed`. */
  replayRoom(assumed: readonly Rate[]): number;
  /** The tool call's allowance that every request spends (absent outside a tool call). */
  readonly budget: CallBudget | undefined;
  /** Upstream text made safe to show: the key removed in every form. */
  redact(text: string): string;
  /** A JSON-safe value made safe to show: the same value when it holds no key, else a redacted copy. */
  redactValue<T>(value: T): T;
}

/** The operations over a client (server.ts: one per tool call, over the call's client). */
export function operationsOver(client: PostHogClient): PostHogOperations {
  const query = queryOperations(client);
  return {
    recordings: recordingOperations(client, query),
    snapshots: snapshotOperations(client),
    projects: projectOperations(client),
    query,
    sessions: sessionOperations(query),
    definitions: definitionOperations(client),
    population: populationOperations(query),
    segments: segmentOperations(query),
    baseUrl: client.baseUrl,
    hasApiKey: client.hasApiKey,
    keyIdentity: client.keyIdentity,
    get pacesReplay() {
      return client.pacesReplay;
    },
    replayRoom: (assumed) => client.replayRoom(assumed),
    budget: client.budget,
    redact: (text) => client.redact(text),
    redactValue: (value) => client.redactValue(value),
  };
}
