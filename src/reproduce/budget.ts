/**
 * How much work making one test may take. A recording is someone else's data: a page nested
 * thousands deep, or a hundred thousand buttons, must not turn a selector search into seconds of
 * one thread's time, which every other call of the server would wait out. The reproducer counts
 * the time it spends (not the time it yields to other calls) and stops with a clear error past
 * the bound; the loops over a page tick() so that even one step cannot run far beyond it.
 */

import { UserInputError } from '../errors.js';

/** The work one test may take, in ms of this thread's time. Measured: 4–356 ms on 33 real recordings. */
const GENERATION_WORK_MS = 10_000;

export class GenerationTooLong extends UserInputError {
  constructor(ms: number) {
    super(
      `Generating the test took more than ${Math.round(ms / 1000)} s of work and was stopped: the recorded pages are too large or too deeply nested to choose selectors on. ` +
        'session-recording-summary still describes the session; session-recording-snapshots shows its events.',
    );
  }
}

export class WorkBudget {
  private spent = 0;
  private started: number | undefined;
  private ticks = 0;

  constructor(readonly limitMs: number = GENERATION_WORK_MS) {}

  /** Work starts (a push, the finish): time counts until stop(). */
  start(): void {
    this.started ??= performance.now();
  }

  stop(): void {
    if (this.started === undefined) return;
    this.spent += performance.now() - this.started;
    this.started = undefined;
    if (this.spent > this.limitMs) throw new GenerationTooLong(this.limitMs);
  }

  /** Time this thread has spent so far, the running slice included. */
  get spentMs(): number {
    return this.spent + (this.started === undefined ? 0 : performance.now() - this.started);
  }

  /** Called in loops over a page: checks the clock every 1024 calls. */
  tick(): void {
    if ((++this.ticks & 1023) === 0 && this.spentMs > this.limitMs) throw new GenerationTooLong(this.limitMs);
  }
}

/** A budget that never runs out: chooseSelector's when its caller gives none (unit tests of selector choice on small pages). */
export const UNBOUNDED: Pick<WorkBudget, 'tick'> = { tick() {} };
