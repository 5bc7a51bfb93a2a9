// session-recording-reproduce is safe to generate and to run: a crafted recording cannot hold the
// server's event loop (other calls are answered while it is worked on) nor run without bound, and
// a recorded path cannot send the test to another host.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GenerationTooLong } from '../src/reproduce/budget.js';
import { renderSpec } from '../src/reproduce/code.js';
import { Reproducer } from '../src/reproduce/session.js';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';
import { T0, deepDomRecording, type Line } from './reproduce/crafted.js';

const project = String(DEMO.mainProjectId);
const original = Reproducer.prototype.push;

function reproduce(lines: Line[], workMs?: number) {
  const r = new Reproducer(workMs === undefined ? {} : { workMs });
  for (const [w, e] of lines) r.push(w, e);
  return renderSpec(r.finish(), { recordingId: 'crafted', projectId: project, copyTypedValues: false });
}

describe('reproduce on a crafted recording', () => {
  let h: Harness;
  const deep = deepDomRecording();
  beforeAll(async () => {
    h = await startHarness({ sandbox: { recordings: [{ id: 'deep-dom', lines: deep }] } });
  });
  afterAll(() => h?.close());

  it('answers other calls while it works on a page nested a thousand deep (90 such chains), clicked 20 times', async () => {
    // The clicks are the costly part (a selector search on the whole page each): note when the first one is taken on.
    let clicking = false;
    const push = vi.spyOn(Reproducer.prototype, 'push').mockImplementation(function (this: Reproducer, windowId, event) {
      if (event.type === 3) clicking = true;
      original.call(this, windowId, event);
    });
    const order: string[] = [];
    try {
      const call = h.call('session-recording-reproduce', { project_id: project, id: 'deep-dom' }).then((result) => (order.push('reproduce'), result));
      while (!clicking) await new Promise((resolve) => setImmediate(resolve));
      const list = await h.call('projects-list', {});
      order.push('projects-list');
      expect(list.isError, text(list)).toBeFalsy();
      const result = await call;
      expect(result.isError, text(result)).toBeFalsy();
      expect((result.structuredContent as { steps: unknown[] }).steps).toHaveLength(21);
      // Asked for once the clicks were being worked on, the cheap call is answered before the 19 or so left are done.
      expect(order).toEqual(['projects-list', 'reproduce']);
    } finally {
      push.mockRestore();
    }
  }, 120_000);

  it('stops with a clear error past its bound of work', () => {
    expect(() => reproduce(deep, 20)).toThrow(GenerationTooLong);
    expect(() => reproduce(deep, 20)).toThrow(/took more than .* of work and was stopped: the recorded pages are too large or too deeply nested/);
  });
});

describe('navigation never leaves baseURL', () => {
  it('a recorded path starting with // becomes a path on the site under test', () => {
    const out = reproduce([
      ['w', { type: 4, timestamp: T0, data: { href: 'https://shop.test//evil.example/login' } }],
      ['w', { type: 4, timestamp: T0 + 60_000, data: { href: 'https://shop.test/\\\\evil.example/x' } }],
    ]);
    expect(out.code).toContain("page.goto('/evil.example/login')");
    expect(out.code).not.toMatch(/goto\('[/\\]{2}/);
    expect(out.skipped.join('\n')).toMatch(/more than one slash, which a browser reads as another host/);
  });

  it('a page of another origin is never a goto', () => {
    const out = reproduce([
      ['w', { type: 4, timestamp: T0, data: { href: 'https://shop.test/cart' } }],
      ['w', { type: 4, timestamp: T0 + 60_000, data: { href: 'https://evil.example/login' } }],
    ]);
    expect(out.code).not.toContain('evil.example/login');
    expect(out.code.match(/goto\(/g)).toHaveLength(1);
  });
});
