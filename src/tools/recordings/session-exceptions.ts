import { UpstreamError } from '../../errors.js';
import { BudgetExceeded } from '../../posthog/budget.js';
import type { QueryOperations } from '../../posthog/operations/index.js';
import { MAX_SESSION_EXCEPTIONS, sessionExceptionsQuery } from '../../posthog/hogql-queries.js';
import type { Digest } from '../../digest/digest.js';
import { maskUrlSecretsInText } from '../../url-secrets.js';
import { asText } from '../format.js';

/**
 * A session's exceptions, uncaught or handled as each event says. posthog-js sends them as `$exception` events beside the
 * recording, not inside it (docs/posthog-api.md, "What posthog-js sends"), so a digest of the recording alone misses
 * them unless console capture also caught them: they are read through the query API (scope
 * `query:read`), within the recording's span and a margin for the two systems' clocks.
 */
export interface SessionException {
  /** Epoch ms. */
  at: number;
  type: string;
  message: string;
  windowId?: string | undefined;
  /**
   * As the event says it: `$exception_list[0].mechanism.handled` (docs/posthog-exceptions.md):
   * false for what posthog-js caught on window.onerror / unhandledrejection, true for
   * captureException calls and captured console errors; absent when the event does not say.
   */
  handled?: boolean | undefined;
}

/** Exceptions are looked for this long around the recording's span (clocks of two systems). */
const MARGIN_MS = 5 * 60_000;
/** The latest (and, negated, the earliest) moment a Date holds. */
const MAX_DATE_MS = 8.64e15;

/** Why exceptions could not be read: a phrase that follows "Exceptions not …". */
type Unread = { unread: string; events?: undefined; bySession?: undefined; limited?: undefined };

/**
 * The session's exceptions, oldest first; or why they could not be read (`unread`): a key that
 * may not query, a PostHog without the query API, a spent call budget or a failed query cost the
 * caller its exceptions, not its answer.
 */
export async function readSessionExceptions(
  query: QueryOperations,
  projectId: string,
  id: string,
  meta: Record<string, unknown> | null | undefined,
  signal: AbortSignal,
): Promise<{ events: SessionException[]; limited: boolean; unread?: undefined } | Unread> {
  const read = await readExceptionsOf(query, projectId, [{ id, meta }], signal);
  return read.bySession ? { events: read.bySession.get(id) ?? [], limited: read.limited } : read;
}

/** The same for many sessions in one query (a triage's), each with the metadata (or list row) that gives its span. */
export async function readExceptionsOf(
  query: QueryOperations,
  projectId: string,
  sessions: ReadonlyArray<{ id: string; meta: Record<string, unknown> | null | undefined }>,
  signal: AbortSignal,
  /** Spend the request the call held back for this query (CallBudget.holdBack). */
  reserved = false,
): Promise<{ bySession: Map<string, SessionException[]>; /** The query's LIMIT was reached: there may be more. */ limited: boolean; unread?: undefined; events?: undefined } | Unread> {
  // asText, not String: an upstream value may be an object String() cannot convert ({"toString": …}).
  let from = Infinity;
  let to = -Infinity;
  for (const { meta } of sessions) {
    const start = Date.parse(asText(meta?.start_time));
    if (!Number.isFinite(start)) continue;
    const end = Date.parse(asText(meta?.end_time));
    from = Math.min(from, start);
    to = Math.max(to, Number.isFinite(end) && end >= start ? end : start + 86_400_000);
  }
  if (!Number.isFinite(from)) return { unread: `the ${sessions.length === 1 ? "recording's metadata gives" : "recordings' metadata give"} no start time to bound the query with` };
  // Clamped to the dates a Date can hold: metadata may give the edge of time (+275760-09-13).
  const bound = (ms: number) => new Date(Math.min(Math.max(ms, -MAX_DATE_MS), MAX_DATE_MS));
  try {
    const built = sessionExceptionsQuery({ sessionIds: sessions.map((s) => s.id), from: bound(from - MARGIN_MS), to: bound(to + MARGIN_MS) });
    const { rows } = await query.hogql(projectId, built, { signal, reserved });
    const bySession = new Map<string, SessionException[]>();
    const only = sessions.length === 1 ? sessions[0]!.id : undefined;
    const asked = new Set(sessions.map((s) => s.id));
    // The query's LIMIT, kept here too: a PostHog (or what stands in front of it) that answers
    // more rows than asked for would otherwise grow the result without bound.
    let room = MAX_SESSION_EXCEPTIONS * asked.size;
    for (const row of rows) {
      if (room === 0) break;
      const at = Date.parse(asText(row.timestamp));
      if (!Number.isFinite(at)) continue;
      const id = only ?? asText(row.session_id);
      if (!asked.has(id)) continue;
      const first = firstOfList(row.list);
      // A message may quote a URL, token and all: masked as the digest masks recorded URLs.
      const type = maskUrlSecretsInText(asText(row.type ?? first?.type ?? 'Error').slice(0, 100));
      const message = maskUrlSecretsInText(asText(row.message ?? first?.value ?? '').slice(0, 300));
      const list = bySession.get(id) ?? [];
      list.push({ at, type, message, ...(typeof row.window_id === 'string' ? { windowId: row.window_id } : {}), ...(first?.handled !== undefined ? { handled: first.handled } : {}) });
      bySession.set(id, list);
      room--;
    }
    return { bySession, limited: rows.length >= MAX_SESSION_EXCEPTIONS * asked.size };
  } catch (err) {
    if (signal.aborted) throw err;
    return { unread: whyNotQueried(err, "the session's $exception events", '$exception events') };
  }
}

