/**
 * What three kinds of host do with a tool's JSON Schema, written from their published rules, so
 * a test can run them on the tools/list the server really serves (every tool, whoever adds it).
 * Each returns findings (path: problem); an empty list means the schema converts cleanly.
 */

type Schema = { [key: string]: unknown };

const isRecord = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Calls fn on every schema in the tree with its path. */
export function eachSchema(schema: unknown, fn: (node: Schema, path: string) => void, path = ''): void {
  if (!isRecord(schema)) return;
  fn(schema, path || '(root)');
  for (const key of ['properties', 'patternProperties', '$defs', 'definitions']) {
    if (isRecord(schema[key])) for (const [k, v] of Object.entries(schema[key])) eachSchema(v, fn, `${path}.${key}.${k}`);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    if (Array.isArray(schema[key])) (schema[key] as unknown[]).forEach((v, i) => eachSchema(v, fn, `${path}.${key}[${i}]`));
  }
  for (const key of ['items', 'additionalProperties', 'not', 'contains', 'propertyNames']) eachSchema(schema[key], fn, `${path}.${key}`);
}

// ---------------------------------------------------------------------------------------------
// MCP Inspector 2.x `--strict` schema-portability lint: a `type` list is a warning, and so is a
// schema that carries no validation keyword (the object spelling of `true`); a bare boolean
// schema is an error, as is a `$ref` outside the document.

const CONSTRAINING = new Set([
  'type', 'enum', 'const', 'properties', 'patternProperties', 'additionalProperties', 'required', 'items', 'prefixItems', 'contains',
  'anyOf', 'oneOf', 'allOf', 'not', '$ref', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength',
  'maxLength', 'pattern', 'format', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'propertyNames',
  'dependentRequired', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'if',
]);

export function inspectorStrictFindings(schema: Schema): string[] {
  const findings: string[] = [];
  eachSchema(schema, (node, path) => {
    if (Array.isArray(node.type)) findings.push(`${path}: type list ${JSON.stringify(node.type)}`);
    if (!Object.keys(node).some((k) => CONSTRAINING.has(k))) findings.push(`${path}: schema with no validation keyword`);
    if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) findings.push(`${path}: remote $ref`);
    for (const key of ['items', 'additionalProperties', 'not']) if (typeof node[key] === 'boolean' && key !== 'additionalProperties') findings.push(`${path}.${key}: boolean schema`);
  });
  return findings;
}

// ---------------------------------------------------------------------------------------------
// OpenAI strict mode, as the Agents SDK converts an MCP tool's inputSchema
// (agents/strict_schema.py ensure_strict_json_schema): every object gets additionalProperties
// false (an object allowing extra members is an error: the tool would fall back to non-strict),
// every property becomes required. Then the API's documented subset for strict schemas: root an
// object (not anyOf); keywords: string pattern and format (a fixed list), number bounds and
// multipleOf, array minItems/maxItems, anyOf, enum/const; at most 10 levels of nested objects,
// 5000 properties, 1000 enum values, and a string enum of over 250 values at most 15,000
// characters in all.

export function toOpenAiStrict(schema: Schema): { schema: Schema; findings: string[] } {
  const findings: string[] = [];
  const copy = structuredClone(schema);
  const strict = (node: Schema, path: string): void => {
    if (node.type === 'object') {
      if (!('additionalProperties' in node)) node.additionalProperties = false;
      else if (node.additionalProperties !== false) findings.push(`${path}: object allows additional properties (the Agents SDK falls back to non-strict)`);
    }
    if (isRecord(node.properties)) node.required = Object.keys(node.properties);
    if (node.default === null) delete node.default;
  };
  eachSchema(copy, strict);
  return { schema: copy, findings };
}

const OPENAI_KEYWORDS = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'anyOf', 'enum', 'const', 'description', 'title', 'default', '$defs', '$ref',
  'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems',
]);
const OPENAI_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

