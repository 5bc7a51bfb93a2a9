import { z } from 'zod';
import type { PostHogClient } from '../../posthog/client.js';
import { apiPath } from '../../posthog/query.js';
import { RecordingMeter, parseSources, planUnits } from '../../posthog/snapshots.js';
import { defineTool } from '../define.js';
import { projectIdField, recordingIdField, resolveProjectId } from '../schemas.js';
import { fetchListing, partialOf, snapshotsPath } from './recording-digest.js';
import { recordingNotFound } from './session-recording-get.js';
import { readSessionExceptions } from './session-exceptions.js';
import { walkUnits } from './unit-walk.js';

export const sessionRecordingReproduce = defineTool({
  name: 'session-recording-reproduce',
  title: 'Playwright test from a recording',
  toolset: 'recordings',
  description: `A runnable @playwright/test spec replaying the person's steps, failing where the session failed (failed requests, console errors, exceptions, asserted at their step). Typed values become REPRO_* env placeholders.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: (options) =>
    z.strictObject({
      project_id: projectIdField(options),
      id: recordingIdField.describe('Recording (session) id.'),
      failure: z.number().int().min(1).max(100).optional().describe('Which of failures to assert; default the first.'),
      copy_typed_values: z.boolean().default(false).describe('Copy typed values (never secret, payment or masked).'),
    }),
  // Declared: what an agent saves and runs. Also returned: steps [{at_ms, tab, page, action,
  // selector, note}], asserts [{n, step, kind, says}], failures (every one the recording shows,
  // numbered for `failure`), placeholders [{env, default, field…}],
  // skipped, and partial when reading stopped short (undeclared: the tool list has a size budget).
  outputSchema: z.looseObject({
    filename: z.string(),
    code: z.string(),
    base_url: z.string().nullable(),
  }),
  async handler(input, { client, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const meta = await client.json<Record<string, unknown>>({ method: 'GET', path: apiPath('projects', projectId, 'session_recordings', input.id), signal });
    const [{ Reproducer }, { renderSpec }] = await Promise.all([import('../../reproduce/session.js'), import('../../reproduce/code.js')]);
    const reproducer = new Reproducer();
    const [read, exceptions] = await Promise.all([readRecording(client, projectId, input.id, signal, reproducer), readSessionExceptions(client, projectId, input.id, meta, signal)]);
    if (exceptions.events) reproducer.addExceptions(exceptions.events);
    const rendered = renderSpec(reproducer.finish(), { recordingId: input.id, projectId, copyTypedValues: input.copy_typed_values, failure: input.failure });
    const skipped = [...read.notes, ...(exceptions.unread ? [`Uncaught exceptions not asserted: ${exceptions.unread}.`] : []), ...rendered.skipped];
    const partial = read.stopped ? partialOf(read.stopped, read.notRead) : undefined;
    if (partial) skipped.unshift(`PARTIAL: ${partial.message} The test covers the recording up to where reading stopped${partial.retry_after_seconds !== undefined ? `; call again in about ${partial.retry_after_seconds} s for all of it` : ''}.`);
    const failing = rendered.asserts.filter((a) => a.kind === 'request' || a.kind === 'console' || a.kind === 'exception');
    const fence = '`'.repeat(Math.max(3, ...[...rendered.code.matchAll(/`+/g)].map((m) => m[0].length + 1)));
    const text = [
      `Playwright test for recording ${input.id}: ${rendered.steps.length} steps; ${failing.length > 0 ? `fails today at ${failing.map((a) => `step ${a.step} (${a.says})`).join('; ')}` : 'the recording shows nothing wrong: it checks the journey ends where the person\'s did'}.`,
      ...(rendered.failures.length > failing.length ? [`The recording shows ${rendered.failures.length} failures in all (see failures); call again with failure=n for a test of another.`] : []),
      `Save as ${rendered.filename}; point it at a site in playwright.config.ts${rendered.base_url ? `, e.g. the recorded one: use: { baseURL: ${JSON.stringify(rendered.base_url)} }` : ' (use.baseURL)'}.`,
      ...(rendered.placeholders.length ? [`Placeholders: ${rendered.placeholders.map((p) => p.env).join(', ')}.`] : []),
      ...skipped.map((s) => `Note: ${s}`),
      `${fence}ts\n${rendered.code}${fence}`,
    ].join('\n');
    return {
      data: { project_id: projectId, id: input.id, ...rendered, skipped, ...(partial ? { partial } : {}) },
      text,
    };
  },
  explainError: (error, input, { defaultProjectId }) => {
    if (error.status === 404) return recordingNotFound(input.id, input.project_id ?? defaultProjectId);
    if (error.status === 410) return `Recording ${input.id} was deleted; its snapshot data is gone.`;
    return undefined;
  },
});

/** Every event of the recording through the reproducer, with the shared bounded reader. */
async function readRecording(client: PostHogClient, projectId: string, id: string, signal: AbortSignal, reproducer: { push(w: string | null, e: { type: number; timestamp: number; data?: unknown }): void }) {
  // At most MAX_REQUESTS_PER_RECORDING requests for the recording, as every reader of one.
  const meter = new RecordingMeter();
  // A throttle before anything could be read is thrown: an empty test would be a wrong answer.
  const units = planUnits(parseSources(await fetchListing(client, projectId, id, signal, meter)));
  let events = 0;
  const walk = await walkUnits(
    client,
    snapshotsPath(projectId, id),
    { units, index: 0, skip: 0 },
    signal,
    (windowId, event) => {
      events++;
      reproducer.push(windowId, event);
      return 'more';
    },
    meter,
  );
  if (walk.stopped && events === 0) throw walk.stopped;
  if (events === 0 && walk.unavailable) throw walk.unavailable;
  const notes = [...walk.notes];
  if (walk.skippedLines > 0) notes.push(`${walk.skippedLines} line(s) of snapshot data were not events and were skipped.`);
  return { stopped: walk.stopped, notRead: walk.notRead, notes };
}

