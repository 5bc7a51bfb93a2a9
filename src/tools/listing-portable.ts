import type { JsonSchema } from './listing.js';

/**
 * Tool schemas that every host can take as they are. Hosts translate MCP's JSON Schema into their
 * own function-calling dialects, and the strictest ones reject what plain JSON Schema allows:
 *
 * - MCP Inspector `--strict` (a portability lint): no `type` lists, no schema without a keyword.
 * - OpenAI strict mode (how the Agents SDK converts MCP tools): every property becomes required
 *   and every object `additionalProperties: false`, so an optional field must admit `null` or the
 *   model has to invent a value for it; an object with free-form members cannot be expressed;
 *   only documented keywords (string `pattern`/`format`, number bounds, array `minItems`/`maxItems`).
 * - Gemini function declarations (a subset of OpenAPI 3.0): one type per schema, `nullable`
 *   instead of a `null` type (hosts map `anyOf: [T, {type: null}]` onto it), string `format` only
 *   `enum`/`date-time`, no `const`, no `exclusiveMinimum`, no object without properties.
 *
 * The server accepts everything advertised here and more (server.ts prepares arguments with
 * tools/input.ts): `null` for any optional field, JSON text where a free-form value is expected,
 * project ids as numbers. Constraints dropped from the listing (string lengths, array counts: bytes
 * every conversation pays for limits a model rarely meets) are still enforced, with a clear message. Every rule keeps JSON Schema semantics or loosens them; none tightens.
 */
export function portableInput(schema: JsonSchema): JsonSchema {
  return walk(schema, inputNode) as JsonSchema;
}

/**
 * Output schemas are what clients validate structuredContent against (the SDK's Client does, with
 * every result); models are not shown them. So they are advertised whole: PostHog's resources with
 * their fields and JSON types (posthog/resources.ts), and what each tool adds. Made portable the
 * way a strict lint wants (one type per schema, no schema without a keyword), and never tighter
 * than the server's own check (server.ts): an object refuses no field it does not name, since
 * PostHog adds fields over time (docs/design.md, "Tools").
 */
export function portableOutput(schema: JsonSchema): JsonSchema {
  return walk(schema, outputNode) as JsonSchema;
}

/** Any JSON value, spelled with a keyword (the MCP Inspector's --strict lint flags a schema with none). */
const ANY_JSON = ['object', 'array', 'string', 'number', 'boolean', 'null'].map((type) => ({ type }));

function outputNode(node: JsonSchema): JsonSchema {
  const out = splitTypeList(node);
  if (out.additionalProperties === false) {
    const { additionalProperties: _, ...rest } = out;
    return rest;
  }
  return constrainsNothing(out) ? { ...out, anyOf: ANY_JSON } : out;
}

/** Annotations describe the value as a whole: they stay on the wrapper when a schema is split. */
const ANNOTATIONS = ['title', 'description', 'default', 'examples'];

/** Which keywords apply to values of which JSON type, to split `type: [a, b]` into single-type branches. */
const TYPE_KEYWORDS: Record<string, string[]> = {
  string: ['pattern', 'minLength', 'maxLength', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems', 'contains'],
  object: ['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties'],
  boolean: [],
  null: [],
};

/** Hosts without free-form objects get the value as JSON text; the server parses it back (tools/input.ts). */
export const JSON_TEXT_NOTE = 'JSON text.';

function inputNode(node: JsonSchema): JsonSchema {
  let out = withoutRepeats(splitTypeList(node));
  if (isFreeForm(out)) return jsonText(out);
  // A list of free-form values is one JSON text, not a list of them.
  if (out.type === 'array' && isRecord(out.items) && JSON_TEXTS.has(out.items)) return jsonText(out);
  out = { ...out };
  if (out.format !== undefined && !(out.type === 'string' && out.format === 'date-time')) delete out.format;
  delete out.minLength;
  delete out.maxLength;
  delete out.minItems;
  delete out.maxItems;
  if (out.type === 'integer') {
    if (typeof out.exclusiveMinimum === 'number') {
      out.minimum = Math.max(Math.floor(out.exclusiveMinimum) + 1, typeof out.minimum === 'number' ? out.minimum : -Infinity);
      delete out.exclusiveMinimum;
    }
    if (typeof out.exclusiveMaximum === 'number') {
      out.maximum = Math.min(Math.ceil(out.exclusiveMaximum) - 1, typeof out.maximum === 'number' ? out.maximum : Infinity);
      delete out.exclusiveMaximum;
    }
  }
  if ('const' in out) {
    out.enum = [out.const];
    delete out.const;
  }
  if (isRecord(out.properties)) {
    const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([key, value]) => [key, required.has(key) ? value : nullable(value as JsonSchema)]));
  }
  return out;
}

