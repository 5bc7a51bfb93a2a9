import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect as tcpConnect, type AddressInfo } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIG_RECORDING_ID, DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';

// Every real PostHog is reached over HTTPS, every other test reaches the sandbox over plain HTTP.
// Here the sandbox sits behind a TLS front on loopback (a self-signed certificate for 127.0.0.1,
// test/fixtures/tls) and the built server talks to it as it would to us.posthog.com: the main
// thread through undici, the digest worker through node:https (src/posthog/remote-worker.ts).
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const TLS = fileURLToPath(new URL('./fixtures/tls/', import.meta.url));
const CERT = `${TLS}127.0.0.1.cert.pem`;
const P = String(DEMO.mainProjectId);
const SNAPSHOTS = `/api/projects/${P}/session_recordings/${BIG_RECORDING_ID}/snapshots`;
/** One copy to a block: 30 blocks, two requests (0-20, 21-29), both sent by the worker. */
const COPIES = 30;

type Summary = { counts: { events: number }; partial?: unknown };

describe('an HTTPS upstream', () => {
  let sandbox: Sandbox;
  let front: TlsServer;
  let host = '';
  /** Each request line that came through the front, and which HTTP client sent it. */
  const sent: Array<{ by: string; target: string }> = [];
  /** Handshakes the client broke off (it did not trust the certificate). */
  let refused = 0;
  let client: Client | undefined;

  beforeAll(async () => {
    sandbox = await startSandbox({ bigRecording: { copies: COPIES } });
    const port = Number(new URL(sandbox.url).port);
    // TLS ends here; the bytes go on to the sandbox as they are.
    front = createTlsServer({ cert: readFileSync(CERT), key: readFileSync(`${TLS}127.0.0.1.key.pem`), ALPNProtocols: ['http/1.1'] }, (secure) => {
      // undici offers ALPN, Node's https client does not: which client sent each request.
      const by = secure.alpnProtocol ? 'undici' : 'node:https';
      const plain = tcpConnect(port, '127.0.0.1');
      secure.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('latin1').matchAll(/^(?:GET|POST|PATCH|DELETE) (\S+) HTTP\/1\.1\r$/gm)) sent.push({ by, target: line[1]! });
      });
      secure.pipe(plain).pipe(secure);
      secure.on('error', () => plain.destroy());
      plain.on('error', () => secure.destroy());
    });
    front.on('tlsClientError', () => refused++);
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    host = `https://127.0.0.1:${(front.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    sandbox.reset();
    refused = 0;
  });
  afterAll(async () => {
    await new Promise((resolve) => front.close(resolve));
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

    sent.length = 0;
    const r = await call(client, 'session-recording-summary', { project_id: P, id: BIG_RECORDING_ID });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as Summary).partial).toBeUndefined();
    expect((r.structuredContent as Summary).counts.events).toBe(COPIES * perCopy);
    const blocks = sandbox.requests.filter((q) => q.path.replace(/\/$/, '') === SNAPSHOTS && q.query.source === 'blob_v2');
    expect(blocks.map((q) => q.query.start_blob_key)).toEqual(['0', '21']);
    // The blocks came to the worker over its own TLS connection, the rest to the main thread's pool.
    const isBlock = (target: string) => target.includes('/snapshots') && target.includes('blob_key');
    expect(sent.filter((q) => isBlock(q.target)).map((q) => q.by)).toEqual(['node:https', 'node:https']);
    expect(new Set(sent.filter((q) => !isBlock(q.target)).map((q) => q.by))).toEqual(new Set(['undici']));
  });

  it('an untrusted certificate: a clear error naming the certificate, nothing reported as read', async () => {
    client = await connect({});
    const r = await call(client, 'session-recording-get', { project_id: P, id: DEMO.recordingIds.recordedCheckout });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/certificate is not one this machine trusts.*NODE_EXTRA_CA_CERTS=.*Nothing was read\./);
    expect(text(r)).not.toContain(sandbox.apiKey);
    expect(sandbox.requests).toHaveLength(0);
    // Asking again gets the same certificate: one handshake, no retries.
    expect(refused).toBe(1);

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
