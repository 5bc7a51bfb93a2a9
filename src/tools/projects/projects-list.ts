import { z } from 'zod';
import { normalizePage } from '../../posthog/pagination.js';
import { apiPath, encodePlainQuery } from '../../posthog/query.js';
import { defineTool } from '../define.js';
import { asText, clip } from '../format.js';
import { limitField, offsetField, pageOutputFields } from '../schemas.js';
import { projectLine } from './shape.js';

const LIST_FIELDS = ['id', 'uuid', 'organization', 'name', 'timezone', 'is_demo', 'ingested_event', 'completed_snippet_onboarding', 'access_control', 'api_token'] as const;

export const projectsList = defineTool({
  name: 'projects-list',
  title: 'List projects',
  toolset: 'projects',
  description: `Projects in the key owner's current organization: id, name, timezone, demo, has events. To find a project_id, or check a name before project-create.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: () =>
    z.strictObject({
      limit: limitField(100),
      offset: offsetField,
      search: z.string().min(1).max(200).optional().describe('Names containing this.'),
    }),
  outputSchema: z.looseObject({
    results: z.array(z.looseObject({ id: z.number().int(), name: z.string().nullish() })),
    ...pageOutputFields,
  }),
  async handler(input, { client, signal }) {
    const body = await client.json({
      method: 'GET',
      path: apiPath('projects') + encodePlainQuery({ limit: input.limit, offset: input.offset, search: input.search }),
      signal,
    });
    const page = normalizePage<Record<string, unknown>>(body, input.offset, 'projects list', input.limit);
    const results = page.results
      .filter((p) => Number.isInteger(p.id))
      .map((p) => {
        const item: Record<string, unknown> = {};
        for (const key of LIST_FIELDS) if (p[key] !== undefined) item[key] = p[key];
        if (item.name !== undefined && item.name !== null) item.name = asText(item.name);
        return item as { id: number; name?: string | null };
      });
    const matching = input.search ? ` matching "${clip(input.search, 80)}"` : '';
    const header =
      results.length > 0
        ? `${results.length} project${results.length === 1 ? '' : 's'}${page.count !== undefined ? ` of ${page.count}` : ''}:`
        : page.count && input.offset > 0
          ? `No projects at offset ${input.offset}: ${page.count} project${page.count === 1 ? '' : 's'}${matching} in all, before this offset. Call again with offset=0.`
          : `No projects${matching}.`;
    const footer = page.has_more ? `More: call again with offset=${page.next_offset}.` : '';
    return { data: { ...page, results }, text: [header, ...results.map(projectLine), footer].filter(Boolean).join('\n') };
  },
});
