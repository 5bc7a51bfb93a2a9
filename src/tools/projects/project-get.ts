import { z } from 'zod';
import { apiPath } from '../../posthog/query.js';
import { defineTool } from '../define.js';
import { projectDetail, projectIdInput, projectNotFound, projectOutput, projectView } from './shape.js';

export const includeSettingsField = z
  .boolean()
  .default(false)
  .describe('Include settings objects and long lists (filters, onboarding state, modifiers); large.');

export const projectGet = defineTool({
  name: 'project-get',
  title: 'Get a project',
  toolset: 'projects',
  description: `Get one project's details: name, timezone, organization, recording and capture settings (session_recording_opt_in, capture_console_log_opt_in, anonymize_ips, recording_domains…), timestamps.
Settings objects are listed in omitted_fields unless include_settings is true. Secrets are never returned.
Next: project-update to change a setting, session-recordings-list to see its recordings.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: () => z.strictObject({ id: projectIdInput, include_settings: includeSettingsField }),
  outputSchema: z.looseObject({ project: projectOutput }),
  async handler(input, { client, signal }) {
    const raw = await client.json<Record<string, unknown>>({ method: 'GET', path: apiPath('projects', input.id), signal });
    const project = projectView(raw ?? {}, input.include_settings);
    return { data: { project }, text: projectDetail(project, `Project ${project.id} "${project.name ?? ''}"`) };
  },
  explainError: (error, input) => (error.status === 404 ? projectNotFound(input.id) : undefined),
});
