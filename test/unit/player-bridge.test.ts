// The player's side of MCP Apps (src/app/bridge.ts): answers are matched to requests, and a host
// that never answers is reported instead of leaving the player at "Loading…" for ever. The
// bridge speaks postMessage with window.parent; here a stand-in window and host carry the
// messages (the browser test runs it against ext-apps' real AppBridge).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Posted = { id?: number; method?: string };
/** What the test uses of the bridge. Browser code, typed with the DOM's library (src/app/tsconfig.json), so loaded by a path the root program does not follow. */
interface Bridge {
  callServerTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  openLink(params: { url: string }): Promise<void>;
}
type BridgeClass = new (appInfo: { name: string; version: string }, host: unknown, answerWithinMs: { 'tools/call': number; other: number }) => Bridge;
const BRIDGE_MODULE = '../../src/app/bridge.js';

describe('HostBridge requests', () => {
  const posted: Posted[] = [];
  const host = { postMessage: (message: Posted) => posted.push(message) };
  let HostBridge: BridgeClass;
  beforeAll(async () => {
    (globalThis as { window?: unknown }).window = new EventTarget();
    ({ HostBridge } = (await import(BRIDGE_MODULE)) as { HostBridge: BridgeClass });
  });
  afterAll(() => {
    delete (globalThis as { window?: unknown }).window;
  });
  /** A message from the host, as the view's window receives it. */
  const fromHost = (data: unknown) => (globalThis as unknown as { window: EventTarget }).window.dispatchEvent(Object.assign(new Event('message'), { data, source: host }));
  // The answer bounds shortened from 150 s / 30 s (ANSWER_WITHIN_MS): this test is about them.
  const bridge = () => new HostBridge({ name: 'test', version: '1' }, host, { 'tools/call': 80, other: 40 });

  it("resolves a tool call with the host's answer, and rejects one with the host's error", async () => {
    const b = bridge();
    const call = b.callServerTool({ name: 'x', arguments: {} });
    const sent = posted.at(-1)!;
    expect(sent).toMatchObject({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'x', arguments: {} } });
    fromHost({ jsonrpc: '2.0', id: sent.id, result: { structuredContent: { ok: 1 } } });
    await expect(call).resolves.toEqual({ structuredContent: { ok: 1 } });
    const failing = b.callServerTool({ name: 'y', arguments: {} });
    fromHost({ jsonrpc: '2.0', id: posted.at(-1)!.id, error: { code: -32000, message: 'no such recording' } });
    await expect(failing).rejects.toThrow('no such recording');
  });

  it('rejects a request the host never answers, naming it, and drops a late answer', async () => {
    const b = bridge();
    const call = b.callServerTool({ name: 'slow', arguments: {} });
    const id = posted.at(-1)!.id;
    await expect(call).rejects.toThrow('the host did not answer tools/call within 80 ms');
    fromHost({ jsonrpc: '2.0', id, result: {} });
    await expect(b.openLink({ url: 'https://example.com' })).rejects.toThrow('the host did not answer ui/open-link within 40 ms');
  });
});