export function openAiStrictFindings(original: Schema): string[] {
  const { schema, findings } = toOpenAiStrict(original);
  if (schema.type !== 'object' || 'anyOf' in schema) findings.push('(root): must be an object schema, not anyOf');
  let properties = 0;
  let enumValues = 0;
  const depthOf = (path: string) => (path.match(/\.properties\./g) ?? []).length;
  eachSchema(schema, (node, path) => {
    for (const key of Object.keys(node)) if (!OPENAI_KEYWORDS.has(key)) findings.push(`${path}: keyword "${key}" is not supported in strict mode`);
    if (Array.isArray(node.type)) for (const t of node.type) if (typeof t !== 'string') findings.push(`${path}: bad type`);
    if (typeof node.format === 'string' && !OPENAI_FORMATS.has(node.format)) findings.push(`${path}: format "${node.format}" is not supported`);
    if (node.type === 'object' && node.additionalProperties !== false) findings.push(`${path}: additionalProperties must be false`);
    if (isRecord(node.properties)) {
      properties += Object.keys(node.properties).length;
      const required = new Set(node.required as string[]);
      for (const key of Object.keys(node.properties)) if (!required.has(key)) findings.push(`${path}: property "${key}" is not required`);
    }
    if (depthOf(path) > 10) findings.push(`${path}: more than 10 levels of nested objects`);
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length;
      if (node.enum.length > 250 && node.enum.join('').length > 15_000) findings.push(`${path}: an enum of over 250 values longer than 15,000 characters`);
    }
  });
  if (properties > 5000) findings.push(`(root): ${properties} properties, over 5000`);
  if (enumValues > 1000) findings.push(`(root): ${enumValues} enum values, over 1000`);
  // Optional in the original means the model may leave it out: in strict mode it can only send null.
  const nullableOptional = (orig: Schema, converted: Schema, path: string): void => {
    if (!isRecord(orig.properties) || !isRecord(converted.properties)) return;
    const required = new Set(Array.isArray(orig.required) ? (orig.required as string[]) : []);
    for (const [key, sub] of Object.entries(orig.properties)) {
      const convertedSub = (converted.properties as Schema)[key] as Schema;
      if (!required.has(key) && !admitsNull(convertedSub)) findings.push(`${path}.${key}: optional but not nullable, so a strict model must invent a value`);
      if (isRecord(sub)) nullableOptional(sub, convertedSub, `${path}.${key}`);
    }
  };
  nullableOptional(original, schema, '(root)');
  return findings;
}

function admitsNull(node: Schema): boolean {
  if (node.type === 'null' || (Array.isArray(node.type) && node.type.includes('null'))) return true;
  return Array.isArray(node.anyOf) && (node.anyOf as Schema[]).some(admitsNull);
}

// ---------------------------------------------------------------------------------------------
// Gemini function declarations: `parameters` is a subset of the OpenAPI 3.0 Schema object
// (ai.google.dev API reference, Schema): one `type` of STRING, NUMBER, INTEGER, BOOLEAN, ARRAY,
// OBJECT; `nullable` rather than a null type; format for strings only "enum" and "date-time"
// (numbers float/double, integers int32/int64); enum of strings; an object needs properties.
// Hosts map `anyOf: [T, {type: "null"}]` onto `T` + `nullable: true`, and drop
// additionalProperties, which the Schema object does not have (Google's Python SDK crashes on it:
// python-genai #2393); we keep it because OpenAI strict mode needs it.

const GEMINI_KEYWORDS = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required', 'minProperties', 'maxProperties',
  'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering', 'default', 'items', 'minimum', 'maximum',
]);
const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const GEMINI_FORMATS: Record<string, string[]> = { string: ['enum', 'date-time'], number: ['float', 'double'], integer: ['int32', 'int64'] };

export function toGemini(schema: Schema): Schema {
  const convert = (node: unknown): unknown => {
    if (!isRecord(node)) return node;
    let out: Schema = { ...node };
    if (Array.isArray(out.anyOf)) {
      const branches = out.anyOf as Schema[];
      const nonNull = branches.filter((b) => b.type !== 'null');
      if (nonNull.length < branches.length) {
        const { anyOf: _, ...rest } = out;
        out = nonNull.length === 1 ? { ...rest, ...nonNull[0], nullable: true } : { ...rest, anyOf: nonNull, nullable: true };
      }
    }
    // After the merge above: a nullable object's own additionalProperties is dropped too.
    delete out.additionalProperties;
    if (isRecord(out.properties)) out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, convert(v)]));
    if (out.items !== undefined) out.items = convert(out.items);
    if (Array.isArray(out.anyOf)) out.anyOf = (out.anyOf as unknown[]).map(convert);
    return out;
  };
  return convert(schema) as Schema;
}

export function geminiFindings(original: Schema): string[] {
  const findings: string[] = [];
  eachSchema(toGemini(original), (node, path) => {
    for (const key of Object.keys(node)) if (!GEMINI_KEYWORDS.has(key)) findings.push(`${path}: keyword "${key}" is not in Gemini's Schema`);
    if ('anyOf' in node) {
      if ('type' in node) findings.push(`${path}: type beside anyOf`);
    } else if (typeof node.type !== 'string' || !GEMINI_TYPES.has(node.type)) {
      findings.push(`${path}: type ${JSON.stringify(node.type)} is not one Gemini type`);
    }
    if (node.format !== undefined && !(GEMINI_FORMATS[node.type as string] ?? []).includes(node.format as string)) findings.push(`${path}: format "${String(node.format)}" on ${String(node.type)}`);
    if (node.enum !== undefined && (node.type !== 'string' || !(node.enum as unknown[]).every((v) => typeof v === 'string'))) findings.push(`${path}: enum of non-strings`);
    if (node.type === 'object' && path !== '(root)' && (!isRecord(node.properties) || Object.keys(node.properties).length === 0)) findings.push(`${path}: object without properties`);
  });
  return findings;
}
