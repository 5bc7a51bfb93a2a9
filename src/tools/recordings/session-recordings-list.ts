import { z } from 'zod';
import { RECORDING_ORDERS } from '../../posthog/recording-orders.js';
import { defineTool } from '../define.js';
import { dateField, limitField, offsetField, pageOutputFields, personUuidField, projectIdField, recordingIdsField, resolveProjectId } from '../schemas.js';
import { quote } from '../../digest/quote.js';
import { RECORDED_DATA_NOTICE } from '../format.js';
import { filterParams, recordingFilterFields } from './filters.js';
import { personPropertiesLine, personPropertiesNote, recordingLine, recordingOutput, recordingView } from './shape.js';

export const sessionRecordingsList = defineTool({
  name: 'session-recordings-list',
  title: 'List session recordings',
  toolset: 'recordings',
  description: `A project's recordings: id, start, duration, activity and error counts, person, start URL. Last 3 days unless date_from; errors first: order="console_error_count".
Next: session-recording-summary; for many, session-recordings-triage.`,
  recordedData: true,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: (options) =>
    z.strictObject({
      project_id: projectIdField(options),
      limit: limitField(20),
      offset: offsetField,
      date_from: dateField('"-7d", "-24h" or an ISO date in the project\'s time zone; default "-3d".').optional(),
      date_to: dateField('Same forms; default now.').optional(),
      order: z.enum(RECORDING_ORDERS).optional().describe('Default start_time.'),
      order_direction: z.enum(['ASC', 'DESC']).optional().describe('Default DESC.'),
      person_uuid: personUuidField.optional(),
      session_ids: recordingIdsField(100).optional().describe('Only these ids or replay URLs.'),
      include_person_properties: z.boolean().default(false).describe('Large.'),
      ...recordingFilterFields(),
    }),
  outputSchema: z.looseObject({
    project_id: z.string(),
    results: z.array(recordingOutput),
    ...pageOutputFields,
    start_hosts: z.record(z.string(), z.number().int()).optional(),
    note: z.string().optional(),
    person_properties_note: z.string().optional(),
  }),
  async handler(input, { posthog, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const page = await posthog.recordings.list(projectId, {
      limit: input.limit,
      offset: input.offset,
      date_from: input.date_from,
      date_to: input.date_to,
      order: input.order,
      order_direction: input.order_direction,
      person_uuid: input.person_uuid,
      session_ids: input.session_ids,
      ...filterParams(input),
    }, { signal });
    const results = page.results.map((r) => recordingView(r, { personProperties: input.include_person_properties }));
    // The empty page's hint is a fact of both views (SPEC §1 "What the model reads").
    const note = results.length === 0 && !input.date_from ? 'PostHog searched the last 3 days; pass date_from (e.g. "-30d") to look further back.' : undefined;
    // A project that records more than one site says so (its start URLs' hosts), in both views.
    const hosts = hostCounts(results.map((r) => r.start_url));
    const cut = personPropertiesNote(results);
    const data = { project_id: projectId, ...page, results, ...(hosts ? { start_hosts: hosts } : {}), ...(note ? { note } : {}), ...(cut ? { person_properties_note: cut } : {}) };

    const header =
      results.length === 0
        ? `No recordings in project ${projectId} for these filters.${note ? ` ${note}` : ''}`
        : `${results.length} recording${results.length === 1 ? '' : 's'} in project ${projectId} (offset ${input.offset}${page.count !== undefined ? ` of ${page.count}` : ''}):`;
    const footer = page.has_more ? `More: call again with offset=${page.next_offset}.` : results.length ? 'End of list.' : '';
    const rows = results.flatMap((r) => [recordingLine(r), personPropertiesLine(r, input.include_person_properties)]);
    const mixed = hosts ? `Start URLs on ${Object.keys(hosts).length} hosts: ${Object.entries(hosts).map(([host, n]) => `${quote(host)} ×${n}`).join(', ')}.` : '';
    return { data, text: [RECORDED_DATA_NOTICE, header, ...rows, mixed, cut, footer].filter(Boolean).join('\n') };
  },
});

/** How many rows start on each host, when they start on more than one; undefined otherwise. */
function hostCounts(urls: Array<string | null | undefined>): Record<string, number> | undefined {
  const counts: Record<string, number> = {};
  for (const url of urls) {
    if (typeof url !== 'string') continue;
    let host: string;
    try {
      host = new URL(url).host;
    } catch {
      continue;
    }
    if (host) counts[host] = (counts[host] ?? 0) + 1;
  }
  return Object.keys(counts).length > 1 ? counts : undefined;
}
