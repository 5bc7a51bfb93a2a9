import { describe, expect, it } from 'vitest';
import { bearer, hostAllowed, originAllowed, resolveAllowedHosts, tokenMatches } from '../../src/transports/http-access.js';

describe('HTTP access rules', () => {
  it('by default accepts only the loopback names with the bound port when bound to loopback', () => {
    const allowed = resolveAllowedHosts(undefined, '127.0.0.1', 3000);
    for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'LOCALHOST:3000']) expect(hostAllowed(host, allowed), host).toBe(true);
    for (const host of ['evil.example.com:3000', 'localhost:3001', 'localhost', '127.0.0.1.nip.io:3000', undefined, '']) expect(hostAllowed(host, allowed), String(host)).toBe(false);
    // Port 80 is left out of Host by clients.
    expect(hostAllowed('localhost', resolveAllowedHosts(undefined, 'localhost', 80))).toBe(true);
  });

  it('checks no Host when bound beyond loopback without a list, and takes a configured list as given', () => {
    expect(resolveAllowedHosts(undefined, '0.0.0.0', 3000)).toBe('any');
    expect(resolveAllowedHosts(['*'], '127.0.0.1', 3000)).toBe('any');
    const allowed = resolveAllowedHosts(['mcp.example.com', '10.0.0.5:8080'], '0.0.0.0', 3000);
    expect(hostAllowed('mcp.example.com', allowed)).toBe(true);
    expect(hostAllowed('mcp.example.com:443', allowed)).toBe(true);
    expect(hostAllowed('10.0.0.5:8080', allowed)).toBe(true);
    expect(hostAllowed('10.0.0.5:9090', allowed)).toBe(false);
    expect(hostAllowed('localhost:3000', allowed)).toBe(false);
  });

  it('lets requests without Origin through, and browser Origins only when listed or naming an allowed host', () => {
    const loopback = resolveAllowedHosts(undefined, '127.0.0.1', 3000);
    expect(originAllowed(undefined, loopback, [])).toBe(true);
    expect(originAllowed('http://localhost:3000', loopback, [])).toBe(true);
    expect(originAllowed('http://evil.example.com', loopback, [])).toBe(false);
    expect(originAllowed('http://localhost:6274', loopback, [])).toBe(false);
    expect(originAllowed('http://localhost:6274', loopback, ['http://localhost:6274'])).toBe(true);
    expect(originAllowed('null', loopback, [])).toBe(false);
    // With any Host accepted, an Origin must be listed.
    expect(originAllowed('https://mcp.example.com', 'any', [])).toBe(false);
    expect(originAllowed('https://app.example.com', 'any', ['https://app.example.com'])).toBe(true);
  });

  it('reads a Bearer credential and compares tokens exactly', () => {
    expect(bearer('Bearer phx_abc')).toBe('phx_abc');
    expect(bearer('bearer phx_abc ')).toBe('phx_abc');
    expect(bearer('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(bearer('Bearer two words')).toBeUndefined();
    expect(bearer(undefined)).toBeUndefined();
    // Longer than a PostHog key may be: refused, unless the caller allows longer (OAuth tokens).
    expect(bearer(`Bearer ${'t'.repeat(513)}`)).toBeUndefined();
    expect(bearer(`Bearer ${'t'.repeat(513)}`, 8_192)).toBe('t'.repeat(513));
    const token = 'a-long-enough-access-token';
    expect(tokenMatches(token, token)).toBe(true);
    expect(tokenMatches(token, `${token}x`)).toBe(false);
    expect(tokenMatches(token, token.slice(0, -1))).toBe(false);
    expect(tokenMatches(token, undefined)).toBe(false);
  });
});
