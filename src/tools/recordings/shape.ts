import { z } from 'zod';
import { recordingSchema, type Person, type Recording } from '../../posthog/resources.js';
import { maskUrlSecrets } from '../../url-secrets.js';
import { quote, unbidi } from '../../digest/quote.js';
import { asText, clip, count, duration, joinParts, shortTime, unbidiDeep } from '../format.js';
import { plural } from '../../words.js';

/**
 * A recording as both results give it (docs/design.md, "Both views"): PostHog's recording
 * (posthog/resources.ts) with every field it sent, under its own name and JSON type, and beside
 * them what this server adds, under names PostHog does not use. The text (recordingLine,
 * recordingDetail) is the compact reading of the same.
 */
export const recordingOutput = recordingSchema.extend({
  person_context: z.string().optional().describe("Browser, OS, device, country from the person's properties."),
  person_properties_left_out: z.number().int().optional().describe('How many keys of person.properties were left out.'),
  session_context: z.string().optional().describe("Browser, OS, device, country from the session's own events, where the person's record lacks them."),
});

export type RecordingView = z.output<typeof recordingOutput>;

/** The person's properties that say where they were, newest first where PostHog keeps both. */
const CONTEXT_KEYS: ReadonlyArray<readonly string[]> = [
  ['$browser', '$initial_browser'],
  ['$os', '$initial_os'],
  ['$device_type', '$initial_device_type'],
  ['$geoip_country_code', '$initial_geoip_country_code'],
];

/** What person.properties keeps unless include_person_properties: who, and what person_context reads. */
const KEPT_PERSON_KEYS: ReadonlySet<string> = new Set(['email', 'name', ...CONTEXT_KEYS.flat()]);

export interface RecordingViewOptions {
  /** include_person_properties: person.properties whole, else cut to KEPT_PERSON_KEYS. */
  personProperties: boolean;
}

/**
 * PostHog's recording as a result carries it. The strings the recorded site's visitors chose keep
 * today's protections, alike in both views: clipped, and invisible controls written as their
 * escapes (quote() in the text); the start URL's secrets masked, as the digest masks them.
 */
export function recordingView(recording: Recording, options: RecordingViewOptions): RecordingView {
  const view: RecordingView = { ...recording };
  // A start URL may carry a token (a magic link, a reset link).
  if (typeof view.start_url === 'string') view.start_url = unbidi(clip(maskUrlSecrets(view.start_url), 500));
  if (typeof view.distinct_id === 'string') view.distinct_id = unbidi(clip(view.distinct_id, 200));
  if (!recording.person) return view;
  const person: Person = { ...recording.person };
  if (typeof person.name === 'string') person.name = unbidi(clip(person.name, 200));
  if (person.distinct_ids) person.distinct_ids = person.distinct_ids.map((id) => unbidi(clip(id, 200)));
  let leftOut = 0;
  if (person.properties) {
    const context = personContext(person.properties);
    // Written by the site and its visitors: keys and strings at any depth escaped.
    const properties = unbidiDeep(person.properties);
    if (context) view.person_context = context;
    if (options.personProperties) person.properties = properties;
    else {
      person.properties = Object.fromEntries(Object.entries(properties).filter(([key]) => KEPT_PERSON_KEYS.has(key)));
      leftOut = Object.keys(properties).length - Object.keys(person.properties).length;
    }
  }
  view.person = person;
  if (leftOut > 0) view.person_properties_left_out = leftOut;
  return view;
}

/**
 * Browser, OS, device and country from the person's properties PostHog sends with the row (the
 * person's latest known, not necessarily this session's), e.g. "Chrome, Mac OS X, Desktop, FR".
 */
function personContext(properties: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const keys of CONTEXT_KEYS) {
    const value = keys.map((key) => properties[key]).find((v) => typeof v === 'string' && v !== '');
    if (typeof value === 'string') parts.push(unbidi(clip(value, 40)));
  }
  return parts.join(', ');
}

/** Whether the person's record says no device or no country for this row (an anonymous visitor's says nothing). */
export function needsSessionContext(r: RecordingView): boolean {
  const properties = r.person?.properties ?? {};
  const has = (keys: readonly string[]) => keys.some((key) => typeof properties[key] === 'string' && properties[key] !== '');
  return !has(CONTEXT_KEYS[2]!) || !has(CONTEXT_KEYS[3]!);
}

