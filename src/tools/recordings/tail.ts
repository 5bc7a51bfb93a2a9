import type { Digest } from '../../digest/digest.js';
import { duration, plural } from '../../words.js';

/**
 * What PostHog lists for a recording and its digest holds, when they differ or the recording is
 * still going (issue 32): PostHog's list and metadata give `ongoing`, `recording_duration` (s) and
 * `click_count` for the whole session, while the blocks hold only what was stored so far. Said
 * rather than left for the reader to find the two disagreeing: "Still recording: PostHog lists
 * 4:31 and 8 clicks; the blocks so far hold 2:52 and 5 clicks."
 */
export interface Tail {
  ongoing: boolean;
  /** The sentence both views carry (a note in the summary and replay, the session's line in the triage). */
  says: string;
}

/** PostHog rounds a recording's duration to the second; a digest a little shorter is the same length. */
const SAME_LENGTH_MS = 2_000;

export function tailOf(
  meta: Record<string, unknown> | null | undefined,
  digest: Pick<Digest, 'duration_ms' | 'counts'>,
  /** The digest stopped reading before the end (a partial result says so itself). */
  partial = false,
): Tail | undefined {
  if (!meta) return undefined;
  const ongoing = meta.ongoing === true;
  const seconds = meta.recording_duration;
  const listedMs = typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const listedClicks = typeof meta.click_count === 'number' && Number.isFinite(meta.click_count) && meta.click_count >= 0 ? meta.click_count : undefined;
  const heldClicks = digest.counts.clicks;
  const shorter = listedMs !== undefined && listedMs - digest.duration_ms > SAME_LENGTH_MS;
  const fewerClicks = listedClicks !== undefined && listedClicks > heldClicks;
  if (partial) return ongoing ? { ongoing, says: 'Still recording: PostHog lists the recording as in progress; more may arrive after what was read.' } : undefined;
  if (!ongoing && !shorter) return undefined;
  const listed = [...(listedMs !== undefined ? [duration(listedMs / 1000)] : []), ...(listedClicks !== undefined ? [plural(listedClicks, 'click')] : [])];
  const held = [duration(digest.duration_ms / 1000), plural(heldClicks, 'click')];
  const differ = shorter || fewerClicks;
  const compare = differ && listed.length ? `PostHog lists ${listed.join(' and ')}; the blocks so far hold ${held.join(' and ')}` : '';
  if (ongoing) {
    return {
      ongoing,
      says: compare
        ? `Still recording: ${compare}. The rest has not arrived yet: summarize again later for it.`
        : 'Still recording: PostHog lists the recording as in progress; more may arrive: summarize again later for it.',
    };
  }
  return { ongoing, says: `The tail has not arrived: ${compare}. PostHog no longer lists it as in progress, but its last data is not in the blocks yet (or was lost): summarize again later for it.` };
}
