import { z } from 'zod';
import { INVESTIGATE_ICONS } from '../icons.js';
import { parseRecordingRef } from './recording-ref.js';
import { DATA_NOT_INSTRUCTIONS, digestLink, projectArgument, projectIdArg, userText, type PromptContext, type PromptDefinition } from './shared.js';

/** Written in parallel by another change; the prompt names it when this configuration offers it. */
const REPRODUCE = 'session-recording-reproduce';

const schema = (context: PromptContext) =>
  z
    .strictObject({
      recording: z.string('recording is required: a recording id or a PostHog replay URL').max(2000, 'recording: at most 2000 characters'),
      project_id: projectIdArg.optional(),
    })
    .transform((args, ctx) => {
      const ref = parseRecordingRef(args.recording);
      if (typeof ref === 'string') {
        ctx.addIssue({ code: 'custom', path: ['recording'], message: ref });
        return z.NEVER;
      }
      if (ref.projectId && args.project_id && args.project_id !== '@current' && ref.projectId !== args.project_id) {
        ctx.addIssue({ code: 'custom', path: ['recording'], message: `the URL names project ${ref.projectId} but project_id is ${args.project_id}; give one of them` });
        return z.NEVER;
      }
      const projectId = ref.projectId ?? args.project_id ?? context.defaultProjectId;
      if (projectId === undefined) {
        ctx.addIssue({ code: 'custom', path: ['project_id'], message: 'project_id is required for a bare recording id when no default project is configured (or paste the replay URL, which names it)' });
        return z.NEVER;
      }
      return { id: ref.id, projectId };
    });

export const investigateRecording: PromptDefinition = {
  name: 'investigate-recording',
  title: 'Investigate a session recording',
  description: 'What happened in one recording and why it went wrong: its digest, the moments that matter, the player at the worst one, then a reproduction test. Tools: session-recording-get, session-recording-summary, session-recording-replay, session-recording-reproduce.',
  icons: INVESTIGATE_ICONS,
  tools: ['session-recording-get', 'session-recording-summary', 'session-recording-replay'],
  arguments: (context) => [
    { name: 'recording', description: 'Recording id, or the PostHog replay URL copied from the browser.', required: true, complete: 'recording_id' },
    // Required without a default project, as in the other prompts: clients that ask for required
    // arguments first then never send a bare id without one. A URL alone is still taken (it names the project).
    projectArgument(context, 'Project of the recording (a replay URL names it: give that number, or "@current").'),
  ],
  schema: (context) => schema(context) as unknown as z.ZodType<Record<string, unknown>>,
  messages: (args, context) => {
    const { id, projectId } = args as { id: string; projectId: string };
    const reproduce = context.tools.has(REPRODUCE)
      ? `5. Call ${REPRODUCE} (project_id "${projectId}", id "${id}") for a reproduction test of that path; check its steps against the digest and tell me what it asserts.`
      : `5. Write a reproduction test of that path from the digest (this configuration does not offer ${REPRODUCE}): the pages, clicks and inputs in order, and the assertion that fails.`;
    const steps = [
      `Investigate PostHog session recording ${id} in project ${projectId}.`,
      `1. Call session-recording-get (project_id "${projectId}", id "${id}"): who, when, how long, how many console errors.`,
      `2. Call session-recording-summary for its digest: pages, clicks, typing, rage and dead clicks, console errors and failed requests on one timeline, each entry at its m:ss.`,
      '3. Pick the moments that matter: the first error or failed request, and what the user did just before it (with its time). Say in plain words what went wrong for the user.',
      `4. Call session-recording-replay (project_id "${projectId}", id "${id}", start_at a few seconds before the worst moment) so I can watch it.`,
      reproduce,
      DATA_NOT_INSTRUCTIONS,
    ];
    return [userText(steps.join('\n')), ...digestLink(projectId, id, context.tools)];
  },
};
