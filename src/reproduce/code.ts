/**
 * The @playwright/test spec for a Reproduction: the person's steps, with the failures the
 * recording shows asserted absent at the step that set them off, so the test fails there today
 * and passes once fixed. Navigation is relative to the caller's baseURL; typed values come from
 * environment variables; every recorded string goes through lit() or commentText().
 */

import { UserInputError } from '../errors.js';
import { quote } from '../digest/quote.js';
import { clock, relativePath, type Problem, type Reproduction, type Step } from './journey.js';
import { commentText, lit } from './literal.js';
import { SEARCH_PARAM } from './field-steps.js';
import { FROM_TODAY_HELPER, fitToField, selectPlaceholder } from './fields.js';
import { TYPED_PARAM, placeholderFor, queryPlaceholder, type Placeholder } from './privacy.js';
import { describeProblem } from './problems.js';

export interface RenderOptions {
  recordingId: string;
  projectId: string;
  /** Copy non-sensitive typed values the recording holds in clear. */
  copyTypedValues: boolean;
  /** Assert only this failure (1-based, as numbered in `asserts`), ending the test at its step. */
  failure?: number | undefined;
}

export interface StepOut {
  at_ms: number;
  tab: number;
  page: string;
  action: string;
  selector: string | null;
  note: string | null;
}

export interface AssertOut {
  n: number;
  step: number;
  kind: 'request' | 'console' | 'exception' | 'final-request' | 'final-url' | 'final-heading' | 'final-text';
  says: string;
}

export interface FailureOut {
  n: number;
  step: number;
  kind: 'request' | 'console' | 'exception';
  says: string;
}

export interface Rendered {
  filename: string;
  code: string;
  base_url: string | null;
  steps: StepOut[];
  asserts: AssertOut[];
  /** Every failure the recording shows (the test asserts those at the first one's step, or the chosen one). */
  failures: FailureOut[];
  placeholders: Placeholder[];
  skipped: string[];
}

