import { z } from 'zod';
import { maskUrlSecrets } from '../../url-secrets.js';
import { asText, clip, count, duration, joinParts, shortTime } from '../format.js';

/** Person as tools return it; `properties` only when asked for (they can be large and are end-user data). */
const person = z.looseObject({
  id: z.number().nullish(),
  uuid: z.string().nullish(),
  name: z.string().nullish(),
  distinct_ids: z.array(z.string()).optional(),
  properties: z.record(z.string(), z.unknown()).optional(),
});

const nullableInt = z.number().nullish();

/** A recording as tools return it: the type every renderer below reads. */
const recording = z.looseObject({
  id: z.string(),
  distinct_id: z.string().nullish(),
  start_time: z.string().nullish(),
  end_time: z.string().nullish(),
  recording_duration: nullableInt,
  active_seconds: nullableInt,
  inactive_seconds: nullableInt,
  click_count: nullableInt,
  keypress_count: nullableInt,
  mouse_activity_count: nullableInt,
  console_log_count: nullableInt,
  console_warn_count: nullableInt,
  console_error_count: nullableInt,
  start_url: z.string().nullish(),
  viewed: z.boolean().nullish(),
  ongoing: z.boolean().nullish(),
  activity_score: z.number().nullish(),
  person: person.nullish(),
});

/**
 * What output schemas declare of a recording: the fields an agent picks its next call by. Every
 * other field above is still returned (and coerced to its type); declaring each in every tool's
 * outputSchema would cost ~700 bytes of tool list per tool, read by the model in every session.
 */
export const recordingOutput = recording.pick({ id: true, start_time: true, recording_duration: true });

export type RecordingOutput = z.infer<typeof recording>;

/** Fields an agent needs to choose a recording; everything else is left out of list results. */
const LIST_FIELDS = [
  'id',
  'distinct_id',
  'start_time',
  'end_time',
  'recording_duration',
  'active_seconds',
  'inactive_seconds',
  'click_count',
  'keypress_count',
  'mouse_activity_count',
  'console_log_count',
  'console_warn_count',
  'console_error_count',
  'start_url',
  'viewed',
  'ongoing',
  'activity_score',
] as const;

/** Fields that carry nothing for an agent on a single recording (UI state, always-empty lists). */
const DROPPED_FIELDS = new Set(['external_references', 'has_summary', 'matches_filters', 'pinned_count', 'segments', 'snapshots']);

export interface RecordingViewOptions {
  /** 'list': the fields of LIST_FIELDS; 'full': every field PostHog sent except the dropped ones. */
  detail: 'list' | 'full';
  personProperties: boolean;
}

export function recordingView(raw: Record<string, unknown>, options: RecordingViewOptions): RecordingOutput {
  const view: Record<string, unknown> = {};
  if (options.detail === 'list') {
    for (const key of LIST_FIELDS) if (raw[key] !== undefined) view[key] = raw[key];
  } else {
    for (const key in raw) if (!DROPPED_FIELDS.has(key) && key !== 'person') view[key] = raw[key];
  }
  conformFields(view);
  view.id = asText(raw.id);
  const person = personView(raw.person, options.personProperties);
  if (person) view.person = person;
  return view as RecordingOutput;
}

const NUMBER_FIELDS = ['recording_duration', 'active_seconds', 'inactive_seconds', 'click_count', 'keypress_count', 'mouse_activity_count', 'console_log_count', 'console_warn_count', 'console_error_count', 'activity_score'];
const STRING_FIELDS = ['distinct_id', 'start_time', 'end_time', 'start_url'];
const BOOLEAN_FIELDS = ['viewed', 'ongoing'];

/**
 * PostHog's field types have changed over versions (the published reference types `viewed` as a
 * string, the API sends a bool). Coerce to the declared output types, so a variant body never
 * turns a good answer into an output-validation error; what cannot be coerced becomes null.
 */
function conformFields(view: Record<string, unknown>): void {
  const set = (key: string, value: unknown) => {
    if (view[key] !== undefined && view[key] !== null) view[key] = value;
  };
  for (const key of NUMBER_FIELDS) set(key, toNumber(view[key]));
  for (const key of STRING_FIELDS) set(key, asText(view[key]));
  // A start URL may carry a token (a magic link, a reset link): shown masked, as the digest shows it.
  if (typeof view.start_url === 'string') view.start_url = maskUrlSecrets(view.start_url);
  for (const key of BOOLEAN_FIELDS) {
    const value = view[key];
    set(key, typeof value === 'boolean' ? value : value === 'true' ? true : value === 'false' ? false : null);
  }
}

/** A number, or a numeric string read as one; anything else (Number() throws on some objects) is null. */
function toNumber(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
}

function personView(raw: unknown, withProperties: boolean): z.infer<typeof person> | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const person = raw as Record<string, unknown>;
  const view: Record<string, unknown> = {
    id: typeof person.id === 'number' ? person.id : null,
    uuid: typeof person.uuid === 'string' ? person.uuid : null,
    name: typeof person.name === 'string' ? person.name : null,
  };
  if (Array.isArray(person.distinct_ids)) view.distinct_ids = person.distinct_ids.slice(0, 3).map(asText);
  if (withProperties && typeof person.properties === 'object' && person.properties !== null) view.properties = person.properties;
  return view as z.infer<typeof person>;
}

/** One line per recording: id, when, how long, what happened, who, where. */
export function recordingLine(r: RecordingOutput): string {
  const active = r.active_seconds !== null && r.active_seconds !== undefined ? ` (${duration(r.active_seconds)} active)` : '';
  const activity = joinParts(
    [
      count(r.click_count, 'click'),
      count(r.keypress_count, 'key'),
      count(r.console_error_count, 'console error'),
      count(r.console_warn_count, 'warning'),
    ],
    ', ',
  );
  return joinParts([
    r.id,
    shortTime(r.start_time),
    `${duration(r.recording_duration)}${active}`,
    activity,
    r.ongoing ? 'ongoing' : '',
    r.viewed === false ? 'unviewed' : '',
    personLabel(r),
    r.start_url ? clip(r.start_url, 120) : '',
  ]);
}

function personLabel(r: RecordingOutput): string {
  const name = r.person?.name;
  if (name) return clip(name, 60);
  return r.distinct_id ? `distinct_id ${clip(r.distinct_id, 60)}` : '';
}

/** Already on recordingLine's line, or shown with the person: not repeated below it. */
const SHOWN_IN_LINE: ReadonlySet<string> = new Set([...LIST_FIELDS, 'person']);

/** Multi-line detail for one recording: its line, the person, then every other field PostHog sent. */
export function recordingDetail(r: RecordingOutput): string {
  const lines = [`Recording ${recordingLine(r)}`];
  const person = r.person;
  if (person) {
    lines.push(`person: ${joinParts([person.name ?? '', person.uuid ? `uuid ${person.uuid}` : '', person.distinct_ids?.length ? `distinct_ids ${person.distinct_ids.join(', ')}` : ''], ', ')}`);
    if (person.properties) lines.push(`person properties: ${clip(asText(person.properties), 2000)}`);
  }
  for (const key in r) {
    const value = r[key];
    if (SHOWN_IN_LINE.has(key) || value === null || value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    lines.push(`${key}: ${clip(asText(value), 300)}`);
  }
  return lines.join('\n');
}
