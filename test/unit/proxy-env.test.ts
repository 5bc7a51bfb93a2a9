import { describe, expect, it } from 'vitest';
import { ProxyRefused, proxyFor } from '../../src/proxy-env.js';

describe('proxyFor: the proxy the environment names for an upstream', () => {
  it('HTTPS_PROXY for https://, HTTP_PROXY for http://, the lower-case name first; none when unset or blank', () => {
    const env = { HTTPS_PROXY: 'http://secure.example:3128', HTTP_PROXY: 'http://plain.example:3128' };
    expect(proxyFor('https://us.posthog.com', env)).toEqual({ url: 'http://secure.example:3128/', from: 'HTTPS_PROXY', shown: 'http://secure.example:3128' });
    expect(proxyFor('http://posthog.internal:8000', env)?.from).toBe('HTTP_PROXY');
    expect(proxyFor('https://us.posthog.com', { ...env, https_proxy: 'http://lower.example:8080' })?.shown).toBe('http://lower.example:8080');
    expect(proxyFor('https://us.posthog.com', { HTTP_PROXY: 'http://plain.example:3128' })).toBeUndefined();
    expect(proxyFor('https://us.posthog.com', { HTTPS_PROXY: '   ' })).toBeUndefined();
    expect(proxyFor('https://us.posthog.com', {})).toBeUndefined();
  });

  it('a proxy without a scheme is an HTTP proxy; credentials stay in the URL and out of what is shown', () => {
    expect(proxyFor('https://eu.posthog.com', { HTTPS_PROXY: 'proxy.corp:8080' })?.url).toBe('http://proxy.corp:8080/');
    const withAuth = proxyFor('https://eu.posthog.com', { HTTPS_PROXY: 'http://me:p%40ss@proxy.corp:8080' });
    expect(withAuth?.url).toBe('http://me:p%40ss@proxy.corp:8080/');
    expect(withAuth?.shown).toBe('http://proxy.corp:8080');
  });

  it('NO_PROXY: *, names and their subdomains (with or without a leading dot or *.), ports, IPs and IPv4 ranges', () => {
    const via = (upstream: string, noProxy: string) => proxyFor(upstream, { HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1', NO_PROXY: noProxy }) !== undefined;
    expect(via('https://us.posthog.com', '*')).toBe(false);
    expect(via('https://us.posthog.com', 'posthog.com')).toBe(false);
    expect(via('https://us.posthog.com', '.posthog.com')).toBe(false);
    expect(via('https://us.posthog.com', '*.posthog.com')).toBe(false);
    expect(via('https://us.posthog.com', 'US.PostHog.com')).toBe(false);
    expect(via('https://us.posthog.com', 'eu.posthog.com, example.com')).toBe(true);
    // A name is matched whole: notposthog.com is not under posthog.com.
    expect(via('https://notposthog.com', 'posthog.com')).toBe(true);
    expect(via('https://us.posthog.com', 'posthog.com:443')).toBe(false);
    expect(via('https://us.posthog.com', 'posthog.com:8443')).toBe(true);
    expect(via('http://10.1.2.3:8000', '10.1.2.3')).toBe(false);
    expect(via('http://10.1.2.3:8000', '10.0.0.0/8')).toBe(false);
    expect(via('http://10.1.2.3:8000', '10.0.0.0/16')).toBe(true);
    expect(via('http://[::1]:8000', '::1')).toBe(false);
    expect(via('http://[::1]:8000', '[::1]:8000')).toBe(false);
    // Loopback is not excepted on its own (as curl): NO_PROXY says so.
    expect(via('http://127.0.0.1:8000', '')).toBe(true);
    expect(proxyFor('https://us.posthog.com', { HTTPS_PROXY: 'http://p:1', no_proxy: 'posthog.com', NO_PROXY: '' })).toBeUndefined();
  });

  it('refuses what no proxy can be, naming the variable', () => {
    expect(() => proxyFor('https://us.posthog.com', { HTTPS_PROXY: 'socks5://127.0.0.1:1080' })).toThrow(ProxyRefused);
    expect(() => proxyFor('https://us.posthog.com', { HTTPS_PROXY: 'socks5://127.0.0.1:1080' })).toThrow(/HTTPS_PROXY names a socks5 proxy/);
    expect(() => proxyFor('https://us.posthog.com', { https_proxy: 'http://' })).toThrow(/https_proxy is not a URL a proxy can have/);
    expect(() => proxyFor('https://us.posthog.com', { HTTPS_PROXY: 'http://bad host:80' })).toThrow(/HTTPS_PROXY is not a URL/);
  });
});
