import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { fixture } from '../src/sandbox/demo/recorded.js';
import { startHarness, text, type Harness } from './harness.js';

// What users typed stays masked in session-recording-snapshots' structuredContent as in its text
// (a client that hands structured results to the model must not leak what the text protects),
// unless the caller asks for the values with reveal_input_values.

const P = String(DEMO.mainProjectId);

describe('session-recording-snapshots: typed values', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  /** Every page of a recording: the results' JSON (text and structuredContent) joined. */
  async function readAll(args: Record<string, unknown>) {
    let all = '';
    let structured = '';
    let cursor: string | undefined;
    for (let i = 0; i < 100; i++) {
      const r = await h.call('session-recording-snapshots', { project_id: P, max_events: 500, ...args, ...(cursor ? { cursor } : {}) });
      expect(r.isError, text(r)).toBeFalsy();
      all += JSON.stringify(r);
      structured += JSON.stringify(r.structuredContent);
      cursor = (r.structuredContent as { next_cursor: string | null }).next_cursor ?? undefined;
      if (!cursor) break;
    }
    return { all, structured };
  }

  const checkout = fixture('checkout-failure');
  const secrets = (checkout.expected as { secret_values: string[] }).secret_values;

  it('masks every typed value (name, email, card number) in structuredContent and text by default', async () => {
    expect(secrets.length).toBeGreaterThan(0);
    const { all, structured } = await readAll({ id: checkout.session_id });
    // The recording does hold typing: its Input events are there, with their lengths, masked.
    expect(structured).toMatch(/"source":5,[^}]*"text":"\*+"/);
    for (const secret of secrets) expect(all).not.toContain(secret);
  });

  it('returns them, in both, when reveal_input_values is true', async () => {
    const { all, structured } = await readAll({ id: checkout.session_id, reveal_input_values: true });
    for (const secret of secrets) expect(structured).toContain(JSON.stringify(secret).slice(1, -1));
    expect(all).toContain('ada@example.com');
  });
});
