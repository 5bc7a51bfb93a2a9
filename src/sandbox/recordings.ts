// /api/projects/{project_id}/session_recordings/: list, retrieve, update (viewed), delete,
// bulk_delete, and the internal matching_events and (2024) properties actions.

import type { LiveRecording } from './demo/dataset.js';
import type { PersonSeed } from './demo/catalog.js';
import { assertEvaluable, entityMatches, matchProperty, recordingMatches, type RecordingFacts } from './filters.js';
import { errors, json, noContent, pageLinks, parseJsonBody, type Reply } from './http.js';
import { personCreatedMs } from './project-data.js';
import { decodeParam, parseRecordingsQuery, resolveDate, type Filter, type RecordingsQuery } from './query.js';
import type { RequestContext, SandboxState } from './state.js';
import { drfDate, pyIsoDate, teamNamespace, uuidV5 } from './util.js';

const DAY = 86_400_000;
const RETENTION_DAYS = 30;
const ONGOING_MS = 5 * 60_000;
const DEFAULT_LIMIT = 50;

function personJson(seed: PersonSeed | null, rec: LiveRecording): Record<string, unknown> {
  if (!seed) {
    // PostHog's placeholder when no person matches the distinct id.
    return {
      id: null,
      name: null,
      distinct_ids: [rec.seed.distinctId],
      properties: {},
      created_at: null,
      uuid: uuidV5(teamNamespace(rec.seed.projectId), rec.seed.distinctId),
    };
  }
  const props = seed.properties;
  const name = (props.email as string | undefined) ?? (props.name as string | undefined) ?? seed.distinctIds[0];
  return {
    id: seed.id,
    name,
    distinct_ids: seed.distinctIds.slice(0, 10),
    properties: props,
    created_at: drfDate(personCreatedMs(seed, rec.pinnedNowMs)),
    uuid: seed.uuid,
  };
}

function metrics(rec: LiveRecording): Record<string, number> {
  const s = rec.script.stats;
  const duration = Math.round(s.durationMs / 1000);
  const active = Math.min(duration, Math.round(s.activeMs / 1000));
  const score = Math.min(100, s.clickCount * 1.5 + s.keypressCount * 0.4 + s.mouseActivityCount * 0.05 + s.consoleErrorCount * 5 + active * 0.35);
  return {
    duration,
    recording_duration: duration,
    active_seconds: active,
    inactive_seconds: duration - active,
    click_count: s.clickCount,
    keypress_count: s.keypressCount,
    mouse_activity_count: s.mouseActivityCount,
    console_log_count: s.consoleLogCount,
    console_warn_count: s.consoleWarnCount,
    console_error_count: s.consoleErrorCount,
    activity_score: Math.round(score * 100) / 100,
  };
}

function recordingTtl(rec: LiveRecording, clock: number): number {
  return Math.max(0, Math.floor((rec.startMs + RETENTION_DAYS * DAY - clock) / DAY));
}

/** The recording object (same serializer for list items and retrieve). */
export function recordingJson(state: SandboxState, rec: LiveRecording, retrieve: boolean, matchesFilters = true): Record<string, unknown> {
  const m = metrics(rec);
  const clock = state.clock();
  return {
    id: rec.id,
    distinct_id: rec.seed.distinctId,
    viewed: state.viewed.has(rec.id),
    viewers: rec.seed.viewers,
    recording_duration: m.duration,
    active_seconds: m.active_seconds,
    inactive_seconds: m.inactive_seconds,
    start_time: drfDate(rec.startMs),
    end_time: drfDate(rec.endMs),
    click_count: m.click_count,
    keypress_count: m.keypress_count,
    mouse_activity_count: m.mouse_activity_count,
    console_log_count: m.console_log_count,
    console_warn_count: m.console_warn_count,
    console_error_count: m.console_error_count,
    start_url: rec.script.stats.startUrl,
    person: personJson(rec.seed.person, rec),
    retention_period_days: RETENTION_DAYS,
    expiry_time: drfDate(rec.startMs + RETENTION_DAYS * DAY),
    recording_ttl: recordingTtl(rec, clock),
    snapshot_source: 'web',
    // List results do not load per-recording metadata; retrieve does.
    snapshot_library: retrieve ? 'web' : null,
    ongoing: clock - rec.endMs < ONGOING_MS,
    activity_score: m.activity_score,
    has_summary: false,
    summary_outcome: null,
    external_references: [],
    matches_filters: matchesFilters,
  };
}

