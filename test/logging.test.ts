import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, type Harness } from './harness.js';

describe('logging capability', () => {
  let h: Harness;
  const messages: LoggingMessageNotification['params'][] = [];
  beforeAll(async () => {
    h = await startHarness();
    h.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
  });
  afterAll(() => h.close());

  const settle = () => new Promise((r) => setTimeout(r, 50));

  it('declares logging and tells the client of failed calls at a level fitting the failure, filtered by logging/setLevel', async () => {
    expect(h.client.getServerCapabilities()?.logging).toEqual({});
    await h.call('project-get', { id: 424242 });
    await settle();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ level: 'info', logger: 'posthog-replay-mcp' });
    expect(String(messages[0]!.data)).toMatch(/^project-get failed: PostHog answered 404/);

    expect(await h.client.setLoggingLevel('warning')).toEqual({});
    await h.call('project-get', { id: 424242 });
    h.sandbox.injectFault({ path: `/api/projects/${DEMO.mainProjectId}/`, status: 500 });
    await h.call('project-get', { id: DEMO.mainProjectId });
    await settle();
    expect(messages.map((m) => m.level)).toEqual(['info', 'warning']);
    expect(String(messages[1]!.data)).toMatch(/PostHog answered 500/);
    expect(JSON.stringify(messages)).not.toContain(h.sandbox.apiKey);
  });
});
