import type { z } from 'zod';
import type { Toolset } from '../settings.js';
import type { UpstreamError } from '../errors.js';
import type { DigestCache } from '../cache/index.js';
import type { CallLimits } from '../call-limits.js';
import type { PostHogOperations } from '../posthog/operations/index.js';
import type { WatchLinker } from '../watch/links.js';

/** All four hints are required: read-only mode and the README's safety table are derived from them. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** Every tool reaches PostHog, an outside service. */
  openWorldHint: true;
}

/** What the input schemas may depend on: a configured default project makes project_id optional. */
export interface SchemaOptions {
  defaultProjectId?: string | undefined;
}

/**
 * The user's answer when a tool asked to confirm a destructive step. 'not-asked': nobody could be
 * asked (the client has no elicitation, the transport cannot carry the question, or confirmation
 * is turned off), so the tool goes ahead as it always did; 'failed': the question got no answer.
 */
export type Confirmation = 'confirmed' | 'declined' | 'cancelled' | 'not-asked' | 'failed';

export interface ToolContext {
  /** PostHog, through its operations (posthog/operations/): this call's requests, budget and key. */
  posthog: PostHogOperations;
  defaultProjectId: string | undefined;
  /** Aborted when the MCP client cancels the call. */
  signal: AbortSignal;
  /** Digests already made, by upstream, project and recording (consulted only after the caller's key read the recording's listing). */
  cache?: DigestCache | undefined;
  /**
   * The client declared MCP Apps (the io.modelcontextprotocol/ui extension): it shows a tool's view
   * with the result, so a tool with a view may answer sooner and let the view load the rest.
   */
  showsApps?: boolean | undefined;
  /** Reports progress to the MCP client, when it asked for it (a long read, a wait for a throttle). */
  progress?: ((message: string) => void) | undefined;
  /**
   * Asks the user (not the model) to confirm, naming exactly what will be deleted or changed. A
   * function message is called only when someone will be asked, so what it fetches costs nothing
   * otherwise. Use tools/confirm.ts's confirmOrStop rather than reading the answer by hand.
   */
  confirm: (message: string | (() => Promise<string>)) => Promise<Confirmation>;
  /**
   * A link that opens a recording's player in the user's browser, served by this server (src/watch/),
   * or why this server gives none; absent where the server was made without links (in-process use).
   */
  watch?: WatchLinker | undefined;
}

export interface ToolResult<Output> {
  /** Becomes structuredContent; validated by the client against outputSchema. */
  data: Output;
  /** A compact rendering for clients that ignore structured output. */
  text: string;
  /** The result's `_meta`: what a tool's view (MCP App) reads and the model does not see. */
  meta?: Record<string, unknown>;
}

export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject, Output extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  toolset: Toolset;
  annotations: ToolAnnotations;
  inputSchema: (options: SchemaOptions) => Input;
  outputSchema: Output;
  /**
   * The result holds strings the recorded site or its visitors wrote: the structured view gets
   * RECORDED_DATA_NOTICE as its first field, and the tool's text must say it too (tools/format.ts).
   */
  recordedData?: boolean;
  handler: (input: z.output<Input>, context: ToolContext) => Promise<ToolResult<z.input<Output>>>;
  /**
   * A tool-specific next step for an upstream error (e.g. which id was not found and which tool
   * lists valid ones). server.ts adds the generic advice for the status when this returns nothing.
   */
  explainError?: (error: UpstreamError, input: z.output<Input>, context: { defaultProjectId: string | undefined }) => string | undefined;
  /**
   * What one call of this tool may spend upstream, from the configured limits and the input: a
   * tool that reads many recordings (triage) needs more requests than one that reads one. The
   * wall clock and the throttle wait stay as configured.
   */
  callLimits?: (limits: CallLimits, input: z.output<Input>) => CallLimits;
  /**
   * Protocol metadata listed with the tool, as given: the MCP Apps extension's `ui` (the player
   * resource a host renders the result with, and who may call the tool).
   */
  _meta?: Record<string, unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolDefinition = ToolDefinition<any, any>;

/** Identity at run time; at compile time it ties the handler's types to the schemas. */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  return definition;
}
