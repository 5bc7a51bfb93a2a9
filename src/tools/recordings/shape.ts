import { z } from 'zod';
import { maskUrlSecrets } from '../../url-secrets.js';
import { quote, unbidi } from '../../digest/quote.js';
import { asText, clip, count, duration, joinParts, shortTime } from '../format.js';

/**
 * What output schemas declare of a recording: the fields an agent picks its next call by. Every
 * other field of RecordingRow is still returned; declaring each in every tool's outputSchema
 * would cost tool-list bytes read by the model in every session.
 */
export const recordingOutput = z.looseObject({ id: z.string(), start: z.string().optional(), duration_s: z.number().nullish() });

/**
 * A recording as both views give it to the model (SPEC §1 "What the model reads"): the facts an
 * agent chooses a recording by, under short names, zeros and defaults left out as the text leaves
 * them out. Durations are seconds (the `_s` suffix). PostHog's own field names stay on the input
 * side (filters, `order`).
 */
export interface RecordingRow {
  id: string;
  /** Start, ISO 8601 UTC to the second. */
  start?: string;
  duration_s?: number;
  active_s?: number;
  clicks?: number;
  keys?: number;
  console_errors?: number;
  console_warnings?: number;
  console_logs?: number;
  ongoing?: true;
  viewed?: false;
  /** PostHog's activity score, 0-100. */
  activity?: number;
  /** The person's name (PostHog's display name: often the email). */
  person?: string;
  distinct_id?: string;
  /** The start URL, secrets masked. */
  url?: string;
  person_properties?: Record<string, unknown>;
  /**
   * Browser, OS, device and country from the person's properties PostHog sends with the row (the
   * person's latest known, not necessarily this session's), e.g. "Chrome, Mac OS X, Desktop, FR".
   */
  person_context?: string;
  /** get only: the person's uuid (session-recordings-list takes it as person_uuid) and other distinct ids. */
  person_uuid?: string;
  other_distinct_ids?: string[];
  mouse_activity?: number;
  /** get only: every other field PostHog sent, under its own name. */
  [field: string]: unknown;
}

/** PostHog fields the row carries under its own names (or drops as derivable), not repeated as "other". */
const ROW_SOURCES: ReadonlySet<string> = new Set([
  'id', 'distinct_id', 'start_time', 'end_time', 'recording_duration', 'active_seconds', 'inactive_seconds',
  'click_count', 'keypress_count', 'mouse_activity_count', 'console_log_count', 'console_warn_count',
  'console_error_count', 'start_url', 'viewed', 'ongoing', 'activity_score', 'person',
]);

/** Fields that carry nothing for an agent on a single recording (UI state, always-empty lists). */
const DROPPED_FIELDS = new Set(['external_references', 'has_summary', 'matches_filters', 'pinned_count', 'segments', 'snapshots']);

export interface RecordingViewOptions {
  /** 'list': the row; 'full': the row, the person's uuid and every other field PostHog sent except the dropped ones. */
  detail: 'list' | 'full';
  personProperties: boolean;
}

export function recordingView(raw: Record<string, unknown>, options: RecordingViewOptions): RecordingRow {
  const r = { ...raw };
  conformFields(r);
  const row: RecordingRow = { id: asText(raw.id) };
  const put = (key: string, value: unknown, keep = value !== undefined && value !== null) => {
    if (keep) row[key] = value;
  };
  put('start', typeof r.start_time === 'string' ? isoSecond(r.start_time) : undefined);
  put('duration_s', r.recording_duration);
  put('active_s', r.active_seconds);
  for (const [from, to] of COUNTS) put(to, r[from], typeof r[from] === 'number' && r[from] !== 0);
  put('ongoing', true, r.ongoing === true);
  put('viewed', false, r.viewed === false);
  put('activity', typeof r.activity_score === 'number' ? Math.round(r.activity_score) : undefined);
  const person = typeof raw.person === 'object' && raw.person !== null ? (raw.person as Record<string, unknown>) : undefined;
  // Recorded strings: clipped, and invisible controls escaped, alike in both views (quote() in the text).
  put('person', typeof person?.name === 'string' && person.name !== '' ? unbidi(clip(person.name, 200)) : undefined);
  put('distinct_id', typeof r.distinct_id === 'string' ? unbidi(clip(r.distinct_id, 200)) : undefined);
  put('url', typeof r.start_url === 'string' ? unbidi(clip(r.start_url, 500)) : undefined);
  const properties = typeof person?.properties === 'object' && person.properties !== null ? (person.properties as Record<string, unknown>) : undefined;
  const context = properties ? personContext(properties) : '';
  if (context) row.person_context = context;
  if (options.personProperties && properties) row.person_properties = properties;
  if (options.detail === 'full') {
    put('person_uuid', typeof person?.uuid === 'string' ? person.uuid : undefined);
    const others = Array.isArray(person?.distinct_ids) ? person.distinct_ids.map(asText).filter((d) => d !== row.distinct_id).slice(0, 5) : [];
    put('other_distinct_ids', others, others.length > 0);
    put('mouse_activity', r.mouse_activity_count, typeof r.mouse_activity_count === 'number' && r.mouse_activity_count !== 0);
    for (const key in raw) {
      if (ROW_SOURCES.has(key) || DROPPED_FIELDS.has(key) || Object.hasOwn(row, key)) continue;
      const value = raw[key];
      if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) continue;
      row[key] = value;
    }
  }
  return row;
}

