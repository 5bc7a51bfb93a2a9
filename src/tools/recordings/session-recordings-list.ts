import { z } from 'zod';
import { RECORDING_ORDERS } from '../../posthog/recording-orders.js';
import { defineTool } from '../define.js';
import { dateField, limitField, offsetField, pageOutputFields, personUuidField, projectIdField, recordingIdsField, resolveProjectId } from '../schemas.js';
import { quote, unbidi } from '../../digest/quote.js';
import { UserInputError } from '../../errors.js';
import type { FoundPerson, Page, Recording } from '../../posthog/operations/index.js';
import { clip, joinParts, RECORDED_DATA_NOTICE } from '../format.js';
import { appliedPeriod, filterParams, hasFilters, periodLine, periodOutput, recordingFilterFields } from './filters.js';
import { personField, personParams, personUnrecorded, resolvePerson, type PersonResolution, type PersonUnrecorded } from './person-search.js';
import { matchSequence, MAX_SEQUENCE_LISTED, parseSequence, sequenceField, sequenceLabel, sequencePage, sequencePeriod, unrecordedLine } from './sequence.js';
import { personPropertiesLine, personPropertiesNote, recordingLine, recordingOutput, recordingView } from './shape.js';
import { sessionContexts } from './session-context.js';
import { matchedOutputFields, matchedPart, requestedOf, withMatchedEvents } from './matched-events.js';
import { testAccountsLeftOut, testAccountsLine, testAccountsOutput } from './test-accounts.js';

