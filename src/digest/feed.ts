import { LineSplitter, eventsFromLine } from '../posthog/snapshots.js';
import { Digester, type Digest } from './digest.js';

/**
 * Snapshot bytes in, digest out: splits each fetch unit's body into lines, decodes the events
 * (posthog-js compression included) and feeds them to a Digester. The same code runs in the
 * digest worker and, where no worker is available, in the calling thread.
 */
/**
 * The longest line the digest parses. Real full snapshots of large pages run to a few MB; parsing
 * a line costs many times its size in heap, and the worker's heap is capped (runner.ts), so a
 * longer line is skipped with a note rather than risking the worker running out of memory.
 */
export const DIGEST_MAX_LINE_BYTES = 8 * 1024 * 1024;

export class DigestFeed {
  private readonly digester = new Digester();
  private splitter = new LineSplitter(DIGEST_MAX_LINE_BYTES);
  /** For the realtime source: events at or before this time are already in the stored blocks. */
  private after: number | undefined;
  private skippedLines = 0;

  startUnit(after?: number): void {
    this.splitter = new LineSplitter(DIGEST_MAX_LINE_BYTES);
    this.after = after;
  }

  data(chunk: Buffer): void {
    for (const line of this.splitter.push(chunk)) this.line(line);
  }

  endUnit(): void {
    for (const line of this.splitter.end()) this.line(line);
  }

  note(text: string): void {
    this.digester.note(text);
  }

  finish(): Digest {
    if (this.skippedLines > 0) this.digester.note(`${this.skippedLines} unreadable line(s) of snapshot data skipped (corrupt, cut off, or over ${DIGEST_MAX_LINE_BYTES / 1024 / 1024} MB).`);
    return this.digester.finish();
  }

  private line(line: string): void {
    let events;
    try {
      events = eventsFromLine(line);
    } catch {
      // Whatever a line holds, it costs that line only (in the worker and in-thread alike).
      events = null;
    }
    if (events === null) {
      this.skippedLines++;
      return;
    }
    for (const { windowId, event } of events) {
      if (this.after === undefined || event.timestamp > this.after) this.digester.push(windowId, event);
    }
  }
}
