import { z } from 'zod';
import type { PostHogClient } from '../../posthog/client.js';
import { explainQueryError, resolveDate, runHogQL, withQueryFallback } from '../../posthog/hogql.js';
import { SESSION_PROPERTY_KEYS, sessionPropertiesQuery } from '../../posthog/hogql-queries.js';
import { apiPath, encodeJsonQuery } from '../../posthog/query.js';
import { maskUrlSecrets } from '../../url-secrets.js';
import { defineTool } from '../define.js';
import { RECORDED_DATA_NOTICE, asText, clip } from '../format.js';
import { quote, unbidi } from '../../digest/quote.js';
import { projectIdField, queryDateFromField, recordingIdsField, resolveProjectId } from '../schemas.js';
import { explainInternalEndpoint } from './internal-endpoints.js';

const INSTEAD = 'Instead: session-recording-get gives each recording\'s start URL, person and activity counts.';

type SessionProperties = { id: string; properties: Record<string, unknown> };

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
  async handler(input, { client, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const { result: results } = await withQueryFallback(
      client,
      'session_recordings/properties',
      () => viaEndpoint(client, projectId, input.session_ids, signal),
      () => viaQuery(client, projectId, input.session_ids, input.date_from, signal),
    );
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

/** The documented endpoint, as 2024's PostHog served it. */
async function viaEndpoint(client: PostHogClient, projectId: string, sessionIds: string[], signal: AbortSignal): Promise<SessionProperties[]> {
  const body = await client.json<{ results?: unknown }>({
    method: 'GET',
    path: apiPath('projects', projectId, 'session_recordings', 'properties') + encodeJsonQuery({ session_ids: sessionIds }),
    signal,
  });
  return (Array.isArray(body?.results) ? body.results : [])
    .filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null)
    .map((r) => ({ id: asText(r.id ?? r.session_id), properties: isRecord(r.properties) ? r.properties : {} }));
}

/**
 * The same answer from the events table: per session, each key's value on its first $pageview
 * or $autocapture event (argMin by timestamp), within [date_from, now].
 */
async function viaQuery(client: PostHogClient, projectId: string, sessionIds: string[], dateFrom: string, signal: AbortSignal): Promise<SessionProperties[]> {
  const now = Date.now();
  const { rows } = await runHogQL(client, projectId, sessionPropertiesQuery({ sessionIds, from: resolveDate(dateFrom, now), to: new Date(now) }), signal);
  return rows
    .map((row) => ({
      id: asText(row.session_id ?? ''),
      properties: Object.fromEntries(SESSION_PROPERTY_KEYS.map((key, i) => [key, row[`prop_${i}`] ?? null])),
    }))
    .filter((r) => sessionIds.includes(r.id))
    .sort((a, b) => sessionIds.indexOf(a.id) - sessionIds.indexOf(b.id));
}

/** Properties that hold a URL ($current_url, $referrer, $initial_current_url…). */
const URL_PROPERTY = /(?:url|referrer|href)$/i;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
