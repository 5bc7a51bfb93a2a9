// URL routing for /api/: PostHog's routes (trailing slash optional, no redirect), their
// allowed methods, and the project-id resolution shared by nested routes.

import { ORGANIZATION } from './demo/catalog.js';
import { eventDefinitions, eventPropertyValues, personPropertyValues, propertyDefinitions } from './definitions.js';
import { ApiError, errors, json, type Reply } from './http.js';
import { runQuery } from './hogql.js';
import { createProject, destroyProject, listProjects, resolveProjectId, retrieveProject, updateProject } from './projects.js';
import {
  bulkDeleteRecordings,
  deleteRecording,
  listRecordings,
  matchingEvents,
  recordingProperties,
  retrieveRecording,
  updateRecording,
} from './recordings.js';
import { snapshots } from './snapshots.js';
import type { RequestContext } from './state.js';
import { currentPersonalApiKey, currentUser, organization } from './users.js';

/** A handler may answer later (the query API loads its parser on first use). */
type Handler = (ctx: RequestContext, params: string[]) => Reply | Promise<Reply>;

interface Route {
  /** Name used in the Server-Timing header. */
  name: string;
  pattern: RegExp;
  methods: Partial<Record<string, Handler>>;
  /** PostHog's scope object for the route: GET needs `<scope>:read`, other methods `<scope>:write`. */
  scope?: string;
  /** Every method counts as a read (the query API's POST does). */
  readOnly?: boolean;
  /** An action PostHog maps to no scope: personal API keys are refused (today always; 2024 unless unscoped). */
  internal?: boolean;
}

/** Nested recording routes exist under /api/projects/ and the deprecated /api/environments/. */
const TEAM = '^/api/(?:projects|environments)/([^/]+)/session_recordings';

const nested =
  (handler: (ctx: RequestContext, projectId: number, ...rest: string[]) => Reply | Promise<Reply>): Handler =>
  (ctx, [projectId, ...rest]) =>
    handler(ctx, resolveProjectId(ctx.state, projectId!), ...rest);

/** /api/organizations/{org}/projects/… is the documented twin of /api/projects/…. */
const inOrganization =
  (handler: Handler): Handler =>
  (ctx, [org, ...rest]) => {
    if (org !== ORGANIZATION.id && org !== '@current') throw errors.notFound();
    return handler(ctx, rest);
  };

const projectCollection = { GET: (ctx: RequestContext) => listProjects(ctx), POST: (ctx: RequestContext) => createProject(ctx) };
const projectDetail: Partial<Record<string, Handler>> = {
  GET: (ctx, [id]) => retrieveProject(ctx, id!),
  PATCH: (ctx, [id]) => updateProject(ctx, id!),
  PUT: (ctx, [id]) => updateProject(ctx, id!),
  DELETE: (ctx, [id]) => destroyProject(ctx, id!),
};

