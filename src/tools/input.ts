import type { z } from 'zod';
import { didYouMean, nearest } from '../words.js';
import { clip } from './format.js';

/**
 * Tool arguments as a tool's handler may take them, or a message saying what is wrong. One pass
 * for every tool, before its own schema is applied:
 * - guards no schema can: nesting deeper than MAX_DEPTH, and a `__proto__` key (JSON.parse makes
 *   it an own key; the SDK's request parsing then turns it into the object's prototype, where a
 *   strict schema no longer sees it as an unknown key);
 * - `null` for an optional field means "not given" (docs/design.md, "Inputs as hosts send them": hosts that make every field required
 *   send null for what the model left out), so the field's default applies;
 * - JSON text where a free-form value is expected is parsed: that is how the listing advertises
 *   free-form values to hosts that cannot express them (tools/listing-portable.ts);
 * - fields some MCP clients add to every call on their own (CLIENT_ADDED_FIELDS) are dropped;
 * - a number or boolean sent as a string is read when the string is exactly its JSON text ("10",
 *   "-1", "1.5", "true"): some clients send every argument as a string. Anything else stays a
 *   string, for the schema to refuse naming the field and the type it takes.
 */
export type Prepared = { ok: true; value: unknown } | { ok: false; message: string };

export const MAX_DEPTH = 32;
const MAX_ISSUES = 5;

/**
 * Fields MCP clients add to a tool call's arguments by themselves, not from the tool's schema
 * (docs/mcp-features.md names the client of each): accepted on every tool and dropped before its
 * schema applies, so a strict schema does not refuse the call. Top level only; a tool declaring one
 * of these names itself would keep it.
 */
export const CLIENT_ADDED_FIELDS: ReadonlySet<string> = new Set([
  'wait_for_previous', // Gemini CLI: run this call after the ones before it
  'toolCallId', // n8n's MCP Client Tool: its own call id
  '_sessionID', // SiYuan's MCP client: its session
  '_auth_auth_type', // mcpproxy-go (older releases): the caller's identity, meant for its own log
  '_auth_agent_name',
  '_auth_token_prefix',
]);

export function prepareArguments(schema: z.ZodType, args: unknown, context: { defaultProjectId?: string | undefined; upstream?: string | undefined } = {}): Prepared {
  const input = args ?? {};
  const problem = guard(input);
  if (problem) return { ok: false, message: problem };
  const pasted = readReplayUrls(schema, withoutClientFields(schema, input as Record<string, unknown>), context.upstream);
  if (!pasted.ok) return pasted;
  const normalized = normalize(schema, pasted.value);
  const result = schema.safeParse(normalized);
  if (result.success) return { ok: true, value: result.data };
  const issues = result.error.issues;
  const lines = issues.slice(0, MAX_ISSUES).map((issue) => describeIssue(issue, valueAt(normalized, issue.path), schemaAt(schema, issue.path), context));
  if (issues.length > MAX_ISSUES) lines.push(`and ${issues.length - MAX_ISSUES} more`);
  return { ok: false, message: lines.join('; ') };
}

