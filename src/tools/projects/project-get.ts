import { z } from 'zod';
import { defineTool } from '../define.js';
import { RETENTION_PERIODS } from '../../posthog/plan.js';
import { projectDetail, projectIdInput, projectLabel, projectNotFound, projectOutput, projectFacts, projectResource, retentionFacts, retentionLine } from './shape.js';

export const includeSettingsField = z
  .boolean()
  .default(false)
  .describe('Text also shows settings objects, long lists.');

export const projectGet = defineTool({
  name: 'project-get',
  title: 'Get a project',
  toolset: 'projects',
  description: `A project's settings: name, timezone, organization, recording, capture; the text names settings objects unless include_settings, the structured project has all; never secrets.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: () => z.strictObject({ id: projectIdInput, include_settings: includeSettingsField }),
  outputSchema: z.looseObject({
    project: projectOutput,
    retention_allowed: z.enum(RETENTION_PERIODS).optional().describe("The organization's plan's longest replay retention."),
    retention_allowed_unknown: z.string().optional().describe('Why that is not known.'),
  }),
  async handler(input, { posthog, signal }) {
    const project = await posthog.projects.get(input.id, { signal });
    // The plan's cap is in the organization's record only; reading it never fails the call.
    const cap = typeof project.organization === 'string' ? await posthog.projects.retentionCap(project.organization, { signal }) : { unknown: "PostHog's answer names no organization for the project" };
    const retention = retentionFacts(cap);
    const resource = projectResource(project);
    // include_settings shapes the text only: the structured view is the project whole.
    const text = `${projectDetail(projectFacts(resource, input.include_settings), `Project ${projectLabel(resource)}`)}\n${retentionLine(retention, project.session_recording_retention_period)}`;
    return { data: { project: resource, ...retention }, text };
  },
  explainError: (error, input) => (error.status === 404 ? projectNotFound(input.id) : undefined),
});
