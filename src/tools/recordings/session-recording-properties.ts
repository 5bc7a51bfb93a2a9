import { z } from 'zod';
import { explainQueryError } from '../../posthog/hogql.js';
import { maskUrlSecrets } from '../../url-secrets.js';
import { defineTool } from '../define.js';
import { RECORDED_DATA_NOTICE, asText, clip } from '../format.js';
import { quote, unbidi } from '../../digest/quote.js';
import { projectIdField, queryDateFromField, recordingIdsField, resolveProjectId } from '../schemas.js';
import { explainInternalEndpoint } from './internal-endpoints.js';

const INSTEAD = 'Instead: session-recording-get gives each recording\'s start URL, person and activity counts.';

export const sessionRecordingProperties = defineTool({
  name: 'session-recording-properties',
  title: 'Get recordings\' browser and location properties',
  toolset: 'recordings',
  description: `Each recording's first-pageview properties (OS, browser, device, URL, country), to compare sessions. May need key scope query:read; searches events since date_from.`,
  recordedData: true,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: (options) =>
    z.strictObject({
      project_id: projectIdField(options),
      session_ids: recordingIdsField(100).describe('Ids or replay URLs.'),
      date_from: queryDateFromField,
    }),
  outputSchema: z.looseObject({
    project_id: z.string(),
    results: z.array(z.looseObject({ id: z.string(), properties: z.record(z.string(), z.unknown()) })),
  }),
  async handler(input, { posthog, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const { result: results } = await posthog.recordings.properties(projectId, input.session_ids, input.date_from, { signal });
    // A page's URL may carry a token (a magic link): shown masked, as the list shows the start URL.
    // Values are recorded data (the visitor's browser sent them): clipped alike in both views,
    // null ones left out of both.
    for (const r of results) {
      const kept: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(r.properties)) {
        if (value === null || value === undefined) continue;
        const text = typeof value === 'string' ? value : asText(value);
        kept[key] = typeof value === 'string' ? unbidi(clip(URL_PROPERTY.test(key) ? maskUrlSecrets(text) : text, 300)) : typeof value === 'number' || typeof value === 'boolean' ? value : unbidi(clip(text, 300));
      }
      r.properties = kept;
    }
    const missing = input.session_ids.filter((id) => !results.some((r) => r.id === id));
    const lines = results.map((r) => `${r.id}: ${Object.entries(r.properties).map(([k, v]) => `${k}=${typeof v === 'string' ? quote(v) : asText(v)}`).join(' ')}`);
    if (missing.length) lines.push(`No properties for: ${missing.join(', ')} (no pageview recorded, or unknown id).`);
    const text = [RECORDED_DATA_NOTICE, lines.length ? lines.join('\n') : 'No properties returned.'].join('\n');
    return { data: { project_id: projectId, results, ...(missing.length ? { missing } : {}) }, text };
  },
  explainError: (error) => explainQueryError(error) ?? explainInternalEndpoint(error, 'session_recordings/properties', INSTEAD),
});

/** Properties that hold a URL ($current_url, $referrer, $initial_current_url…). */
const URL_PROPERTY = /(?:url|referrer|href)$/i;
