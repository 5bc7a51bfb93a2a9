import { z } from 'zod';
import { PROJECT_ID_PATTERN } from '../config.js';
import { UserInputError } from '../errors.js';
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
    z.string('project_id must be a project number like "12345" or "@current"').regex(PROJECT_ID_PATTERN, 'project_id must be a project number like "12345" or "@current"'),
  );
  const description = 'Project id, or "@current".';
  return options.defaultProjectId === undefined
    ? field.describe(description)
    : field.optional().describe(`${description} Defaults to ${options.defaultProjectId}.`);
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

export const recordingIdField = z
  .string()
  .regex(ID_OR_URL, { message: 'a recording id is 1-200 letters, digits, "_" or "-" (the session id, usually a UUID), or a PostHog replay URL', abort: true })
  // A URL still here is no replay URL: input.ts turned those into their ids.
  .refine((v) => RECORDING_ID_PATTERN.test(v), 'a recording id is 1-200 letters, digits, "_" or "-" (the session id, usually a UUID), or a PostHog replay URL like https://us.posthog.com/project/12345/replay/<session id>')
  .describe('Recording (session) id, or its PostHog replay URL.');

/** The JSON Schema carries the range and the default; the words only say what it is. */
export const limitField = (fallback: number) => z.number().int().min(1).max(100).default(fallback).describe('Page size.');

export const offsetField = z.number().int().min(0).max(1_000_000).default(0).describe('The previous next_offset.');

export const timezoneField = z
  .enum(TIMEZONES, { error: (issue) => `timezone must be an IANA name from PostHog's list, like "Europe/Berlin" or "America/New_York"; ${clip(JSON.stringify(issue.input) ?? String(typeof issue.input), 80)} is not on it` })
  .describe('IANA timezone of the project\'s dates.');

/** Page fields shared by list results (the tool descriptions say how to page). */
export const pageOutputFields = {
  has_more: z.boolean(),
  next_offset: z.number().int().nullable(),
  count: z.number().int().optional(),
};