/** The arguments less the fields a client added on its own (CLIENT_ADDED_FIELDS) that the tool does not declare. */
function withoutClientFields(schema: z.ZodType, input: Record<string, unknown>): Record<string, unknown> {
  if (!Object.keys(input).some((key) => CLIENT_ADDED_FIELDS.has(key))) return input;
  const shape = defOf(base(schema)).shape ?? {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (!CLIENT_ADDED_FIELDS.has(key) || Object.hasOwn(shape, key)) out[key] = value;
  return out;
}

/** The fields of a recording tool that name recordings, and so may be given as replay URLs. */
const RECORDING_ID_FIELDS = ['id', 'session_id', 'session_ids'];

/**
 * A PostHog replay URL as people copy it from the browser, US, EU or self-hosted (under a base
 * path too): `…/project/<pid>/replay/<id>?t=<seconds>`, the older `/recordings/<id>`, or a list
 * view with the recording open (`…/replay/home?sessionRecordingId=<id>`). Undefined for anything
 * else. The id is returned as written; the schema then checks it as it checks any id.
 */
export function parseReplayUrl(text: string): { id: string; project?: string; t?: string } | undefined {
  const trimmed = text.trim();
  if (!/^https?:\/\//i.test(trimmed) || trimmed.length > 2000) return undefined;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return undefined;
  }
  const project = /\/project\/(\d{1,18})(?:\/|$)/.exec(url.pathname)?.[1];
  const segment = /\/(?:replay|recordings)\/([^/]+)\/?$/.exec(url.pathname)?.[1];
  const inPath = segment !== undefined && !LIST_VIEWS.has(segment) ? safeDecode(segment) : undefined;
  const id = inPath ?? url.searchParams.get('sessionRecordingId') ?? undefined;
  if (id === undefined || id === '') return undefined;
  const t = url.searchParams.get('t') ?? undefined;
  return { id, ...(project !== undefined ? { project } : {}), ...(t !== undefined && /^\d{1,7}(\.\d+)?$/.test(t) ? { t } : {}) };
}

/** PostHog Cloud's app hosts by region (app.posthog.com is the US one's older name). */
const CLOUD_REGIONS: Record<string, 'US' | 'EU'> = { 'us.posthog.com': 'US', 'app.posthog.com': 'US', 'eu.posthog.com': 'EU' };

/** The PostHog Cloud region a URL is on, or undefined for any other host (self-hosted, the sandbox). */
export function cloudRegionOf(url: string | undefined): 'US' | 'EU' | undefined {
  if (url === undefined) return undefined;
  try {
    return CLOUD_REGIONS[new URL(url.trim()).hostname.toLowerCase()];
  } catch {
    return undefined;
  }
}

/** Pages of PostHog's replay section that are not a recording. */
const LIST_VIEWS = new Set(['home', 'recent', 'playlists', 'settings', 'list', 'filters', 'templates']);

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Replay URLs in a recording tool's id fields become their ids. The URL's project becomes
 * project_id when none (or "@current") was given, and is refused, naming both, when another was;
 * its `t` (seconds) becomes the tool's moment of interest (`start_at`) when the tool has one and
 * none was given.
 */
function readReplayUrls(schema: z.ZodType, input: Record<string, unknown>, upstream: string | undefined): Prepared {
  const shape = defOf(base(schema)).shape;
  if (shape === undefined || !Object.hasOwn(shape, 'project_id')) return { ok: true, value: input };
  const out: Record<string, unknown> = { ...input };
  const projects = new Set<string>();
  // The server's region is read only when a replay URL is given: most calls carry none.
  let serverRegion: 'US' | 'EU' | undefined | null = null;
  let otherRegion: 'US' | 'EU' | undefined;
  let moment: string | undefined;
  const read = (value: unknown): unknown => {
    const url = typeof value === 'string' ? parseReplayUrl(value) : undefined;
    if (url === undefined) return value;
    if (serverRegion === null) serverRegion = cloudRegionOf(upstream);
    const region = cloudRegionOf(value as string);
    if (serverRegion !== undefined && region !== undefined && region !== serverRegion) otherRegion = region;
    if (url.project !== undefined) projects.add(url.project);
    moment ??= url.t;
    return url.id;
  };
  for (const field of RECORDING_ID_FIELDS) {
    if (!Object.hasOwn(shape, field) || !Object.hasOwn(out, field)) continue;
    const value = out[field];
    out[field] = Array.isArray(value) ? value.map(read) : read(value);
  }
  // Project numbers are per region: the same number on the other cloud is somebody else's project.
  if (otherRegion !== undefined) {
    const setting = otherRegion === 'EU' ? 'eu' : 'us';
    return { ok: false, message: `the replay URL is on PostHog ${otherRegion} Cloud (${setting}.posthog.com) but this server talks to ${serverRegion} Cloud (${new URL(upstream!).hostname}); nothing was sent. Start it with POSTHOG_HOST=${setting} and a key of that region, or give a recording of this server's region.` };
  }
  if (projects.size > 1) return { ok: false, message: `the replay URLs are in different projects (${[...projects].join(', ')}); give recordings of one project per call.` };
  const [urlProject] = projects;
  if (urlProject !== undefined) {
    const given = typeof out.project_id === 'number' ? String(out.project_id) : out.project_id;
    if (given === undefined || given === null || given === '@current') out.project_id = urlProject;
    else if (given !== urlProject) {
      return { ok: false, message: `project_id is ${clip(JSON.stringify(given) ?? '', 40)} but the replay URL is in project ${urlProject}: leave project_id out (the URL's project is used) or give the recording's own project.` };
    }
  }
  if (moment !== undefined && Object.hasOwn(shape, 'start_at') && (out.start_at === undefined || out.start_at === null)) out.start_at = moment;
  return { ok: true, value: out };
}

function guard(input: unknown): string | undefined {
  if (!isPlainObject(input)) return 'arguments must be a JSON object.';
  const stack: Array<[unknown, number, string]> = [[input, 1, '']];
  while (stack.length > 0) {
    const [node, depth, path] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > MAX_DEPTH) return `arguments are nested more than ${MAX_DEPTH} levels deep (at ${clip(path, 80)}); no tool takes that.`;
    if (Array.isArray(node)) {
      node.forEach((child, i) => stack.push([child, depth + 1, `${path}[${i}]`]));
      continue;
    }
    const proto = Object.getPrototypeOf(node);
    if (Object.hasOwn(node, '__proto__') || (proto !== Object.prototype && proto !== null)) {
      return `${path ? `${clip(path, 80)}: ` : ''}unrecognized key "__proto__"; no tool takes it.`;
    }
    for (const key of Object.keys(node)) stack.push([(node as Record<string, unknown>)[key], depth + 1, path ? `${path}.${key}` : key]);
  }
  return undefined;
}

