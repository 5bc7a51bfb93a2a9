/**
 * What a reproduction is (session.ts builds it, code.ts writes it as a test): the steps of the
 * person's journey, the problems the recording shows, and where the journey ended; and the path
 * and clock forms both use.
 */

import type { SelectOption } from './page-facts.js';
import type { FieldFacts } from './privacy.js';
import type { Selector } from './selectors.js';

export type Action = 'goto' | 'click' | 'dblclick' | 'fill' | 'check' | 'uncheck' | 'select' | 'press';

export interface Step {
  at: number;
  /** Index of the window (tab) in order of first appearance. */
  window: number;
  /** The page the step happens on (for a goto: the page it opens), path only. */
  path: string;
  action: Action;
  selector?: Selector;
  /** goto: where to (a path on the site). */
  url?: string;
  /** goto: the page's query, as recorded (values are what the person typed: placeholders by default). */
  query?: Array<[string, string]>;
  /** click on a link: where it leads (absolute), for a journey that ends as the link is followed. */
  href?: string;
  /** fill/select: the field, for its placeholder. */
  field?: FieldFacts;
  /** fill/select: the last value the recording holds (masked or not): never written out unless allowed. */
  recorded?: string;
  /** select: the options the page offered (page-authored values and labels). */
  options?: SelectOption[];
  /** select: what follows depends on the option chosen (a later step acts on what the choice brought). */
  choiceMatters?: boolean;
  /** fill of a search the person then clicked a result of: a word of that result's page text, for the search to find it. */
  searchFor?: string;
  /** The page went to this path after the step. */
  navigates?: string;
  /** This click opened that window (a new tab). */
  opens?: number;
  /** A link that opens its page in another tab (target). */
  newTab?: boolean;
  /** Clicked this many times in a row (a rage click or a burst): replayed once. */
  repeats?: number;
  /** The recording had a dblclick among those clicks. */
  double?: boolean;
  /** fill: when the person last typed into the field (the step's `at` is the first keystroke). */
  until?: number;
  /** What the page did after the step, before the next one (mutations): removed elements, changed anything, added elements in bulk (when, at most 20). */
  after?: { removed?: boolean; changed?: boolean; grew?: number[] };
  /** Page text that appeared after the step (added or changed by the page, not typed), latest last, at most 10. */
  appeared?: Array<{ at: number; text: string }>;
  /** click: how a browser dialog it shows is answered, decided from what followed it in the recording (evidence.ts). */
  dialog?: { answer: 'accept' | 'dismiss'; why: string };
  /** press: the key (Enter when absent). */
  key?: 'Enter' | 'Escape';
  notes: string[];
  node?: number;
}

/** A request the recording's network data shows (failed or not), as evidence of what a step set off. */
export interface SeenRequest {
  at: number;
  window: number;
  method?: string;
  path: string;
  /** The request's host, when it is not the recorded site's. */
  host?: string;
  status?: number;
  /** Failed (status 400 or more, a network error). */
  failed: boolean;
  /** The page's own script sent it (fetch or XMLHttpRequest), not a page load or a resource. */
  script: boolean;
}

export type ProblemKind = 'request' | 'console' | 'exception';

export interface Problem {
  kind: ProblemKind;
  at: number;
  window: number | undefined;
  method?: string;
  path?: string;
  /** The request's host, when it is not the recorded site's. */
  host?: string;
  status?: number;
  error?: string;
  /** Console text, or `Type: message` of an exception. */
  text?: string;
  /** An exception's: uncaught (false) or handled (true) as its event says; absent when it does not. */
  handled?: boolean;
  /** A console problem that was a failed console.assert (rather than console.error). */
  assert?: boolean;
  count: number;
  /** The step it followed (set by finish). */
  step?: number;
}

export interface Reproduction {
  origin: string | null;
  start: number | null;
  windows: number;
  steps: Step[];
  /** Steps past STEPS_MAX, not kept. */
  droppedSteps: number;
  problems: Problem[];
  /**
   * Where the journey ended: the last step's tab, its path and a heading seen there; `leaves`
   * when the last step took the tab to another site (only that it left can be asserted);
   * `followed` when the recording ended as the last click's link was being followed (the path is
   * the link's target, not the page left); `leavesTo` the other site's host and path the tab
   * reached (or was going to); `message` page text that appeared after the last step (a
   * success message) and is on the last page; `request` the request the last step sent that the
   * journey's success rests on (its status is asserted).
   */
  final: { window: number; path: string; heading?: string; leaves?: string; leavesTo?: string; followed?: boolean; loose?: boolean; request?: SeenRequest; message?: string } | undefined;
  /** Steps the person took that the test does not replay (media, canvas, blocked fields, bursts…), in words. */
  notReplayed: string[];
  skipped: string[];
}

export interface ExceptionEvent {
  at: number;
  type: string;
  message: string;
  windowId?: string | undefined;
  /** As the event says it (`mechanism.handled`); absent when it does not. */
  handled?: boolean | undefined;
}

/**
 * A path that stays on the site the test runs against: `page.goto('//evil.example/login')`
 * would leave baseURL for another host (and fill the REPRO_* values there), so leading slashes
 * (and backslashes, which browsers read as slashes) collapse to one.
 */
export function relativePath(path: string): string {
  return `/${path.replace(/^[/\\]+/, '')}`;
}

/** m:ss from the start of the journey (minutes past 59 stay minutes), as the spec's comments give it. */
export function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
