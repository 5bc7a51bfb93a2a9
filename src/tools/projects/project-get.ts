import { z } from 'zod';
import { apiPath } from '../../posthog/query.js';
import { defineTool } from '../define.js';
import { projectDetail, projectIdInput, projectNotFound, projectFactsOutput, projectView, projectFacts } from './shape.js';

export const includeSettingsField = z
  .boolean()
  .default(false)
  .describe('Adds settings objects, long lists.');

export const projectGet = defineTool({
  name: 'project-get',
  title: 'Get a project',
  toolset: 'projects',
  description: `A project's settings: name, timezone, organization, recording, capture; settings objects only named unless include_settings; never secrets.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: () => z.strictObject({ id: projectIdInput, include_settings: includeSettingsField }),
  outputSchema: z.looseObject({ project: projectFactsOutput }),
  async handler(input, { client, signal }) {
    const raw = await client.json<Record<string, unknown>>({ method: 'GET', path: apiPath('projects', input.id), signal });
    const project = projectView(raw ?? {}, input.include_settings);
    const facts = projectFacts(project);
    return { data: { project: facts }, text: projectDetail(facts, `Project ${project.id} "${project.name ?? ''}"`) };
  },
  explainError: (error, input) => (error.status === 404 ? projectNotFound(input.id) : undefined),
});