/** The person's properties that say where they were, newest first where PostHog keeps both. */
const CONTEXT_KEYS: ReadonlyArray<readonly string[]> = [
  ['$browser', '$initial_browser'],
  ['$os', '$initial_os'],
  ['$device_type', '$initial_device_type'],
  ['$geoip_country_code', '$initial_geoip_country_code'],
];

function personContext(properties: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const keys of CONTEXT_KEYS) {
    const value = keys.map((key) => properties[key]).find((v) => typeof v === 'string' && v !== '');
    if (typeof value === 'string') parts.push(unbidi(clip(value, 40)));
  }
  return parts.join(', ');
}

/** PostHog's counts and the row's names for them, in the order the text gives them. */
const COUNTS: ReadonlyArray<readonly [string, string]> = [
  ['click_count', 'clicks'],
  ['keypress_count', 'keys'],
  ['console_error_count', 'console_errors'],
  ['console_warn_count', 'console_warnings'],
  ['console_log_count', 'console_logs'],
];

/** "2025-06-02T09:14:03.120000Z" → "2025-06-02T09:14:03Z"; anything else as it came. */
function isoSecond(iso: string): string {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?(Z|[+-]00:?00)?$/.exec(iso);
  return match ? `${match[1]}Z` : iso;
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

/** One line per recording: id, when, how long, what happened, who, where; recorded strings quoted. */
export function recordingLine(r: RecordingRow): string {
  const active = r.active_s !== undefined ? ` (${duration(r.active_s)} active)` : '';
  const activity = joinParts(
    [count(r.clicks, 'click'), count(r.keys, 'key'), count(r.console_errors, 'console error'), count(r.console_warnings, 'console warning'), count(r.console_logs, 'console log')],
    ', ',
  );
  return joinParts([
    r.id,
    shortTime(r.start),
    `${duration(r.duration_s)}${active}`,
    activity,
    r.ongoing ? 'ongoing' : '',
    r.viewed === false ? 'unviewed' : '',
    r.activity !== undefined ? `activity ${r.activity}` : '',
    personLabel(r),
    r.person_context ? `person's ${quote(r.person_context)}` : '',
    r.url ? quote(r.url) : '',
  ]);
}

function personLabel(r: RecordingRow): string {
  if (r.person) return `${quote(r.person)}${r.distinct_id ? ` (${quote(r.distinct_id)})` : ''}`;
  return r.distinct_id ? `distinct_id ${quote(r.distinct_id)}` : '';
}

/** Shown on recordingLine's line or with the person: not repeated below it. */
const SHOWN_IN_LINE: ReadonlySet<string> = new Set(['id', 'start', 'duration_s', 'active_s', 'clicks', 'keys', 'console_errors', 'console_warnings', 'console_logs', 'ongoing', 'viewed', 'activity', 'person', 'distinct_id', 'person_context', 'url', 'person_properties', 'person_uuid', 'other_distinct_ids']);

/** The person's properties, as asked for, on a line of their own (recorded data: JSON, quoted). */
export function personPropertiesLine(r: RecordingRow): string {
  return r.person_properties ? `  person properties: ${JSON.stringify(r.person_properties)}` : '';
}

/** Multi-line detail for one recording: its line, the person, then every other field PostHog sent. */
export function recordingDetail(r: RecordingRow): string {
  const lines = [`Recording ${recordingLine(r)}`];
  const person = joinParts([r.person_uuid ? `person_uuid ${r.person_uuid}` : '', r.other_distinct_ids?.length ? `other distinct_ids ${r.other_distinct_ids.map((d) => quote(d)).join(', ')}` : ''], ', ');
  if (person) lines.push(person);
  if (r.person_properties) lines.push(personPropertiesLine(r).trim());
  for (const key in r) {
    if (SHOWN_IN_LINE.has(key)) continue;
    const value = r[key];
    lines.push(`${key}: ${typeof value === 'string' ? quote(value) : asText(value)}`);
  }
  return lines.join('\n');
}