const ROUTES: Route[] = [
  { name: 'projects', pattern: /^\/api\/projects$/, methods: projectCollection, scope: 'project' },
  {
    name: 'projects',
    pattern: /^\/api\/organizations\/([^/]+)\/projects$/,
    methods: { GET: inOrganization(projectCollection.GET), POST: inOrganization(projectCollection.POST) },
    scope: 'project',
  },
  { name: 'project', pattern: /^\/api\/projects\/([^/]+)$/, methods: projectDetail, scope: 'project' },
  {
    name: 'project',
    pattern: /^\/api\/organizations\/([^/]+)\/projects\/([^/]+)$/,
    methods: Object.fromEntries(Object.entries(projectDetail).map(([m, h]) => [m, inOrganization(h!)])),
    scope: 'project',
  },
  {
    name: 'query',
    pattern: /^\/api\/(?:projects|environments)\/([^/]+)\/query$/,
    methods: { POST: nested((ctx, p) => runQuery(ctx, p)) },
    scope: 'query',
    readOnly: true,
  },
  // What a project can be filtered on (definitions.ts). The values' scopes are this sandbox's reading (docs/filter-options.md).
  { name: 'event_definitions', pattern: /^\/api\/projects\/([^/]+)\/event_definitions$/, methods: { GET: nested((ctx, p) => eventDefinitions(ctx, p)) }, scope: 'event_definition' },
  { name: 'property_definitions', pattern: /^\/api\/projects\/([^/]+)\/property_definitions$/, methods: { GET: nested((ctx, p) => propertyDefinitions(ctx, p)) }, scope: 'property_definition' },
  { name: 'event_values', pattern: /^\/api\/(?:projects|environments)\/([^/]+)\/events\/values$/, methods: { GET: nested((ctx, p) => eventPropertyValues(ctx, p)) }, scope: 'query' },
  { name: 'person_values', pattern: /^\/api\/(?:projects|environments)\/([^/]+)\/persons\/values$/, methods: { GET: nested((ctx, p) => personPropertyValues(ctx, p)) }, scope: 'person' },
  { name: 'session_recordings', pattern: new RegExp(`${TEAM}$`), methods: { GET: nested((ctx, p) => listRecordings(ctx, p)) }, scope: 'session_recording' },
  { name: 'matching_events', pattern: new RegExp(`${TEAM}/matching_events$`), methods: { GET: nested((ctx, p) => matchingEvents(ctx, p)) }, internal: true },
  {
    name: 'properties',
    pattern: new RegExp(`${TEAM}/properties$`),
    // Gone from today's PostHog: the path reaches the retrieve handler with the id "properties".
    methods: { GET: nested((ctx, p) => (ctx.options.api === 'today' ? retrieveRecording(ctx, p, 'properties') : recordingProperties(ctx, p))) },
    internal: true,
  },
  { name: 'bulk_delete', pattern: new RegExp(`${TEAM}/bulk_delete$`), methods: { POST: nested((ctx, p) => bulkDeleteRecordings(ctx, p)) }, scope: 'session_recording' },
  {
    name: 'session_recording',
    scope: 'session_recording',
    pattern: new RegExp(`${TEAM}/([^/]+)$`),
    methods: {
      GET: nested((ctx, p, id) => retrieveRecording(ctx, p, id!)),
      PATCH: nested((ctx, p, id) => updateRecording(ctx, p, id!)),
      PUT: nested((ctx, p, id) => updateRecording(ctx, p, id!)),
      DELETE: nested((ctx, p, id) => deleteRecording(ctx, p, id!)),
    },
  },
  { name: 'users', pattern: /^\/api\/users\/([^/]+)$/, methods: { GET: (ctx, [who]) => currentUser(ctx, who!) } },
  { name: 'organization', pattern: /^\/api\/organizations\/([^/]+)$/, methods: { GET: (ctx, [which]) => organization(ctx, which!) }, scope: 'organization' },
  { name: 'personal_api_keys', pattern: /^\/api\/personal_api_keys\/([^/]+)$/, methods: { GET: (ctx, [which]) => currentPersonalApiKey(ctx, which!) } },
  { name: 'snapshots', pattern: new RegExp(`${TEAM}/([^/]+)/snapshots$`), methods: { GET: nested((ctx, p, id) => snapshots(ctx, p, id!)) }, scope: 'session_recording' },
];

export interface Matched {
  route: Route;
  params: string[];
}

/** Matches a pathname (one trailing slash ignored); path parameters come back URL-decoded. */
export function matchRoute(pathname: string): Matched | undefined {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  for (const route of ROUTES) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    try {
      return { route, params: m.slice(1).map((p) => decodeURIComponent(p)) };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export function dispatch(ctx: RequestContext, matched: Matched): Reply | Promise<Reply> {
  const { route, params } = matched;
  const allowed = Object.keys(route.methods);
  const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
  if (method === 'OPTIONS') {
    const allow = [...allowed, 'HEAD', 'OPTIONS'].join(', ');
    return json(200, { name: route.name, renders: ['application/json'], parses: ['application/json'] }, { Allow: allow });
  }
  const handler = route.methods[method];
  if (!handler) throw errors.methodNotAllowed(ctx.method, [...allowed, 'OPTIONS']);
  authorize(ctx, route, method);
  return handler(ctx, params);
}

const permissionDenied = (detail: string) => new ApiError(403, { type: 'authentication_error', code: 'permission_denied', detail, attr: null });

/** PostHog's APIScopePermission for a personal API key (docs/posthog-api.md, "Scopes"). */
function authorize(ctx: RequestContext, route: Route, method: string): void {
  const { scopes, api } = ctx.options;
  let scope = route.scope;
  if (route.internal) {
    // Today's properties path is the recording retrieve action (read), which then 404s.
    if (route.name === 'properties' && api === 'today') scope = 'session_recording';
    // Today no key passes; in 2024 legacy unscoped keys still did.
    else if (api === 'today') throw permissionDenied('This action does not support personal API key access');
    else if (scopes.length > 0) throw permissionDenied('This action does not support Personal API Key access');
    else return;
  }
  if (scope === undefined || scopes.length === 0 || scopes.includes('*')) return;
  const read = route.readOnly === true || method === 'GET';
  const required = `${scope}:${read ? 'read' : 'write'}`;
  if (scopes.includes(required) || (read && scopes.includes(`${scope}:write`))) return;
  throw permissionDenied(`API key missing required scope '${required}'`);
}
