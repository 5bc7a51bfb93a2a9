import { readFileSync } from 'node:fs';
import { connect as tcpConnect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { fileURLToPath } from 'node:url';

// What stands between the server and PostHog on real networks, made on loopback: a TLS front
// (PostHog is reached over HTTPS) and a forward proxy (company networks send everything through
// one). Both pass bytes on as they are.

const TLS = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));
/** A self-signed certificate for 127.0.0.1 (test/fixtures/tls): trusted only with NODE_EXTRA_CA_CERTS. */
export const TEST_CERT = `${TLS}127.0.0.1.cert.pem`;

const listen = async <T extends TcpServer>(server: T): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const join = (a: Socket, b: Socket) => {
  a.pipe(b).pipe(a);
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
};

export interface TlsFront {
  url: string;
  /** Each request line that came through, and which HTTP client sent it (undici offers ALPN, node:https does not). */
  sent: Array<{ by: 'undici' | 'node:https'; target: string }>;
  /** TLS connections made, and handshakes the client broke off (it did not trust the certificate). */
  connections: number;
  refused: number;
  reset(): void;
  close(): Promise<void>;
}

/** HTTPS on loopback in front of a plain HTTP server (the sandbox) at `upstream` (its URL). */
export async function startTlsFront(upstream: string): Promise<TlsFront> {
  const port = Number(new URL(upstream).port);
  const front: TlsFront & { server?: TlsServer } = {
    url: '',
    sent: [],
    connections: 0,
    refused: 0,
    reset() {
      this.sent.length = 0;
      this.connections = 0;
      this.refused = 0;
    },
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createTlsServer({ cert: readFileSync(TEST_CERT), key: readFileSync(`${TLS}127.0.0.1.key.pem`), ALPNProtocols: ['http/1.1'] }, (secure) => {
    front.connections++;
    const by = secure.alpnProtocol ? 'undici' : 'node:https';
    secure.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('latin1').matchAll(/^(?:GET|POST|PATCH|DELETE) (\S+) HTTP\/1\.1\r$/gm)) front.sent.push({ by, target: line[1]! });
    });
    join(secure, tcpConnect(port, '127.0.0.1'));
  });
  server.on('tlsClientError', () => front.refused++);
  front.url = `https://${await listen(server)}`;
  return front;
}

export interface ForwardProxy {
  url: string;
  /** Each CONNECT asked for: its target and the Proxy-Authorization header sent, if any. */
  tunnels: Array<{ target: string; auth: string | undefined }>;
  /** Answer every CONNECT with this status instead of opening the tunnel (e.g. 407). */
  refuseWith: number | undefined;
  reset(): void;
  close(): Promise<void>;
}

/** An HTTP proxy on loopback that opens CONNECT tunnels (what undici asks of a proxy for http and https alike). */
export async function startForwardProxy(): Promise<ForwardProxy> {
  const open = new Set<Socket>();
  const proxy: ForwardProxy = {
    url: '',
    tunnels: [],
    refuseWith: undefined,
    reset() {
      this.tunnels.length = 0;
      this.refuseWith = undefined;
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createTcpServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => {});
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > 16_384) client.destroy();
        return;
      }
      client.off('data', onData);
      const lines = head.subarray(0, end).toString('latin1').split('\r\n');
      const rest = head.subarray(end + 4);
      const [method, target] = lines[0]!.split(' ');
      const auth = lines.find((l) => /^proxy-authorization:/i.test(l))?.replace(/^[^:]+:\s*/, '');
      if (method !== 'CONNECT' || !target) {
        client.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      proxy.tunnels.push({ target, auth });
      if (proxy.refuseWith !== undefined) {
        client.end(`HTTP/1.1 ${proxy.refuseWith} Refused\r\nproxy-authenticate: Basic realm="test"\r\ncontent-length: 0\r\n\r\n`);
        return;
      }
      const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
      const upstream = tcpConnect(port, host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (rest.length > 0) upstream.write(rest);
        join(client, upstream);
      });
      open.add(upstream);
      upstream.on('close', () => open.delete(upstream));
      upstream.on('error', () => client.destroy());
    };
    client.on('data', onData);
  });
  proxy.url = `http://${await listen(server)}`;
  return proxy;
}
