// A hostile outbound proxy on loopback in front of the sandbox (plain HTTP, so the proxy sees
// and may cut what passes): it refuses tunnels with 502 or 403, or cuts every tunnel's answer
// after a number of bytes. The built server at its defaults plus HTTP_PROXY: an error that names
// the proxy without its password, asked once where asking again cannot help, never a success
// for what was not read, never the key.
import { fileURLToPath } from 'node:url';
import { connect as tcpConnect, createServer, type AddressInfo, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIG_RECORDING_ID, DEMO, startSandbox, type Sandbox } from '../src/sandbox/index.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const P = String(DEMO.mainProjectId);
const PASSWORD = 'h0stileProxyPassw0rd';

interface HostileProxy {
  url: string;
  tunnels: number;
  /** Answer CONNECT with this status (and a body quoting the request's credentials). */
  refuseWith?: number;
  /** Pass on at most this many bytes of each tunnel's answer, then close both sides. */
  cutAfter?: number;
  /** Take the CONNECT and never answer it. */
  silent?: boolean;
  close(): Promise<void>;
}

async function startHostileProxy(): Promise<HostileProxy> {
  const open = new Set<Socket>();
  const server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => {});
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      // A TLS hello to this plain-HTTP proxy: answered as plain proxies answer it.
      if (head.length === 0 && chunk[0] === 0x16) {
        client.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      client.off('data', onData);
      const text = head.subarray(0, end).toString('latin1');
      const [, target] = text.split('\r\n')[0]!.split(' ');
      proxy.tunnels++;
      if (proxy.silent) return;
      if (proxy.refuseWith !== undefined) {
        const body = `<html>refused: ${text.replace(/\r\n/g, ' ')}</html>`;
        client.end(`HTTP/1.1 ${proxy.refuseWith} No\r\ncontent-type: text/html\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
        return;
      }
      const colon = target!.lastIndexOf(':');
      const upstream = tcpConnect(Number(target!.slice(colon + 1)), target!.slice(0, colon), () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        client.pipe(upstream);
        let passed = 0;
        upstream.on('data', (data: Buffer) => {
          const cut = proxy.cutAfter;
          if (cut !== undefined && passed + data.length > cut) {
            client.write(data.subarray(0, Math.max(0, cut - passed)));
            client.destroy();
            upstream.destroy();
            return;
          }
          passed += data.length;
          client.write(data);
        });
      });
      open.add(upstream);
      upstream.on('close', () => {
        open.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: HostileProxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels: 0,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return proxy;
}

describe('a hostile outbound proxy', () => {
  let sandbox: Sandbox;
  let proxy: HostileProxy;
  let client: Client | undefined;
  let stderr = '';

  beforeAll(async () => {
    sandbox = await startSandbox({ bigRecording: { copies: 10 } });
    proxy = await startHostileProxy();
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    sandbox.reset();
    proxy.tunnels = 0;
    delete proxy.refuseWith;
    delete proxy.cutAfter;
    delete proxy.silent;
    stderr = '';
  });
  afterAll(async () => {
    await proxy.close();
    await sandbox.close();
  });

  async function connect(extra: Record<string, string> = {}, scheme = 'http'): Promise<Client> {
    const c = new Client({ name: 'hostile-proxy-test', version: '1' });
    const withAuth = proxy.url.replace('http://', `${scheme}://team:${PASSWORD}@`);
    const env = { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: sandbox.apiKey, POSTHOG_HOST: sandbox.url, HTTP_PROXY: withAuth, ...extra };
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI], env, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await c.connect(transport);
    return c;
  }
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
  const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as CallToolResult;
  const noSecrets = (s: string) => {
    expect(s).not.toContain(PASSWORD);
    expect(s).not.toContain(Buffer.from(`team:${PASSWORD}`).toString('base64'));
    expect(s).not.toContain(sandbox.apiKey);
  };

  for (const status of [502, 403]) {
    it(`a proxy that answers ${status} to CONNECT: asked once, an error naming the proxy without its password`, async () => {
      proxy.refuseWith = status;
      client = await connect();
      const r = await call(client, 'projects-list', {});
      expect(r.isError).toBe(true);
      expect(text(r)).toContain(`the proxy ${proxy.url} (HTTP_PROXY) refused the connection (${status}`);
      expect(proxy.tunnels).toBe(1);
      expect(sandbox.requests).toHaveLength(0);
      noSecrets(JSON.stringify(r));
      await client.close();
      client = undefined;
      noSecrets(stderr);
    });
  }

  it('a proxy that cuts every answer short: never a success, the summary not whole, no secret', async () => {
    proxy.cutAfter = 600;
    client = await connect();
    const r = await call(client, 'projects-list', {});
    expect(r.isError, text(r)).toBe(true);
    expect(text(r)).toMatch(/through the proxy http:\/\/127\.0\.0\.1:\d+ \(HTTP_PROXY\)/);
    noSecrets(JSON.stringify(r));
    // Retried as a network break, a bounded number of times.
    expect(proxy.tunnels).toBeLessThanOrEqual(5);

    // The metadata passes whole; the blocks are cut: a partial summary or an error, never whole.
    proxy.cutAfter = 40_000;
    const s = await call(client, 'session-recording-summary', { project_id: P, id: BIG_RECORDING_ID });
    noSecrets(JSON.stringify(s));
    if (!s.isError) {
      const data = s.structuredContent as { partial?: unknown; notes?: string[] };
      expect(data.partial ?? data.notes?.find((n) => /not read|could not|failed/i.test(n)), text(s).slice(0, 800)).toBeTruthy();
    }
    await client.close();
    client = undefined;
    noSecrets(stderr);
  });

  it('a proxy that takes the CONNECT and never answers: the call ends at the request timeout, with an error', async () => {
    proxy.silent = true;
    // The request timeout is the setting under test: shortened from 30 s so the test is quick.
    client = await connect({ POSTHOG_TIMEOUT_MS: '1500' });
    // Before the fix the call was held for undici's 300 s wait for the CONNECT answer (the MCP
    // client's own 60 s request timeout ended it first); the test's timeout (20 s) catches that.
    const r = await call(client, 'projects-list', {});
    expect(r.isError, text(r)).toBe(true);
    expect(text(r)).toMatch(new RegExp(`^PostHog did not answer GET /api/projects/ through the proxy ${proxy.url.replace(/[.:/]/g, '\\$&')} \\(HTTP_PROXY; it may be the one not answering\\) within 1500 ms`));
    expect(proxy.tunnels).toBe(1);
    noSecrets(JSON.stringify(r));
  });

  it('HTTP_PROXY written https:// for a plain proxy: the error says to change HTTP_PROXY, not POSTHOG_HOST', async () => {
    client = await connect({}, 'https');
    const r = await call(client, 'projects-list', {});
    expect(r.isError).toBe(true);
    const shown = proxy.url.replace('http://', 'https://');
    expect(text(r)).toContain(`: the proxy ${shown} (HTTP_PROXY): it does not speak TLS there: HTTP_PROXY may need http:// instead of https://, or another port (`);
    expect(text(r)).not.toContain('POSTHOG_HOST may need');
    expect(proxy.tunnels).toBe(0);
    noSecrets(JSON.stringify(r));
  });

  it('a proxy that cuts the blocks mid-body: the summary is partial or an error, never whole', async () => {
    const whole = await connect();
    const full = await call(whole, 'session-recording-summary', { project_id: P, id: BIG_RECORDING_ID });
    await whole.close();
    expect(full.isError, text(full)).toBeFalsy();
    const events = (full.structuredContent as { counts: { events: number } }).counts.events;

    proxy.cutAfter = 200_000;
    client = await connect();
    const s = await call(client, 'session-recording-summary', { project_id: P, id: BIG_RECORDING_ID });
    noSecrets(JSON.stringify(s));
    if (!s.isError) {
      const data = s.structuredContent as { partial?: unknown; counts: { events: number } };
      expect(data.partial, text(s).slice(0, 800)).toBeTruthy();
      expect(data.counts.events).toBeLessThan(events);
    }
  });
});
