/**
 * What a recording shows only indirectly, read from what followed a step: rrweb records neither
 * key presses nor browser dialogs, so Enter shows as typing followed (with no click) by a request
 * the page sent, and a dialog's answer as what the click led to (the request an accepted confirm
 * sends, an element removed) or as nothing at all (dismissed). Also the request a journey that
 * ends well rests on, whose status its test asserts.
 */

import type { SeenRequest, Step } from './journey.js';

/** A request this soon after the last keystroke, with no click between, was sent by a key (Enter). */
const KEY_MS = 3_000;
/** What followed a click this soon (before the next step) was its doing, a dialog's answer included. */
const FOLLOW_MS = 10_000;
/** A click followed by nothing for this long (the recording went on) did nothing: a dialog it showed was dismissed. */
const QUIET_MS = 1_000;
/** A read the page made this soon after the last step was that step's answer (search results), not a poll. */
const READ_MS = 2_000;

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** posthog-js's own capture and flag calls, should a recorder keep them: never the page's doing. */
const ANALYTICS_PATH = /^\/(?:e|s|i|batch|capture|decide|flags|engage|track)(?:\/|$)/;

/** A request the page's script sent for the page's own sake (not a page load, a resource, or analytics). */
function pageCall(request: SeenRequest): boolean {
  return request.script && !(request.host !== undefined && ANALYTICS_PATH.test(request.path));
}

function nextInTab(steps: readonly Step[], i: number): Step | undefined {
  const tab = steps[i]!.window;
  for (let j = i + 1; j < steps.length; j++) if (steps[j]!.window === tab) return steps[j];
  return undefined;
}

function requestWords(request: SeenRequest): string {
  return `${request.method ? `${request.method} ` : ''}${request.host ? `//${request.host}` : ''}${request.path}`;
}

/**
 * Steps with Enter pressed in each field whose typing was followed, with no click, by a request
 * the page sent (a search answered in place, a form sent from the keyboard; Tab onto a submit
 * button and Enter look the same), or by elements added in bulk (results filtered in place).
 * Not after any click (on the page, into another field: the request may be the field's change on
 * leaving it), nor where the same request also went out while the person was still typing: that
 * page searches as one types, and Enter would do something else.
 */
export function inferEnter(steps: readonly Step[], requests: readonly SeenRequest[], clicks: ReadonlyArray<{ window: number; at: number }>): Step[] {
  const out: Step[] = [];
  steps.forEach((step, i) => {
    out.push(step);
    if (step.action !== 'fill' || !step.selector || !step.recorded) return;
    const next = nextInTab(steps, i);
    if (next?.action === 'press') return;
    const from = step.until ?? step.at;
    const to = Math.min(from + KEY_MS, next?.at ?? Infinity);
    const sent = requests.find((r) => r.window === step.window && pageCall(r) && r.at > from && r.at <= to);
    const grew = step.after?.grew ?? [];
    // Results appearing with no request (a page that filters what it holds): only where none
    // did while typing, and the person typed nowhere else next.
    const shown = sent ? undefined : grew.find((at) => at > from && at <= to && next?.action !== 'fill' && !grew.some((g) => g <= from));
    const at = sent?.at ?? shown;
    if (at === undefined || clicks.some((c) => c.window === step.window && c.at > from && c.at <= at)) return;
    if (sent && requests.some((r) => r.window === step.window && pageCall(r) && r.path === sent.path && r.at > step.at && r.at <= from)) return;
    const why = sent ? `${requestWords(sent)} followed the typing` : 'results appeared after the typing';
    out.push({ at: Math.min(from + 1, at), window: step.window, path: step.path, action: 'press', key: 'Enter', selector: step.selector, ...(step.node !== undefined ? { node: step.node } : {}), notes: [`Enter (inferred: ${why}, with no click)`] });
  });
  return out;
}

/**
 * How each click answers a browser dialog, should it show one (rrweb records none): accepted,
 * saying why, where what followed is what an accepted confirm or prompt sends or does (a request
 * that changes something, an element removed); dismissed where nothing at all followed (no
 * request, no change to the page, no new page) while the recording went on. Where neither, the
 * test's default (accept) stands and its comment says the recording cannot tell.
 */
export function answerDialogs(steps: readonly Step[], requests: readonly SeenRequest[], lastEventAt: number): void {
  steps.forEach((step, i) => {
    if (step.action !== 'click' && step.action !== 'dblclick') return;
    const next = nextInTab(steps, i);
    const until = Math.min(step.at + FOLLOW_MS, next?.at ?? Infinity);
    const sent = requests.filter((r) => r.window === step.window && pageCall(r) && r.at >= step.at && r.at <= until);
    const write = sent.find((r) => r.method !== undefined && WRITES.has(r.method));
    if (write) step.dialog = { answer: 'accept', why: `${requestWords(write)} followed it in the recording` };
    else if (step.after?.removed) step.dialog = { answer: 'accept', why: 'the page removed an element right after it in the recording' };
    else if (step.navigates !== undefined || step.opens !== undefined || sent.length > 0 || step.after?.changed) return;
    else if (Math.min(next?.at ?? Infinity, lastEventAt) - step.at >= QUIET_MS) step.dialog = { answer: 'dismiss', why: 'nothing followed it in the recording' };
  });
}

/**
 * The request the last step sent that the journey's success rests on: the last one that changes
 * something (a sign-up's POST, a DELETE) within the time a step's effects take, else a read the
 * page made at once (a search's results) of a path it had not read before in that tab (not a
 * poll); only one the recording saw succeed. None after typing: a field may send on leaving it,
 * which the test does not do.
 */
export function journeyRequest(steps: readonly Step[], requests: readonly SeenRequest[]): SeenRequest | undefined {
  const last = steps[steps.length - 1];
  if (!last || last.action === 'goto' || last.action === 'fill') return undefined;
  const tab = requests.filter((r) => r.window === last.window && pageCall(r) && r.method !== undefined);
  const ok = tab.filter((r) => !r.failed && r.status !== undefined && r.at >= last.at);
  const writes = ok.filter((r) => WRITES.has(r.method!) && r.at <= last.at + FOLLOW_MS);
  if (writes.length > 0) return writes[writes.length - 1];
  return ok.find((r) => r.at <= last.at + READ_MS && !tab.some((e) => e.path === r.path && e.at < last.at));
}
