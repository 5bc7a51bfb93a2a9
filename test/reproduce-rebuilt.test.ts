// Every locator a generated test uses, checked in Chromium against the page it acts on, rebuilt
// from the recording (test/reproduce/rebuild.ts): it must match exactly one element there, as
// Playwright resolves it (roles, names, <label for>, frames, shadow roots). And at the defaults,
// nothing the person typed is in the file. Run on every demo recording of the sandbox and on the
// shared corpus of other recorders' recordings (skipped, saying so, when it is absent, as in CI).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserInputError } from '../src/errors.js';
import { eventsFromLine, type RrwebEvent } from '../src/posthog/snapshots.js';
import { renderSpec } from '../src/reproduce/code.js';
import type { Step } from '../src/reproduce/journey.js';
import { Reproducer } from '../src/reproduce/session.js';
import { RECORDING_SEEDS } from '../src/sandbox/demo/catalog.js';
import { buildScript } from '../src/sandbox/demo/dataset.js';
import { corpusFiles, factsOf, findCorpus } from './corpus.js';
import { FullDom } from './reproduce/rebuild.js';
import { CHROMIUM, CHROMIUM_FLAGS, chromiumPresent } from './support/chromium.js';

const hasChromium = chromiumPresent('rebuilt-page locator checks');
const corpus = findCorpus();
if (!corpus) process.stderr.write('test/reproduce-rebuilt.test.ts: corpus recordings skipped, no shared/corpus/recordings above the checkout and no REPLAY_CORPUS_DIR\n');

type Windowed = { windowId: string | null; event: RrwebEvent };

interface Checked {
  code: string;
  refused?: string;
  /** Each acted-on step: its locator and the page it acts on. */
  targets: Array<{ step: number; selector: string; html: string }>;
}

/** The test at the defaults, and for each step the page (rebuilt in full) as it was when the step was taken. */
function generate(events: Windowed[]): Checked {
  const reproducer = new Reproducer();
  const doms = new Map<string | null, FullDom>();
  const pageAt = new Map<Step, string>();
  const steps = (reproducer as unknown as { steps: Step[] }).steps;
  for (const { windowId, event } of events) {
    let dom = doms.get(windowId);
    if (!dom) doms.set(windowId, (dom = new FullDom()));
    dom.apply(event);
    const before = steps.length;
    reproducer.push(windowId, event);
    for (let i = before; i < steps.length; i++) pageAt.set(steps[i]!, dom.html());
  }
  const rep = reproducer.finish();
  let out;
  try {
    out = renderSpec(rep, { recordingId: 'r', projectId: '1', copyTypedValues: false });
  } catch (err) {
    if (err instanceof UserInputError) return { code: '', refused: err.message, targets: [] };
    throw err;
  }
  const targets: Checked['targets'] = [];
  out.steps.forEach((s, i) => {
    const step = rep.steps[i]!;
    if (s.action === 'goto' || !step.selector) return;
    // Enter is pressed in the field just filled: the page it was filled on.
    const source = step.action === 'press' ? rep.steps.slice(0, i).reverse().find((p) => p.selector?.code === step.selector!.code) ?? step : step;
    targets.push({ step: i + 1, selector: step.selector.code, html: pageAt.get(source) ?? '' });
  });
  return { code: out.code, targets };
}

function recordings(): Array<{ name: string; events: Windowed[]; typed: string[] }> {
  const list: Array<{ name: string; events: Windowed[]; typed: string[] }> = [];
  for (const seed of RECORDING_SEEDS) {
    if ((seed.repeat ?? 1) > 1) continue;
    const events = buildScript({ ...seed, compressed: false }).events as Windowed[];
    list.push({ name: `sandbox ${seed.name}`, events, typed: factsOf(events.map((e) => e.event as never)).typedValues });
  }
  for (const file of corpus ? corpusFiles(corpus) : []) {
    const events = readFileSync(join(corpus!, file), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .flatMap((line) => eventsFromLine(line) ?? []);
    list.push({ name: `corpus ${file}`, events, typed: factsOf(events.map((e) => e.event as never)).typedValues });
  }
  return list;
}

describe.skipIf(!hasChromium)('generated locators on the pages rebuilt from recordings', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    const context = await browser.newContext();
    // Loopback only, and here not even that: the rebuilt pages load nothing.
    await context.route('**/*', (route) => route.abort());
    page = await context.newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  const all = recordings();
  it.each(all.map((r) => [r.name, r] as const))('%s: every locator matches one element, nothing typed in the file', async (_name, recording) => {
    const checked = generate(recording.events);
    if (checked.refused) {
      // A recording with nothing to replay is refused with a reason, never a test without a page.
      expect(checked.refused).toMatch(/can be replayed/);
      return;
    }
    for (const typed of recording.typed) expect(checked.code, `typed value ${JSON.stringify(typed)} in the file`).not.toContain(typed);
    const wrong: string[] = [];
    let shown: string | undefined;
    for (const target of checked.targets) {
      if (target.html !== shown) {
        await page.setContent(target.html, { waitUntil: 'domcontentloaded' });
        shown = target.html;
      }
      // The locator as the file writes it, after `page.`.
      const locator = new Function('page', `return page.${target.selector};`)(page) as { count(): Promise<number> };
      const count = await locator.count();
      if (count !== 1) wrong.push(`step ${target.step}: ${target.selector} matches ${count}`);
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});
