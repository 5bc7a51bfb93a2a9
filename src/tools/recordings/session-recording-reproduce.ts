import { z } from 'zod';
import type { PostHogOperations } from '../../posthog/operations/index.js';
import { RecordingMeter, planUnits } from '../../posthog/snapshots.js';
import { defineTool } from '../define.js';
import { projectIdField, recordingIdField, resolveProjectId } from '../schemas.js';
import { partialOf } from './recording-digest.js';
import { explainRecordingError } from './not-found.js';
import { readSessionExceptions } from './session-exceptions.js';
import { streamUnits } from './unit-walk.js';
import { quote } from '../../digest/quote.js';
import type { Rendered } from '../../reproduce/code.js';
import type { ReproductionInput, ReproductionRead } from '../../reproduce/feed.js';
import type { ExceptionEvent } from '../../reproduce/journey.js';
import type { JobRunner } from '../../digest/runner.js';
import { RECORDED_DATA_NOTICE } from '../format.js';

export const sessionRecordingReproduce = defineTool({
  name: 'session-recording-reproduce',
  title: 'Playwright test from a recording',
  toolset: 'recordings',
  description: `A runnable @playwright/test spec replaying the person's steps, failing where the session failed (failed requests, console errors, exceptions, asserted at their step). Typed values become REPRO_* env placeholders.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  recordedData: true,
  inputSchema: (options) =>
    z.strictObject({
      project_id: projectIdField(options),
      id: recordingIdField,
      failure: z.number().int().min(1).max(100).optional().describe('Which of failures to assert; default the first.'),
      copy_typed_values: z.boolean().default(false).describe('Copy typed values (never secret, payment or masked).'),
    }),
  // Declared: what an agent saves and runs. Also returned (and said in the text): steps [{at_ms, tab, page, action,
  // selector, note}], asserts [{n, step, kind, says}], failures (every one the recording shows,
  // numbered for `failure`), placeholders [{env, default, field…}],
  // skipped, and partial when reading stopped short (undeclared: the tool list has a size budget).
  outputSchema: z.looseObject({
    filename: z.string(),
    code: z.string(),
    base_url: z.string().nullable(),
  }),
  async handler(input, { posthog, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const meta = await posthog.recordings.get(projectId, input.id, { signal });
    const [{ startReproduction }, { renderSpec }] = await Promise.all([import('./jobs.js'), import('../../reproduce/code.js')]);
    // The reproduction is made in a worker (jobs.ts): however large a recorded page, no other call waits for it.
    const job = await startReproduction(signal, posthog.keyIdentity);
    const { read, exceptions, made } = await readRecording(posthog, projectId, input.id, signal, job, readSessionExceptions(posthog.query, projectId, input.id, meta, signal)).finally(() => job.close());
    const rendered = renderSpec(made.reproduction, { recordingId: input.id, projectId, copyTypedValues: input.copy_typed_values, failure: input.failure });
    const skipped = [...read.notes, ...(exceptions.unread ? [`Exceptions not asserted: ${exceptions.unread}.`] : []), ...rendered.skipped];
    const partial = read.stopped ? partialOf(read.stopped, read.notRead) : undefined;
    if (partial) skipped.unshift(`PARTIAL: ${partial.message}${partial.not_read ? ` Not read: ${partial.not_read}.` : ''} The test covers the recording up to where reading stopped${partial.retry_after_seconds !== undefined ? `; call again in about ${partial.retry_after_seconds} s for all of it` : ''}.`);
    const data = { project_id: projectId, id: input.id, ...rendered, skipped, ...(partial ? { partial } : {}) };
    return { data, text: renderText(data) };
  },
  explainError: (error, input, { defaultProjectId }) => explainRecordingError(error, input.id, input.project_id ?? defaultProjectId),
});

/**
 * Every event of the recording through the reproduction, with the shared bounded reader, while
 * the session's exceptions are read; then the reproduction, given them.
 */
async function readRecording<X extends { events?: ExceptionEvent[] | undefined }>(posthog: PostHogOperations, projectId: string, id: string, signal: AbortSignal, job: JobRunner<ReproductionRead>, exceptionsRead: Promise<X>) {
  // At most MAX_REQUESTS_PER_RECORDING requests for the recording, as every reader of one.
  const meter = new RecordingMeter();
  const read = async () => {
    // A throttle before anything could be read is thrown: an empty test would be a wrong answer.
    const units = planUnits(await posthog.snapshots.sources(projectId, id, { signal, meter }));
    return streamUnits((unit) => posthog.snapshots.blocks(projectId, id, unit, { signal, meter, via: job.via }), units, signal, job);
  };
  const [walk, exceptions] = await Promise.all([read(), exceptionsRead]);
  const made = await job.finish({ exceptions: exceptions.events } satisfies ReproductionInput);
  if (walk.stopped && made.events === 0) throw walk.stopped;
  if (made.events === 0 && walk.unavailable) throw walk.unavailable;
  const notes = [...walk.notes];
  if (made.skippedLines > 0) notes.push(`${made.skippedLines} line(s) of snapshot data were not events and were skipped.`);
  return { read: { stopped: walk.stopped, notRead: walk.notRead, notes }, exceptions, made };
}

/**
 * The text says what the structured view holds, in the same order a reader needs it: what the test
 * does and where it fails, every failure the recording shows, the asserts, the steps, the
 * placeholders, what was left out and why, then the spec itself. Recorded strings (pages,
 * selectors, values) are quoted; the failures' and asserts' wording quotes its recorded parts.
 */
function renderText(data: Rendered & { id: string; project_id: string }): string {
  const checks = data.asserts.filter((a) => a.kind === 'request' || a.kind === 'console' || a.kind === 'exception');
  const asserted = (f: Rendered['failures'][number]) => checks.some((a) => a.step === f.step && a.kind === f.kind);
  const lines = [
    RECORDED_DATA_NOTICE,
    `Playwright test for recording ${data.id} (project ${data.project_id}): ${data.steps.length} step(s); ${
      checks.length > 0 ? `it fails today at step ${checks[0]!.step}, where the session failed, and passes once that is fixed` : "the recording shows nothing wrong: it checks the journey ends where the person's did"
    }.`,
    `Save it as ${data.filename} and point it at a site in playwright.config.ts${data.base_url ? `, e.g. the recorded one: use: { baseURL: ${quote(data.base_url)} }` : ' (use.baseURL)'}.`,
  ];
  if (data.failures.length > 0) {
    lines.push(`Failures the recording shows (${data.failures.length}; this test asserts those marked "asserted"; call again with failure=n for a test of another):`);
    for (const f of data.failures) lines.push(`${f.n}. step ${f.step}, ${f.kind}: ${f.says}${asserted(f) ? ' (asserted)' : ''}`);
  }
  lines.push(`Asserts (${data.asserts.length}):`, ...data.asserts.map((a) => `${a.n}. step ${a.step}, ${a.kind}: ${a.says}`));
  lines.push('Steps (time, tab, page, action, target, note):');
  data.steps.forEach((step, i) => {
    const target = step.selector === null ? '' : ` ${quote(step.selector)}`;
    lines.push(`${i + 1}. ${clock(step.at_ms)} tab ${step.tab} ${quote(step.page)} ${step.action}${target}${step.note ? `; ${step.note}` : ''}`);
  });
  if (data.placeholders.length > 0) {
    lines.push('Placeholders (environment variable = default, for the field; how the default was chosen):');
    for (const p of data.placeholders) lines.push(`${p.env} = ${quote(p.default)} for ${quote(p.field)}; ${p.source}${p.relative ? ` (computed when the test runs: ${p.relative})` : ''}${p.byLabel ? ' (an option chosen by its label)' : ''}${p.withheld ? ` (${p.withheld})` : ''}`);
  }
  if (data.skipped.length > 0) lines.push('Left out:', ...data.skipped.map((s) => `- ${s}`));
  const fence = '`'.repeat(Math.max(3, ...[...data.code.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  lines.push(`${fence}ts\n${data.code}${fence}`);
  return lines.join('\n');
}

/** m:ss from the start of the journey. */
function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
