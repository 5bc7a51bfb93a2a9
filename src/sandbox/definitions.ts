// What a project can be filtered on, from the demo data: /event_definitions/ and
// /property_definitions/ as PostHog serves them (docs/filter-options.md), and the common values
// of a property (/events/values/, /persons/values/).

import type { CapturedEvent, LiveRecording } from './demo/dataset.js';
import type { PersonSeed } from './demo/catalog.js';
import { ApiError, json, pageLinks, positiveInt, type Reply } from './http.js';
import type { RequestContext } from './state.js';
import { drfDate, teamNamespace, uuidV5 } from './util.js';

const PAGE_SIZE = 100;

/** Ingestion's bookkeeping properties, which PostHog keeps out of the event property list. */
const HIDDEN_EVENT_PROPERTIES = new Set(['distinct_id', '$set', '$set_once', '$initial_referrer', '$initial_referring_domain', '$groups', '$group_type', '$group_key', '$group_set']);

/** Session properties the sandbox's filters evaluate (filters.ts), with PostHog's types. */
const SESSION_PROPERTIES: ReadonlyArray<[string, string]> = [
  ['$entry_current_url', 'String'],
  ['$entry_pathname', 'String'],
  ['$entry_referring_domain', 'String'],
  ['$session_duration', 'Numeric'],
];

const PROPERTY_TYPES = ['event', 'person', 'group', 'session'];

function recordingsOf(ctx: RequestContext, projectId: number): LiveRecording[] {
  return [...ctx.state.recordings().values()].filter((r) => r.seed.projectId === projectId && !ctx.state.deletedRecordings.has(r.id));
}

/** A project's events: a generated project's every session's (recorded or not), the demo's from its recordings. */
function eventsOf(ctx: RequestContext, projectId: number): CapturedEvent[] {
  const generated = ctx.state.scaleData(projectId);
  if (generated) return generated.events.map((row) => row.e);
  return recordingsOf(ctx, projectId).flatMap((r) => r.captured());
}

function personsOf(ctx: RequestContext, projectId: number): ReadonlyArray<Pick<PersonSeed, 'properties'>> {
  const generated = ctx.state.scaleData(projectId);
  if (generated) return generated.persons;
  const seen = new Map<number, PersonSeed>();
  for (const rec of recordingsOf(ctx, projectId)) if (rec.seed.person) seen.set(rec.seed.person.id, rec.seed.person);
  return [...seen.values()];
}

/** PostHog's term search: every whitespace-separated term appears in the name, case-insensitively. */
function matchesSearch(name: string, search: string | undefined): boolean {
  const terms = (search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  return terms.every((term) => name.toLowerCase().includes(term));
}

function page(ctx: RequestContext, rows: Array<Record<string, unknown>>): Reply {
  const limit = positiveInt(ctx.query.limit, PAGE_SIZE, true);
  const offset = positiveInt(ctx.query.offset, 0, false);
  return json(200, { count: rows.length, ...pageLinks(ctx.url, rows.length, limit, offset), results: rows.slice(offset, offset + limit) });
}

const invalidChoice = (value: string, attr: string) =>
  new ApiError(400, { type: 'validation_error', code: 'invalid_choice', detail: `"${value}" is not a valid choice.`, attr });

/**
 * GET /api/projects/{id}/event_definitions/: every event name seen in the project, most recently
 * seen day first then by name (PostHog's default order), the shortest names first under a search.
 */
export function eventDefinitions(ctx: RequestContext, projectId: number): Reply {
  const eventType = ctx.query.event_type ?? 'event';
  if (!['event', 'event_custom', 'event_posthog', 'all', 'action_event'].includes(eventType)) {
    throw new ApiError(400, { type: 'validation_error', code: 'invalid_input', detail: 'Not a valid event type. Use one of: event, event_custom, event_posthog.', attr: 'event_type' });
  }
  const byName = new Map<string, { first: number; last: number }>();
  for (const e of eventsOf(ctx, projectId)) {
    const seen = byName.get(e.event);
    byName.set(e.event, { first: Math.min(seen?.first ?? Infinity, e.timestampMs), last: Math.max(seen?.last ?? 0, e.timestampMs) });
  }
  const day = (ms: number) => Math.floor(ms / 86_400_000);
  const rows = [...byName]
    .filter(([name]) => (eventType === 'event_custom' ? !name.startsWith('$') : eventType === 'event_posthog' ? name.startsWith('$') : true))
    .filter(([name]) => matchesSearch(name, ctx.query.search))
    .sort(([a, x], [b, y]) => (ctx.query.search?.trim() ? a.length - b.length : 0) || day(y.last) - day(x.last) || (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, seen]) => ({
      id: uuidV5(teamNamespace(projectId), `event_definition:${name}`),
      name,
      created_at: drfDate(seen.first),
      last_seen_at: drfDate(seen.last),
      last_updated_at: drfDate(seen.last),
      tags: [],
      enforcement_mode: 'allow',
      primary_property: null,
      is_action: false,
      action_id: null,
      is_calculating: false,
      last_calculated_at: null,
      created_by: null,
      post_to_slack: false,
    }));
  return page(ctx, rows);
}

