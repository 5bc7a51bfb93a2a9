import { LineSplitter, eventsFromLine } from '../posthog/snapshots.js';
import { Digester, type Digest } from './digest.js';

/**
 * Snapshot bytes in, digest out: splits each fetch unit's body into lines, decodes the events
 * (posthog-js compression included) and feeds them to a Digester. The same code runs in the
 * digest worker and, where no worker is available, in the calling thread.
 */
export class DigestFeed {
  private readonly digester = new Digester();
  private splitter = new LineSplitter();
  /** For the realtime source: events at or before this time are already in the stored blocks. */
  private after: number | undefined;
  private skippedLines = 0;

  startUnit(after?: number): void {
    this.splitter = new LineSplitter();
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
    if (this.skippedLines > 0) this.digester.note(`${this.skippedLines} unreadable line(s) of snapshot data skipped (corrupt or cut off).`);
    return this.digester.finish();
  }

  private line(line: string): void {
    const events = eventsFromLine(line);
    if (events === null) {
      this.skippedLines++;
      return;
    }
    for (const { windowId, event } of events) {
      if (this.after === undefined || event.timestamp > this.after) this.digester.push(windowId, event);
    }
  }
}
