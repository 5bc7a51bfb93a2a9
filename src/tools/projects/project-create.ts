import { z } from 'zod';
import { defineTool } from '../define.js';
import { changeLines, fieldChanges } from './confirm-changes.js';
import { CLEAR_NOTE, optionalProjectFields, projectDetail, projectFacts, projectLabel, projectOutput, projectResource, requestBody, unappliedFields, unappliedText, writableProjectFields } from './shape.js';

export const projectCreate = defineTool({
  name: 'project-create',
  title: 'Create a project',
  toolset: 'projects',
  description: `Create a project in the key owner's organization; it becomes "@current". Set only fields the user asks for (defaults: timezone UTC, recordings off); ${CLEAR_NOTE}
Not idempotent: each call makes another project; check projects-list first.`,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  inputSchema: () =>
    z.strictObject({ ...optionalProjectFields, name: writableProjectFields.name }),
  outputSchema: z.looseObject({
    created: z.literal(true),
    not_applied: z.array(z.string()),
    settings: z.array(z.looseObject({ field: z.string(), after: z.unknown() })),
    project: projectOutput,
  }),
  async handler(input, { posthog, signal }) {
    const body = requestBody(input);
    const project = await posthog.projects.create(body, { signal });
    // The project exists either way; say which of the given settings PostHog did not take.
    const unapplied = unappliedFields(body, project);
    // As PostHog stored them (its answer), the name aside: the heading says it.
    const settings = fieldChanges(body, undefined, project).filter((c) => c.field !== 'name');
    const resource = projectResource(project);
    const lines = [projectDetail(projectFacts(resource, false), `Created project ${projectLabel(resource)}`)];
    if (settings.length) lines.push('Set as given (PostHog\'s answer):', ...changeLines(settings));
    if (unapplied.length) lines.push(unappliedText(unapplied));
    return {
      data: { created: true as const, not_applied: unapplied.map((u) => u.field), settings: settings.map(({ field, after }) => ({ field, after })), project: resource },
      text: lines.join('\n'),
    };
  },
  explainError: (error, input) => {
    if (error.status === 409) return `A project named "${input.name}" already exists in this organization (names are unique ignoring case). Pick another name, or use projects-list to find the existing one.`;
    if (error.status === 403) return 'PostHog refused: the key needs the project:write scope, or the organization has reached its plan\'s project limit.';
    return undefined;
  },
});
