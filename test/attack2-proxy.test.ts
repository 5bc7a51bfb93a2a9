// Attacks on the outbound proxy: NO_PROXY read as curl reads it, and the start-up line (what a
// user sees on stderr) saying whether PostHog is reached through the proxy.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const PASSWORD = 'pr0xyS3cret';
const PROXY = `http://team:${PASSWORD}@127.0.0.1:9`;

/** The built server's start-up line on stderr, at the defaults (key and host) plus the proxy variables; no stdin, so it exits. */
async function startupLine(host: string, extra: Record<string, string>): Promise<string> {
  const env = { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: 'phx_attack2testkey0000000000000000000000000000', POSTHOG_HOST: host, ...extra };
  const child = spawn(process.execPath, [CLI], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await once(child, 'exit');
  expect(stderr).not.toContain(PASSWORD);
  return stderr;
}

describe('NO_PROXY edge cases, as curl reads them', () => {
  const cases: Array<{ host: string; noProxy: string; proxied: boolean; why: string }> = [
    { host: 'https://posthog.corp.test.', noProxy: 'posthog.corp.test', proxied: false, why: 'a trailing dot on the host names the same host' },
    { host: 'https://posthog.corp.test', noProxy: 'corp.test.', proxied: false, why: 'a trailing dot on the entry names the same domain' },
    { host: 'https://posthog.corp.test', noProxy: ' POSTHOG.CORP.TEST:443 ', proxied: false, why: 'case, spaces and the default port' },
    { host: 'https://posthog.corp.test:8443', noProxy: 'posthog.corp.test:443', proxied: true, why: 'another port' },
    { host: 'http://10.0.0.1:8000', noProxy: '0.1', proxied: true, why: 'an address is not a domain: no suffix of it matches' },
    { host: 'http://10.0.0.1:8000', noProxy: '10.0.0.0/8', proxied: false, why: 'a CIDR range' },
    { host: 'http://[::1]:8000', noProxy: '0:0:0:0:0:0:0:1', proxied: false, why: 'the same IPv6 address written out' },
    { host: 'http://[::1]:8000', noProxy: '[::1]:8000', proxied: false, why: 'IPv6 with its port' },
    { host: 'http://[::1]:8000', noProxy: '[::1]:80', proxied: true, why: 'IPv6 with another port' },
  ];
  for (const { host, noProxy, proxied, why } of cases) {
    it(`${host} with NO_PROXY=${JSON.stringify(noProxy)}: ${proxied ? 'proxied' : 'direct'} (${why})`, async () => {
      const line = await startupLine(host, { HTTPS_PROXY: PROXY, HTTP_PROXY: PROXY, NO_PROXY: noProxy });
      expect(line).toMatch(/against /);
      if (proxied) expect(line).toContain('through the proxy http://127.0.0.1:9');
      else expect(line).not.toContain('through the proxy');
    });
  }
});

describe('proxy credentials in percent-encoded forms', () => {
  const raw = 's:cr@t/p%w';
  const encoded = encodeURIComponent(raw);
  const proxy = `http://te%40m:${encoded}@127.0.0.1:9`;

  it('neither form on the start-up line', async () => {
    const line = await startupLine('https://posthog.corp.test', { HTTPS_PROXY: proxy });
    expect(line).toContain('through the proxy http://127.0.0.1:9 (HTTPS_PROXY)');
    for (const form of [raw, encoded, 'te@m', 'te%40m', Buffer.from(`te@m:${raw}`).toString('base64')]) expect(line).not.toContain(form);
  });

  it('neither form in doctor, whose proxy cannot be reached', async () => {
    const { execFile } = await import('node:child_process');
    const env = { PATH: process.env.PATH ?? '', POSTHOG_PERSONAL_API_KEY: 'phx_attack2testkey0000000000000000000000000000', POSTHOG_HOST: 'http://127.0.0.1:9', HTTP_PROXY: proxy };
    const out = await new Promise<string>((resolve) => execFile(process.execPath, [CLI, 'doctor'], { env, encoding: 'utf8' }, (_e, stdout, stderr) => resolve(stdout + stderr)));
    expect(out).toMatch(/^PASS {2}proxy: requests to PostHog go through http:\/\/127\.0\.0\.1:9 \(HTTP_PROXY/m);
    expect(out).toMatch(/^FAIL {2}host and key: .*through the proxy http:\/\/127\.0\.0\.1:9 \(HTTP_PROXY\)/m);
    for (const form of [raw, encoded, 'te@m', 'te%40m', Buffer.from(`te@m:${raw}`).toString('base64'), 'phx_attack2testkey']) expect(out).not.toContain(form);
  });
});
