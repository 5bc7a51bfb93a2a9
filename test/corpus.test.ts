import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFiles, factsOf, findCorpus, readEvents, type Facts } from './corpus.js';
import { operationsOver } from '../src/posthog/operations/index.js';
import { digestRecording } from '../src/tools/recordings/recording-digest.js';
import { startHarness, text, type Harness } from './harness.js';

// The digest, as the summary tool reads it, on fifteen real recordings made by other projects'
// recorders (../shared/corpus/recordings, never copied here). Each is served byte for byte as one
// blob_v2 block by the sandbox, and what the digest says is checked against facts this test reads
// from the events itself (test/corpus.ts), not from the digest's code. The digest's own fields are
// read from the reader the tools share (digestRecording), the model's views from the tool.

const dir = findCorpus();
const PROJECT = '1';
if (!dir) process.stderr.write('test/corpus.test.ts: skipped, no shared/corpus/recordings above the checkout and no REPLAY_CORPUS_DIR\n');

interface Item {
  t_ms: number;
  kind: string;
  target?: string;
  detail?: string;
  count?: number;
}
interface Summary {
  duration_ms: number;
  start_time: string | null;
  timing: { frozen: boolean; stray: number };
  pages: Array<{ url: string }>;
  timeline: Item[];
  counts: Record<string, number>;
  notes: string[];
  cut: Record<string, number>;
}

describe.skipIf(!dir)('the digest of real recordings from other projects', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  /** Serves one corpus file as recording `id`: its metadata, a one-block listing, and the block (the file as is). */
  function serve(id: string, file: string): void {
    const base = `/api/projects/${PROJECT}/session_recordings/${id}`;
    h.sandbox.injectFault({ path: `${base}/snapshots`, query: { source: 'blob_v2' }, times: Infinity, status: 200, body: readFileSync(file, 'utf8') });
    h.sandbox.injectFault({ path: `${base}/snapshots`, times: Infinity, status: 200, body: { sources: [{ source: 'blob_v2', blob_key: '0', start_timestamp: null, end_timestamp: null }] } });
    h.sandbox.injectFault({ path: base, times: Infinity, status: 200, body: { id, distinct_id: 'corpus-visitor', person: null } });
  }

  for (const name of dir ? corpusFiles(dir) : []) {
    const id = name.replace(/\.jsonl$/, '');
    describe(id, () => {
      let facts: Facts;
      let s: Summary;
      let t: string;
      let all: string;
      beforeAll(async () => {
        const file = join(dir!, name);
        facts = factsOf(readEvents(file));
        serve(id, file);
        const r = await h.call('session-recording-summary', { project_id: PROJECT, id, max_chars: 20_000 });
        t = text(r);
        expect(r.isError, t).toBeFalsy();
        expect((r.structuredContent as { cut?: string }).cut).toBeUndefined();
        const { digest } = await digestRecording({ posthog: operationsOver(h.posthog), signal: new AbortController().signal }, PROJECT, id, null);
        s = { ...digest, start_time: digest.start === null ? null : new Date(digest.start).toISOString(), timeline: digest.timeline.map(({ t, ...item }) => ({ t_ms: t, ...item })), counts: { ...digest.counts }, cut: {} };
        all = JSON.stringify(r);
      });
      const items = (...kinds: string[]) => s.timeline.filter((i) => kinds.includes(i.kind));

      it('counts the events, clicks, inputs and console messages by level that the events hold', () => {
        expect(s.counts).toMatchObject({
          events: facts.events,
          clicks: facts.clicks,
          inputs: facts.inputs,
          console_errors: facts.console.errors,
          console_warnings: facts.console.warnings,
          console_logs: facts.console.logs,
        });
        expect(s.cut).toEqual({});
      });

      it('lists the pages visited, a data: URL by its type only', () => {
        const shown = new Set(s.pages.map((p) => p.url));
        const expected = facts.urls.map((u) => (u.startsWith('data:') ? `data:${/^data:([^,;]*)/.exec(u)![1]},… (${u.length.toLocaleString('en-US')} characters)` : u));
        expect(shown).toEqual(new Set(expected));
        for (const url of facts.urls.filter((u) => u.startsWith('data:'))) expect(all).not.toContain(url.slice(0, 60));
      });

      it('gives a duration and start that one wild or frozen timestamp cannot throw off, and says when times are unreliable', () => {
        expect(Math.abs(s.duration_ms - facts.durationMs)).toBeLessThan(1000);
        expect(s.start_time === null ? null : Date.parse(s.start_time)).toBe(facts.start);
        expect(s.timing.frozen).toBe(facts.frozen);
        if (facts.frozen) expect(t).toContain('duration unknown');
        for (const item of s.timeline) expect(item.t_ms).toBeLessThanOrEqual(s.duration_ms);
      });

      it('names every button clicked, and a click on the page itself as the page background', () => {
        const targets = items('click', 'rage-click', 'dead-click', 'input').map((i) => i.target ?? '');
        for (const button of facts.clickedButtons) expect(targets.some((target) => target.startsWith('button') && target.includes(JSON.stringify(button).slice(0, 40))), button).toBe(true);
        if (facts.backgroundClicks > 0) expect(targets.filter((target) => /^(html|body)\b/.test(target)).every((target) => target.endsWith('(the page background)'))).toBe(true);
      });

      it('finds a rage click in every burst of 3 clicks within a second on one element', () => {
        expect(s.counts.rage_clicks).toBe(facts.rageBursts);
      });

      it('shows typing when it happened, the radio checked, and never what was typed', () => {
        for (const item of items('input').filter((i) => i.detail?.endsWith(' chars'))) {
          if (!facts.frozen) expect(facts.inputOffsets).toContain(item.t_ms);
        }
        expect(items('input').filter((i) => i.detail === 'checked').length).toBe(facts.radiosChecked);
        expect(items('input').filter((i) => i.target?.startsWith('input[radio]') && i.detail === 'unchecked')).toEqual([]);
        for (const value of facts.typedValues) expect(all).not.toContain(value);
      });

      it('fits the smallest budget, in both views', async () => {
        const r = await h.call('session-recording-summary', { project_id: PROJECT, id, max_chars: 1000 });
        expect(r.isError, text(r)).toBeFalsy();
        expect(text(r).length).toBeLessThanOrEqual(1000);
        expect(JSON.stringify(r.structuredContent).length).toBeLessThanOrEqual(1000);
      });

      it('hands out no typed value in session-recording-snapshots either, unless asked to', async () => {
        const read = async (reveal: boolean) => {
          let out = '';
          let cursor: string | undefined;
          for (let page = 0; page < 20; page++) {
            const r = await h.call('session-recording-snapshots', { project_id: PROJECT, id, max_events: 500, reveal_input_values: reveal, ...(cursor ? { cursor } : {}) });
            expect(r.isError, text(r)).toBeFalsy();
            out += JSON.stringify(r);
            cursor = (r.structuredContent as { next_cursor: string | null }).next_cursor ?? undefined;
            if (!cursor) break;
          }
          return out;
        };
        const masked = await read(false);
        for (const value of facts.typedValues) expect(masked).not.toContain(value);
        if (facts.typedValues.length > 0) {
          const revealed = await read(true);
          for (const value of facts.typedValues) expect(revealed).toContain(value);
        }
      });
    });
  }
});

describe.skipIf(dir)('the digest of real recordings from other projects', () => {
  it.skip('skipped: no corpus at ../shared/corpus/recordings from the checkout (or REPLAY_CORPUS_DIR)', () => {});
});
