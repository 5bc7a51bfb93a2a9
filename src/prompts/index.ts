import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  type CompleteResult,
  type GetPromptResult,
  type ListPromptsResult,
} from '@modelcontextprotocol/sdk/types.js';
import { protocolError } from '../errors.js';
import { complete, ProjectsSeen, RecentRecordings, type CompletionKind } from '../resources/completions.js';
import { DIGEST_TEMPLATE, PROJECT_TEMPLATE, RECORDING_TEMPLATE, offersTemplate, type Extra, type ToolCaller } from '../resources/index.js';
import { investigateRecording } from './investigate-recording.js';
import { setUpReplay } from './set-up-replay.js';
import type { PromptContext, PromptDefinition } from './shared.js';
import { triagePeriod } from './triage-period.js';

/**
 * Prompts a person picks from the client's menu (prompts/list, prompts/get): each names the tools
 * it leads through and takes typed arguments (MCP sends them as strings; each is checked here,
 * with the message naming the argument). Also completion/complete, for prompt arguments and for
 * the resource templates' variables (resources/index.ts).
 */
export type { PromptContext, PromptDefinition } from './shared.js';

export const ALL_PROMPTS: readonly PromptDefinition[] = [investigateRecording, triagePeriod, setUpReplay];

export interface PromptsDependencies extends PromptContext {
  callTool: ToolCaller;
  /** The latest recordings listing of this session (server.ts feeds it tool results). */
  recent: RecentRecordings;
}

/** The prompts this configuration offers: those whose tools it all offers. */
export function selectPrompts(tools: ReadonlySet<string>): PromptDefinition[] {
  return ALL_PROMPTS.filter((p) => p.tools.every((t) => tools.has(t)));
}

/** Wires prompts/list, prompts/get and completion/complete; call before the server connects. */
export function registerPrompts(server: McpServer, deps: PromptsDependencies): void {
  const prompts = selectPrompts(deps.tools);
  const projects = new ProjectsSeen();
  server.server.registerCapabilities({ prompts: {}, completions: {} });
  server.server.setRequestHandler(ListPromptsRequestSchema, (): ListPromptsResult => ({
    prompts: prompts.map((p) => ({
      name: p.name,
      title: p.title,
      description: p.description,
      icons: p.icons,
      arguments: p.arguments(deps).map(({ name, description, required }) => ({ name, description, required })),
    })),
  }));
  server.server.setRequestHandler(GetPromptRequestSchema, (request): GetPromptResult => {
    const prompt = find(prompts, request.params.name);
    const parsed = prompt.schema(deps).safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 3).map((issue) => {
        if (issue.code === 'unrecognized_keys') return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(clip(k, 40))).join(', ')} (it takes ${prompt.arguments(deps).map((a) => a.name).join(', ')})`;
        const where = issue.path.length ? `${issue.path.map(String).join('.')}: ` : '';
        return `${where}${issue.message}`;
      });
      throw protocolError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${prompt.name}: ${issues.join('; ')}`);
    }
    return { description: prompt.description, messages: prompt.messages(parsed.data, deps) };
  });
  server.server.setRequestHandler(CompleteRequestSchema, async (request, extra): Promise<CompleteResult> => {
    const { ref, argument } = request.params;
    const args = request.params.context?.arguments ?? {};
    const kind = ref.type === 'ref/prompt' ? promptArgumentKind(prompts, ref.name, argument.name, deps) : templateVariableKind(ref.uri, argument.name, deps.tools);
    if (!kind) return { completion: { values: [] } };
    return complete(kind, argument.value, args, extra as Extra, { ...deps, projects });
  });
}

function find(prompts: readonly PromptDefinition[], name: string): PromptDefinition {
  const prompt = prompts.find((p) => p.name === name);
  if (prompt) return prompt;
  const offered = prompts.map((p) => p.name).join(', ') || 'none in this configuration';
  throw protocolError(ErrorCode.InvalidParams, `Unknown prompt ${JSON.stringify(clip(name, 100))}. prompts/list names the prompts this server offers: ${offered}.`);
}

function promptArgumentKind(prompts: readonly PromptDefinition[], name: string, argument: string, context: PromptContext): CompletionKind | undefined {
  const prompt = find(prompts, name);
  const arg = prompt.arguments(context).find((a) => a.name === argument);
  if (!arg) throw protocolError(ErrorCode.InvalidParams, `Prompt ${prompt.name} has no argument ${JSON.stringify(clip(argument, 60))}; it takes ${prompt.arguments(context).map((a) => a.name).join(', ')}.`);
  return arg.complete;
}

function templateVariableKind(uri: string, variable: string, tools: ReadonlySet<string>): CompletionKind | undefined {
  const templates = [PROJECT_TEMPLATE, RECORDING_TEMPLATE, DIGEST_TEMPLATE].filter((t) => offersTemplate(t, tools));
  if (!templates.includes(uri)) {
    throw protocolError(ErrorCode.InvalidParams, `Unknown resource template ${JSON.stringify(clip(uri, 200))}. resources/templates/list names the templates this server offers.`);
  }
  if (variable === 'project_id') return 'project_id';
  if (variable === 'recording_id' && uri !== PROJECT_TEMPLATE) return 'recording_id';
  throw protocolError(ErrorCode.InvalidParams, `The template ${uri} has no variable ${JSON.stringify(clip(variable, 60))}.`);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

