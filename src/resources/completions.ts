import type { CompleteResult } from '@modelcontextprotocol/sdk/types.js';
import { TIMEZONES } from '../posthog/timezones.js';
import { RECORDING_ID_PATTERN } from '../tools/schemas.js';
import type { Extra, ToolCaller } from './index.js';

/**
 * completion/complete for what people type into prompt arguments and resource-template
 * variables: project ids (by id or by part of the name), recording ids (from the latest listing),
 * timezones, and the enumerated values of the replay settings.
 */
export type CompletionKind = 'project_id' | 'recording_id' | 'timezone' | { values: readonly string[] };

/** MCP caps a completion answer at 100 values. */
const MAX_VALUES = 100;

/**
 * The recordings the latest session-recordings-list of this session returned (per server, so
 * per session in stdio; a stateless HTTP request starts empty and reads the list itself).
 */
export class RecentRecordings {
  private projectId: string | undefined;
  private ids: string[] = [];

  observe(toolName: string, structured: unknown): void {
    if (toolName !== 'session-recordings-list') return;
    const data = (structured ?? {}) as { project_id?: unknown; results?: unknown };
    if (typeof data.project_id !== 'string' || !Array.isArray(data.results)) return;
    this.projectId = data.project_id;
    this.ids = (data.results as Array<{ id?: unknown }>).map((r) => r.id).filter((id): id is string => typeof id === 'string' && RECORDING_ID_PATTERN.test(id)).slice(0, MAX_VALUES);
  }

  /**
   * The latest listing's ids, when it was of this project (or when no project is given). An empty
   * listing is an answer too: asking again at every keystroke would spend the replay rate limit.
   */
  of(projectId: string | undefined): string[] | undefined {
    if (this.projectId === undefined || (projectId !== undefined && projectId !== this.projectId)) return undefined;
    return this.ids;
  }
}

/**
 * The first page of projects a completion read, kept a minute: completion runs at every
 * keystroke, and the list hardly changes while someone types.
 */
export class ProjectsSeen {
  private page: { at: number; rows: Array<{ id: number; name: string }>; more: boolean } | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  get(): { rows: Array<{ id: number; name: string }>; more: boolean } | undefined {
    return this.page && this.now() - this.page.at < 60_000 ? this.page : undefined;
  }

  set(rows: Array<{ id: number; name: string }>, more: boolean): void {
    this.page = { at: this.now(), rows, more };
  }
}

export interface CompletionContext {
  callTool: ToolCaller;
  tools: ReadonlySet<string>;
  recent: RecentRecordings;
  projects: ProjectsSeen;
  defaultProjectId: string | undefined;
}

export async function complete(kind: CompletionKind, value: string, args: Record<string, string>, extra: Extra, context: CompletionContext): Promise<CompleteResult> {
  const typed = value.trim();
  if (typeof kind === 'object') return answer(kind.values.filter((v) => v.toLowerCase().startsWith(typed.toLowerCase())));
  if (kind === 'timezone') {
    const lower = typed.toLowerCase();
    // "berl" finds Europe/Berlin: the city part matches as well as the whole name.
    return answer(TIMEZONES.filter((tz) => tz.toLowerCase().startsWith(lower) || tz.toLowerCase().split('/').some((part) => part.startsWith(lower))));
  }
  if (kind === 'project_id') return answer(await projectIds(typed, extra, context));
  return answer(await recordingIds(typed, args.project_id?.trim() || context.defaultProjectId, extra, context));
}

/**
 * Project ids whose number starts with what was typed, or whose name contains it ("acme" → the
 * id of "Acme Shop"): a completion value must be what the argument takes, so names lead to ids.
 */
async function projectIds(typed: string, extra: Extra, context: CompletionContext): Promise<string[]> {
  if (!context.tools.has('projects-list')) return [];
  let page = context.projects.get();
  if (!page) {
    const rows = await listProjects({ limit: 100 }, extra, context);
    if (!rows) return [];
    page = { rows: rows.rows, more: rows.more };
    context.projects.set(page.rows, page.more);
  }
  const lower = typed.toLowerCase();
  const matches = page.rows.filter((p) => String(p.id).startsWith(typed) || (lower !== '' && p.name.toLowerCase().includes(lower)));
  // More projects than the first page holds: PostHog's own name search finds the rest.
  if (matches.length === 0 && page.more && !/^\d*$/.test(typed)) {
    return ((await listProjects({ limit: 100, search: typed.slice(0, 200) }, extra, context))?.rows ?? []).map((p) => String(p.id));
  }
  return matches.map((p) => String(p.id));
}

async function listProjects(args: Record<string, unknown>, extra: Extra, context: CompletionContext): Promise<{ rows: Array<{ id: number; name: string }>; more: boolean } | undefined> {
  // Ids and names are all a completion needs: one request, not one per project.
  const result = await context.callTool('projects-list', { ...args, recording_settings: false }, extra);
  if (result.isError) return undefined;
  const data = result.structuredContent as { results?: Array<{ id: number; name?: string | null }>; has_more?: boolean };
  return { rows: (data.results ?? []).map((p) => ({ id: p.id, name: p.name ?? '' })), more: data.has_more === true };
}

/** Recording ids from the latest listing of that project, else from a first page read now. */
async function recordingIds(typed: string, projectId: string | undefined, extra: Extra, context: CompletionContext): Promise<string[]> {
  let ids = context.recent.of(projectId);
  if (!ids && projectId !== undefined && context.tools.has('session-recordings-list')) {
    const result = await context.callTool('session-recordings-list', { project_id: projectId, limit: 50 }, extra);
    if (!result.isError) {
      context.recent.observe('session-recordings-list', result.structuredContent);
      ids = context.recent.of(projectId);
    }
  }
  return (ids ?? []).filter((id) => id.startsWith(typed));
}

function answer(values: readonly string[]): CompleteResult {
  return { completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES } };
}