/** PostHog's property types, read off the values seen (a property seen with two kinds is its first). */
function propertyType(value: unknown): string | null {
  if (typeof value === 'number') return 'Numeric';
  if (typeof value === 'boolean') return 'Boolean';
  if (typeof value === 'string') return /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value) ? 'DateTime' : 'String';
  return null;
}

/**
 * GET /api/projects/{id}/property_definitions/?type=event|person|session|group: the property
 * names of that kind seen in the project, by name.
 */
export function propertyDefinitions(ctx: RequestContext, projectId: number): Reply {
  const type = ctx.query.type ?? 'event';
  if (!PROPERTY_TYPES.includes(type)) throw invalidChoice(type, 'type');
  if (type === 'group' && ctx.query.group_type_index === undefined) {
    throw new ApiError(400, { type: 'validation_error', code: 'invalid_input', detail: '`group_type_index` must be set for `group` type', attr: null });
  }
  const types = new Map<string, string | null>();
  const note = (props: Record<string, unknown>, hidden: Set<string>) => {
    for (const [key, value] of Object.entries(props)) if (!hidden.has(key) && !types.has(key)) types.set(key, propertyType(value));
  };
  if (type === 'event') for (const e of eventsOf(ctx, projectId)) note(e.properties, HIDDEN_EVENT_PROPERTIES);
  if (type === 'person') for (const p of personsOf(ctx, projectId)) note(p.properties, new Set());
  if (type === 'session') for (const [key, kind] of SESSION_PROPERTIES) types.set(key, kind);
  // Groups: the demo has no group types, so no group properties.
  const rows = [...types]
    .filter(([name]) => matchesSearch(name, ctx.query.search))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, kind]) => ({
      id: uuidV5(teamNamespace(projectId), `property_definition:${type}:${name}`),
      name,
      is_numerical: kind === 'Numeric',
      property_type: kind,
      tags: [],
      is_seen_on_filtered_events: null,
    }));
  return page(ctx, rows);
}

/** The most common values first (then in order of appearance), at most 50 like PostHog's. */
function commonValues(values: unknown[], search: string | undefined): Array<{ name: unknown; count: number }> {
  const counts = new Map<string, { name: unknown; count: number }>();
  for (const value of values) {
    if (value === undefined || value === null) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (search && !text.toLowerCase().includes(search.toLowerCase())) continue;
    const entry = counts.get(text) ?? { name: value, count: 0 };
    entry.count++;
    counts.set(text, entry);
  }
  return [...counts.values()].sort((a, b) => b.count - a.count).slice(0, 50);
}

/** GET /api/projects/{id}/events/values/?key=…[&value=…]: `[{name}]`, a property's values on events. */
export function eventPropertyValues(ctx: RequestContext, projectId: number): Reply {
  const key = ctx.query.key;
  if (!key) return json(200, []);
  return json(200, commonValues(eventsOf(ctx, projectId).map((e) => e.properties[key]), ctx.query.value).map(({ name }) => ({ name })));
}

/** GET /api/projects/{id}/persons/values/?key=…[&value=…]: `[{name, count}]`, a person property's values. */
export function personPropertyValues(ctx: RequestContext, projectId: number): Reply {
  const key = ctx.query.key;
  if (!key) return json(200, []);
  return json(200, commonValues(personsOf(ctx, projectId).map((p) => p.properties[key]), ctx.query.value));
}
