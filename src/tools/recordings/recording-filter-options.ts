import { z } from 'zod';
import { quote } from '../../digest/quote.js';
import { maskUrlSecrets } from '../../url-secrets.js';
import { defineTool } from '../define.js';
import { RECORDED_DATA_NOTICE, asText, clip } from '../format.js';
import { limitField, offsetField, pageOutputFields, projectIdField, resolveProjectId } from '../schemas.js';

/**
 * What a project's recordings can be filtered on, from PostHog's event and property definitions
 * (docs/filter-options.md says which endpoints and what this relies on), and a property's common
 * values where PostHog serves them. Whoever can send the project events chooses the names and
 * values: the text quotes each one, as recorded data (docs/design.md, "Recorded text is data").
 */

const KINDS = ['events', 'event_properties', 'person_properties', 'session_properties'] as const;
type Kind = (typeof KINDS)[number];

/** The definitions' `type` for each kind of property. */
const PROPERTY_TYPE: Record<Exclude<Kind, 'events'>, string> = { event_properties: 'event', person_properties: 'person', session_properties: 'session' };

/** How a name of each kind becomes a filter of session-recordings-list (said in both views). */
const USE: Record<Kind, string> = {
  events: 'Use: events=[{"id":"<name>"}].',
  event_properties: 'Use: properties=[{"type":"event","key":"<name>","operator":…,"value":…}] (or inside an events entity).',
  person_properties: 'Use: properties=[{"type":"person","key":"<name>","operator":…,"value":…}].',
  session_properties: 'Use: properties=[{"type":"session","key":"<name>","operator":…,"value":…}].',
};

/** Properties that hold a URL ($current_url, $referrer, $initial_current_url…). */
const URL_PROPERTY = /(?:url|referrer|href)$/i;

export const recordingFilterOptions = defineTool({
  name: 'recording-filter-options',
  title: 'List what recordings can be filtered on',
  toolset: 'recordings',
  description: `A project's event names (kind "events"), or event/person/session property keys with their type, to build session-recordings-list filters; values_of gives a property's common values.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  recordedData: true,
  inputSchema: (options) =>
    z
      .strictObject({
        project_id: projectIdField(options),
        kind: z.enum(KINDS).optional().describe('Default events; with values_of, event_properties.'),
        search: z.string().min(1).max(200).optional().describe('Names containing every word.'),
        values_of: z.string().min(1).max(400).optional().describe('An event or person property key: its common values.'),
        limit: limitField(100),
        offset: offsetField,
      })
      // values_of alone means an event property; kind names a person property instead.
      .refine((v) => v.values_of === undefined || v.kind === undefined || v.kind === 'event_properties' || v.kind === 'person_properties', {
        message: 'values_of works with kind "event_properties" (its default) or "person_properties" (PostHog serves common values for those)',
        path: ['values_of'],
      }),
  // Also returned: names (events), by_type (property keys by PostHog's type) or values, and use.
  outputSchema: z.looseObject({
    project_id: z.string(),
    ...pageOutputFields,
  }),
  async handler(input, { posthog, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    if (input.values_of !== undefined) return valuesOf(input.values_of, input.kind === 'person_properties' ? 'persons' : 'events');
    const kind = input.kind ?? 'events';

    const query = { search: input.search, limit: input.limit, offset: input.offset };
    const page = kind === 'events' ? await posthog.definitions.events(projectId, query, { signal }) : await posthog.definitions.properties(projectId, PROPERTY_TYPE[kind], query, { signal });
    const names = page.results.map((d) => asText(d.name)).filter(Boolean);
    const { results: _, ...paging } = page;
    const [one, many] = kind === 'events' ? ['event name', 'event names'] : [`${PROPERTY_TYPE[kind]} property`, `${PROPERTY_TYPE[kind]} properties`];
    const matching = input.search ? ` matching ${quote(clip(input.search, 80))}` : '';
    const header = names.length
      ? `${names.length} ${names.length === 1 ? one : many}${matching} in project ${projectId}${page.count !== undefined ? ` (${input.offset + 1}-${input.offset + names.length} of ${page.count})` : ''}:`
      : `No ${many}${matching} in project ${projectId}${input.offset ? ` at offset ${input.offset}` : ''}.`;
    const footer = [names.length ? USE[kind] : '', page.has_more ? `More: call again with offset=${page.next_offset}.` : ''].filter(Boolean).join(' ');

    if (kind === 'events') {
      const data = { project_id: projectId, ...paging, names, use: USE.events };
      return { data, text: [RECORDED_DATA_NOTICE, header, names.map((name) => quote(name)).join(', '), footer].filter(Boolean).join('\n') };
    }
    // Keys grouped by PostHog's property type (String, Numeric, Boolean, DateTime; "untyped" when it has none).
    const byType: Record<string, string[]> = {};
    for (const d of page.results) {
      const name = asText(d.name);
      if (!name) continue;
      const type = typeof d.property_type === 'string' && d.property_type ? d.property_type : 'untyped';
      (byType[type] ??= []).push(name);
    }
    const data = { project_id: projectId, ...paging, by_type: byType, use: USE[kind] };
    const lines = Object.entries(byType).map(([type, keys]) => `${type}: ${keys.map((key) => quote(key)).join(', ')}`);
    return { data, text: [RECORDED_DATA_NOTICE, header, ...lines, footer].filter(Boolean).join('\n') };

    /** A property's common values, most frequent first where PostHog counts them: `[{name, count?}]`. */
    async function valuesOf(key: string, where: 'events' | 'persons') {
      const rows = await posthog.definitions.values(projectId, where, key, input.search, { signal });
      // A URL may carry a token (a magic link): shown masked, as recordings' URLs are.
      const textOf = (value: unknown) => (URL_PROPERTY.test(key) ? maskUrlSecrets(asText(value)) : asText(value));
      const counted = rows.slice(0, input.limit).map((r): [string, number | undefined] => [textOf(r.name), typeof r.count === 'number' ? r.count : undefined]);
      // [value, count] pairs where PostHog counts them (persons), else the values alone (events).
      const values = counted.map(([value, n]) => (n === undefined ? value : [value, n]));
      const owner = where === 'persons' ? 'person' : 'event';
      const header = values.length
        ? `${values.length} common value${values.length === 1 ? '' : 's'} of ${owner} property ${quote(clip(key, 100))} in project ${projectId} (recorded data, quoted):`
        : `No values of ${owner} property ${quote(clip(key, 100))}${input.search ? ` containing ${quote(clip(input.search, 80))}` : ''} in project ${projectId}.`;
      const use = `Use: properties=[{"type":"${owner}","key":${quote(clip(key, 100))},"operator":"exact","value":[…]}].`;
      const data = { project_id: projectId, values_of: key, values, has_more: false, next_offset: null, use };
      const line = counted.map(([value, n]) => `${quote(clip(value, 200))}${n !== undefined ? ` (${n})` : ''}`).join(', ');
      return { data, text: [RECORDED_DATA_NOTICE, header, line, values.length ? use : ''].filter(Boolean).join('\n') };
    }
  },
  explainError: (error) => {
    if (error.status === 403) return 'The key needs the scope PostHog names above (its personal API key settings), and access to this project.';
    if (error.status === 404) return 'Check the project id with projects-list.';
    return undefined;
  },
});
