import { randomBytes } from 'node:crypto';
import type { Digest } from '../../digest/digest.js';
import { quote } from '../../digest/quote.js';
import type { PostHogOperations, SessionEvent } from '../../posthog/operations/index.js';
import { maskUrlSecrets, maskUrlSecretsInText } from '../../url-secrets.js';
import { clip, clock, duration, plural } from '../../words.js';
import { whyNotQueried } from './session-exceptions.js';

/**
 * The end of an ongoing recording from its events (issue 44 item 5): where the stored blocks stop
 * short of what PostHog lists, the session's page views, screens, exceptions and custom events
 * after the last block are already in PostHog's events. One bounded query reads them
 * (operations/sessions.ts), and the summary lists them as events without replay data: what
 * happened next, before the blocks that show it arrive.
 */

/** A session ends within a day of its last stored block (posthog-js starts a new one after 30 minutes idle, and at 24 hours). */
const READ_AFTER_MS = 86_400_000;
/** The latest moment a Date holds. */
const MAX_DATE_MS = 8.64e15;

/** What was read after the last block: the events, or why they could not be read. */
export type EventsAfter = { events: SessionEvent[]; limited: boolean; end: number; unread?: undefined } | { unread: string; events?: undefined };

/** The events after the digest's end; never fails the summary (a refusal is said as `unread`). */
export async function readEventsAfter(posthog: PostHogOperations, projectId: string, id: string, digest: Pick<Digest, 'end'>, signal: AbortSignal): Promise<EventsAfter | undefined> {
  if (digest.end === null || !Number.isFinite(digest.end) || Math.abs(digest.end) >= MAX_DATE_MS) return undefined;
  try {
    const read = await posthog.sessions.eventsAfter(projectId, id, new Date(digest.end), new Date(Math.min(digest.end + READ_AFTER_MS, MAX_DATE_MS)), { signal });
    return { ...read, end: digest.end };
  } catch (err) {
    if (signal.aborted) throw err;
    return { unread: whyNotQueried(err, 'them', 'them') };
  }
}

/** One event after the blocks as the structured view lists it; its strings are recorded data. */
export type EventAfterView = {
  /** m:ss from the recording's start, as the timeline's times */
  at: string;
  w?: string;
  event: string;
  url?: string;
  type?: string;
  message?: string;
};

/**
 * The events after the last block for both views: a heading that marks them as events without
 * replay data, the lines fenced as recorded data (a nonce of its own), as many as `budget`
 * characters hold (the rest counted), and the same events for the structured view.
 */
export function eventsAfterBlock(
  read: EventsAfter,
  digest: Pick<Digest, 'start' | 'windows'>,
  budget: number,
): { text: string; view: { note: string; events: EventAfterView[]; left_out?: number } } | undefined {
  if (read.unread !== undefined) {
    const note = `Events after the last stored block not read: ${read.unread}.`;
    return { text: note, view: { note, events: [] } };
  }
  if (read.events.length === 0) return undefined;
  const start = digest.start ?? read.end;
  const multiWindow = digest.windows.length > 1;
  const labels = new Map(digest.windows.filter((w) => w.window_id !== null).map((w) => [w.window_id!, w.w]));
  const count = `${read.limited ? 'the first ' : ''}${plural(read.events.length, 'event')}`;
  const note = `After the last stored block (${duration((read.end - start) / 1000)} into the recording), PostHog already has ${count} of this session: events without replay data (page views, exceptions, custom events), not yet in the timeline above.`;
  const nonce = randomBytes(4).toString('hex');
  const open = `<<recorded-data ${nonce}>>`;
  const close = `<<end recorded-data ${nonce}>>`;
  const moreLine = (n: number) => `  …and ${n} more left out for max_chars (raise it to see them).`;
  const lines: string[] = [];
  const events: EventAfterView[] = [];
  let used = note.length + open.length + close.length + moreLine(read.events.length).length + 4;
  for (const e of read.events) {
    const shown = viewOf(e, start, multiWindow ? labels : undefined);
    const line = `  ${lineOf(shown)}`;
    if (used + line.length + 1 > budget) break;
    used += line.length + 1;
    lines.push(line);
    events.push(shown);
  }
  const more = read.events.length - events.length;
  return {
    text: [note, open, ...lines, ...(more > 0 ? [moreLine(more)] : []), close].join('\n'),
    view: { note, events, ...(more > 0 ? { left_out: more } : {}) },
  };
}

/** An event's parts, masked and cut as the digest's are: URLs' secrets, exception text that may quote one. */
function viewOf(e: SessionEvent, start: number, labels: Map<string, string> | undefined): EventAfterView {
  const w = e.windowId === undefined ? undefined : labels?.get(e.windowId);
  return {
    at: clock(Math.max(0, e.at - start)),
    ...(w ? { w } : {}),
    event: clip(e.event, 80),
    ...(e.url ? { url: clip(maskUrlSecrets(e.url), 200) } : {}),
    ...(e.type ? { type: clip(maskUrlSecretsInText(e.type), 60) } : {}),
    ...(e.message ? { message: clip(maskUrlSecretsInText(e.message.slice(0, 600)), 160) } : {}),
  };
}

/** "3:06 page view "https://…/cart"", "3:10 exception "TypeError" "…"", "3:12 event "checkout_started" on "https://…"". */
function lineOf(v: EventAfterView): string {
  const head = `${v.at}${v.w ? ` ${v.w}` : ''}`;
  const on = v.url ? ` on ${quote(v.url)}` : '';
  if (v.event === '$pageview' || v.event === '$screen') return `${head} ${v.event === '$screen' ? 'screen' : 'page view'} ${quote(v.url ?? '')}`;
  if (v.event === '$exception') return `${head} exception ${quote(v.type ?? 'Error')}${v.message ? ` ${quote(v.message)}` : ''}${on}`;
  return `${head} event ${quote(v.event)}${on}`;
}