function facts(rec: LiveRecording): RecordingFacts {
  return { rec, personProperties: rec.seed.person?.properties ?? {}, events: rec.captured(), metrics: metrics(rec) };
}

function sortValue(state: SandboxState, rec: LiveRecording, order: RecordingsQuery['order']): number {
  if (order === 'start_time') return rec.startMs;
  if (order === 'recording_ttl') return recordingTtl(rec, state.clock());
  return metrics(rec)[order] ?? 0;
}

function projectRecordings(state: SandboxState, projectId: number): LiveRecording[] {
  return [...state.recordings().values()].filter((r) => r.seed.projectId === projectId && !state.deletedRecordings.has(r.id));
}

function isTestAccount(state: SandboxState, projectId: number, rec: LiveRecording): boolean {
  const filters = state.projects.get(projectId)?.test_account_filters;
  if (!Array.isArray(filters) || filters.length === 0) return false;
  const f = facts(rec);
  return !filters.every((filter: Filter) =>
    filter.type === 'person' ? matchProperty(filter, f.personProperties) : f.events.every((e) => matchProperty(filter, e.properties)),
  );
}

export function listRecordings(ctx: RequestContext, projectId: number): Reply {
  const { state } = ctx;
  const query = parseRecordingsQuery(ctx.query);
  assertEvaluable(query);
  const clock = state.clock();
  const from = resolveDate(query.date_from, clock, 'date_from', false);
  const to = resolveDate(query.date_to, clock, 'date_to', true);
  if (query.limit !== null && query.limit < 0) throw errors.validation('LIMIT must be a non-negative integer.', 'limit');
  if (query.offset !== null && query.offset < 0) throw errors.validation('OFFSET must be a non-negative integer.', 'offset');
  const limit = query.limit || DEFAULT_LIMIT;
  const offset = query.offset ?? 0;

  const all = projectRecordings(state, projectId);
  const matching = all.filter((rec) => {
    if (rec.startMs < clock - RETENTION_DAYS * DAY) return false;
    if (from !== null && rec.startMs < from) return false;
    if (to !== null && rec.startMs > to) return false;
    if (query.session_ids && !query.session_ids.includes(rec.id)) return false;
    if (query.distinct_ids && !query.distinct_ids.includes(rec.seed.distinctId)) return false;
    if (query.person_uuid && (personJson(rec.seed.person, rec).uuid as string) !== query.person_uuid) return false;
    if (query.filter_test_accounts && isTestAccount(state, projectId, rec)) return false;
    return recordingMatches(query, facts(rec));
  });
  const direction = query.order_direction === 'ASC' ? 1 : -1;
  matching.sort((a, b) => direction * (sortValue(state, a, query.order) - sortValue(state, b, query.order)) || b.startMs - a.startMs || a.id.localeCompare(b.id));

  // session_recording_id is always put first, even when it does not match the filters.
  let pinned: LiveRecording | undefined;
  let pinnedMatched = false;
  if (query.session_recording_id) {
    pinned = all.find((r) => r.id === query.session_recording_id);
    if (pinned) {
      const i = matching.indexOf(pinned);
      pinnedMatched = i >= 0;
      if (pinnedMatched) matching.splice(i, 1);
    }
  }
  const page = matching.slice(offset, offset + limit);
  const hasNext = offset + limit < matching.length;
  const results = page.map((rec) => recordingJson(state, rec, false));
  if (pinned) results.unshift(recordingJson(state, pinned, false, pinnedMatched));

  if (ctx.options.recordingsEnvelope === 'drf') {
    return json(200, { count: matching.length, ...pageLinks(ctx.url, matching.length, limit, offset), results });
  }
  // The 2024 code answered version 3.
  return json(200, { results, has_next: hasNext, version: ctx.options.api === '2024' ? 3 : 4 });
}

function findRecording(ctx: RequestContext, projectId: number, id: string): LiveRecording {
  const rec = ctx.state.recording(projectId, id);
  if (!rec) throw errors.recordingNotFound();
  return rec;
}

export function retrieveRecording(ctx: RequestContext, projectId: number, id: string): Reply {
  return json(200, recordingJson(ctx.state, findRecording(ctx, projectId, id), true));
}

export function updateRecording(ctx: RequestContext, projectId: number, id: string): Reply {
  const rec = findRecording(ctx, projectId, id);
  const body = parseJsonBody(ctx.body, ctx.headers['content-type']);
  if (!body.viewed && !body.analyzed) throw errors.validation("At least one of 'viewed' or 'analyzed' must be provided.");
  if (body.viewed) ctx.state.viewed.add(rec.id);
  return json(200, { success: true });
}

