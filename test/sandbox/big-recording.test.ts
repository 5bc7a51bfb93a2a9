import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIG_RECORDING_ID, DEMO, startSandbox, type Sandbox } from '../../src/sandbox/index.js';

describe('sandbox bigRecording (the benchmark recording)', () => {
  let sandbox: Sandbox;
  const base = () => `${sandbox.url}/api/projects/${DEMO.mainProjectId}/session_recordings/${BIG_RECORDING_ID}`;
  const get = async (path: string) => {
    const response = await fetch(base() + path, { headers: { authorization: `Bearer ${sandbox.apiKey}` } });
    expect(response.status).toBe(200);
    return response;
  };
  beforeAll(async () => {
    sandbox = await startSandbox({ bigRecording: { copies: 3 } });
  });
  afterAll(() => sandbox.close());

  it('serves the recorded checkout N times over, each copy later than the one before, with matching metadata', async () => {
    const { sources } = (await (await get('/snapshots/')).json()) as { sources: Array<{ start_timestamp: string; end_timestamp: string }> };
    expect(sources.length % 3).toBe(0);
    const starts = sources.map((s) => Date.parse(s.start_timestamp));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    const body = await (await get(`/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=${sources.length - 1}`)).text();
    const events = body.split('\n').map((l) => JSON.parse(l) as [string, { type: number; timestamp: number }]);
    const metas = events.filter(([, e]) => e.type === 4);
    expect(metas.length % 3).toBe(0);
    const times = events.map(([, e]) => e.timestamp);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const meta = (await (await get('/')).json()) as { recording_duration: number };
    expect(Math.abs(meta.recording_duration * 1000 - (times.at(-1)! - times[0]!))).toBeLessThan(2000);
  });

  it('is not part of an ordinary sandbox', async () => {
    const plain = await startSandbox();
    try {
      const response = await fetch(`${plain.url}/api/projects/${DEMO.mainProjectId}/session_recordings/${BIG_RECORDING_ID}/`, { headers: { authorization: `Bearer ${plain.apiKey}` } });
      expect(response.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
