import { z } from 'zod';
import { defineTool } from '../define.js';
import { clip } from '../format.js';
import { limitField, offsetField, pageOutputFields } from '../schemas.js';
import { readRecordingSettings, SETTINGS_READ_LIMIT } from './recording-settings.js';
import { projectLine, projectRow, projectRowOutput } from './shape.js';

export const projectsList = defineTool({
  name: 'projects-list',
  title: 'List projects',
  toolset: 'projects',
  description: `Projects in the key owner's current organization: id, name, timezone, demo, has events, recording on (sample rate), pending deletion. Finds a project_id; check a name before project-create.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: () =>
    z.strictObject({
      limit: limitField(100),
      offset: offsetField,
      search: z.string().min(1).max(200).optional().describe('Names containing this.'),
      recording_settings: z.boolean().default(true).describe("false: one request, without recording and deletion state."),
    }),
  outputSchema: z.looseObject({
    results: z.array(projectRowOutput),
    ...pageOutputFields,
    settings_read_for: z.number().int().optional().describe('Rows whose recording settings were read.'),
  }),
  async handler(input, { posthog, signal }) {
    const page = await posthog.projects.list({ limit: input.limit, offset: input.offset, search: input.search }, { signal });
    // Each row is PostHog's list item as sent (docs/design.md, "Both views"); the text's line
    // (projectLine) is what a next call or a choice between projects needs.
    const rows = page.results.map(projectRow);
    // PostHog's list leaves out the replay switch and pending deletion: each project's own
    // record has them, read for the first rows only so a call's cost stays bounded.
    const results = input.recording_settings ? await readRecordingSettings(posthog.projects, rows, signal) : rows;
    const unread = input.recording_settings ? rows.length - SETTINGS_READ_LIMIT : 0;
    const matching = input.search ? ` matching "${clip(input.search, 80)}"` : '';
    const header =
      results.length > 0
        ? `${results.length} project${results.length === 1 ? '' : 's'}${matching}${page.count !== undefined ? ` of ${page.count}` : ''}:`
        : page.count && input.offset > 0
          ? `No projects at offset ${input.offset}: ${page.count} project${page.count === 1 ? '' : 's'}${matching} in all, before this offset. Call again with offset=0.`
          : `No projects${matching}.`;
    const footer = page.has_more ? `More: call again with offset=${page.next_offset}.` : results.length ? 'End of list.' : '';
    const unreadNote =
      unread > 0
        ? `Recording settings read for the first ${SETTINGS_READ_LIMIT} rows; for the other ${unread}, call again with offset=${input.offset + SETTINGS_READ_LIMIT} limit=${SETTINGS_READ_LIMIT}, or project-get.`
        : '';
    return {
      data: { ...page, results, ...(unread > 0 ? { settings_read_for: SETTINGS_READ_LIMIT } : {}) },
      text: [header, ...results.map(projectLine), unreadNote, footer].filter(Boolean).join('\n'),
    };
  },
});
