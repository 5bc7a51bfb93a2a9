import { describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text } from './harness.js';

describe('configuration shapes the tool list', () => {
  it('read-only mode registers only read-only tools', async () => {
    const h = await startHarness({ readOnly: true });
    try {
      const tools = (await h.client.listTools()).tools;
      expect(tools.map((t) => t.name).sort()).toEqual(
        ['project-get', 'projects-list', 'session-recording-get', 'session-recording-matching-events', 'session-recording-properties', 'session-recording-snapshots', 'session-recordings-list'].sort(),
      );
      expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
      const r = await h.call('project-delete', { id: DEMO.emptyProjectId });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/not found/i);
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
      expect((await recordings.client.listTools()).tools.every((t) => t.name.startsWith('session-recording'))).toBe(true);
      expect((await recordings.client.listTools()).tools).toHaveLength(6);
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
      expect((tool.inputSchema.properties as Record<string, { description: string }>).project_id!.description).toMatch(`Defaults to ${DEMO.marketingProjectId}`);
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
