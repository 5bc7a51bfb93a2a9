import { z } from 'zod';
import { apiPath, encodeJsonQuery } from '../../posthog/query.js';
import { defineTool } from '../define.js';
import { asText, clip } from '../format.js';
import { projectIdField, recordingIdField, resolveProjectId } from '../schemas.js';
import { explainInternalEndpoint } from './internal-endpoints.js';

const INSTEAD = 'Instead: session-recording-get gives each recording\'s start URL, person and activity counts.';

export const sessionRecordingProperties = defineTool({
  name: 'session-recording-properties',
  title: 'Get recordings\' browser and location properties',
  toolset: 'recordings',
  description: `For up to 100 recordings, the properties of each session's first pageview: OS, browser, device type, URL, host, path, country. Use it to compare sessions (all Safari on iOS?).
PostHog's endpoint is internal: removed in newer versions (404), closed to scoped keys (403); the error says what to use instead.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: (options) =>
    z.strictObject({
      project_id: projectIdField(options),
      session_ids: z.array(recordingIdField).min(1).max(100).describe('Recording (session) ids.'),
    }),
  outputSchema: z.looseObject({
    project_id: z.string(),
    results: z.array(z.looseObject({ id: z.string(), properties: z.record(z.string(), z.unknown()) })),
  }),
  async handler(input, { client, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const body = await client.json<{ results?: unknown }>({
      method: 'GET',
      path: apiPath('projects', projectId, 'session_recordings', 'properties') + encodeJsonQuery({ session_ids: input.session_ids }),
      signal,
    });
    const results = (Array.isArray(body?.results) ? body.results : [])
      .filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null)
      .map((r) => ({ id: asText(r.id ?? r.session_id), properties: isRecord(r.properties) ? r.properties : {} }));
    const missing = input.session_ids.filter((id) => !results.some((r) => r.id === id));
    const lines = results.map((r) => `${r.id}: ${clip(Object.entries(r.properties).map(([k, v]) => `${k}=${asText(v)}`).join(' '), 400)}`);
    if (missing.length) lines.push(`No properties for: ${clip(missing.join(', '), 400)} (no pageview recorded, or unknown id).`);
    return { data: { project_id: projectId, results }, text: lines.join('\n') || 'No properties returned.' };
  },
  explainError: (error) => explainInternalEndpoint(error, 'session_recordings/properties', INSTEAD),
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
