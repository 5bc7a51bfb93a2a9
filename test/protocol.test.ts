import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds.checkoutFailure;

describe('protocol errors where the MCP spec asks for them, plain tool errors elsewhere', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('answers an unknown tool name with a JSON-RPC error (-32602), not a tool result', async () => {
    await expect(h.client.callTool({ name: 'session-recordings-search', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Unknown tool: "session-recordings-search"/),
    });
    // A name of any length is clipped in the answer.
    await expect(h.client.callTool({ name: 'x'.repeat(100_000), arguments: {} })).rejects.toSatisfy((e: Error) => e.message.length < 400);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('gives validation failures as tool results without a JSON-RPC prefix', async () => {
    const r = await h.call('session-recordings-list', { project_id: P, limit: 0 });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Invalid arguments for session-recordings-list: limit: /);
    expect(text(r)).not.toMatch(/MCP error|-32602|Input validation error/);
  });

  it('says how to find and set a project when project_id is missing and there is no default', async () => {
    const r = await h.call('session-recordings-list', {});
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/project_id is required.*projects-list.*POSTHOG_PROJECT_ID/);
    expect(text(r)).not.toMatch(/Invalid input at/);
    expect(h.sandbox.requests).toHaveLength(0);
  });
});

describe('arguments no schema can refuse are refused before any upstream request', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('refuses an own __proto__ key like any unknown key (it once deleted the project)', async () => {
    // JSON.parse makes __proto__ an own key, as a client's message would carry it.
    const args = JSON.parse(`{"id": ${DEMO.emptyProjectId}, "__proto__": {"x": 1}}`) as Record<string, unknown>;
    const r = await h.call('project-delete', args);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/unrecognized key "__proto__"/);
    expect(h.sandbox.requests).toHaveLength(0);
    const nested = JSON.parse(`{"id": ${DEMO.emptyProjectId}, "correlation_config": {"__proto__": {"polluted": true}}}`) as Record<string, unknown>;
    const r2 = await h.call('project-update', nested);
    expect(text(r2)).toMatch(/correlation_config: unrecognized key "__proto__"/);
    expect(h.sandbox.requests).toHaveLength(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses schema-valid arguments nested 10,000 deep with a clear message, and keeps serving', async () => {
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const r = await h.call('project-update', { id: DEMO.emptyProjectId, extra_settings: deep });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/nested more than 32 levels/);
    expect(text(r)).not.toMatch(/Could not reach PostHog|Internal error/);
    expect(h.sandbox.requests).toHaveLength(0);
    const ok = await h.call('session-recording-get', { project_id: P, id: R });
    expect(ok.isError, text(ok)).toBeFalsy();
  });

  it('clips an echoed value: a 1 MiB timezone is not sent back whole', async () => {
    const r = await h.call('project-update', { id: DEMO.emptyProjectId, timezone: 'X'.repeat(1 << 20) });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/timezone must be an IANA name/);
    expect(text(r).length).toBeLessThan(1000);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('accepts a project id given as a number, as docs/design.md, "Inputs as hosts send them" allows', async () => {
    const r = await h.call('session-recording-get', { project_id: DEMO.mainProjectId, id: R });
    expect(r.isError, text(r)).toBeFalsy();
  });
});
