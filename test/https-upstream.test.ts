import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BIG_RECORDING_ID, DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { startTlsFront, TEST_CERT as CERT, type TlsFront } from './support/network.js';

// Every real PostHog is reached over HTTPS, every other test reaches the sandbox over plain HTTP.
// Here the sandbox sits behind a TLS front on loopback (a self-signed certificate for 127.0.0.1,
// test/fixtures/tls) and the built server talks to it as it would to us.posthog.com: the main
// thread through undici, the digest worker through node:https (src/posthog/remote-worker.ts).
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const P = String(DEMO.mainProjectId);
const SNAPSHOTS = `/api/projects/${P}/session_recordings/${BIG_RECORDING_ID}/snapshots`;
/** One copy to a block: 30 blocks, two requests (0-20, 21-29), both sent by the worker. */
const COPIES = 30;

type Summary = { counts: { events: number }; partial?: unknown };

describe('an HTTPS upstream', () => {
  let sandbox: Sandbox;
  let front: TlsFront;
  let host = '';
  let client: Client | undefined;

  beforeAll(async () => {
    sandbox = await startSandbox({ bigRecording: { copies: COPIES } });
    front = await startTlsFront(sandbox.url);
    host = front.url;
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    sandbox.reset();
    front.reset();
  });
  afterAll(async () => {
    await front.close();
    await sandbox.close();
  });

  /** The built server at the defaults (key and host); `extra` adds the test CA where trusted. */
  async function connect(extra: Record<string, string>): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI],
      env: { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: sandbox.apiKey, POSTHOG_HOST: host, ...extra },
      stderr: 'ignore',
    });
    const c = new Client({ name: 'https-upstream-test', version: '1' });
    await c.connect(transport);
    return c;
  }
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
  const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as CallToolResult;

  it('a trusted certificate: tools answer, and the summary reads every block through the worker', async () => {
    // NODE_EXTRA_CA_CERTS: how a user trusts a self-hosted PostHog's own CA; Node reads it at start.
    client = await connect({ NODE_EXTRA_CA_CERTS: CERT });
    const got = await call(client, 'session-recording-get', { project_id: P, id: DEMO.recordingIds.recordedCheckout });
    expect(got.isError, text(got)).toBeFalsy();
    expect((got.structuredContent as { recording: { id: string } }).recording.id).toBe(DEMO.recordingIds.recordedCheckout);

    const one = await call(client, 'session-recording-summary', { project_id: P, id: DEMO.recordingIds.recordedCheckout });
    expect(one.isError, text(one)).toBeFalsy();
    const perCopy = (one.structuredContent as Summary).counts.events;
    expect(perCopy).toBeGreaterThan(0);

    front.reset();
    const r = await call(client, 'session-recording-summary', { project_id: P, id: BIG_RECORDING_ID });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as Summary).partial).toBeUndefined();
    expect((r.structuredContent as Summary).counts.events).toBe(COPIES * perCopy);
    const blocks = sandbox.requests.filter((q) => q.path.replace(/\/$/, '') === SNAPSHOTS && q.query.source === 'blob_v2');
    expect(blocks.map((q) => q.query.start_blob_key)).toEqual(['0', '21']);
    // The blocks came to the worker over its own TLS connection, the rest to the main thread's pool.
    const isBlock = (target: string) => target.includes('/snapshots') && target.includes('blob_key');
    expect(front.sent.filter((q) => isBlock(q.target)).map((q) => q.by)).toEqual(['node:https', 'node:https']);
    expect(new Set(front.sent.filter((q) => !isBlock(q.target)).map((q) => q.by))).toEqual(new Set(['undici']));
  });

  it('an untrusted certificate: a clear error naming the certificate, nothing reported as read', async () => {
    client = await connect({});
    const r = await call(client, 'session-recording-get', { project_id: P, id: DEMO.recordingIds.recordedCheckout });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/certificate is not one this machine trusts.*NODE_EXTRA_CA_CERTS=.*Nothing was read\./);
    expect(text(r)).not.toContain(sandbox.apiKey);
    expect(sandbox.requests).toHaveLength(0);
    // Asking again gets the same certificate: one handshake, no retries. (The front hears of the
    // broken-off handshake when the client's alert arrives, which may be after the result.)
    await vi.waitFor(() => expect(front.refused).toBeGreaterThan(0), { timeout: 5_000 });
    expect(front.refused).toBe(1);

    const s = await call(client, 'session-recording-summary', { project_id: P, id: BIG_RECORDING_ID });
    expect(s.isError).toBe(true);
    expect(text(s)).toMatch(/NODE_EXTRA_CA_CERTS/);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('https:// at a port that speaks plain HTTP: the error says so', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI],
      env: { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: sandbox.apiKey, POSTHOG_HOST: sandbox.url.replace('http:', 'https:') },
      stderr: 'ignore',
    });
    client = new Client({ name: 'https-upstream-test', version: '1' });
    await client.connect(transport);
    const r = await call(client, 'projects-list', {});
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/does not speak TLS there: POSTHOG_HOST may need http:\/\//);
  });

  it('doctor: names the certificate problem and what to set, and passes once the authority is given', async () => {
    const doctor = async (extra: Record<string, string>) => {
      const env = { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: sandbox.apiKey, POSTHOG_HOST: host, ...extra };
      try {
        return (await promisify(execFile)(process.execPath, [CLI, 'doctor'], { env, encoding: 'utf8' })).stdout;
      } catch (error) {
        return (error as { stdout: string }).stdout;
      }
    };
    const refusedOut = await doctor({});
    expect(refusedOut).toMatch(/^FAIL {2}host and key: Could not reach PostHog at https:\/\/127\.0\.0\.1:\d+ for GET \/api\/users\/@me\/: its certificate is not one this machine trusts\. .*NODE_EXTRA_CA_CERTS/m);
    expect(refusedOut).not.toContain(sandbox.apiKey);
    expect(await doctor({ NODE_EXTRA_CA_CERTS: CERT })).toMatch(/^PASS {2}host and key: PostHog at https:\/\/127\.0\.0\.1:\d+ accepted the key/m);
  });
});
