import { z } from 'zod';
import { apiPath } from '../../posthog/query.js';
import { confirmOrStop } from '../confirm.js';
import { defineTool } from '../define.js';
import { describeProjectChanges } from './confirm-changes.js';
import { optionalProjectFields, projectDetail, projectIdInput, projectNotFound, projectOutput, projectView, unappliedFields, unappliedText } from './shape.js';

export const projectUpdate = defineTool({
  name: 'project-update',
  title: 'Update a project\'s settings',
  toolset: 'projects',
  description: `Change settings of a project (PATCH). Only the fields given are sent; their old values are lost, so read them with project-get first if they may be wanted back.`,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  inputSchema: () =>
    z.strictObject({ id: projectIdInput, ...optionalProjectFields }).refine((v) => Object.keys(v).some((k) => k !== 'id' && v[k as keyof typeof v] !== undefined), {
      message: 'give at least one field to change besides id, e.g. {"id": 123, "name": "New name"}',
    }),
  outputSchema: z.looseObject({ updated_fields: z.array(z.string()), not_applied: z.array(z.string()), project: projectOutput }),
  async handler(input, { client, signal, confirm }) {
    // Asked only when someone can answer: then the project is read first, to show current → new.
    await confirmOrStop(confirm, {
      message: () => describeProjectChanges(client, input, signal),
      action: `change ${Object.keys(input).filter((k) => k !== 'id' && input[k as keyof typeof input] !== undefined).join(', ')} of project ${input.id}`,
      unchanged: 'Nothing was changed.',
    });
    const { id, ...fields } = input;
    const body = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    const raw = await client.json<Record<string, unknown>>({ method: 'PATCH', path: apiPath('projects', id), body, signal });
    const project = projectView(raw ?? {}, false);
    // What PostHog answered, not what was asked: it ignores fields it no longer takes.
    const unapplied = unappliedFields(body, raw ?? {});
    const notApplied = unapplied.map((u) => u.field);
    const updated = Object.keys(body).filter((field) => !notApplied.includes(field));
    const heading = updated.length
      ? `Updated ${updated.join(', ')} of project ${project.id} "${project.name ?? ''}"`
      : `Nothing updated in project ${project.id} "${project.name ?? ''}"`;
    const detail = projectDetail(project, heading);
    return {
      data: { updated_fields: updated, not_applied: notApplied, project },
      text: unapplied.length ? `${unappliedText(unapplied)}\n${detail}` : detail,
    };
  },
  explainError: (error, input) => {
    if (error.status === 404) return projectNotFound(input.id);
    if (error.status === 409 && input.name !== undefined) return `Another project is already named "${input.name}"; pick another name.`;
    return undefined;
  },
});