/**
 * Why a query beside the recording could not be read, as a phrase after "… not read:": a key
 * without query:read, a PostHog without the query API, a spent call budget, or the failure.
 * `what` names what the scope would read, `from` what the query API would have given.
 */
export function whyNotQueried(err: unknown, what: string, from: string): string {
  if (err instanceof UpstreamError && err.status === 403) return `the key may not use the query API (add the query:read scope to read ${what})`;
  if (err instanceof UpstreamError && (err.status === 404 || err.status === 405)) return `this PostHog has no query API to read ${from} from`;
  if (err instanceof BudgetExceeded) return err.message.replace(/\.$/, '');
  return `the query for them failed (${err instanceof Error ? err.message.slice(0, 160) : String(err)})`;
}

/** An exception on its recording's clock, as the summary returns it and the triage counts it. */
export interface ExceptionOnClock {
  /** ms from the recording's start (negative: before its first event, within the query's margin). */
  t_ms: number;
  /** The window (tab) label the digest gives it, when it is one of the recording's. */
  w?: string;
  type: string;
  message: string;
  /** As the event says it; absent when it does not. */
  handled?: boolean;
}

/** A session's exceptions on its recording's clock: ms from the digest's start, and the tab by the digest's label when it is one of the recording's. */
export function onRecordingClock(events: readonly SessionException[], digest: Pick<Digest, 'start' | 'windows'>, fallbackStart?: number): ExceptionOnClock[] {
  const start = digest.start ?? (fallbackStart !== undefined && Number.isFinite(fallbackStart) ? fallbackStart : (events[0]?.at ?? 0));
  const labels = new Map(digest.windows.filter((w) => w.window_id !== null).map((w) => [w.window_id!, w.w]));
  return events.map((e) => {
    const w = e.windowId === undefined ? undefined : labels.get(e.windowId);
    return { t_ms: e.at - start, ...(w ? { w } : {}), type: e.type, message: e.message, ...(e.handled !== undefined ? { handled: e.handled } : {}) };
  });
}

/** The first entry of `$exception_list` (newer posthog-js), sent as JSON text or as a list. */
function firstOfList(value: unknown): { type?: string; value?: string; handled?: boolean } | undefined {
  let list = value;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list) as unknown;
    } catch {
      return undefined;
    }
  }
  const first = Array.isArray(list) ? (list[0] as Record<string, unknown> | undefined) : undefined;
  if (!first || typeof first !== 'object') return undefined;
  const mechanism = first.mechanism as Record<string, unknown> | null | undefined;
  const handled = mechanism && typeof mechanism === 'object' && typeof mechanism.handled === 'boolean' ? mechanism.handled : undefined;
  return { ...(typeof first.type === 'string' ? { type: first.type } : {}), ...(typeof first.value === 'string' ? { value: first.value } : {}), ...(handled !== undefined ? { handled } : {}) };
}