// zod's own definitions, read to walk a schema beside the value.
interface Def {
  type: string;
  format?: string;
  checks?: Array<{ _zod: { def: { format?: string } } }>;
  values?: unknown[];
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  options?: z.ZodType[];
}
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional']);

/** The schema that gives the value its shape, past optional/default wrappers and pipes. */
function base(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in && def.out) current = defOf(def.in).type === 'transform' ? def.out : def.in;
    else break;
  }
  return current;
}

function isFreeForm(schema: z.ZodType): boolean {
  const def = defOf(base(schema));
  if (def.type === 'record' || def.type === 'unknown' || def.type === 'any') return true;
  if (def.type === 'object') return Object.keys(def.shape ?? {}).length === 0;
  if (def.type === 'array') return def.element !== undefined && isFreeForm(def.element);
  if (def.type === 'union') {
    const options = (def.options ?? []).map((o) => defOf(base(o)).type);
    return !options.includes('string') && (def.options ?? []).some(isFreeForm);
  }
  return false;
}

/** A number's JSON text, as a client that sends every argument as a string writes it: no spaces, no "+", no hex. */
const NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** What a schema takes that may come as a string: 'integer', 'number', 'boolean', or undefined for anything else. */
function scalarKind(schema: z.ZodType): 'integer' | 'number' | 'boolean' | undefined {
  const def = defOf(base(schema));
  if (def.type === 'boolean') return 'boolean';
  if (def.type !== 'number') return undefined;
  const formats = [def.format, ...(def.checks ?? []).map((c) => c._zod.def.format)];
  return formats.some((f) => f !== undefined && /int/.test(f)) ? 'integer' : 'number';
}

/**
 * The number or boolean a string stands for where the schema takes one and no string: exactly its
 * JSON text ("10", "-1", "1.5", "1e3", "true", "false"; case as in JSON), a finite number. Undefined
 * for anything else, which the schema then refuses (or, like project-get's id, reads its own way).
 */
/**
 * What a field that takes a number or boolean (and no free text) expects, for a refusal: "a whole
 * number like 10", "a number like 10 or 0.5 or "clear"", "true or false"; undefined for other fields.
 */
function expectedScalar(schema: z.ZodType): { what: string; read: string } | undefined {
  const def = defOf(base(schema));
  const options = def.type === 'union' ? (def.options ?? []) : [schema];
  const defs = options.map((o) => defOf(base(o)));
  if (defs.some((d) => d.type === 'string' || d.type === 'enum')) return undefined;
  const kind = options.map(scalarKind).find((k) => k !== undefined);
  if (kind === undefined) return undefined;
  const words = defs.flatMap((d) => (d.type === 'literal' ? (d.values ?? []).filter((v) => typeof v === 'string').map((v) => JSON.stringify(v)) : []));
  const example = kind === 'boolean' ? 'true or false' : kind === 'integer' ? 'a whole number like 10' : 'a number like 10 or 0.5';
  const read = kind === 'boolean' ? 'a string is read as a boolean only when it is exactly "true" or "false"' : 'a string is read as a number only when it is exactly one, like "10"';
  return { what: [example, ...words].join(' or '), read };
}

