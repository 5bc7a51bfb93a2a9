// /api/projects/: the list/create/retrieve/update/delete handlers. The object they serve is
// project-object.ts; what a create or update may write and how a project is shown,
// project-serializer.ts.

import { errors, json, noContent, pageLinks, parseJsonBody, positiveInt, type Reply } from './http.js';
import { baseProject, newApiToken, projectListItem, type Project } from './project-object.js';
import { presentProject, sameName, validateBody } from './project-serializer.js';
import { checkRetentionEntitlement } from './retention-plan.js';
import type { RequestContext, SandboxState } from './state.js';
import { drfDate, uuidV7 } from './util.js';

function defaultName(state: SandboxState): string {
  const taken = (name: string) => [...state.projects.values()].some((p) => sameName(p.name, name));
  if (!taken('Default project')) return 'Default project';
  for (let n = 2; ; n++) if (!taken(`Default project ${n}`)) return `Default project ${n}`;
}

/** Resolves `{id}` of /api/projects/{id}/: an integer or @current, else "Not found.". */
function lookup(state: SandboxState, raw: string): Project {
  const id = raw === '@current' ? state.currentProjectId : /^\d{1,15}$/.test(raw) ? Number(raw) : null;
  const project = id === null ? undefined : state.projects.get(id);
  if (!project) throw errors.notFound();
  return project;
}

/** Resolves `{project_id}` of nested routes; unknown or malformed ids are "Project not found.". */
export function resolveProjectId(state: SandboxState, raw: string): number {
  const id = raw === '@current' ? state.currentProjectId : /^\d{1,15}$/.test(raw) ? Number(raw) : null;
  if (id === null || !state.projects.has(id)) throw errors.projectNotFound();
  return id;
}

export function listProjects(ctx: RequestContext): Reply {
  const { state, query } = ctx;
  let projects = [...state.projects.values()].sort((a, b) => a.id - b.id);
  const search = query.search?.trim();
  if (search) {
    const terms = search.toLowerCase().split(/\s+/);
    projects = projects.filter((p) => terms.every((t) => p.name.toLowerCase().includes(t)));
  }
  const limit = positiveInt(query.limit, 100, true);
  const offset = positiveInt(query.offset, 0, false);
  const page = projects.slice(offset, offset + limit).map(projectListItem);
  if (ctx.options.projectsEnvelope === 'has_next') {
    return json(200, { results: page, has_next: offset + limit < projects.length });
  }
  return json(200, { count: projects.length, ...pageLinks(ctx.url, projects.length, limit, offset), results: page });
}

export function createProject(ctx: RequestContext): Reply {
  const { state } = ctx;
  const body = parseJsonBody(ctx.body, ctx.headers['content-type']);
  const changes = validateBody(state, body, null, ctx.options.api);
  const now = state.clock();
  const id = state.nextProjectId++;
  const name = (changes.name as string | undefined) ?? defaultName(state);
  const project = baseProject({ id, uuid: uuidV7(now, `project:${id}:${name}`), name, apiToken: newApiToken(), createdMs: now, timezone: 'UTC' });
  Object.assign(project, changes, { name });
  state.projects.set(id, project);
  state.currentProjectId = id;
  return json(201, presentProject(project, ctx.options.api));
}

export function retrieveProject(ctx: RequestContext, rawId: string): Reply {
  return json(200, presentProject(lookup(ctx.state, rawId), ctx.options.api));
}

export function updateProject(ctx: RequestContext, rawId: string): Reply {
  const { state } = ctx;
  const project = lookup(state, rawId);
  const body = parseJsonBody(ctx.body, ctx.headers['content-type']);
  const changes = validateBody(state, body, project, ctx.options.api);
  if ('session_recording_retention_period' in changes) checkRetentionEntitlement(changes.session_recording_retention_period);
  Object.assign(project, changes, { updated_at: drfDate(state.clock()) });
  return json(200, presentProject(project, ctx.options.api));
}

export function destroyProject(ctx: RequestContext, rawId: string): Reply {
  const { state } = ctx;
  const project = lookup(state, rawId);
  if (ctx.options.api === 'today') {
    // Today's PostHog deletes in the background: the project is marked and stays visible until
    // the workflow has removed its data (the sandbox never runs that workflow).
    if (project.is_pending_deletion === true) throw errors.validation('This project is already being deleted.');
    project.is_pending_deletion = true;
    return noContent();
  }
  state.projects.delete(project.id);
  if (state.currentProjectId === project.id) {
    // PostHog moves the user to another project they can access.
    state.currentProjectId = [...state.projects.keys()].sort((a, b) => a - b)[0] ?? null;
  }
  return noContent();
}
