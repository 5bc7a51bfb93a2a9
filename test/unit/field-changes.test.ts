import { describe, expect, it } from 'vitest';
import { changeLines, describeProjectChanges, fieldChanges } from '../../src/tools/projects/confirm-changes.js';

// PostHog's GET reads a JSON setting back from Postgres (jsonb orders its keys), while a PATCH
// answers with the value as the request gave it: the same setting can come back with its keys in
// another order. That is no change, and the answer must not claim one.
describe('fieldChanges and the confirmation question: a setting is compared by value, not by key order', () => {
  it('an object setting written back with its keys in another order is unchanged', () => {
    const before = { session_recording_masking_config: { maskAllInputs: true, maskTextSelector: '*' }, session_replay_config: { record_canvas: false, ai_config: { a: 1, b: 2 } } };
    const sent = { session_recording_masking_config: { maskTextSelector: '*', maskAllInputs: true }, session_replay_config: { ai_config: { b: 2, a: 1 } } };
    const after = { session_recording_masking_config: { maskTextSelector: '*', maskAllInputs: true }, session_replay_config: { ai_config: { b: 2, a: 1 }, record_canvas: false } };
    const changes = fieldChanges(sent, before, after);
    expect(changes.map((c) => [c.field, c.changed])).toEqual([
      ['session_recording_masking_config', false],
      ['session_replay_config', false],
    ]);
    expect(changeLines(changes).every((line) => line.endsWith('(unchanged)'))).toBe(true);
    const question = describeProjectChanges({ id: 1, name: 'Shop', ...before }, sent);
    expect(question.split('\n').slice(1).every((line) => line.endsWith('(unchanged)'))).toBe(true);
  });

  it('a value that did change is still a change (arrays keep their order)', () => {
    const changes = fieldChanges({ app_urls: ['b', 'a'], session_recording_masking_config: { maskAllInputs: false } }, { app_urls: ['a', 'b'], session_recording_masking_config: { maskAllInputs: true } }, { app_urls: ['b', 'a'], session_recording_masking_config: { maskAllInputs: false } });
    expect(changes.map((c) => c.changed)).toEqual([true, true]);
  });
});