function fromString(schema: z.ZodType, text: string): number | boolean | undefined {
  const def = defOf(base(schema));
  const options = def.type === 'union' ? (def.options ?? []) : [schema];
  // A union that takes strings (project_id, "clear" for a setting) keeps a string it takes.
  const takesText = options.some((o) => {
    const d = defOf(base(o));
    return d.type === 'string' || d.type === 'enum' || (d.type === 'literal' && (d.values ?? []).includes(text));
  });
  if (takesText) return undefined;
  const kinds = new Set(options.map(scalarKind));
  if ((kinds.has('number') || kinds.has('integer')) && NUMBER_TEXT.test(text)) {
    const n = Number(text);
    if (Number.isFinite(n)) return n;
  }
  if (kinds.has('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return undefined;
}

function normalize(schema: z.ZodType, value: unknown): unknown {
  let current = value;
  if (typeof current === 'string' && isFreeForm(schema)) {
    try {
      const parsed: unknown = JSON.parse(current);
      if (parsed !== null && typeof parsed === 'object' && guard({ parsed }) === undefined) current = parsed;
    } catch {
      // Not JSON text: the schema's own message says what was expected.
    }
  }
  if (typeof current === 'string') {
    const scalar = fromString(schema, current);
    if (scalar !== undefined) return scalar;
  }
  const shapeSchema = base(schema);
  const def = defOf(shapeSchema);
  if (def.type === 'union' && current !== null && typeof current === 'object') {
    const wanted = Array.isArray(current) ? 'array' : 'object';
    const option = (def.options ?? []).find((o) => defOf(base(o)).type === wanted);
    return option ? normalize(option, current) : current;
  }
  if (def.type === 'array' && Array.isArray(current) && def.element) {
    const element = def.element;
    return current.map((item) => normalize(element, item));
  }
  if (def.type === 'object' && isPlainObject(current) && def.shape) {
    const shape = def.shape;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(current)) {
      const fieldSchema = Object.hasOwn(shape, key) ? shape[key] : undefined;
      if (fieldSchema === undefined) {
        out[key] = field;
        continue;
      }
      if (field === null && acceptsUndefined(fieldSchema) && !fieldSchema.safeParse(null).success) continue;
      out[key] = normalize(fieldSchema, field);
    }
    return out;
  }
  return current;
}

function acceptsUndefined(schema: z.ZodType): boolean {
  return schema.safeParse(undefined).success;
}

/** The schema of the value at a path (object fields, array items, the object option of a union), or undefined. */
function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const key of path) {
    if (current === undefined) return undefined;
    let def = defOf(base(current));
    if (def.type === 'union') {
      const option = (def.options ?? []).find((o) => defOf(base(o)).type === (typeof key === 'number' ? 'array' : 'object'));
      if (option === undefined) return undefined;
      def = defOf(base(option));
    }
    if (def.type === 'object' && typeof key === 'string') current = def.shape && Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
    else if (def.type === 'array' && typeof key === 'number') current = def.element;
    else return undefined;
  }
  return current;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "limit: expected at most 100"; a missing field says it is required (and, for project_id, how to get one). */
function describeIssue(issue: z.core.$ZodIssue, value: unknown, schema: z.ZodType | undefined, context: { defaultProjectId?: string | undefined }): string {
  const path = issue.path.map(String).join('.');
  const missing = issue.code === 'invalid_type' && value === undefined;
  if (missing && path === 'project_id' && context.defaultProjectId === undefined) {
    return 'project_id is required: no default project is configured. Call projects-list to find the project\'s id, or set POSTHOG_PROJECT_ID to make one the default.';
  }
  if (missing) return `${path || 'arguments'} is required.`;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.slice(0, 5).map((k) => JSON.stringify(clip(k, 60))).join(', ');
    const said = `${path ? `${path}: ` : ''}unrecognized field${issue.keys.length === 1 ? '' : 's'} ${keys}${issue.keys.length > 5 ? ` and ${issue.keys.length - 5} more` : ''}; this tool does not take ${issue.keys.length === 1 ? 'it' : 'them'}.`;
    return `${said}${nearFields(issue.keys, schema)}`;
  }
  // A string where a number or boolean goes, that is not one ("ten", "", " 2 "): say which type, and which strings are read.
  // Not over a message of the schema's own (project-get's id says what an id is).
  const defaultMessage = issue.code === 'invalid_union' || (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input:'));
  if (defaultMessage && typeof value === 'string' && schema !== undefined) {
    const expected = expectedScalar(schema);
    if (expected !== undefined) return `${path || 'arguments'}: expected ${expected.what}, got the string ${clip(JSON.stringify(value), 60)} (${expected.read}).`;
  }
  // A near miss of an enumerated value (a timezone's case, a typo in an order field): name what was probably meant.
  if (issue.code === 'invalid_value' && typeof value === 'string') {
    const near = didYouMean(value, issue.values.filter((v): v is string => typeof v === 'string'));
    if (near) return `${clip(`${path ? `${path}: ` : ''}${issue.message}`, 300)}. ${near}`;
  }
  return clip(`${path ? `${path}: ` : ''}${issue.message}`, 300);
}

/** " Did you mean "limit"?" for unknown fields a few typos from the ones the object takes; else the empty string. */
function nearFields(keys: readonly string[], schema: z.ZodType | undefined): string {
  const shape = schema === undefined ? undefined : defOf(base(schema)).shape;
  if (shape === undefined) return '';
  const fields = Object.keys(shape);
  const hints = keys.slice(0, 5).flatMap((key) => {
    const [near] = nearest(key, fields, 1);
    return near === undefined ? [] : [[key, near] as const];
  });
  if (hints.length === 0) return '';
  if (keys.length === 1) return ` Did you mean "${hints[0]![1]}"?`;
  return ` Did you mean ${hints.map(([key, near]) => `"${near}" for ${JSON.stringify(clip(key, 60))}`).join(', ')}?`;
}
