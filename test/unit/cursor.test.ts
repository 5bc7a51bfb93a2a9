import { describe, expect, it } from 'vitest';
import type { FetchUnit } from '../../src/posthog/snapshots.js';
import { cursorAt, decodeCursor, encodeCursor, resumeFrom } from '../../src/tools/recordings/snapshot-cursor.js';

describe('snapshot cursors', () => {
  const many: FetchUnit[] = Array.from({ length: 1_000 }, (_, i) => ({ kind: 'blob', key: `${1_747_540_783_283 + i}-${1_747_540_787_122 + i}` }));

  it('stay small however many sources a recording has, and resume at the same place from a fresh listing', () => {
    const cursor = encodeCursor(cursorAt('rec', '1', { units: many.slice(400), index: 400, skip: 7 }));
    expect(cursor.length).toBeLessThan(200);
    const state = decodeCursor(cursor, 'rec', '1');
    expect(state.u).toBeUndefined();
    const position = resumeFrom(state, many);
    expect(position.units[0]).toEqual(many[400]);
    expect(position.units).toHaveLength(600);
    expect(position.skip).toBe(7);
  });

  it('carry short unit lists, with a blob_v2 range resumed at its current block', () => {
    const units: FetchUnit[] = [{ kind: 'blob_v2', start: 20, end: 39 }, { kind: 'realtime', after: 5 }];
    const state = decodeCursor(encodeCursor(cursorAt('rec', '1', { units, index: 1, skip: 3 })), 'rec', '1');
    expect(state.u).toEqual(units);
    expect(resumeFrom(state, undefined)).toEqual({ units, index: 1, skip: 3 });
    const plan: FetchUnit[] = [{ kind: 'blob_v2', start: 0, end: 19 }, { kind: 'blob_v2', start: 0, end: 39 }];
    expect(resumeFrom({ r: 'rec', p: '1', i: 1, b: 20, s: 0 }, plan).units[0]).toEqual({ kind: 'blob_v2', start: 20, end: 39 });
  });
});
