import { z } from 'zod';
import { SETUP_ICONS } from '../icons.js';
import { RETENTION_PERIODS } from '../posthog/plan.js';
import { projectArgument, projectIdArg, userText, type PromptDefinition } from './shared.js';

const CAPTURE = ['off', 'headers', 'bodies', 'headers-and-bodies'] as const;
const YES_NO = ['yes', 'no'] as const;

/** The replay settings project-update takes, read and written in that order. */
const SETTINGS = [
  'session_recording_opt_in',
  'session_recording_sample_rate',
  'session_recording_minimum_duration_milliseconds',
  'session_recording_retention_period',
  'session_recording_linked_flag',
  'session_recording_network_payload_capture_config',
  'session_recording_masking_config',
  'session_replay_config',
];

export const setUpReplay: PromptDefinition = {
  name: 'set-up-replay',
  title: 'Set up session replay for a project',
  description: 'Turn recording on and choose how much is recorded, for how long it is kept and what is masked; every change is confirmed with you before it is written. Tools: project-get, project-update.',
  icons: SETUP_ICONS,
  tools: ['project-get', 'project-update'],
  arguments: (context) => [
    projectArgument(context, 'Project to set up.'),
    { name: 'sample_rate', description: 'Share of sessions to record, 0 to 1 with at most 2 decimals (0.5 = half).', required: false },
    { name: 'minimum_duration_ms', description: 'Drop recordings shorter than this, 0-30000 ms.', required: false },
    { name: 'retention_period', description: 'How long recordings are kept: 30d, 90d, 1y or 5y (the plan may cap it).', required: false, complete: { values: RETENTION_PERIODS } },
    { name: 'capture_network', description: 'Record network request headers and/or bodies: off, headers, bodies, headers-and-bodies.', required: false, complete: { values: CAPTURE } },
    { name: 'mask_all_inputs', description: 'Mask everything typed into inputs: yes or no.', required: false, complete: { values: YES_NO } },
  ],
  schema: (context) =>
    z.strictObject({
      project_id: (context.defaultProjectId === undefined ? projectIdArg : projectIdArg.default(context.defaultProjectId)).refine(
        (v) => v !== '@current',
        'the project\'s number, like "12345" (project-update takes a number)',
      ),
      sample_rate: z
        .string()
        .trim()
        .regex(/^(0(\.\d{1,2})?|1(\.0{1,2})?|\.\d{1,2})$/, 'a number from 0 to 1 with at most 2 decimals, like 0.5')
        .transform(Number)
        .optional(),
      minimum_duration_ms: z
        .string()
        .trim()
        .regex(/^\d{1,5}$/, 'whole milliseconds from 0 to 30000')
        .transform(Number)
        .pipe(z.number().max(30_000, 'at most 30000 ms (PostHog\'s limit)'))
        .optional(),
      retention_period: z.enum(RETENTION_PERIODS, 'one of 30d, 90d, 1y, 5y').optional(),
      capture_network: z.enum(CAPTURE, `one of ${CAPTURE.join(', ')}`).optional(),
      mask_all_inputs: z.enum(YES_NO, 'yes or no').optional(),
    }) as unknown as z.ZodType<Record<string, unknown>>,
  messages: (raw) => {
    const args = raw as { project_id: string; sample_rate?: number; minimum_duration_ms?: number; retention_period?: string; capture_network?: (typeof CAPTURE)[number]; mask_all_inputs?: 'yes' | 'no' };
    const wanted: string[] = ['session_recording_opt_in: true (recording on)'];
    if (args.sample_rate !== undefined) wanted.push(`session_recording_sample_rate: ${args.sample_rate} (${Math.round(args.sample_rate * 100)}% of sessions)`);
    if (args.minimum_duration_ms !== undefined) wanted.push(`session_recording_minimum_duration_milliseconds: ${args.minimum_duration_ms}`);
    if (args.retention_period) wanted.push(`session_recording_retention_period: "${args.retention_period}"`);
    if (args.capture_network) {
      const headers = args.capture_network === 'headers' || args.capture_network === 'headers-and-bodies';
      const bodies = args.capture_network === 'bodies' || args.capture_network === 'headers-and-bodies';
      wanted.push(`session_recording_network_payload_capture_config: {"recordHeaders": ${headers}, "recordBody": ${bodies}}`);
    }
    if (args.mask_all_inputs) {
      wanted.push(`session_recording_masking_config: {"maskAllInputs": ${args.mask_all_inputs === 'yes'}} merged with the selectors it has now (this setting is replaced as a whole)`);
    }
    return [
      userText(
        [
          `Set up session replay for PostHog project ${args.project_id}.`,
          `1. Call project-get with {"id": ${args.project_id}, "include_settings": true} and show me the current replay settings: ${SETTINGS.join(', ')}.`,
          `2. Propose these changes, one line each, current → new, with what each means for privacy and for how many sessions are kept:\n${wanted.map((w) => `   - ${w}`).join('\n')}`,
          '   Suggest nothing else unless I ask. Network bodies and unmasked inputs can hold personal data: say so if they would be recorded.',
          '3. Ask me to confirm that exact list, and wait for my answer. Write nothing before I confirm; if I change something, show the list again.',
          `4. Once I confirm, call project-update once with {"id": ${args.project_id}} and only the confirmed fields. Show me its before → after answer. If PostHog refuses the retention period (403), tell me the longest my plan allows and ask whether to use that.`,
        ].join('\n'),
      ),
    ];
  },
};
