/**
 * The outbound proxy a machine's environment names for an upstream, as curl and most tools read
 * it: HTTPS_PROXY for an https:// upstream, HTTP_PROXY for http:// (lower-case names win, as in
 * curl), except where NO_PROXY lists the host. Pure: the caller passes the environment.
 *
 * Loopback is not excepted on its own (curl does not either): a PostHog on localhost behind a
 * proxy variable needs NO_PROXY=localhost,127.0.0.1. The embedded sandbox is never proxied (the
 * configuration does not ask here for it).
 */

export interface ProxyChoice {
  /** The proxy's URL, credentials included: a secret where it holds a password. */
  url: string;
  /** Which variable named it, for messages. */
  from: string;
  /** The URL without its credentials, for messages and logs. */
  shown: string;
}

type Env = Readonly<Record<string, string | undefined>>;

export class ProxyRefused extends Error {}

/** The proxy for requests to `upstream`, undefined for none; ProxyRefused for a value no proxy can be. */
export function proxyFor(upstream: string, env: Env): ProxyChoice | undefined {
  const target = new URL(upstream);
  const names = target.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', 'HTTP_PROXY'];
  const from = names.find((name) => (env[name] ?? '').trim() !== '');
  if (from === undefined) return undefined;
  if (bypassed(target, env.no_proxy ?? env.NO_PROXY ?? '')) return undefined;
  return parseProxy(env[from]!.trim(), from);
}

function parseProxy(raw: string, from: string): ProxyChoice {
  // As curl: a proxy given without a scheme is an HTTP proxy.
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ProxyRefused(`${from} is not a URL a proxy can have (expected http://host:port, or https://host:port).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProxyRefused(`${from} names a ${url.protocol.replace(':', '')} proxy; this server speaks to http:// and https:// proxies only.`);
  }
  if (url.hostname === '') throw new ProxyRefused(`${from} has no host (expected http://host:port).`);
  const shown = `${url.protocol}//${url.host}`;
  return { url: url.href, from, shown };
}

/**
 * Whether NO_PROXY exempts the host: `*` exempts all; an entry is a host name (it and its
 * subdomains, a leading dot or `*.` allowed), an IP address, either with `:port` to exempt that
 * port only, or an IPv4 range in CIDR form. Host names compare without a trailing dot; an address
 * matches only itself (IPv6 in any written form) or a range, never as a suffix.
 */
function bypassed(target: URL, noProxy: string): boolean {
  // As curl: a trailing dot (the root of a fully qualified name) is no part of the comparison.
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  const hostIsIp = ipv4(host) !== undefined || host.includes(':');
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const { name, entryPort } = hostAndPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    if (name.includes('/')) {
      if (inCidr(host, name)) return true;
      continue;
    }
    // An address is one host (or a CIDR range above): no suffix of it names others. IPv6 is
    // compared in its canonical form (0:0:0:0:0:0:0:1 is ::1).
    if (hostIsIp) {
      if (name === host || (host.includes(':') && name.includes(':') && canonicalIpv6(name) === host)) return true;
      continue;
    }
    const domain = name.replace(/^\*?\./, '').replace(/\.$/, '');
    if (domain !== '' && (host === domain || host.endsWith(`.${domain}`))) return true;
  }
  return false;
}

/** An IPv6 address as URL writes it (compressed, lower case), or undefined. */
function canonicalIpv6(text: string): string | undefined {
  try {
    return new URL(`http://[${text}]/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

/** `name`, `name:port`, `[v6]:port`, or a bare IPv6 address (its colons are not a port's). */
function hostAndPort(entry: string): { name: string; entryPort: string | undefined } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1]!, entryPort: bracketed[2] };
  const parts = entry.split(':');
  return parts.length === 2 ? { name: parts[0]!, entryPort: parts[1] } : { name: entry, entryPort: undefined };
}

function inCidr(host: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  const a = ipv4(host);
  const b = ipv4(base ?? '');
  if (a === undefined || b === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return ((a & mask) >>> 0) === ((b & mask) >>> 0);
}

function ipv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => ((n << 8) | Number(p)) >>> 0, 0);
}
