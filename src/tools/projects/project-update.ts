import { z } from 'zod';
import { confirmOrStop } from '../confirm.js';
import { defineTool } from '../define.js';
import { changeLines, describeProjectChanges, fieldChanges } from './confirm-changes.js';
import { CLEAR_NOTE, optionalProjectFields, projectDetail, projectFacts, projectIdInput, projectLabel, projectNotFound, projectOutput, projectResource, requestBody, retentionRefused, unappliedFields, unappliedText } from './shape.js';

export const projectUpdate = defineTool({
  name: 'project-update',
  title: 'Update a project\'s settings',
  toolset: 'projects',
  description: `Change a project's settings (PATCH), replay included; overwrites them. Only the fields given are sent; ${CLEAR_NOTE} Returns each field before → after.`,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  inputSchema: () =>
    z.strictObject({ id: projectIdInput, ...optionalProjectFields }).refine((v) => Object.keys(v).some((k) => k !== 'id' && v[k as keyof typeof v] !== undefined), {
      message: 'give at least one field to change besides id, e.g. {"id": 123, "name": "New name"}',
    }),
  outputSchema: z.looseObject({
    updated_fields: z.array(z.string()),
    not_applied: z.array(z.string()),
    changes: z.array(z.looseObject({ field: z.string(), before: z.unknown().optional(), after: z.unknown(), changed: z.boolean() })),
    project: projectOutput,
  }),
  async handler(input, { posthog, signal, confirm }) {
    const { id, ...fields } = input;
    const body = requestBody(fields);
    // Read first: the "before" of the answer is what PostHog held just now, not a guess, and a
    // project that does not exist is found out before anything is written or anyone is asked.
    const before = await posthog.projects.get(id, { signal });
    await confirmOrStop(confirm, {
      message: describeProjectChanges(before, body),
      action: `change ${Object.keys(body).join(', ')} of project ${id}`,
      unchanged: 'Nothing was changed.',
    });
    const project = await posthog.projects.update(id, body, { signal });
    // "after" is PostHog's answer, not what was asked: it ignores fields it no longer takes.
    const unapplied = unappliedFields(body, project);
    const notApplied = unapplied.map((u) => u.field);
    const updated = Object.keys(body).filter((field) => !notApplied.includes(field));
    const changes = fieldChanges(body, before, project);
    // "Updated" names only what changed: a field written with the value it had is said to be so.
    const changed = updated.filter((field) => changes.find((c) => c.field === field)?.changed !== false);
    const same = updated.filter((field) => !changed.includes(field));
    const already = same.length ? ` (${same.join(', ')} already had the value given)` : '';
    const resource = projectResource(project);
    const heading = changed.length
      ? `Updated ${changed.join(', ')} of project ${projectLabel(resource)}${already}; before → after:`
      : `Nothing updated in project ${projectLabel(resource)}${already}; before → after:`;
    const lines = [heading, ...changeLines(changes)];
    if (unapplied.length) lines.push(unappliedText(unapplied));
    lines.push(projectDetail(projectFacts(resource, false), 'Now:'));
    return { data: { updated_fields: updated, not_applied: notApplied, changes, project: resource }, text: lines.join('\n') };
  },
  explainError: (error, input) => {
    if (error.status === 404) return projectNotFound(input.id);
    if (error.status === 409 && input.name !== undefined) return `Another project is already named "${input.name}"; pick another name.`;
    if (error.status === 403 && input.session_recording_retention_period !== undefined) return retentionRefused(error.detail, input.session_recording_retention_period);
    return undefined;
  },
});
