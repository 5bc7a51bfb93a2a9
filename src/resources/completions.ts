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

  /** The latest listing's ids, when it was of this project (or when no project is given). */
  of(projectId: string | undefined): string[] | undefined {
    if (this.ids.length === 0 || (projectId !== undefined && projectId !== this.projectId)) return undefined;
    return this.ids;
  }
}

export interface CompletionContext {
  callTool: ToolCaller;
  tools: ReadonlySet<string>;
  recent: RecentRecordings;
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
  const numeric = /^\d*$/.test(typed);
  const result = await context.callTool('projects-list', numeric ? { limit: 100 } : { limit: 100, search: typed.slice(0, 200) }, extra);
  if (result.isError) return [];
  const rows = ((result.structuredContent as { results?: Array<{ id: number; name?: string | null }> }).results ?? []);
  return rows.filter((p) => (numeric ? String(p.id).startsWith(typed) : true)).map((p) => String(p.id));
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
