// Why a sequence's or a person's session has events but no recording PostHog shows, as the list
// counts them (sequence.ts tallyUnrecorded): the cause what posthog-js wrote on its events says,
// and "expired" before any of them when the query found its recording stored but past the TTL or
// its retention (a recording once made says nothing of sampling).
import { describe, expect, it } from 'vitest';
import { tallyUnrecorded, unrecordedLine } from '../../src/tools/recordings/sequence.js';

const session = (sampled: string | null, statuses: string[], expired = false) => ({ sampled, statuses, expired });

describe('tallyUnrecorded', () => {
  it('counts each session under the one cause its evidence gives', () => {
    const tally = tallyUnrecorded([
      session('!s1', ['disabled']),
      session('s2', ['active', 'buffering']),
      session(null, ['disabled', 'lazy_loading']),
      session('s4', ['active'], true),
      session(null, ['active']),
    ]);
    expect(tally).toEqual({ unrecorded: 5, reasons: { sampled_out: 1, too_short: 1, replay_off: 1, expired: 1, unknown: 1 } });
    expect(unrecordedLine(tally)).toBe(
      '5 more matching sessions have events but no recording (sampled out 1; sampled in but never sent (shorter than the minimum duration, or not yet ingested) 1; replay off 1; expired (past the retention or TTL) 1; events do not tell 1); not counted, not listed.',
    );
  });

  it('says nothing where every session was recorded', () => {
    expect(unrecordedLine(tallyUnrecorded([]))).toBe('');
  });
});
