/**
 * What a model is shown of a tools/list result: names, titles, descriptions, input schemas and
 * annotations. Clients keep each tool's outputSchema (to validate structuredContent) and _meta (to
 * render a view) and do not hand them to the model (issue 39), so neither counts toward what every
 * conversation pays. Shared by the tool list's budget test and bench/agent-path.mjs.
 */
export function shownToModel<T extends { tools: ReadonlyArray<{ outputSchema?: unknown; _meta?: unknown }> }>(result: T): T {
  return { ...result, tools: result.tools.map(({ outputSchema: _o, _meta: _m, ...shown }) => shown) };
}

/** The bytes of shownToModel(result) as compact JSON (UTF-8). */
export function shownBytes(result: { tools: ReadonlyArray<{ outputSchema?: unknown; _meta?: unknown }> }): number {
  return Buffer.byteLength(JSON.stringify(shownToModel(result)));
}
