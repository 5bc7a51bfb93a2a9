/**
 * A recording's bytes in, a Reproduction out: splits each fetch unit's body into lines, decodes
 * the events (posthog-js compression included) and pushes them through a Reproducer, as the
 * digest's feed does for the digest. In the built server it runs in the digest's workers
 * (digest/runner.ts), so neither parsing a long line nor choosing selectors on a huge page holds
 * the main thread; where no worker is built (tests from sources) it runs in the calling thread and
 * yields to other calls between slices of its work.
 */

import type { Feed } from '../digest/runner.js';
import { LineSplitter, eventsFromLine, type WindowedEvent } from '../posthog/snapshots.js';
import type { ExceptionEvent, Reproduction } from './journey.js';
import { Reproducer } from './session.js';

export interface ReproductionRead {
  reproduction: Reproduction;
  /** Events pushed (a recording with none read is not made a test). */
  events: number;
  /** Lines that were not snapshot data. */
  skippedLines: number;
}

/** What finish() is given besides the bytes: the session's exceptions, read through the query API meanwhile. */
export interface ReproductionInput {
  exceptions?: ExceptionEvent[] | undefined;
}

export class ReproductionFeed implements Feed<ReproductionRead> {
  private readonly reproducer = new Reproducer();
  private splitter = new LineSplitter();
  /** For the realtime source: events at or before this time are already in the stored blocks. */
  private after: number | undefined;
  private events = 0;
  private skippedLines = 0;
  private slice = performance.now();

  /** `sliceMs`: in the calling thread, the longest stretch of work before other calls get a turn. */
  constructor(private readonly sliceMs?: number) {}

  startUnit(after?: number): void {
    this.splitter = new LineSplitter();
    this.after = after;
  }

  data(chunk: Buffer): void | Promise<void> {
    return this.push(this.splitter.push(chunk));
  }

  endUnit(): void | Promise<void> {
    return this.push(this.splitter.end());
  }

  note(text: string): void {
    this.reproducer.note(text);
  }

  finish(input?: unknown): ReproductionRead {
    const exceptions = (input as ReproductionInput | undefined)?.exceptions;
    if (exceptions) this.reproducer.addExceptions(exceptions);
    return { reproduction: this.reproducer.finish(), events: this.events, skippedLines: this.skippedLines };
  }

  private push(lines: string[]): void | Promise<void> {
    if (this.sliceMs !== undefined) return this.pushSliced(lines);
    for (const line of lines) for (const { windowId, event } of this.eventsOf(line)) this.take(windowId, event);
  }

  /** Past sliceMs the event loop turns (setImmediate: after pending I/O), so other calls and /healthz are answered meanwhile. */
  private async pushSliced(lines: string[]): Promise<void> {
    for (const line of lines) {
      for (const { windowId, event } of this.eventsOf(line)) {
        this.take(windowId, event);
        if (performance.now() - this.slice < this.sliceMs!) continue;
        await new Promise((resolve) => setImmediate(resolve));
        this.slice = performance.now();
      }
    }
  }

  private take(windowId: string | null, event: WindowedEvent['event']): void {
    this.events++;
    this.reproducer.push(windowId, event);
  }

  private eventsOf(line: string): WindowedEvent[] {
    const parsed = eventsFromLine(line);
    if (parsed === null) {
      this.skippedLines++;
      return [];
    }
    // The realtime tail repeats what the stored blocks hold.
    return this.after === undefined ? parsed : parsed.filter(({ event }) => event.timestamp > this.after!);
  }
}
