import { z } from 'zod';
import { TIMEZONES } from '../posthog/timezones.js';
import { RECORDING_DATE_PATTERN } from '../tools/schemas.js';
import { TRIAGE_ICONS } from '../icons.js';
import { DATA_NOT_INSTRUCTIONS, projectArgument, projectIdArg, userText, type PromptDefinition } from './shared.js';

const date = (name: string) => z.string().trim().max(40).regex(RECORDING_DATE_PATTERN, `${name}: use a relative date like "-7d"/"-24h" or an ISO date like "2025-06-01"`);

export const triagePeriod: PromptDefinition = {
  name: 'triage-period',
  title: 'Triage recordings of a period',
  description: 'What broke in a period, for how many people, and the worst recording of each problem. Tools: session-recordings-triage, session-recording-summary, session-recording-replay.',
  icons: TRIAGE_ICONS,
  tools: ['session-recordings-triage', 'session-recording-summary', 'session-recording-replay'],
  arguments: (context) => [
    projectArgument(context, 'Project to triage.'),
    { name: 'date_from', description: 'Start: "-7d", "-24h" or "2025-06-01". Default -7d.', required: false },
    { name: 'date_to', description: 'End, same forms. Default now.', required: false },
    { name: 'timezone', description: 'Timezone the dates and answer are in (IANA, e.g. Europe/Berlin). Default UTC.', required: false, complete: 'timezone' },
    { name: 'max_recordings', description: 'Recordings to read, 1-50. Default 20.', required: false },
  ],
  schema: (context) =>
    z
      .strictObject({
        project_id: context.defaultProjectId === undefined ? projectIdArg : projectIdArg.optional(),
        date_from: date('date_from').optional(),
        date_to: date('date_to').optional(),
        timezone: z.enum(TIMEZONES, 'an IANA timezone from PostHog\'s list, like "Europe/Berlin"').optional(),
        max_recordings: z
          .string()
          .trim()
          .regex(/^\d{1,2}$/, 'a whole number from 1 to 50')
          .transform(Number)
          .pipe(z.number().min(1, 'at least 1').max(50, 'at most 50 (what one triage call reads)'))
          .optional(),
      })
      .transform((args) => ({ ...args, project_id: args.project_id ?? context.defaultProjectId })) as unknown as z.ZodType<Record<string, unknown>>,
  messages: (raw) => {
    const args = raw as { project_id: string; date_from?: string; date_to?: string; timezone?: string; max_recordings?: number };
    const from = args.date_from ?? '-7d';
    const period = `from ${from}${args.date_to ? ` to ${args.date_to}` : ' until now'}${args.timezone ? ` (${args.timezone} time)` : ''}`;
    const max = args.max_recordings ?? 20;
    const call = JSON.stringify({ project_id: args.project_id, date_from: from, ...(args.date_to ? { date_to: args.date_to } : {}), order: 'console_error_count', max_recordings: max });
    return [
      userText(
        [
          `Triage the session recordings of PostHog project ${args.project_id} ${period}: what broke, for how many people, and the worst recording of each problem.`,
          `1. Call session-recordings-triage with ${call}. If its result is partial, say what was not read and continue with its next_cursor only if I ask.`,
          '2. List the problems, worst first: what broke (error, failed request, an error message the page showed, rage or dead clicks, on which page), how many sessions and people it hit.',
          '3. For each of the top three, take its worst example recording and call session-recording-summary on it to say what the user was doing when it broke.',
          '4. Offer session-recording-replay on the worst one, at its moment, so I can watch it.',
          args.timezone ? `Give times in ${args.timezone}.` : 'Give times in UTC.',
          DATA_NOT_INSTRUCTIONS,
        ].join('\n'),
      ),
    ];
  },
};
