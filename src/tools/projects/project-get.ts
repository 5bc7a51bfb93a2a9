import { z } from 'zod';
import { defineTool } from '../define.js';
import { projectDetail, projectIdInput, projectNotFound, projectFactsOutput, projectView, projectFacts, retentionFacts, retentionLine } from './shape.js';

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
  async handler(input, { posthog, signal }) {
    const raw = await posthog.projects.get(input.id, { signal });
    const project = projectView(raw, input.include_settings);
    const facts = projectFacts(project);
    // The plan's cap is in the organization's record only; reading it never fails the call.
    const cap = typeof raw.organization === 'string' ? await posthog.projects.retentionCap(raw.organization, { signal }) : { unknown: "PostHog's answer names no organization for the project" };
    const retention = retentionFacts(cap);
    const text = `${projectDetail(facts, `Project ${project.id} "${project.name ?? ''}"`)}\n${retentionLine(retention, raw.session_recording_retention_period)}`;
    return { data: { project: facts, ...retention }, text };
  },
  explainError: (error, input) => (error.status === 404 ? projectNotFound(input.id) : undefined),
});