export function renderSpec(rep: Reproduction, options: RenderOptions): Rendered {
  const skipped = [...rep.skipped];
  let steps = rep.steps;
  let problems = rep.problems;
  // Every failure the recording shows, numbered as `failure` picks them.
  const failures: FailureOut[] = rep.problems.map((p, i) => ({ n: i + 1, step: p.step! + 1, kind: p.kind, says: describeProblem(p) + (p.count > 1 ? ` (${p.count} times)` : '') }));
  if (options.failure !== undefined) {
    const chosen = problems[options.failure - 1];
    if (!chosen) {
      const list = failures.map((f) => `${f.n}. ${f.says} (step ${f.step})`).join('; ');
      throw new UserInputError(`failure ${options.failure} is not in this recording: ${problems.length === 0 ? 'it shows no failure' : `its failures are ${list}`}.`);
    }
    problems = [chosen];
    if (chosen.step! + 1 < steps.length) skipped.push(`Steps after step ${chosen.step! + 1} left out: the test ends at the chosen failure.`);
    steps = steps.slice(0, chosen.step! + 1);
  } else if (problems.length > 0) {
    // What the person did after the first failure was their answer to it (a retry, another
    // way round): once the bug is fixed the page rightly goes elsewhere, and those steps would
    // fail for no fault. The test ends there; a later failure can be chosen with `failure`.
    const first = Math.min(...problems.map((p) => p.step!));
    const later = problems.filter((p) => p.step !== first).length;
    problems = problems.filter((p) => p.step === first);
    if (first + 1 < steps.length) {
      skipped.push(`The test ends at step ${first + 1}, the first failure: the ${steps.length - first - 1} later step(s) were the person's reaction to it${later > 0 ? `, and ${later} later failure(s) can be targeted with \`failure\` (see failures)` : ''}.`);
    }
    steps = steps.slice(0, first + 1);
  }
  if (rep.steps.length === 0) {
    throw new UserInputError(`Nothing in recording ${options.recordingId} can be replayed: it shows no page of an http(s) site and no action on one${rep.skipped.length ? ` (${rep.skipped.slice(0, 3).join(' ')})` : ''}.`);
  }
  // A journey cut at STEPS_MAX matters only where the test runs to the end of what was kept.
  if (rep.droppedSteps > 0 && steps.length === rep.steps.length) {
    skipped.unshift(`PARTIAL: the journey has more than ${rep.steps.length} steps; the test replays the first ${rep.steps.length}, and ${rep.droppedSteps} later step(s) are left out.`);
  }
  const start = rep.start ?? steps[0]?.at ?? 0;
  const vars = new Map<number, string>();
  const pageVar = (tab: number) => (tab === 0 ? 'page' : `page${tab + 1}`);
  const taken = new Set<string>();
  const placeholders = new Map<string, Placeholder>();
  /** Per placeholder: the steps that use it. */
  const uses = new Map<string, number[]>();
  const notReplayed = [...rep.notReplayed];
  const copiedQueries: number[] = [];
  const asserts: AssertOut[] = [];
  const body: string[] = [];
  const stepsOut: StepOut[] = [];
  /** How the spec answers a browser dialog at this point (dialogLines). */
  const dialogState = { answer: 'accept' as 'accept' | 'dismiss' };
  let failureWaits = 0;

  steps.forEach((step, i) => {
    const n = i + 1;
    const P = pageVar(step.window);
    const here = problems.filter((p) => p.step === i);
    const requests = here.filter((p) => p.kind === 'request');
    const notes = [...step.notes];
    if (step.repeats && step.repeats > 1) {
      notes.push(`clicked ${step.repeats} times in a row in the recording; once here`);
      notReplayed.push(`step ${n}: ${step.repeats} clicks in a row${step.double ? ' (the browser also reported a double click)' : ''} on ${step.selector?.code ?? 'an element'}, replayed as one click`);
    }
    if (step.selector?.note) notes.push(step.selector.note);
    body.push('', `  // Step ${n} (${clock(step.at - start)}${rep.windows > 1 ? `, tab ${step.window + 1}` : ''}, ${commentText(step.path, 100)})${notes.length ? `: ${commentText(notes.join('; '), 200)}` : ''}`);

    // A new tab the journey opens by itself (not by a click in another).
    if (!vars.has(step.window) && step.window !== 0) {
      body.push(`  const ${P} = await context.newPage();`);
      watchLine(body, P);
      vars.set(step.window, P);
    }
    vars.set(step.window, P);

    requests.forEach((p, k) => {
      const name = `request${n}${requests.length > 1 ? `_${k + 1}` : ''}`;
      const checks = [p.method ? `r.method() === ${lit(p.method)}` : undefined, `new URL(r.url()).pathname === ${lit(p.path ?? '/')}`].filter(Boolean).join(' && ');
      if (p.host) body.push(`  // In the recording this request went to ${commentText(p.host, 100)}.`);
      body.push(`  const ${name} = context.waitForEvent('request', { predicate: (r) => ${checks}, timeout: 15_000 });`);
    });

    const opened = step.opens !== undefined ? pageVar(step.opens) : undefined;
    if (opened) body.push(`  const ${opened}Opened = context.waitForEvent('page');`);
    const journeyRequest = i === steps.length - 1 && problems.length === 0 && options.failure === undefined ? rep.final?.request : undefined;
    if (journeyRequest) {
      const checks = [journeyRequest.method ? `r.request().method() === ${lit(journeyRequest.method)}` : undefined, `new URL(r.url()).pathname === ${lit(journeyRequest.path)}`].filter(Boolean).join(' && ');
      body.push(`  const journey = context.waitForEvent('response', { predicate: (r) => ${checks}, timeout: 15_000 });`);
    }
    dialogLines(body, step, dialogState);
    const finalLeaves = i === steps.length - 1 && problems.length === 0 && options.failure === undefined && rep.final?.leaves !== undefined;
    if (finalLeaves && rep.final?.leavesTo !== undefined) {
      // Every page load the tab starts from here on: the other site may not load where the test runs, its request still goes out.
      body.push(`  const went${n}: string[] = [];`);
      body.push(`  ${P}.on('request', (r) => { if (r.isNavigationRequest()) { const u = new URL(r.url()); went${n}.push(${rep.final.leavesTo.includes('/') ? 'u.host + u.pathname' : 'u.host'}); } });`);
    } else if (finalLeaves) body.push(`  const origin${n} = new URL(${P}.url()).origin;`);
    body.push(`  ${actionLine(step, P, step.action === 'goto' ? gotoOf(step, n) : placeholderOf(step, n))};`);
    if (opened) {
      body.push(`  const ${opened} = await ${opened}Opened;`);
      watchLine(body, opened);
      body.push(`  await ${opened}.waitForLoadState();`);
      vars.set(step.opens!, opened);
    }
    // The last page change of a journey that ends well is the final assertion's to check.
    const endsHere = i === steps.length - 1 && problems.length === 0 && options.failure === undefined;
    if (step.navigates !== undefined && !endsHere) body.push(`  await ${P}.waitForURL((url) => url.pathname === ${lit(step.navigates)}, { timeout: 15_000 });`);

    requests.forEach((p, k) => {
      const suffix = `${n}${requests.length > 1 ? `_${k + 1}` : ''}`;
      const says = `${describeProblem(p)} in the recording (step ${n})`;
      body.push(`  const response${suffix} = await (await request${suffix}).response();`);
      body.push(`  expect(response${suffix}, ${lit(`${says}; now it got no response at all`)}).not.toBeNull();`);
      body.push(`  expect(response${suffix}!.status(), ${lit(says)}).toBeLessThan(400);`);
      asserts.push({ n: asserts.length + 1, step: n, kind: 'request', says });
    });

    const later = here.filter((p) => p.kind !== 'request');
    if (later.length > 0) {
      const delay = Math.max(0, Math.round(Math.max(...later.map((p) => p.at - step.at))));
      const wait = failureWait(delay);
      failureWaits += wait;
      body.push(`  // The recording saw what follows ${delay} ms after this step: the test waits that long x1.5 + 2 s (at most ${FAILURE_WAIT_MAX / 1000} s) for the page to do it again.`);
      body.push(`  await ${P}.waitForTimeout(${wait});`);
      // One list holds every way a failure shows (console error, failed assert, uncaught error):
      // the recording may have seen an "Uncaught …" console line where the browser reports a pageerror.
      const all: string[] = [];
      for (const kind of ['console', 'exception'] as const) {
        const seen = later.filter((p) => p.kind === kind);
        if (seen.length === 0) continue;
        const says = `${seen.map((p) => describeProblem(p) + (p.count > 1 ? ` (${p.count} times)` : '')).join(', ')} in the recording after step ${n}`;
        all.push(says.replace(/ in the recording after step \d+$/, ''));
        asserts.push({ n: asserts.length + 1, step: n, kind, says });
      }
      body.push(`  expect(seen.errors, ${lit(`${all.join(', ')} in the recording after step ${n}`)}).toEqual([]);`);
    }

    stepsOut.push({
      at_ms: Math.max(0, step.at - start),
      tab: step.window + 1,
      page: step.path,
      action: step.action === 'press' ? `press ${step.key ?? 'Enter'}` : step.action,
      selector: step.action === 'goto' ? (step.url ?? step.path) : (step.selector?.code ?? null),
      note: [...notes, ...(step.opens !== undefined ? [`opens tab ${step.opens + 1}`] : []), ...(step.navigates !== undefined ? [`then at ${step.navigates}`] : [])].join('; ') || null,
    });
  });

  // Nothing went wrong: the journey must end where the person's did.
  const final = rep.final;
  if (problems.length === 0 && final && steps.length > 0 && options.failure === undefined) {
    const P = pageVar(final.window);
    body.push('', '  // The recording shows nothing wrong: the journey ends where the person\'s did.');
    if (final.request && final.leaves === undefined) {
      const r = final.request;
      const says = `${r.method ? `${r.method} ` : ''}${r.path} answered ${r.status} in the recording: the journey's request must succeed`;
      body.push(`  expect((await journey).status(), ${lit(says)}).toBeLessThan(400);`);
      asserts.push({ n: asserts.length + 1, step: steps.length, kind: 'final-request', says });
    }
    if (final.leavesTo !== undefined) {
      const says = `the last step goes to ${final.leavesTo}, as in the recording`;
      body.push(`  await expect.poll(() => went${steps.length}, { message: ${lit(says)}, timeout: 15_000 }).toContain(${lit(final.leavesTo)});`);
      asserts.push({ n: asserts.length + 1, step: steps.length, kind: 'final-url', says });
    } else if (final.leaves !== undefined) {
      const says = `the last step leaves the site (for ${final.leaves} in the recording)`;
      body.push(`  await expect.poll(() => new URL(${P}.url()).origin, ${lit(says)}).not.toBe(origin${steps.length});`);
      asserts.push({ n: asserts.length + 1, step: steps.length, kind: 'final-url', says });
    } else {
      const says = `the journey ends at ${final.path}${final.followed ? " (the last click's link target)" : ''}`;
      body.push(`  await expect(${P}, ${lit(says)}).toHaveURL((url) => url.pathname === ${lit(final.path)}, { timeout: 15_000 });`);
      asserts.push({ n: asserts.length + 1, step: steps.length, kind: 'final-url', says });
      if (final.heading && final.loose) {
        body.push(`  // The heading may name what the person typed: only its page-authored start is asserted.`);
        const says = `a heading matching ${quote(final.heading)} is visible`;
        body.push(`  await expect(${P}.getByRole('heading', { name: new RegExp(${lit(final.heading)}) }), ${lit(`${says}, as the recording's last page had`)}).toBeVisible();`);
        asserts.push({ n: asserts.length + 1, step: steps.length, kind: 'final-heading', says });
      } else if (final.heading) {
        const says = `the heading ${quote(final.heading)} is visible`;
        body.push(`  await expect(${P}.getByRole('heading', { name: ${lit(final.heading)}, exact: true }), ${lit(`${says}, as on the recording's last page`)}).toBeVisible();`);
        asserts.push({ n: asserts.length + 1, step: steps.length, kind: 'final-heading', says });
      } else if (!final.followed && !final.message) skipped.push('No usable heading on the last page: only its path is asserted.');
      if (final.message) {
        const says = `the page shows ${quote(final.message)}, as it did after the last step in the recording`;
        body.push(`  await expect(${P}.getByText(${lit(final.message)}, { exact: true }), ${lit(says)}).toBeVisible();`);
        asserts.push({ n: asserts.length + 1, step: steps.length, kind: 'final-text', says });
      }
    }
  }

  // The typed values, declared once with what depends on them.
  const declarations: string[] = [];
  if (placeholders.size > 0) {
    declarations.push('', "  // What the person typed is not in this file: each value comes from an environment variable (a neutral default");
    declarations.push('  // otherwise). Set them to replay with data your site accepts.');
    for (const placeholder of placeholders.values()) {
      const used = uses.get(placeholder.env) ?? [];
      const first = used[0] ?? 1;
      const until = dependsUntil(steps, first - 1) + 1;
      const where = used.length === 1 ? `step ${first}` : `steps ${used.join(', ')}`;
      declarations.push(`  // ${placeholder.env}: typed at ${where}${until > first ? `; steps ${first}-${until} depend on it` : ''}${placeholderSource(placeholder)}.`);
      declarations.push(`  const ${placeholder.env} = process.env.${placeholder.env} ?? ${placeholder.expression ?? lit(placeholder.default)};`);
    }
    if ([...placeholders.values()].some((p) => p.expression !== undefined)) declarations.unshift('', ...FROM_TODAY_HELPER);
  }
  // A late failure's wait may outlast Playwright's default 30 s per test.
  if (failureWaits > 10_000) declarations.unshift(`  test.setTimeout(${failureWaits + 60_000});`);
  declarations.push('', "  // rrweb records no browser dialog (confirm, prompt, alert): one a step shows is answered as what followed it");
  declarations.push("  // in the recording shows (said at the step); where the recording cannot tell, it is accepted.");
  declarations.push("  const dialogs = { answer: 'accept' as 'accept' | 'dismiss' };");
  declarations.push("  const answerDialogs = (p: Page) => p.on('dialog', (d) => void (dialogs.answer === 'accept' ? d.accept() : d.dismiss()));");
  declarations.push('  answerDialogs(page);');
  body.unshift(...declarations);
  if (notReplayed.length > 0) skipped.push(...notReplayed.map((what) => `Not replayed: ${what}.`));

  const title = asserts.length > 0 && problems.length > 0 ? `${asserts[0]!.says.replace(/ in the recording.*$/, '')} must not happen again` : `journey ends at ${final?.path ?? '/'}`;
  const origin = rep.origin;
  const header = [
    `// Reproduces PostHog session recording ${commentText(options.recordingId, 200)} (project ${commentText(options.projectId, 40)}),`,
    '// generated by posthog-replay-mcp (session-recording-reproduce). It fails where the recorded session',
    '// failed, naming the failure, and passes once that is fixed.',
    ...(origin
      ? [`// Recorded on ${commentText(origin, 200)}. Navigation is relative to baseURL; point the test at a site in`, `// playwright.config.ts, e.g. use: { baseURL: ${commentText(lit(origin), 200)} }`]
      : ['// Navigation is relative to baseURL (set it in playwright.config.ts).']),
    ...(options.copyTypedValues
      ? [
          `// Copied from the recording at your request (copy_typed_values): ${[...placeholders.values()].filter((p) => p.source === 'copied').length} typed value(s) the recording holds in clear`,
          `// (never secret or payment fields)${copiedQueries.length > 0 ? ` and the page query of step(s) ${copiedQueries.join(', ')}` : ''}, as the REPRO_* defaults below.`,
        ]
      : ['// Typed values come from the REPRO_* environment variables below, never from the recording.']),
    ...(notReplayed.length > 0 ? ['// Not replayed (also in the result\'s skipped):', ...notReplayed.slice(0, 20).map((what) => `//   - ${commentText(what, 160)}`)] : []),
  ];
  const placeholderList = [...placeholders.values()];
  const code = [
    ...header,
    "import { test, expect, type Page } from '@playwright/test';",
    '',
    // context only where the test waits on requests or tabs: an unused binding is noise a linter flags.
    `test(${lit(`session ${options.recordingId}: ${title}`)}, async ({ ${body.some((line) => line.includes('context.')) ? 'page, context' : 'page'} }) => {`,
    '  const seen = { errors: [] as string[] };',
    '  const watch = (p: Page) => {',
    '    // A failure shows in any of three ways, whichever way the recording saw it: a console error,',
    "    // a failed console.assert (console type 'assert'; a passed one logs nothing), or an uncaught",
    "    // error (pageerror). Chromium's own \"Failed to load resource\" lines are not the page's",
    '    // console calls: failed requests are asserted by themselves.',
    "    p.on('console', (m) => { if ((m.type() === 'error' && !m.text().startsWith('Failed to load resource')) || m.type() === 'assert') seen.errors.push(`console.${m.type()}: ${m.text()}`); });",
    "    p.on('pageerror', (e) => { seen.errors.push(`uncaught ${e.name}: ${e.message}`); });",
    '  };',
    '  watch(page);',
    ...body,
    '});',
    '',
  ].join('\n');

  function placeholderOf(step: Step, n: number): string | undefined {
    if ((step.action !== 'fill' && step.action !== 'select') || !step.field || !step.selector) return undefined;
    const key = `${step.window}:${step.selector.code}`;
    let placeholder = placeholders.get(key);
    if (!placeholder) {
      placeholder = step.action === 'fill' ? fillPlaceholder(step, options.copyTypedValues, taken) : selectPlaceholder(step, options.copyTypedValues, taken);
      placeholders.set(key, placeholder);
    }
    uses.set(placeholder.env, [...(uses.get(placeholder.env) ?? []), n]);
    // An option without a value attribute: selectOption matches it by its text.
    return placeholder.byLabel ? `{ label: ${placeholder.env} }` : placeholder.env;
  }

  /**
   * A goto's target: the path, and its query with each value a placeholder (a search the person
   * typed is theirs): REPRO_<PARAM>, shared with the field of that name when the journey typed
   * into one. With copy_typed_values the recorded values are the defaults, except secret-looking ones.
   */
  function gotoOf(step: Step, n: number): string {
    const path = relativePath(step.url ?? step.path);
    if (!step.query || step.query.length === 0) return lit(path);
    const parts = step.query.map(([name, value]) => {
      const typedThere = steps.find((s) => s.window === step.window && s.action === 'fill' && s.field?.name === name && s.selector);
      let placeholder = typedThere ? placeholders.get(`${step.window}:${typedThere.selector!.code}`) : undefined;
      if (!placeholder) {
        placeholder = queryPlaceholder(name, value, typedThere !== undefined || TYPED_PARAM.test(name), options.copyTypedValues, taken);
        // A search whose result the person clicked: a word of that result, so the page lists it.
        if (step.searchFor !== undefined && SEARCH_PARAM.test(name) && placeholder.source !== 'copied') placeholder = { ...placeholder, default: step.searchFor, source: 'page-text' };
        placeholders.set(`${step.window}:query:${n}:${name}`, placeholder);
      }
      if (placeholder.source === 'copied' && !copiedQueries.includes(n)) copiedQueries.push(n);
      uses.set(placeholder.env, [...(uses.get(placeholder.env) ?? []), n]);
      return `[${lit(name)}, ${placeholder.env}]`;
    });
    return `${lit(`${path}?`)} + new URLSearchParams([${parts.join(', ')}])`;
  }

  const filename = `session-${options.recordingId.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 40) || 'recording'}.spec.ts`;
  return { filename, code, base_url: origin, steps: stepsOut, asserts, failures, placeholders: placeholderList, skipped };
}

/** A typed field's placeholder: neutral, or a word of the search's clicked result, kept inside the field's constraints. */
function fillPlaceholder(step: Step, copy: boolean, taken: Set<string>): Placeholder {
  const placeholder = fitToField(placeholderFor(step.field!, step.recorded, copy, step.selector!.code, taken), step.field!, step.recorded, step.at);
  if (step.searchFor === undefined || placeholder.source === 'copied') return placeholder;
  return { ...placeholder, default: step.searchFor, source: 'page-text' };
}

/** Where a placeholder's default came from, for its declaration's comment. */
function placeholderSource(placeholder: Placeholder): string {
  switch (placeholder.source) {
    case 'copied':
      return ' (default copied from the recording)';
    case 'recorded-option':
      return " (the recorded option: what the journey did next depends on it)";
    case 'page-text':
      return " (default: a word of the search result the person clicked, so the search finds it)";
    default:
      return placeholder.relative ? ` (default: ${placeholder.relative})` : '';
  }
}

function watchLine(body: string[], P: string): void {
  body.push(`  watch(${P});`);
  body.push(`  answerDialogs(${P});`);
}

/** The longest a test waits for a failure the recording saw late after its step. */
const FAILURE_WAIT_MAX = 60_000;

/** How long to wait for a failure the recording saw `delay` ms after its step: with margin for a slower run, capped. */
function failureWait(delay: number): number {
  return Math.min(FAILURE_WAIT_MAX, Math.round(delay * 1.5 + 2_000));
}

/** Before a click: how a dialog it shows is answered, as the recording shows it (evidence.ts), else accepted. */
function dialogLines(body: string[], step: Step, state: { answer: 'accept' | 'dismiss' }): void {
  if (step.action !== 'click' && step.action !== 'dblclick' && step.action !== 'press') return;
  const answer = step.dialog?.answer ?? 'accept';
  if (step.dialog) body.push(`  // A dialog this step shows is ${answer === 'accept' ? 'accepted' : 'dismissed'}: ${commentText(step.dialog.why, 120)}.`);
  if (answer === state.answer) return;
  body.push(`  dialogs.answer = ${lit(answer)};`);
  state.answer = answer;
}

function actionLine(step: Step, P: string, value: string | undefined): string {
  const target = `${P}.${step.selector?.code ?? "locator('body')"}`;
  switch (step.action) {
    case 'goto':
      // Never anything but a path on baseURL, whatever the recording held (relativePath, journey.ts).
      return `await ${P}.goto(${value})`;
    case 'click':
      return `await ${target}.click()`;
    case 'dblclick':
      return `await ${target}.dblclick()`;
    case 'fill':
      return `await ${target}.fill(${value ?? "''"})`;
    case 'check':
      return `await ${target}.check()`;
    case 'uncheck':
      return `await ${target}.uncheck()`;
    case 'select':
      return `await ${target}.selectOption(${value ?? "''"})`;
    case 'press':
      return step.selector ? `await ${target}.press(${lit(step.key ?? 'Enter')})` : `await ${P}.keyboard.press(${lit(step.key ?? 'Enter')})`;
  }
}

export type { Problem };

/**
 * The last step that depends on a value typed at step index `from`: up to the step that sends the
 * form (a change of page, Enter, a request the recording saw), in the same tab; else the last step.
 */
function dependsUntil(steps: Step[], from: number): number {
  const tab = steps[from]?.window;
  for (let i = from; i < steps.length; i++) {
    const step = steps[i]!;
    if (step.window !== tab) continue;
    if (step.navigates !== undefined || step.action === 'press' || (i > from && step.action === 'click' && step.opens !== undefined)) return i;
  }
  return steps.length - 1;
}
