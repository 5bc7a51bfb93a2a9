import type { JsonSchema, ToolListing } from './listing.js';

/**
 * Some hosts shrink an input schema larger than this (minified JSON, bytes) before their model
 * sees it, dropping descriptions first and then whole nested structures (Codex: docs/mcp-features.md).
 * The compact listing keeps every input schema under it, so nothing is dropped blindly.
 */
export const COMPACT_LIMIT_BYTES = 5_000;

/** An enum this long is a list of names (the timezones), not a choice a model reads: listed as its type. */
const LONG_ENUM = 50;

/**
 * The listing for hosts that shrink large schemas (MCP_TOOL_SCHEMAS=compact, or Codex under
 * auto): the same tools, every input schema under COMPACT_LIMIT_BYTES. The server validates the
 * same way in both modes (server.ts applies the tools' own zod schemas), so only what is
 * advertised changes, in steps, each taken only while a schema is still too large:
 * 1. (every schema) a long enum is advertised as its type, the field's description naming the
 *    form (a timezone: an IANA name);
 * 2. an object below the top level is advertised as `{type: "object"}` with a one-line shape
 *    (`{id: integer, key: string, variant?: string}`) as its description;
 * 3. the longest descriptions, one at a time, lose their example, else all but their first clause.
 * Optional fields keep their null branch (strict-mode hosts need it).
 */
export function compactListing(listing: readonly ToolListing[]): ToolListing[] {
  return listing.map((tool) => ({ ...tool, inputSchema: compactInput(tool.inputSchema) }));
}

export function compactInput(schema: JsonSchema): JsonSchema {
  let out = map(schema, withoutLongEnum);
  if (size(out) >= COMPACT_LIMIT_BYTES) out = flattenNested(out);
  while (size(out) >= COMPACT_LIMIT_BYTES) {
    const longest = longestCuttable(out);
    if (longest === undefined) break;
    out = map(out, (node) => (node.description === longest ? { ...node, description: shorter(longest)! } : node));
  }
  return out;
}

export const size = (schema: unknown): number => Buffer.byteLength(JSON.stringify(schema));

function withoutLongEnum(node: JsonSchema): JsonSchema {
  if (!Array.isArray(node.enum) || node.enum.length < LONG_ENUM) return node;
  const { enum: _, ...rest } = node;
  return rest;
}

/** The top-level object's fields keep their structure; objects inside them become one line each. */
function flattenNested(schema: JsonSchema): JsonSchema {
  if (!isRecord(schema.properties)) return schema;
  const properties = Object.fromEntries(Object.entries(schema.properties).map(([key, field]) => [key, map(field, (node) => (isObjectSchema(node) ? shapeLine(node) : node), true)]));
  return { ...schema, properties };
}

function isObjectSchema(node: JsonSchema): boolean {
  return node.type === 'object' && isRecord(node.properties) && Object.keys(node.properties).length > 0;
}

/** `{type: object, properties…}` → `{type: object, description: "{a: string, b?: integer}"}`. */
function shapeLine(node: JsonSchema): JsonSchema {
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const fields = Object.entries(node.properties as JsonSchema).map(([key, field]) => `${key}${required.has(key) ? '' : '?'}: ${typeName(field as JsonSchema)}`);
  const shape = `{${fields.join(', ')}}`;
  return { type: 'object', description: typeof node.description === 'string' ? `${node.description} ${shape}` : shape };
}

function typeName(field: JsonSchema): string {
  if (typeof field.type === 'string') return field.type;
  const branches = Array.isArray(field.anyOf) ? (field.anyOf as JsonSchema[]).filter((b) => b.type !== 'null') : [];
  return branches.map((b) => (typeof b.type === 'string' ? b.type : 'value')).join(' | ') || 'value';
}

/**
 * A description without its example, else its first clause; undefined when there is nothing to
 * cut: "Internal users, e.g. […]. JSON text." → "Internal users. JSON text.";
 * "Kept this long; plan may cap it." → "Kept this long."
 */
export function shorter(description: string): string | undefined {
  const withoutExample = description.replace(/,? e\.g\. .*?(?=\.(\s|$))/, '');
  if (withoutExample !== description && withoutExample.length > 1) return /^\./.test(withoutExample) ? undefined : withoutExample;
  const at = description.search(/(; |\. (?=[A-Z"[{]))/);
  if (at <= 0) return undefined;
  return `${description.slice(0, at).replace(/[.,;]$/, '')}.`;
}

function longestCuttable(schema: JsonSchema): string | undefined {
  let longest: string | undefined;
  map(schema, (node) => {
    const d = node.description;
    if (typeof d === 'string' && shorter(d) !== undefined && (longest === undefined || d.length > longest.length)) longest = d;
    return node;
  });
  return longest;
}

const CHILD_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'];
const CHILD_LISTS = ['anyOf', 'oneOf', 'allOf'];
const CHILDREN = ['items', 'additionalProperties', 'not', 'contains'];

/**
 * Applies fn to every schema in the tree, children first; with `topDown`, parents first, and a
 * node fn changed is not entered (its children are gone or already in its new form).
 */
function map(node: unknown, fn: (node: JsonSchema) => JsonSchema, topDown = false): JsonSchema {
  if (!isRecord(node)) return node as JsonSchema;
  if (topDown) {
    const changed = fn(node);
    if (changed !== node) return changed;
  }
  const out: JsonSchema = { ...node };
  for (const key of CHILD_MAPS) if (isRecord(out[key])) out[key] = Object.fromEntries(Object.entries(out[key]).map(([k, v]) => [k, map(v, fn, topDown)]));
  for (const key of CHILD_LISTS) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((v) => map(v, fn, topDown));
  for (const key of CHILDREN) if (isRecord(out[key])) out[key] = map(out[key], fn, topDown);
  return topDown ? out : fn(out);
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
