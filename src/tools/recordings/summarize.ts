import { randomBytes } from 'node:crypto';
import { quote } from '../../digest/quote.js';
import { BudgetExceeded } from '../../posthog/budget.js';
import { RecordingMeter } from '../../posthog/snapshots.js';
import type { ToolContext } from '../define.js';
import { RECORDED_DATA_NOTICE, structuredSize } from '../format.js';
import { resolveProjectId } from '../schemas.js';
import { clip, clock, plural } from '../../words.js';
import { digestRecording, partialOf, type DigestContext } from './recording-digest.js';
import { onRecordingClock, readSessionExceptions, type ExceptionOnClock } from './session-exceptions.js';
import { tailOf } from './tail.js';
import { eventsAfterBlock, readEventsAfter } from './tail-events.js';

// One recording's digest as a summary: what session-recording-summary returns, and what
// session-recording-replay returns beside its player.

/** What a partial summary says, in both views: why, what was not read, and how to get the rest. */
function partialNext(partial: ReturnType<typeof partialOf>): string {
  return `The summary covers the recording up to where reading stopped.${partial.retry_after_seconds !== undefined ? ` Call again in about ${partial.retry_after_seconds} seconds for a whole summary, or read the rest with session-recording-snapshots.` : ' For the rest, read it with session-recording-snapshots.'}`;
}

/**
 * The digest of one recording as the summary returns it (the replay returns it too): its text,
 * and its structured view with the same facts, both within max_chars. With `readUntil`, reading
 * stops at that moment once something was read, and the result is partial. The summary's text
 * says what to do about a partial reading; `partial` lets the replay say it its own way.
 */
export async function summarizeRecording(
  input: { project_id?: string | undefined; id: string; max_chars: number },
  { posthog, defaultProjectId, signal, cache }: ToolContext,
  readUntil?: DigestContext['readUntil'],
  /** Also read the session's `$exception` events (query API), beside the recording: the summary does; the replay, which must answer at once, does not. */
  options: {
    exceptions?: boolean;
    partialSaidBy?: 'summary' | 'caller';
    /** Where the blocks stop short of what PostHog lists, read the session's events after them (query API): the summary does. */
    eventsAfter?: boolean;
  } = {},
) {
  const projectId = resolveProjectId(input.project_id, defaultProjectId);
  // The metadata first: it names the person, shows the key may read the recording, and for a
  // recording that is over lets a cached digest answer with no replay request at all.
  // One reading of one recording, metadata included, makes at most MAX_REQUESTS_PER_RECORDING requests.
  const meter = new RecordingMeter();
  const meta = await posthog.recordings.get(projectId, input.id, { signal, meter });
  // Asked at once, beside the recording's blocks; it never fails the summary (session-exceptions.ts).
  const exceptionsRead = options.exceptions ? readSessionExceptions(posthog.query, projectId, input.id, meta, signal) : undefined;
  exceptionsRead?.catch(() => {});
  let result;
  try {
    result = await digestRecording({ posthog, signal, cache, meter, readUntil }, projectId, input.id, meta);
  } catch (err) {
    if (!(err instanceof BudgetExceeded)) throw err;
    // Throttled before anything could be read: no summary yet, and when to ask again.
    const partial = partialOf(err);
    const when = partial.retry_after_seconds !== undefined ? `Call again in about ${partial.retry_after_seconds} seconds.` : '';
    const next = when || 'Call again later.';
    return {
      data: { id: input.id, project_id: projectId, partial: { ...partial, next } },
      // The structured view says the notice (server.ts): the text says it too, as in every result.
      text: `No summary of recording ${input.id} yet: ${err.message} ${next}\n${RECORDED_DATA_NOTICE}`,
      meta,
      digest: undefined,
      partial,
    };
  }
  const stopped = result.stopped ?? result.bounded;
  const exceptions = await exceptionsRead;
  const unreadNote = exceptions?.unread
    ? [`Exceptions not read: ${exceptions.unread}.`]
    : exceptions?.limited
      ? [`Exceptions: the first ${exceptions.events.length} read (the most one query asks for); the session may have more.`]
      : [];
  // Still recording, or its tail not arrived: said first, where PostHog's list and the blocks differ (tail.ts).
  const tail = tailOf(meta, result.digest, stopped !== undefined);
  // What PostHog's events already hold after the last block (tail-events.ts): one bounded query.
  const after = options.eventsAfter && tail && !stopped ? await readEventsAfter(posthog, projectId, input.id, result.digest, signal) : undefined;
  // A copy when there is a note to add: the digest may be the cache's.
  const digest = unreadNote.length || tail ? { ...result.digest, notes: [...(tail ? [tail.says] : []), ...result.digest.notes, ...unreadNote] } : result.digest;
  const shown: ExceptionOnClock[] = exceptions?.events ? onRecordingClock(exceptions.events, digest) : [];
  const partial = stopped ? partialOf(stopped, result.notRead) : undefined;
  const partialView = partial && options.partialSaidBy !== 'caller' ? { ...partial, next: partialNext(partial) } : undefined;
  const partialLine = partialView ? `PARTIAL: ${partialView.message}${partialView.not_read ? ` Not read: ${partialView.not_read}.` : ''} ${partialView.next}` : '';
  const { renderDigest } = await loadRenderer();
  const person = personOf(meta);
  const multiWindow = digest.windows.length > 1;

  // Text and structured view from one rendering; both within max_chars (the structured one with
  // the notice server.ts puts first). The structured view runs longer than the text for the same
  // facts (JSON's keys and escapes): when it does not fit, both are rendered again, smaller.
  const compose = (budget: number) => {
    const block = exceptionsBlock(shown, multiWindow, Math.floor(budget * EXCEPTIONS_SHARE));
    const afterBlock = after ? eventsAfterBlock(after, digest, Math.floor(budget * AFTER_SHARE)) : undefined;
    const rendered = renderDigest(
      digest,
      { id: input.id, projectId, person, notice: RECORDED_DATA_NOTICE, maxChars: input.max_chars },
      budget - (block.text ? block.text.length + 1 : 0) - (afterBlock ? afterBlock.text.length + 1 : 0) - (partialLine ? partialLine.length + 1 : 0),
    );
    const data = {
      ...rendered.view,
      ...(tail?.ongoing ? { ongoing: true } : {}),
      ...(afterBlock ? { after_last_block: afterBlock.view } : {}),
      ...(block.listed.length ? { exceptions: block.listed } : {}),
      ...(block.more ? { exceptions_left_out: block.more } : {}),
      ...(partialView ? { partial: partialView } : {}),
    };
    const text = [rendered.text, ...(afterBlock ? [afterBlock.text] : []), ...(block.text ? [block.text] : []), ...(partialLine ? [partialLine] : [])].join('\n');
    return { data, text };
  };
  let view = compose(input.max_chars);
  for (let tries = 0; tries < 4; tries++) {
    const size = structuredSize(view.data);
    if (size <= input.max_chars) break;
    view = compose(Math.floor(view.text.length * (input.max_chars / size)) - 20);
  }
  return {
    ...view,
    partial,
    meta,
    digest,
  };
}

