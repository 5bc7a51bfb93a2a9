import { apiPath } from '../../posthog/query.js';
import type { PostHogClient } from '../../posthog/client.js';
import { clip } from '../format.js';
import { projectLine, projectView } from './shape.js';

/** A webhook URL is a credential: the question names whether it is set, not its value. */
const MASKED = new Set(['slack_incoming_webhook']);

/**
 * The confirmation question for project-update: which project, and each field's current value →
 * the new one, read from PostHog just before asking (a 404 here stops the update as not found).
 */
export async function describeProjectChanges(client: PostHogClient, input: { id: number } & Record<string, unknown>, signal: AbortSignal): Promise<string> {
  const current = (await client.json<Record<string, unknown>>({ method: 'GET', path: apiPath('projects', input.id), signal })) ?? {};
  const project = projectView({ id: input.id, ...current }, false);
  const lines = Object.entries(input)
    .filter(([key, value]) => key !== 'id' && value !== undefined)
    .map(([key, value]) => {
      const before = current[key];
      const same = JSON.stringify(before) === JSON.stringify(value);
      return `• ${key}: ${show(key, before)} → ${show(key, value)}${same ? ' (unchanged)' : ''}`;
    });
  return `Change these settings of PostHog project ${projectLine(project)}? The current values are overwritten.\n${lines.join('\n')}`;
}

function show(key: string, value: unknown): string {
  if (value === undefined) return '(not set)';
  if (MASKED.has(key)) return value === null || value === '' ? '(none)' : '(a URL, not shown)';
  return clip(JSON.stringify(value), 160);
}
