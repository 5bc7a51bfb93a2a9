import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, startSandbox, type Sandbox } from '../../src/sandbox/index.js';

describe('sandbox option extraRecordings', () => {
  let sb: Sandbox;
  const get = async (path: string) => (await fetch(sb.url + path, { headers: { Authorization: `Bearer ${sb.apiKey}` } })).json() as Promise<any>;
  beforeAll(async () => {
    sb = await startSandbox({ extraRecordings: 8 });
  });
  afterAll(() => sb.close());

  it('adds that many recordings to the main project, each with its own id, listed and retrievable', async () => {
    const demo = DEMO.recordings.filter((r) => r.projectId === DEMO.mainProjectId).map((r) => r.id);
    const list = await get(`/api/projects/${DEMO.mainProjectId}/session_recordings/?limit=100&date_from=-30d`);
    const ids: string[] = list.results.map((r: { id: string }) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const extra = ids.filter((id) => !demo.includes(id));
    expect(extra).toHaveLength(8);
    const one = await get(`/api/projects/${DEMO.mainProjectId}/session_recordings/${extra[0]}/`);
    expect(one).toMatchObject({ id: extra[0], recording_duration: expect.any(Number) });
  });
});