export const sessionRecordingsList = defineTool({
  name: 'session-recordings-list',
  title: 'List session recordings',
  toolset: 'recordings',
  description: `A project's recordings: id, start, duration, activity and error counts, person, start URL. Last 3 days unless date_from; errors first: order="console_error_count".
Who did A then B, or A and never B: sequence (counted over the period). One person's, by email, name or any id: person.
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
      sequence: sequenceField.optional(),
      person: personField.optional(),
    }),
  outputSchema: z.looseObject({
    project_id: z.string(),
    results: z.array(recordingOutput.extend(matchedOutputFields)),
    matched_events_note: z.string().optional().describe('Why rows do not say, or not for every requested event, which requested events each has.'),
    ...pageOutputFields,
    start_hosts: z.record(z.string(), z.number().int()).optional(),
    note: z.string().optional(),
    person_properties_note: z.string().optional(),
    sequence_match: z.looseObject({ unrecorded_sessions: z.number().int(), unrecorded_reasons: z.record(z.string(), z.number().int()), partial: z.string().optional() }).optional(),
    person_match: z
      .looseObject({
        people: z.array(z.looseObject({ uuid: z.string(), distinct_ids: z.array(z.string()) })),
        elsewhere: z.array(z.looseObject({ project_id: z.number() })).optional(),
        unrecorded_sessions: z.number().int().optional(),
        unrecorded_reasons: z.record(z.string(), z.number().int()).optional(),
        unrecorded_partial: z.string().optional(),
      })
      .optional(),
    period: periodOutput,
    test_accounts: testAccountsOutput,
  }),
  async handler(input, { posthog, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    if (input.person && (input.person_uuid || input.distinct_ids)) throw new UserInputError('Give one of person, person_uuid and distinct_ids: they all pick whose recordings are listed.');
    const params: Record<string, unknown> = { date_from: input.date_from, date_to: input.date_to, person_uuid: input.person_uuid, session_ids: input.session_ids, ...filterParams(input) };
    // Checked before any request: the dates a sequence's or a person's query is bounded by.
    const period = input.sequence || input.person ? sequencePeriod(input.date_from, input.date_to) : undefined;

    let personMatch: { people: ReturnType<typeof personView>[]; unrecorded_sessions?: number; unrecorded_reasons?: Record<string, number>; unrecorded_partial?: string } | undefined;
    let unrecorded: PersonUnrecorded | undefined;
    if (input.person && period) {
      const found = await resolvePerson(posthog, projectId, input.person, signal);
      if (found.kind !== 'found') return personMissing(projectId, input.person, found);
      Object.assign(params, personParams(found.people));
      // Their sessions in the list's period that have events but no recording, and why (Deliver 4).
      unrecorded = await personUnrecorded(posthog, projectId, found.people, period, signal);
      personMatch = {
        people: found.people.map(personView),
        ...(unrecorded.unrecorded !== undefined ? { unrecorded_sessions: unrecorded.unrecorded, unrecorded_reasons: unrecorded.reasons ?? {} } : {}),
        ...(unrecorded.partial ? { unrecorded_partial: unrecorded.partial } : {}),
      };
    }

    let page: Page<Recording>;
    let sequenceData: { unrecorded_sessions: number; unrecorded_reasons: Record<string, number>; partial?: string } | undefined;
    const sequenceLines: string[] = [];
    if (input.sequence && period) {
      const sequence = parseSequence(input.sequence).sequence;
      const match = await matchSequence(posthog, projectId, sequence, period, signal);
      const ids = input.session_ids ? match.recordedIds.filter((id) => input.session_ids!.includes(id)) : match.recordedIds;
      const picked = await sequencePage(posthog, projectId, ids, { limit: input.limit, offset: input.offset, order: input.order, order_direction: input.order_direction, params }, signal);
      // Past the cap the query's number is exact only where nothing but the same dates could take recordings away.
      const exact = !picked.capped || !(hasFilters(input) || input.person || input.person_uuid || period.widened);
      const count = picked.capped && exact ? ids.length : picked.count;
      page = { results: picked.results, has_more: picked.has_more, next_offset: picked.next_offset, count };
      const partial = [
        match.truncated ? 'PostHog cut the query at its row limit: the numbers are a floor; narrow the dates.' : '',
        picked.capped ? `${ids.length} recorded sessions matched; the page is chosen among the latest ${MAX_SEQUENCE_LISTED}${exact ? '' : ', and count is of those'}.` : '',
      ].filter(Boolean).join(' ');
      sequenceData = { unrecorded_sessions: match.unrecorded, unrecorded_reasons: match.reasons, ...(partial ? { partial } : {}) };
      sequenceLines.push(`Sequence ${sequenceLabel(sequence, quote)}: ${count} matching recording${count === 1 ? '' : 's'}.`, unrecordedLine(match), partial);
    } else {
      page = await posthog.recordings.list(projectId, { limit: input.limit, offset: input.offset, order: input.order, order_direction: input.order_direction, ...params }, { signal });
    }
    // What the filter removed, so the agent need not list again without it (a sequence's page comes from a query).
    const testAccounts = input.filter_test_accounts && !input.sequence ? await testAccountsLeftOut(posthog, projectId, params, { page, offset: input.offset }, signal) : undefined;
    let results = page.results.map((r) => recordingView(r, { personProperties: input.include_person_properties }));
    // A person's or a sequence's rows say where the session itself ran, where the person's record does not.
    const context = input.person || input.sequence ? await sessionContexts(posthog, projectId, results, signal) : undefined;
    if (context) results = context.results;
    // Which of the requested events and actions each row has (with operand OR the list cannot tell): one query for the page.
    const matched = input.events || input.actions ? await withMatchedEvents(posthog, projectId, results, requestedOf(input), signal) : undefined;
    if (matched) results = matched.results;
    // The empty page's hint is a fact of both views (docs/design.md, "Both views").
    const note = results.length === 0 && !input.date_from ? 'PostHog searched the last 3 days; pass date_from (e.g. "-30d") to look further back.' : undefined;
    // A project that records more than one site says so (its start URLs' hosts), in both views.
    const hosts = hostCounts(results.map((r) => r.start_url));
    const cut = [personPropertiesNote(results), context?.note].filter(Boolean).join(' ') || undefined;
    const applied = appliedPeriod(input.date_from, input.date_to);
    const data = {
      project_id: projectId,
      ...page,
      results,
      period: applied,
      ...(testAccounts ? { test_accounts: testAccounts } : {}),
      ...(hosts ? { start_hosts: hosts } : {}),
      ...(note ? { note } : {}),
      ...(cut ? { person_properties_note: cut } : {}),
      ...(matched?.note ? { matched_events_note: matched.note } : {}),
      ...(sequenceData ? { sequence_match: sequenceData } : {}),
      ...(personMatch ? { person_match: personMatch } : {}),
    };
    const personLine = personMatch ? `${personMatch.people.length > 1 ? `${personMatch.people.length} people match: ` : 'Person '}${personMatch.people.map(personText).join('; ')}.` : '';
    const whose = personMatch && personMatch.people.length > 1 ? 'of these people' : 'of this person';
    const who = { one: `session ${whose} in the period has`, many: `sessions ${whose} in the period have` };
    const personUnrecordedLines = unrecorded ? [unrecordedLine({ unrecorded: unrecorded.unrecorded ?? 0, reasons: unrecorded.reasons ?? {} }, who, 'not listed'), unrecorded.partial ?? ''] : [];

    const header =
      results.length === 0
        ? `No recordings in project ${projectId} for these filters.${note ? ` ${note}` : ''}`
        : `${results.length} recording${results.length === 1 ? '' : 's'} in project ${projectId} (offset ${input.offset}${page.count !== undefined ? ` of ${page.count}` : ''}):`;
    const footer = page.has_more ? `More: call again with offset=${page.next_offset}.` : results.length ? 'End of list.' : '';
    const rows = results.flatMap((r) => [joinParts([recordingLine(r), matchedPart(r)]), personPropertiesLine(r, input.include_person_properties)]);
    const mixed = hosts ? `Start URLs on ${Object.keys(hosts).length} hosts: ${Object.entries(hosts).map(([host, n]) => `${quote(host)} ×${n}`).join(', ')}.` : '';
    return { data, text: [RECORDED_DATA_NOTICE, personLine, ...personUnrecordedLines, ...sequenceLines, header, ...rows, mixed, cut, matched?.note, periodLine(applied), testAccounts ? testAccountsLine(testAccounts) : '', footer].filter(Boolean).join('\n') };
  },
});

/** A found person as both views name them (their strings are the project's users' data). */
function personView(p: FoundPerson) {
  const safe = (v: string | null) => (v === null ? null : unbidi(clip(v, 200)));
  return { uuid: p.uuid, email: safe(p.email), name: safe(p.name), distinct_ids: p.distinctIds.map((id) => unbidi(clip(id, 200))) };
}

function personText(p: ReturnType<typeof personView>): string {
  const who = [p.name, p.email].filter((v): v is string => v !== null).map(quote).join(' ');
  return `${who || p.uuid} (person ${p.uuid}; distinct ids ${p.distinct_ids.map(quote).join(', ')})`;
}

/** No such person in the project: where else the key finds them, or that it does not; no recordings listed. */
function personMissing(projectId: string, search: string, found: Exclude<PersonResolution, { kind: 'found' }>) {
  const elsewhere = found.kind === 'elsewhere' ? found.projects.map((p) => ({ project_id: p.project_id, project_name: p.project_name === null ? null : unbidi(clip(p.project_name, 200)), people: p.people.map(personView) })) : [];
  const where = elsewhere.map((p) => `project ${p.project_id}${p.project_name ? ` ${quote(p.project_name)}` : ''}: ${p.people.map(personText).join('; ')}`);
  const text =
    found.kind === 'elsewhere'
      ? `No person ${quote(search)} in project ${projectId}. Found in ${where.join(' | ')}. Their recordings: call again with that project_id.`
      : `No person ${quote(search)} (email, name or distinct id) in project ${projectId}, nor in the ${found.searched} other project${found.searched === 1 ? '' : 's'} this key reads. An anonymous visitor is not a person: pass distinct_ids for their id.`;
  return { data: { project_id: projectId, results: [], has_more: false, next_offset: null, person_match: { people: [], elsewhere } , note: text }, text };
}

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