/** The row with the session's own browser, OS, device and country (its first page view's properties). */
export function withSessionContext(r: RecordingView, properties: Record<string, unknown>): RecordingView {
  const context = personContext(Object.fromEntries(CONTEXT_KEYS.map((keys) => [keys[0], properties[keys[0]!]])));
  return context ? { ...r, session_context: context } : r;
}

/**
 * Said once per result, in both views, when person.properties was cut: how many keys, and how to
 * get them all. Undefined when nothing was left out.
 */
export function personPropertiesNote(recordings: readonly RecordingView[]): string | undefined {
  const leftOut = recordings.reduce((n, r) => n + (r.person_properties_left_out ?? 0), 0);
  if (leftOut === 0) return undefined;
  return `person.properties holds only email, name, browser, OS, device and country (${plural(leftOut, 'other key')} left out); include_person_properties=true gives them all.`;
}

/** One line per recording: id, when, how long, what happened, who, where; recorded strings quoted. */
export function recordingLine(r: RecordingView): string {
  const active = typeof r.active_seconds === 'number' ? ` (${duration(r.active_seconds)} active)` : '';
  const activity = joinParts(
    [
      count(r.click_count, 'click'),
      count(r.keypress_count, 'key'),
      count(r.console_error_count, 'console error'),
      count(r.console_warn_count, 'console warning'),
      count(r.console_log_count, 'console log'),
    ],
    ', ',
  );
  return joinParts([
    r.id,
    shortTime(r.start_time),
    `${duration(r.recording_duration)}${active}`,
    activity,
    r.ongoing === true ? 'ongoing' : '',
    r.viewed === false ? 'unviewed' : '',
    typeof r.activity_score === 'number' ? `activity ${Math.round(r.activity_score)}` : '',
    personLabel(r),
    r.person_context ? `person's ${quote(r.person_context)}` : '',
    r.session_context ? `session's ${quote(r.session_context)}` : '',
    r.start_url ? quote(r.start_url) : '',
  ]);
}

function personLabel(r: RecordingView): string {
  const name = r.person?.name;
  if (name) return `${quote(name)}${r.distinct_id ? ` (${quote(r.distinct_id)})` : ''}`;
  return r.distinct_id ? `distinct_id ${quote(r.distinct_id)}` : '';
}

/** The person's properties, when asked for, on a line of their own (recorded data: JSON, quoted). */
export function personPropertiesLine(r: RecordingView, asked: boolean): string {
  return asked && r.person?.properties ? `  person properties: ${JSON.stringify(r.person.properties)}` : '';
}

/** Fields recordingLine and the person's line say, or that say nothing for an agent (UI state, always-empty lists). */
const NOT_REPEATED: ReadonlySet<string> = new Set([
  'id', 'distinct_id', 'start_time', 'end_time', 'recording_duration', 'active_seconds', 'inactive_seconds',
  'click_count', 'keypress_count', 'mouse_activity_count', 'console_log_count', 'console_warn_count',
  'console_error_count', 'start_url', 'viewed', 'ongoing', 'activity_score', 'person',
  'external_references', 'has_summary', 'matches_filters', 'pinned_count', 'segments', 'snapshots',
  'person_context', 'person_properties_left_out',
]);

/** Multi-line detail for one recording: its line, the person, then every other field PostHog sent. */
export function recordingDetail(r: RecordingView, personProperties: boolean): string {
  const lines = [`Recording ${recordingLine(r)}`];
  const uuid = typeof r.person?.uuid === 'string' ? r.person.uuid : '';
  const others = (r.person?.distinct_ids ?? []).filter((d) => d !== r.distinct_id).slice(0, 5);
  const person = joinParts([uuid ? `person_uuid ${uuid}` : '', others.length ? `other distinct_ids ${others.map((d) => quote(d)).join(', ')}` : ''], ', ');
  if (person) lines.push(person);
  const properties = personPropertiesLine(r, personProperties);
  if (properties) lines.push(properties.trim());
  if (typeof r.mouse_activity_count === 'number' && r.mouse_activity_count !== 0) lines.push(`mouse_activity: ${r.mouse_activity_count}`);
  for (const [key, value] of Object.entries(r)) {
    if (NOT_REPEATED.has(key) || value === null || value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    lines.push(`${key}: ${typeof value === 'string' ? quote(value) : asText(value)}`);
  }
  return lines.join('\n');
}