/** `{type: [a, b], …}` → `{anyOf: [{type: a, …a's keywords}, {type: b, …}]}`, annotations kept outside. */
function splitTypeList(node: JsonSchema): JsonSchema {
  if (!Array.isArray(node.type)) return node;
  const types = node.type as string[];
  if (types.length === 1) return { ...node, type: types[0] };
  const wrapper: JsonSchema = {};
  const rest: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type') continue;
    (ANNOTATIONS.includes(key) ? wrapper : rest)[key] = value;
  }
  const branches = types.map((type) => {
    const branch: JsonSchema = { type };
    for (const key of TYPE_KEYWORDS[type] ?? []) if (key in rest) branch[key] = rest[key];
    return branch;
  });
  // Keywords of no listed type (enum, const…) constrain every branch: keep them beside the anyOf.
  const typed = new Set(types.flatMap((type) => TYPE_KEYWORDS[type] ?? []));
  for (const [key, value] of Object.entries(rest)) if (!typed.has(key)) wrapper[key] = value;
  return { ...wrapper, anyOf: branches };
}

/** `T` → `anyOf: [T, {type: null}]`: what OpenAI strict mode needs for an optional field, and Gemini hosts read as `nullable`. */
function nullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.anyOf)) {
    return (schema.anyOf as JsonSchema[]).some((b) => b.type === 'null') ? schema : { ...schema, anyOf: [...(schema.anyOf as JsonSchema[]), { type: 'null' }] };
  }
  const wrapper: JsonSchema = {};
  const inner: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) (ANNOTATIONS.includes(key) ? wrapper : inner)[key] = value;
  return { ...wrapper, anyOf: [inner, { type: 'null' }] };
}

/** Two union members that became the same schema (an array or an object, both JSON text) are listed once. */
function withoutRepeats(node: JsonSchema): JsonSchema {
  if (!Array.isArray(node.anyOf)) return node;
  const seen = new Set<string>();
  const anyOf = (node.anyOf as unknown[]).filter((branch) => {
    const key = JSON.stringify(branch);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (anyOf.length === node.anyOf.length) return node;
  if (anyOf.length > 1) return { ...node, anyOf };
  const { anyOf: _, ...rest } = node;
  const only = anyOf[0] as JsonSchema;
  return { ...only, ...rest, ...(typeof only.description === 'string' && typeof rest.description === 'string' ? { description: `${rest.description} ${only.description}` } : {}) };
}

/** An object with no declared members (or a schema with no keyword): no strict dialect can express it. */
function isFreeForm(node: JsonSchema): boolean {
  if (constrainsNothing(node)) return true;
  if (node.type !== 'object') return false;
  return !isRecord(node.properties) || Object.keys(node.properties).length === 0 ? node.additionalProperties !== false : false;
}

/** The schemas jsonText() made, to tell them from a list of plain strings. */
const JSON_TEXTS = new WeakSet<object>();

function jsonText(node: JsonSchema): JsonSchema {
  const description = typeof node.description === 'string' ? `${node.description} ${JSON_TEXT_NOTE}` : JSON_TEXT_NOTE;
  const schema = { type: 'string', description };
  JSON_TEXTS.add(schema);
  return schema;
}

function constrainsNothing(node: JsonSchema): boolean {
  return Object.keys(node).every((key) => ANNOTATIONS.includes(key));
}

const CHILD_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'];
const CHILD_LISTS = ['anyOf', 'oneOf', 'allOf'];
const CHILDREN = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames'];

/** Applies fn to every schema in the tree, children first. */
function walk(node: unknown, fn: (node: JsonSchema) => JsonSchema): unknown {
  if (!isRecord(node)) return node;
  const out: JsonSchema = { ...node };
  for (const key of CHILD_MAPS) if (isRecord(out[key])) out[key] = Object.fromEntries(Object.entries(out[key]).map(([k, v]) => [k, walk(v, fn)]));
  for (const key of CHILD_LISTS) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((v) => walk(v, fn));
  for (const key of CHILDREN) if (isRecord(out[key])) out[key] = walk(out[key], fn);
  return fn(out);
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
