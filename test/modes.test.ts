import { describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text } from './harness.js';

describe('configuration shapes the tool list', () => {
  it('read-only mode registers only read-only tools', async () => {
    const h = await startHarness({ readOnly: true });
    try {
      const tools = (await h.client.listTools()).tools;
      expect(tools.map((t) => t.name).sort()).toEqual(
        ['project-get', 'projects-list', 'recording-filter-options', 'session-recording-get', 'session-recording-matching-events', 'session-recording-properties', 'session-recording-replay', 'session-recording-reproduce', 'session-recording-snapshots', 'session-recording-summary', 'session-recordings-list', 'session-recordings-triage'].sort(),
      );
      expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
      // A tool this configuration does not offer is unknown: a JSON-RPC error, as for any unknown name.
      await expect(h.call('project-delete', { id: DEMO.emptyProjectId })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool: "project-delete"/) });
      expect(h.sandbox.requests).toHaveLength(0);
    } finally {
      await h.close();
    }
  });

  it('toolsets narrow the list to their group', async () => {
    const projects = await startHarness({ toolsets: ['projects'] });
    const recordings = await startHarness({ toolsets: ['recordings'] });
    try {
      expect((await projects.client.listTools()).tools.map((t) => t.name)).toEqual(['projects-list', 'project-create', 'project-get', 'project-update', 'project-delete']);
      expect((await recordings.client.listTools()).tools.every((t) => t.name.startsWith('session-recording') || t.name === 'recording-filter-options')).toBe(true);
      expect((await recordings.client.listTools()).tools).toHaveLength(11);
    } finally {
      await projects.close();
      await recordings.close();
    }
  });

  it('a default project makes project_id optional and is used when omitted', async () => {
    const h = await startHarness({ defaultProjectId: String(DEMO.marketingProjectId) });
    try {
      const tool = (await h.client.listTools()).tools.find((t) => t.name === 'session-recordings-list')!;
      expect(tool.inputSchema.required ?? []).not.toContain('project_id');
      expect((tool.inputSchema.properties as Record<string, { description: string }>).project_id!.description).toMatch(`default ${DEMO.marketingProjectId}`);
      const r = await h.call('session-recordings-list', { date_from: '-30d' });
      expect(r.isError, text(r)).toBeFalsy();
      expect(h.sandbox.requests[0]!.path).toBe(`/api/projects/${DEMO.marketingProjectId}/session_recordings/`);
      const ids = (r.structuredContent as { results: Array<{ id: string }> }).results.map((x) => x.id);
      expect(ids.sort()).toEqual(DEMO.recordings.filter((x) => x.projectId === DEMO.marketingProjectId).map((x) => x.id).sort());
      // An explicit project_id still wins.
      await h.call('session-recordings-list', { project_id: '@current' });
      expect(h.sandbox.requests[1]!.path).toBe('/api/projects/@current/session_recordings/');
    } finally {
      await h.close();
    }
  });
});

describe('the API key stays secret', () => {
  it('never appears in any tool result or log, across every tool, successes and failures alike', async () => {
    const key = 'phx_key_that_must_never_leak_4242424242';
    const h = await startHarness({ sandbox: { apiKey: key } });
    try {
      // A proxy that echoes the key back in an error must not make it leak either.
      h.sandbox.injectFault({ path: /\/api\/projects\/?$/, method: 'GET', status: 400, body: { type: 'validation_error', code: 'x', detail: `bad header Bearer ${key}`, attr: null } });
      const P = DEMO.mainProjectId;
      const R = DEMO.recordingIds.checkoutFailure;
      const results = [
        await h.call('projects-list', {}),
        await h.call('projects-list', {}),
        await h.call('project-get', { id: P, include_settings: true }),
        await h.call('project-create', { name: 'Leak check' }),
        await h.call('project-update', { id: P, name: 'Acme Shop 2' }),
        await h.call('project-delete', { id: DEMO.emptyProjectId }),
        await h.call('project-get', { id: 424242 }),
        await h.call('session-recordings-list', { project_id: P, include_person_properties: true }),
        await h.call('session-recording-get', { project_id: P, id: R, include_person_properties: true }),
        await h.call('session-recording-snapshots', { project_id: P, id: R }),
        await h.call('session-recording-matching-events', { project_id: P, session_id: R, events: [{ id: '$pageview' }] }),
        await h.call('session-recording-properties', { project_id: P, session_ids: [R] }),
        await h.call('session-recording-delete', { project_id: P, id: R }),
        await h.call('session-recording-get', { project_id: P, id: R }),
      ];
      expect(results[0]!.isError).toBe(true);
      expect(results.filter((r) => !r.isError).length).toBeGreaterThan(8);
      expect(h.sandbox.requests.every((r) => r.authorization === `Bearer ${key}`)).toBe(true);
      expect(JSON.stringify(results)).not.toContain(key);
      expect(h.stderr.join('\n')).not.toContain(key);
    } finally {
      await h.close();
    }
  });
});
