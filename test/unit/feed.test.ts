import { describe, expect, it } from 'vitest';
import { DIGEST_MAX_LINE_BYTES, DigestFeed } from '../../src/digest/feed.js';

const line = (t: number, type = 3) => JSON.stringify(['w', { type, timestamp: t, data: { source: 1, positions: [] } }]);

describe('DigestFeed', () => {
  it('drops realtime events the stored blocks already hold (at or before `after`)', () => {
    const feed = new DigestFeed();
    feed.startUnit();
    feed.data(Buffer.from([line(1000), line(2000)].join('\n')));
    feed.endUnit();
    feed.startUnit(2000);
    feed.data(Buffer.from([line(1500), line(2000), line(2500), line(3000)].join('\n') + '\n'));
    feed.endUnit();
    expect(feed.finish().counts.events).toBe(4);
  });

  it('survives a line nested 100,000 deep, and skips and counts an overlong and a cut-off line', () => {
    const feed = new DigestFeed();
    feed.startUnit();
    feed.data(Buffer.from(`${'{"snapshots":['.repeat(100_000)}${']}'.repeat(100_000)}\n`));
    feed.data(Buffer.from(`["w", {"type": 5, "timestamp": 1, "data": {"payload": "${'x'.repeat(DIGEST_MAX_LINE_BYTES + 10)}"}}]\n`));
    feed.data(Buffer.from(`${line(5000)}\n["w", {"type": 3, "time`));
    feed.endUnit();
    const digest = feed.finish();
    expect(digest.counts.events).toBe(1);
    // The nested wrappers hold no event (a wrapper inside a wrapper is not read): nothing to count.
    expect(digest.notes.join(' ')).toMatch(/2 unreadable line\(s\)/);
  });
});
