import { z } from 'zod';
import { UserInputError } from '../../errors.js';
import { confirmOrStop } from '../confirm.js';
import { defineTool } from '../define.js';
import { projectIdInput, projectLabel, projectLine, projectNotFound, projectOutput, projectResource } from './shape.js';

export const projectDelete = defineTool({
  name: 'project-delete',
  title: 'Delete a project',
  toolset: 'projects',
  description: `Deletes a project and, in the background, all its data (events, persons, recordings, more); cannot be undone. Only when the user asks for that project: confirm id and name with project-get first.`,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  inputSchema: () => z.strictObject({ id: projectIdInput }),
  outputSchema: z.looseObject({ deleted: z.literal(true), id: z.number().int(), project: projectOutput.describe('The project as read just before the delete.'), note: z.string() }),
  async handler(input, { posthog, signal, confirm }) {
    // Read first so the result names what was deleted, and an unknown id deletes nothing.
    const project = projectResource(await posthog.projects.get(input.id, { signal }));
    // Today's PostHog deletes in the background; a project already on its way needs no question and no second DELETE (PostHog answers it 400).
    if (project.is_pending_deletion === true) {
      throw new UserInputError(`Project ${projectLine(project)} is already being deleted: PostHog is removing its data in the background. Nothing more to do.`);
    }
    await confirmOrStop(confirm, {
      message: `Delete PostHog project ${projectLine(project)} (organization ${project.organization ?? '?'}) and all its data: events, persons, recordings, insights, dashboards, feature flags? This cannot be undone.`,
      action: `delete project ${projectLabel(project)}`,
      unchanged: 'Nothing was deleted.',
    });
    await posthog.projects.delete(input.id, { signal });
    // Both views say the same (docs/design.md, "Both views"): what was deleted, and what follows.
    const note = 'PostHog removes its data in the background; this cannot be undone.';
    return {
      data: { deleted: true as const, id: input.id, project, note },
      text: `Deleted project ${projectLine(project)} (organization ${project.organization ?? '?'}). ${note}`,
    };
  },
  explainError: (error, input) => {
    if (error.status === 404) return `${projectNotFound(input.id)} Nothing was deleted.`;
    if (error.status === 400 && /already being deleted/i.test(error.detail ?? '')) {
      return `Project ${input.id} is already being deleted: PostHog is removing its data in the background (project-get shows is_pending_deletion). Nothing more to do.`;
    }
    return undefined;
  },
});
