import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, ReadResourceRequestSchema, type CallToolResult, type ReadResourceResult, type ResourceLink, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { protocolError } from '../errors.js';
import { PROJECT_ID_PATTERN } from '../settings.js';
import { DIGEST_ICONS, PROJECT_ICONS, RECORDING_ICONS } from '../icons.js';
import { RECORDING_ID_PATTERN } from '../tools/schemas.js';

/**
 * Recordings and projects as MCP resources (resource templates), read through the tools that
 * already fetch them: the same validation, key redaction and error advice as a tools/call.
 *
 *   posthog://projects/{project_id}                                  the project's settings (JSON)
 *   posthog://projects/{project_id}/recordings/{recording_id}        a recording's metadata (JSON)
 *   posthog://projects/{project_id}/recordings/{recording_id}/digest what happened in it (text)
 *
 * Listing them all would cost upstream requests at every client start, so resources/list does
 * not; tool results carry resource_link items to them instead (resourceLinks below).
 */
export const PROJECT_TEMPLATE = 'posthog://projects/{project_id}';
export const RECORDING_TEMPLATE = 'posthog://projects/{project_id}/recordings/{recording_id}';
export const DIGEST_TEMPLATE = 'posthog://projects/{project_id}/recordings/{recording_id}/digest';

export const projectUri = (projectId: string | number) => `posthog://projects/${encodeURIComponent(String(projectId))}`;
export const recordingUri = (projectId: string, id: string) => `${projectUri(projectId)}/recordings/${encodeURIComponent(id)}`;
export const digestUri = (projectId: string, id: string) => `${recordingUri(projectId, id)}/digest`;

/** MCP's code for a resource that does not exist (server/resources, "Error Handling"). */
export const RESOURCE_NOT_FOUND = -32002;

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
/** A tools/call made on the server's side (server.ts's own handler): the same checks and advice. */
export type ToolCaller = (name: string, args: Record<string, unknown>, extra: Extra) => Promise<CallToolResult>;

export interface ResourceContext {
  callTool: ToolCaller;
  /** The tools this configuration offers: a template is offered only when the tool it reads through is. */
  tools: ReadonlySet<string>;
}

interface TemplateDefinition {
  name: string;
  template: string;
  title: string;
  description: string;
  mimeType: string;
  icons: typeof PROJECT_ICONS;
  tool: string;
  read: (vars: Vars, extra: Extra, context: ResourceContext) => Promise<{ text: string }>;
}

type Vars = { project_id: string; recording_id?: string };

const TEMPLATES: readonly TemplateDefinition[] = [
  {
    name: 'project',
    template: PROJECT_TEMPLATE,
    title: 'PostHog project',
    description: 'A project\'s settings, replay settings included (secrets left out), as JSON.',
    mimeType: 'application/json',
    icons: PROJECT_ICONS,
    tool: 'project-get',
    read: async (vars, extra, context) => {
      if (!/^\d+$/.test(vars.project_id)) throw protocolError(ErrorCode.InvalidParams, `Invalid resource URI: a project resource names the project by its number, like ${projectUri(12345)} (projects-list names them).`);
      const result = await run(context, 'project-get', { id: Number(vars.project_id), include_settings: true }, extra);
      return { text: JSON.stringify((result.structuredContent as { project: unknown }).project, null, 1) };
    },
  },
  {
    name: 'recording',
    template: RECORDING_TEMPLATE,
    title: 'Session recording',
    description: 'A recording\'s metadata (start, duration, activity, errors, person, start URL), as JSON.',
    mimeType: 'application/json',
    icons: RECORDING_ICONS,
    tool: 'session-recording-get',
    read: async (vars, extra, context) => {
      const result = await run(context, 'session-recording-get', { project_id: vars.project_id, id: vars.recording_id }, extra);
      return { text: JSON.stringify(result.structuredContent, null, 1) };
    },
  },
  {
    name: 'recording-digest',
    template: DIGEST_TEMPLATE,
    title: 'Session recording digest',
    description: 'What happened in a recording: pages, clicks, typing (length only), rage and dead clicks, console errors, failed requests, on one timeline.',
    mimeType: 'text/plain',
    icons: DIGEST_ICONS,
    tool: 'session-recording-summary',
    read: async (vars, extra, context) => {
      const result = await run(context, 'session-recording-summary', { project_id: vars.project_id, id: vars.recording_id }, extra);
      return { text: textOf(result) };
    },
  },
];

/** A resource registered with the SDK by its fixed URI (the player's ui://), which our resources/read must still serve. */
export interface FixedResource {
  uri: string;
  read: (uri: URL) => Promise<ReadResourceResult>;
}

/**
 * The templates this configuration offers (a template reads through a tool; no tool, no template).
 * `fixed`: the resources registered by URI elsewhere, which the resources/read below answers too.
 */
