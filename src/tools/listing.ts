import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { AnyToolDefinition, SchemaOptions, ToolAnnotations } from './define.js';
import { compactListing } from './listing-compact.js';
import { portableInput, portableOutput } from './listing-portable.js';

/** A tools/list entry: what a client, and through it the model, reads about a tool. */
export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
  _meta?: Record<string, unknown>;
}

export type JsonSchema = { [key: string]: unknown };

/**
 * The tools/list entries, from the tools' own zod schemas through zod's JSON Schema converter,
 * then made lean (see lean()) and portable (see portableInput()). The model pays for every byte of
 * this at every conversation.
 */
export function buildListing(tools: readonly AnyToolDefinition[], options: SchemaOptions): ToolListing[] {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: portableInput(lean(z.toJSONSchema(tool.inputSchema(options), { target: 'draft-7', io: 'input', override: advertised }))),
    outputSchema: portableOutput(lean(z.toJSONSchema(tool.outputSchema, { target: 'draft-7', io: 'output' }))),
    annotations: tool.annotations,
    ...(tool._meta ? { _meta: tool._meta } : {}),
  }));
}

/** Schemas the listing shows narrower than the server accepts them (see advertiseAs). */
const ADVERTISED = new WeakMap<z.ZodType, z.ZodType>();

/**
 * Lists `schema` as `shown`, keeping its description: for a form the server still takes but a
 * model should not write (one PostHog no longer requires), whose bytes every conversation pays.
 * The server validates with `schema` either way.
 */
export function advertiseAs<T extends z.ZodType>(schema: T, shown: z.ZodType): T {
  ADVERTISED.set(schema, shown);
  return schema;
}

function advertised(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const shown = ADVERTISED.get(ctx.zodSchema as z.ZodType);
  if (!shown) return;
  const { description } = ctx.jsonSchema;
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, z.toJSONSchema(shown, { target: 'draft-7', io: 'input' }), description === undefined ? {} : { description });
}

/**
 * The listing for every tool, built when `npm run build` runs (listing-build.ts), in the forms
 * the configuration and the client can ask for: without a default project, and with one (its id
 * written as this placeholder); each in full and compact (listing-compact.ts). Converting the
 * schemas costs more than anything else a server does before its first answer, and a client asks
 * for the list at every launch.
 */
export const PREBUILT_FILE = 'listing.json';
export const DEFAULT_PROJECT_PLACEHOLDER = '{{POSTHOG_PROJECT_ID}}';

/** The same tools, advertised with every schema whole (full) or each input schema under 5,000 bytes (compact). */
export interface Listings {
  full: ToolListing[];
  compact: ToolListing[];
}

export interface Prebuilt {
  plain: Listings;
  pinned: Listings;
}

export function buildListings(tools: readonly AnyToolDefinition[], options: SchemaOptions): Listings {
  const full = buildListing(tools, options);
  return { full, compact: compactListing(full) };
}

export function prebuild(tools: readonly AnyToolDefinition[]): Prebuilt {
  return { plain: buildListings(tools, {}), pinned: buildListings(tools, { defaultProjectId: DEFAULT_PROJECT_PLACEHOLDER }) };
}

/**
 * The listings for these tools and options: from the file the build wrote next to this module
 * when it is there, reads as JSON and matches these tools (names, titles and descriptions: a file
 * left over from an older build is not served), else converted now (tests run from source).
 */
export async function loadListing(tools: readonly AnyToolDefinition[], options: SchemaOptions): Promise<Listings> {
  const id = options.defaultProjectId;
  let prebuilt: Prebuilt;
  try {
    const text = await readFile(new URL(PREBUILT_FILE, import.meta.url), 'utf8');
    prebuilt = JSON.parse(id === undefined ? text : text.replaceAll(DEFAULT_PROJECT_PLACEHOLDER, JSON.stringify(id).slice(1, -1))) as Prebuilt;
  } catch {
    return buildListings(tools, options);
  }
  const listed = id === undefined ? prebuilt.plain : prebuilt.pinned;
  const full = pick(tools, listed?.full);
  const compact = pick(tools, listed?.compact);
  return full && compact ? { full, compact } : buildListings(tools, options);
}

/** These tools' entries of a prebuilt listing, in their order; undefined unless every one is there and current. */
function pick(tools: readonly AnyToolDefinition[], listed: unknown): ToolListing[] | undefined {
  const byName = new Map((Array.isArray(listed) ? (listed as ToolListing[]) : []).map((entry) => [entry.name, entry]));
  const entries = tools.map((tool) => byName.get(tool.name));
  const current = entries.every((entry, i) => entry !== undefined && entry.title === tools[i]!.title && entry.description === tools[i]!.description && JSON.stringify(entry._meta) === JSON.stringify(tools[i]!._meta));
  return current ? (entries as ToolListing[]) : undefined;
}

/** zod's `int()` bounds: true of every JSON number a client sends, so they say nothing. */
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;
/** Where child schemas live; under any other key (enum, default, examples…) is data, left as it is. */
const SCHEMA_KEYS = new Set(['items', 'additionalProperties', 'anyOf', 'oneOf', 'allOf', 'not']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

/**
 * The same constraints in fewer bytes. Every rule keeps the set of accepted values unchanged:
 * - no `$schema` (clients know MCP's dialect), no `additionalProperties: {}` (the default), no
 *   `propertyNames: {type: string}` (JSON keys are strings), no ±2^53-1 bounds on integers.
 * Unions stay `anyOf` branches of one type each: folding them into a type list would be smaller,
 * but hosts that map schemas onto a one-type dialect reject type lists (see portableInput()).
 */
export function lean(schema: unknown): JsonSchema {
  return leanNode(schema) as JsonSchema;
}

function leanNode(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(leanNode);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node as JsonSchema)) {
    if (key === '$schema') continue;
    if (key === 'additionalProperties' && isEmptyObject(value)) continue;
    if (key === 'propertyNames' && isPlainStringType(value)) continue;
    if ((key === 'minimum' && value === -SAFE_INTEGER) || (key === 'maximum' && value === SAFE_INTEGER)) continue;
    out[key] = SCHEMA_MAPS.has(key) ? mapValues(value, leanNode) : SCHEMA_KEYS.has(key) ? leanNode(value) : value;
  }
  return out;
}

function mapValues(value: unknown, fn: (v: unknown) => unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value as JsonSchema).map(([k, v]) => [k, fn(v)]));
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

function isPlainStringType(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 1 && (value as JsonSchema).type === 'string';
}
