import { z } from 'zod';
import { PROJECT_ID_PATTERN } from '../settings.js';
import { UserInputError } from '../errors.js';
import { DATE_PATTERN } from '../posthog/hogql.js';
import { TIMEZONES } from '../posthog/timezones.js';
import type { SchemaOptions } from './define.js';
import { clip } from './format.js';

export const RECORDING_ID_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * `project_id`: a number or "@current", as a string. Integers are accepted too and turned into
 * strings, but only the string is advertised: a type list would not port to every host
 * (tools/listing-portable.ts). Optional only when a default project is configured, so the schema
 * tells the model the truth about what it must send.
 */
export function projectIdField(options: SchemaOptions) {
  const field = z.preprocess(
    (value) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : value),
    z.string('project_id must be a project number like "12345" or "@current"').refine(...unlisted(PROJECT_ID_PATTERN, 'project_id must be a project number like "12345" or "@current"')),
  );
  const description = 'Project id or "@current".';
  return options.defaultProjectId === undefined
    ? field.describe(description)
    : field.optional().describe(`Project id or "@current"; default ${options.defaultProjectId}.`);
}

/** The project a recording tool addresses: the input's, else the configured default. */
export function resolveProjectId(input: string | undefined, defaultProjectId: string | undefined): string {
  const projectId = input ?? defaultProjectId;
  if (projectId === undefined) {
    throw new UserInputError('project_id is required because no default project is configured (POSTHOG_PROJECT_ID). Call projects-list to find it.');
  }
  return projectId;
}

/** What a recording id field takes as advertised: an id, or a replay URL (tools/input.ts reads the id out of it first). */
const ID_OR_URL = /^([A-Za-z0-9_-]{1,200}|https?:\/\/\S{1,2000})$/;

/**
 * Checks a string against a pattern without advertising it: a regex in the listing costs every
 * conversation its bytes while the field's description already names the forms a model should
 * write; the check and its message are the same either way.
 */
export const unlisted = (pattern: RegExp, message: string, abort = false) => [(v: string) => pattern.test(v), { message, abort }] as const;

const ID_MESSAGE = 'a recording id is 1-200 letters, digits, "_" or "-" (the session id, usually a UUID), or a PostHog replay URL';

const recordingId = z
  .string()
  .refine(...unlisted(ID_OR_URL, ID_MESSAGE, true))
  // A URL still here is no replay URL: input.ts turned those into their ids.
  .refine(...unlisted(RECORDING_ID_PATTERN, `${ID_MESSAGE} like https://us.posthog.com/project/12345/replay/<session id>`));

export const recordingIdField = recordingId.describe('Recording id or replay URL.');

/** A list of recordings (ids or replay URLs), `max` at most; the list's description names the forms, not each item's. */
export const recordingIdsField = (max: number) => z.array(recordingId).min(1).max(max);

/** A person's UUID, checked as zod's uuid() checks it; the description says what it is. */
export const personUuidField = z
  .string()
  .refine(...unlisted(z.regexes.uuid(), 'person_uuid must be a UUID like "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"'))
  .describe("Only this person's recordings.");

/** The dates session-recordings-list and -triage pass to PostHog: "-7d", "-24h" or an ISO date. */
export const RECORDING_DATE_PATTERN = /^(-\d+[hdwmy]|\d{4}-\d\d-\d\d([T ][0-9:.]+(Z|[+-]\d\d:?\d\d)?)?)$/;

/** A date session-recordings-list and -triage pass to PostHog as given, described as `what`. */
export const dateField = (what: string) =>
  z
    .string()
    .max(40)
    .refine(...unlisted(RECORDING_DATE_PATTERN, 'use a relative date like "-7d"/"-24h" or an ISO date like "2025-06-01"'))
    .describe(what);

/** Where the query API searches from (matching-events, properties), checked as posthog/hogql.ts reads it. */
export const queryDateFromField = z
  .string()
  .max(40)
  .refine(...unlisted(DATE_PATTERN, 'date_from is a relative date like "-30d", "-24h", "-2w", "-3m", "-1y" or an ISO date like "2025-06-01"'))
  .default('-90d')
  .describe('"-30d", "-24h" or an ISO date, UTC.');

/** The text budget of a digest's or triage's text (structured content is not cut). */
export const maxCharsField = z.number().int().min(1_000).max(20_000).default(4_000).describe('Text budget, in characters.');

/** The JSON Schema carries the range and the default. */
export const limitField = (fallback: number) => z.number().int().min(1).max(100).default(fallback).describe('Page size.');

export const offsetField = z.number().int().min(0).max(1_000_000).default(0).describe('Previous next_offset.');

export const timezoneField = z
  .enum(TIMEZONES, { error: (issue) => `timezone must be an IANA name from PostHog's list, like "Europe/Berlin" or "America/New_York"; ${clip(JSON.stringify(issue.input) ?? String(typeof issue.input), 80)} is not on it` })
  ;

/** Page fields shared by list results (the tool descriptions say how to page). */
export const pageOutputFields = {
  has_more: z.boolean(),
  next_offset: z.number().int().nullable(),
  count: z.number().int().optional(),
};
