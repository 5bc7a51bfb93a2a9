// HTTPS upstream failures other than an untrusted certificate: an expired one, one for another
// host name. The built server at its defaults (key and host; the certificate's issuer trusted
// with NODE_EXTRA_CA_CERTS, as a user of a self-hosted PostHog would): one attempt, since asking
// again gets the same certificate, and a message that says what is wrong; doctor says it too.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect as tcpConnect, type AddressInfo } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIG_RECORDING_ID, DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { startForwardProxy } from './support/network.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const TLS = fileURLToPath(new URL('./fixtures/tls/', import.meta.url));
const P = String(DEMO.mainProjectId);

/** HTTPS on 127.0.0.1 with the named certificate, in front of the sandbox; counts TLS connections tried. */
async function front(name: string, upstreamPort: number) {
  const state = { url: '', tries: 0, close: async () => {} };
  const sockets = new Set<TLSSocket>();
  const server = createTlsServer({ cert: readFileSync(`${TLS}${name}.cert.pem`), key: readFileSync(`${TLS}${name}.key.pem`) }, (secure) => {
    sockets.add(secure);
    const plain = tcpConnect(upstreamPort, '127.0.0.1');
    secure.pipe(plain).pipe(secure);
    secure.on('error', () => plain.destroy());
    plain.on('error', () => secure.destroy());
  });
  server.on('connection', () => state.tries++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return state;
}

describe('HTTPS upstream: a certificate wrong in other ways', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ bigRecording: { copies: 2 } });
  });
  afterAll(() => sandbox.close());

  const cases = [
    { name: 'expired-127.0.0.1', says: /its certificate is outside its validity dates \(check this machine's clock too\) \(CERT_HAS_EXPIRED/ },
    { name: 'other-host', says: /its certificate is for another host name: check POSTHOG_HOST \(ERR_TLS_CERT_ALTNAME_INVALID/ },
  ];
  for (const { name, says } of cases) {
    it(`${name}: tools and the summary fail once each (directly and through a proxy) with what is wrong; doctor says it`, async () => {
      const f = await front(name, Number(new URL(sandbox.url).port));
      const env = { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: sandbox.apiKey, POSTHOG_HOST: f.url, NODE_EXTRA_CA_CERTS: `${TLS}${name}.cert.pem` };
      const client = new Client({ name: 'tls-test', version: '1' });
      try {
        await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI], env, stderr: 'ignore' }));
        const r = (await client.callTool({ name: 'projects-list', arguments: {} })) as CallToolResult;
        expect(r.isError).toBe(true);
        const t = (r.content[0] as { text: string }).text;
        expect(t).toMatch(says);
        expect(t).not.toContain(sandbox.apiKey);
        expect(t).not.toMatch(/then retry/);
        expect(f.tries).toBe(1);
        expect(sandbox.requests).toHaveLength(0);

        const s = (await client.callTool({ name: 'session-recording-summary', arguments: { project_id: P, id: BIG_RECORDING_ID } })) as CallToolResult;
        expect(s.isError).toBe(true);
        expect((s.content[0] as { text: string }).text).toMatch(says);
        expect(f.tries).toBe(2);
      } finally {
        await client.close();
      }
      // The same through a CONNECT proxy: the certificate is PostHog's, seen through the tunnel.
      const proxy = await startForwardProxy();
      const viaProxy = new Client({ name: 'tls-test', version: '1' });
      try {
        await viaProxy.connect(new StdioClientTransport({ command: process.execPath, args: [CLI], env: { ...env, HTTPS_PROXY: proxy.url }, stderr: 'ignore' }));
        const r = (await viaProxy.callTool({ name: 'projects-list', arguments: {} })) as CallToolResult;
        expect(r.isError).toBe(true);
        expect((r.content[0] as { text: string }).text).toMatch(says);
        expect(proxy.tunnels).toHaveLength(1);
        expect(f.tries).toBe(3);
      } finally {
        await viaProxy.close();
        await proxy.close();
      }
      let out: string;
      try {
        out = (await promisify(execFile)(process.execPath, [CLI, 'doctor'], { env, encoding: 'utf8' })).stdout;
      } catch (error) {
        out = (error as { stdout: string }).stdout;
      }
      expect(out).toMatch(/^FAIL {2}host and key: /m);
      expect(out).toMatch(says);
      await f.close();
    });
  }
});