/** The most of max_chars the exceptions take; the digest has the rest. */
const EXCEPTIONS_SHARE = 0.4;
/** The most of max_chars the events after the last block take. */
const AFTER_SHARE = 0.2;

/**
 * The exceptions for the text, fenced as the digest's recorded data is (a nonce of its own):
 * their type and message were written by the recorded site. As many as `budget` characters
 * hold; the rest are counted. `listed` is the same exceptions for the structured view.
 */
function exceptionsBlock(shown: ExceptionOnClock[], multiWindow: boolean, budget: number): { text: string; listed: Array<{ at: string; w?: string; type: string; message: string; handled?: boolean }>; more: number } {
  if (shown.length === 0) return { text: '', listed: [], more: 0 };
  const nonce = randomBytes(4).toString('hex');
  const head = `${exceptionsHeading(shown)}:`;
  const open = `<<recorded-data ${nonce}>>`;
  const close = `<<end recorded-data ${nonce}>>`;
  const moreLine = (n: number) => `  …and ${n} more left out for max_chars (raise it to see them).`;
  const lines: string[] = [];
  const listed: Array<{ at: string; w?: string; type: string; message: string; handled?: boolean }> = [];
  let used = head.length + open.length + close.length + moreLine(shown.length).length + 4;
  for (const e of shown) {
    const at = `${e.t_ms < 0 ? '-' : ''}${clock(Math.abs(e.t_ms))}`;
    const w = multiWindow && e.w ? e.w : undefined;
    const type = clip(e.type, 60);
    const message = clip(e.message, 160);
    // Uncaught or handled as the event says it, after the quoted text; nothing where it does not say.
    const how = e.handled === undefined ? '' : e.handled ? ' (handled)' : ' (uncaught)';
    const line = `  ${at}${w ? ` ${w}` : ''} ${quote(type)} ${quote(message)}${how}`;
    if (used + line.length + 1 > budget) break;
    used += line.length + 1;
    lines.push(line);
    listed.push({ at, ...(w ? { w } : {}), type, message, ...(e.handled !== undefined ? { handled: e.handled } : {}) });
  }
  const more = shown.length - lines.length;
  return { text: [head, open, ...lines, ...(more > 0 ? [moreLine(more)] : []), close].join('\n'), listed, more };
}

/**
 * "Exceptions (3 $exception events: 1 uncaught, 1 handled, 1 not said; recorded data)": each
 * counted as its event says it (`mechanism.handled`), never guessed.
 */
function exceptionsHeading(shown: ReadonlyArray<{ handled?: boolean | undefined }>): string {
  const uncaught = shown.filter((e) => e.handled === false).length;
  const handled = shown.filter((e) => e.handled === true).length;
  const unsaid = shown.length - uncaught - handled;
  const parts = [...(uncaught ? [`${uncaught} uncaught`] : []), ...(handled ? [`${handled} handled`] : []), ...(unsaid && unsaid < shown.length ? [`${unsaid} not saying which`] : [])];
  return `Exceptions (${plural(shown.length, '$exception event')}${parts.length ? `: ${parts.join(', ')}` : ''}; recorded data)`;
}

/** The renderer is loaded by the first summary, not at start-up (see recording-digest.ts). */
const loadRenderer = () => import('../../digest/render.js');

function personOf(meta: Record<string, unknown> | null | undefined): { distinct_id: string | null; name: string | null } | null {
  if (!meta) return null;
  const person = (typeof meta.person === 'object' && meta.person !== null ? meta.person : {}) as Record<string, unknown>;
  const distinctId = typeof meta.distinct_id === 'string' ? meta.distinct_id.slice(0, 200) : null;
  const name = typeof person.name === 'string' ? person.name.slice(0, 200) : null;
  return distinctId === null && name === null ? null : { distinct_id: distinctId, name };
}
