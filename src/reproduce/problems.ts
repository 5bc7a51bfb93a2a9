/**
 * What went wrong in a recording, as problems a test can assert absent: a console error or failed
 * console.assert, a request that failed (read from rrweb's console and network records), and,
 * once the journey is known, the step each followed.
 */

import { quote } from '../digest/quote.js';
import { consoleText } from '../posthog/snapshots.js';
import { maskUrlSecrets } from '../url-secrets.js';
import type { Problem, SeenRequest, Step } from './journey.js';
import { scrubText } from './privacy.js';

/** A console error or a failed console.assert as a problem; undefined for any other record. */
export function consoleProblem(record: Record<string, unknown>, at: number, window: number): Problem | undefined {
  if (record.level !== 'error' && record.level !== 'assert') return undefined;
  if (record.level === 'assert') {
    // rrweb records a console.assert with its arguments, the condition first; a recorder that
    // also keeps passed ones shows a true condition: not a failure.
    const args = Array.isArray(record.payload) ? record.payload : [];
    if (args.length > 0 && passedCondition(args[0])) return undefined;
    const message = consoleText(args.length > 0 && falsyCondition(args[0]) ? args.slice(1) : args);
    return { kind: 'console', assert: true, at, window, text: (message || 'Assertion failed').slice(0, 300), count: 1 };
  }
  return { kind: 'console', at, window, text: consoleText(record.payload).slice(0, 300), count: 1 };
}

/**
 * Each failed request of an rrweb network record (status 400 or more, failed, or an error), handed
 * to `add` in the record's order; every request, failed or not, to `seen` (evidence of what a step did).
 */
export function readRequestProblems(payload: Record<string, unknown>, ts: number, window: number, origin: string | null, add: (problem: Problem) => void, seen?: (request: SeenRequest) => void): void {
  readRequests(payload, ts, window, origin, (request, error) => {
    seen?.(request);
    if (!request.failed) return;
    add({
      kind: 'request',
      at: request.at,
      window,
      ...(request.method ? { method: request.method } : {}),
      path: request.path,
      ...(request.host ? { host: request.host } : {}),
      ...(request.status !== undefined ? { status: request.status } : {}),
      ...(error ? { error } : {}),
      count: 1,
    });
  });
}

/** Every request of an rrweb network record, failed or not, handed to `add` in the record's order (with its error text, if any). */
function readRequests(payload: Record<string, unknown>, ts: number, window: number, origin: string | null, add: (request: SeenRequest, error: string | undefined) => void): void {
  for (const request of Array.isArray(payload.requests) ? payload.requests : []) {
    if (typeof request !== 'object' || request === null) continue;
    const r = request as Record<string, unknown>;
    const status = Number(r.responseStatus ?? r.status);
    const error = typeof r.error === 'string' && r.error.length > 0 ? r.error.slice(0, 100) : undefined;
    let url: URL;
    try {
      url = new URL(String(r.name ?? r.url ?? ''), origin ?? undefined);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    const navigation = r.entryType === 'navigation' || r.initiatorType === 'navigation';
    const method = typeof r.method === 'string' && /^[A-Za-z]{1,10}$/.test(r.method) ? r.method.toUpperCase() : navigation ? 'GET' : undefined;
    const own = typeof r.timestamp === 'number' && Number.isFinite(r.timestamp) ? r.timestamp : typeof r.timeOrigin === 'number' && typeof r.startTime === 'number' ? r.timeOrigin + r.startTime : undefined;
    const known = Number.isFinite(status) && status > 0 && status < 1000;
    add(
      {
        at: own !== undefined && Math.abs(own - ts) < 3_600_000 ? own : ts,
        window,
        ...(method ? { method } : {}),
        path: maskUrlSecrets(url.pathname),
        ...(origin && url.origin !== origin ? { host: url.host } : {}),
        ...(known ? { status: Math.trunc(status) } : {}),
        failed: (Number.isFinite(status) && status >= 400) || r.isFailed === true || error !== undefined,
        script: r.initiatorType === 'fetch' || r.initiatorType === 'xmlhttprequest',
      },
      error,
    );
  }
}

/**
 * The recorded problems in time order, each placed after the step it followed (its tab numbered as
 * the journey's), with what the person typed scrubbed from its text; one at the same step, of the
 * same kind and request (or text), is counted with the first. One before any step is noted, not kept.
 */
export function placeProblems(recorded: readonly Problem[], steps: Step[], renumber: ReadonlyMap<number, number>, typed: ReadonlySet<string>, note: (text: string) => void): Problem[] {
  const problems: Problem[] = [];
  for (const problem of recorded.slice().sort((a, b) => a.at - b.at)) {
    if (problem.text !== undefined) problem.text = scrubText(problem.text, typed).text;
    const window = problem.window === undefined ? undefined : renumber.get(problem.window);
    const step = stepFor(steps, window, problem.at);
    if (step === undefined) {
      note(`${describeProblem(problem)}: no step of the journey came before it; not asserted.`);
      continue;
    }
    const same = problems.find((p) => p.step === step && p.kind === problem.kind && p.method === problem.method && p.path === problem.path && p.host === problem.host && (p.kind === 'request' || p.text === problem.text));
    if (same) same.count++;
    else problems.push({ ...problem, window, step });
  }
  return problems;
}

/** A console.assert condition as rrweb serialises it: true, a number other than 0, an object or array. */
function passedCondition(arg: unknown): boolean {
  if (arg === true || (typeof arg === 'number' && arg !== 0 && !Number.isNaN(arg))) return true;
  if (typeof arg !== 'string') return false;
  const text = arg.trim();
  return text === 'true' || /^-?(?:[1-9]\d*|0?\.\d*[1-9]\d*)(?:\.\d+)?$/.test(text) || text.startsWith('{') || text.startsWith('[');
}

function falsyCondition(arg: unknown): boolean {
  if (arg === false || arg === 0 || arg === null || arg === '') return true;
  return typeof arg === 'string' && ['false', '0', 'null', 'undefined', 'NaN', '""', "''"].includes(arg.trim());
}

/** The last step of the problem's tab at or before it, else the click that opened the tab, else its first step, else the last step of any tab before it. */
function stepFor(steps: Step[], window: number | undefined, at: number): number | undefined {
  if (steps.length === 0) return undefined;
  let any: number | undefined;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]!;
    if (step.at > at) continue;
    if (window === undefined || step.window === window) return i;
    any ??= i;
  }
  if (window !== undefined) {
    // Before anything was done in a tab: what its page did on load, set off by the click that opened it.
    const opener = steps.findIndex((s) => s.opens === window);
    if (opener !== -1) return opener;
    const first = steps.findIndex((s) => s.window === window);
    if (first !== -1) return first;
  }
  return any ?? 0;
}

export function describeProblem(problem: Problem): string {
  if (problem.kind === 'request') {
    const what = `${problem.method ? `${problem.method} ` : ''}${problem.host ? `//${problem.host}` : ''}${problem.path ?? '?'}`;
    return `${what} answered ${problem.status ?? problem.error ?? 'with a network error'}`;
  }
  if (problem.kind === 'console') return `${problem.assert ? 'failed console.assert' : 'console error'} ${quote((problem.text ?? '').slice(0, 120))}`;
  // Uncaught or handled as the event says it; never guessed (docs/posthog-exceptions.md).
  const word = problem.handled === undefined ? 'exception' : problem.handled ? 'handled exception' : 'uncaught exception';
  return `${word} ${quote((problem.text ?? '').slice(0, 120))}`;
}
