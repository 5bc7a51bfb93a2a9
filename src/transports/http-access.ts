// Who may talk to the HTTP server: DNS-rebinding checks on Host and Origin, the access token,
// and the per-user Bearer key. Pure functions, so the rules can be read (and tested) apart from
// the server's plumbing.

import { createHash, timingSafeEqual } from 'node:crypto';
import { isLoopbackHost } from '../http-settings.js';

/** A Host header value split into a lower-case name (IPv6 kept in brackets) and an optional port. */
interface HostPort {
  name: string;
  port: string | undefined;
}

function splitHost(value: string): HostPort | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  return match ? { name: match[1]!, port: match[2] } : undefined;
}

/** `'any'` when the Host header is not checked; otherwise the accepted names (with or without port). */
export type AllowedHosts = readonly string[] | 'any';

/**
 * What Host values the server accepts. Configured lists are taken as given ("*" = any). By
 * default a loopback-bound server accepts only the loopback names with its own port, which is
 * what defeats DNS rebinding (a browser sends the attacker's name as Host); a server bound to
 * another address must be reached with a Bearer credential anyway, so its Host is not checked.
 */
export function resolveAllowedHosts(configured: readonly string[] | undefined, bindHost: string, port: number): AllowedHosts {
  if (configured !== undefined) return configured.includes('*') ? 'any' : configured;
  if (!isLoopbackHost(bindHost)) return 'any';
  const names = ['localhost', '127.0.0.1', '[::1]'];
  const bound = bindHost.trim().toLowerCase();
  if (!names.includes(bound) && bound !== '::1') names.push(/:/.test(bound) ? `[${bound.replace(/^\[|\]$/g, '')}]` : bound);
  // Clients leave out the default port.
  return names.flatMap((name) => (port === 80 ? [`${name}:${port}`, name] : [`${name}:${port}`]));
}

/** An entry without a port accepts any port; with one, exactly that port. */
export function hostAllowed(host: string | undefined, allowed: AllowedHosts): boolean {
  if (allowed === 'any') return true;
  const given = host === undefined ? undefined : splitHost(host);
  if (!given) return false;
  return allowed.some((entry) => {
    const wanted = splitHost(entry);
    return wanted !== undefined && wanted.name === given.name && (wanted.port === undefined || wanted.port === given.port);
  });
}

/**
 * A request without Origin is not from a browser page and passes. A browser's Origin must be
 * listed, or name an allowed host; "null" (sandboxed frames, file pages) never passes.
 */
export function originAllowed(origin: string | undefined, allowedHosts: AllowedHosts, allowedOrigins: readonly string[]): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (allowedOrigins.includes(url.origin)) return true;
  return allowedHosts !== 'any' && hostAllowed(url.host, allowedHosts);
}

/**
 * The credential of `Authorization: Bearer <credential>`, or undefined when absent, malformed or
 * longer than `maxChars` (a PostHog key is far shorter than 512; OAuth tokens may be longer).
 */
export function bearer(header: string | undefined, maxChars = 512): string | undefined {
  const match = header ? /^Bearer +([\x21-\x7e]+) *$/i.exec(header) : null;
  return match && match[1]!.length <= maxChars ? match[1] : undefined;
}

/** Constant-time comparison; hashing first makes the lengths equal, so not even length leaks. */
export function tokenMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(expected), digest(presented));
}