export function deleteRecording(ctx: RequestContext, projectId: number, id: string): Reply {
  const rec = findRecording(ctx, projectId, id);
  ctx.state.deleteRecording(rec.id);
  return noContent();
}

export function bulkDeleteRecordings(ctx: RequestContext, projectId: number): Reply {
  const body = parseJsonBody(ctx.body, ctx.headers['content-type']);
  const ids = body.session_recording_ids;
  if (!Array.isArray(ids) || ids.length === 0) throw errors.validation('session_recording_ids must be provided as a non-empty array.', 'session_recording_ids');
  if (ids.length > 100) throw errors.validation('Cannot process more than 100 recordings at once.', 'session_recording_ids');
  const failed: string[] = [];
  let deleted = 0;
  for (const id of ids) {
    const rec = typeof id === 'string' ? ctx.state.recording(projectId, id) : undefined;
    if (rec) {
      ctx.state.deleteRecording(rec.id);
      deleted++;
    } else {
      failed.push(String(id));
    }
  }
  return json(200, { success: true, deleted_count: deleted, total_requested: ids.length, failed_ids: failed });
}

/** Internal: uuids and times of the analytics events in one recording that match the filters. */
export function matchingEvents(ctx: RequestContext, projectId: number): Reply {
  const { state } = ctx;
  const query = parseRecordingsQuery(ctx.query);
  if (!query.session_ids || query.session_ids.length !== 1) throw errors.validation('Must specify exactly one session_id');
  assertEvaluable(query);
  const eventProperties = query.properties.filter((p) => p.type === 'event');
  if (query.events.length === 0 && query.actions.length === 0 && eventProperties.length === 0) {
    throw errors.validation('Must specify at least one event or action filter, or event properties filter');
  }
  const clock = state.clock();
  const from = resolveDate(query.date_from, clock, 'date_from', false);
  const to = resolveDate(query.date_to, clock, 'date_to', true);
  const rec = state.recording(projectId, query.session_ids[0]!);
  const events = rec?.captured() ?? [];
  const results = events
    .filter((e) => (from === null || e.timestampMs >= from) && (to === null || e.timestampMs <= to))
    .filter((e) => {
      const entity =
        query.events.length + query.actions.length === 0 ||
        query.events.some((f) => entityMatches(f, 'events', e)) ||
        query.actions.some((f) => entityMatches(f, 'actions', e));
      return entity && eventProperties.every((p) => matchProperty(p, e.properties));
    })
    .map((e) => ({ uuid: e.uuid, timestamp: pyIsoDate(e.timestampMs) }));
  return json(200, { results });
}

const SESSION_PROPERTY_KEYS = ['$os', '$browser', '$device_type', '$current_url', '$host', '$pathname', '$geoip_country_code', '$geoip_country_name'];

/** 2024 behaviour: a few properties per session from its first $pageview/$autocapture event. */
export function recordingProperties(ctx: RequestContext, projectId: number): Reply {
  const raw = ctx.query.session_ids;
  const decoded = raw === undefined ? [] : decodeParam(raw);
  if (!Array.isArray(decoded)) throw errors.validation('session_ids must be a JSON array of session ids, e.g. ["abc","def"].', 'session_ids');
  const results: Array<{ id: string; properties: Record<string, unknown> }> = [];
  for (const id of decoded) {
    if (typeof id !== 'string' || !id) continue;
    const rec = ctx.state.recording(projectId, id);
    const first = rec?.captured().find((e) => e.event === '$pageview' || e.event === '$autocapture');
    if (!rec || !first) continue;
    results.push({ id, properties: Object.fromEntries(SESSION_PROPERTY_KEYS.map((k) => [k, first.properties[k] ?? null])) });
  }
  return json(200, { results });
}

/** Deleted recordings answer 410 on snapshots (but 404 elsewhere). */
export function deletedRecordingBody(state: SandboxState, id: string): Record<string, unknown> | undefined {
  const deletion = state.deletedRecordings.get(id);
  if (!deletion) return undefined;
  return {
    error: 'recording_deleted',
    message: `Recording ${id} has been deleted.`,
    deleted_at: pyIsoDate(deletion.deletedAtMs),
    deleted_by: deletion.deletedBy,
  };
}