export function registerResources(server: McpServer, context: ResourceContext, fixed: readonly FixedResource[] = []): void {
  const offered: Array<{ template: ResourceTemplate; definition: TemplateDefinition }> = [];
  for (const definition of TEMPLATES) {
    if (!context.tools.has(definition.tool)) continue;
    const template = new ResourceTemplate(definition.template, { list: undefined });
    offered.push({ template, definition });
    server.registerResource(
      definition.name,
      template,
      { title: definition.title, description: definition.description, mimeType: definition.mimeType, icons: definition.icons },
      (uri, variables, extra) => readTemplate(definition, uri, variables, extra, context),
    );
  }
  if (offered.length === 0) return;
  // resources/read in place of the SDK's, whose refusal of a URI no template matches is an McpError
  // (its "MCP error -32602:" prefix reaches the user twice).
  server.server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const uri = URL.canParse(request.params.uri) ? new URL(request.params.uri) : undefined;
    const known = uri ? fixed.find((resource) => resource.uri === uri.toString()) : undefined;
    if (known) return known.read(uri!);
    for (const { template, definition } of uri ? offered : []) {
      const variables = template.uriTemplate.match(uri!.toString());
      if (variables) return readTemplate(definition, uri!, variables, extra, context);
    }
    throw protocolError(ErrorCode.InvalidParams, `Resource ${clipUri(request.params.uri)} not found: resources/templates/list names the URIs this server reads.`);
  });
}

async function readTemplate(definition: TemplateDefinition, uri: URL, variables: Record<string, string | string[]>, extra: Extra, context: ResourceContext): Promise<ReadResourceResult> {
  const vars = checkVariables(uri.href, variables);
  const { text } = await definition.read(vars, extra, context);
  return { contents: [{ uri: uri.href, mimeType: definition.mimeType, text }] };
}

/** True when this configuration serves the template (so a link to it would resolve). */
export function offersTemplate(template: string, tools: ReadonlySet<string>): boolean {
  return TEMPLATES.some((t) => t.template === template && tools.has(t.tool));
}

/** Template variables, checked as the tools check the same values (a clear -32602 otherwise). */
function checkVariables(uri: string, variables: Record<string, string | string[]>): Vars {
  const one = (name: string) => {
    const value = variables[name];
    try {
      return decodeURIComponent(Array.isArray(value) ? (value[0] ?? '') : (value ?? ''));
    } catch {
      throw protocolError(ErrorCode.InvalidParams, `Invalid resource URI ${clipUri(uri)}: its ${name} has a broken percent escape.`);
    }
  };
  const projectId = one('project_id');
  // As long as the tools take it (15 digits), so a longer one is refused here, not by the tool as an internal error.
  if (!PROJECT_ID_PATTERN.test(projectId) || projectId.length > 15) {
    throw protocolError(ErrorCode.InvalidParams, `Invalid resource URI ${clipUri(uri)}: the project id must be a number like 12345 (projects-list names them).`);
  }
  if (!('recording_id' in variables)) return { project_id: projectId };
  const recordingId = one('recording_id');
  if (!RECORDING_ID_PATTERN.test(recordingId)) {
    throw protocolError(ErrorCode.InvalidParams, `Invalid resource URI ${clipUri(uri)}: a recording id is 1-200 letters, digits, "_" or "-" (session-recordings-list names them).`);
  }
  return { project_id: projectId, recording_id: recordingId };
}

/**
 * The tool's result, or the protocol error a resources/read answers with: PostHog's 404 is
 * "resource not found" (-32002) with the tool's advice (which id, which tool lists valid ones);
 * any other failure keeps the tool's message, which says what happened and what to do.
 */
async function run(context: ResourceContext, name: string, args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> {
  const result = await context.callTool(name, args, extra);
  if (!result.isError) return result;
  const message = textOf(result);
  // server.ts words every upstream error as "PostHog answered <status> …".
  if (/^PostHog answered 404\b/.test(message)) throw protocolError(RESOURCE_NOT_FOUND, `Resource not found. ${message}`);
  throw protocolError(ErrorCode.InternalError, message);
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

function clipUri(uri: string): string {
  return JSON.stringify(uri.length > 200 ? `${uri.slice(0, 200)}…` : uri);
}

/** Links a list result carries at most: enough to click through, not a second copy of the page. */
const MAX_LINKS = 25;

/**
 * resource_link items for a list tool's result: each recording's digest, each project's settings
 * (only when that template is offered, so every link resolves).
 */
export function resourceLinks(toolName: string, structured: unknown, tools: ReadonlySet<string>): ResourceLink[] {
  const data = (structured ?? {}) as { project_id?: unknown; results?: unknown };
  const rows = Array.isArray(data.results) ? (data.results as Array<Record<string, unknown>>).slice(0, MAX_LINKS) : [];
  if (toolName === 'session-recordings-list' && typeof data.project_id === 'string' && offersTemplate(DIGEST_TEMPLATE, tools)) {
    const projectId = data.project_id;
    return rows
      .filter((r) => typeof r.id === 'string' && RECORDING_ID_PATTERN.test(r.id))
      .map((r) => ({ type: 'resource_link', uri: digestUri(projectId, r.id as string), name: r.id as string, title: `Digest of recording ${r.id as string}`, mimeType: 'text/plain' }));
  }
  if (toolName === 'projects-list' && offersTemplate(PROJECT_TEMPLATE, tools)) {
    return rows
      .filter((r) => Number.isInteger(r.id))
      .map((r) => ({ type: 'resource_link', uri: projectUri(r.id as number), name: typeof r.name === 'string' && r.name ? r.name.slice(0, 100) : `Project ${r.id as number}`, mimeType: 'application/json' }));
  }
  return [];
}
