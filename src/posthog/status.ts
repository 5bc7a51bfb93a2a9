import { UpstreamUnavailableError } from '../errors.js';

/**
 * What a request expects back, which decides what counts as success:
 * - `json`: a JSON object (get, list, create, update, the snapshot listing, queries);
 * - `done`: a 2xx that is not a page (DELETE: PostHog answers 204; older versions 204 with
 *   `{"success": true}`);
 * - `data`: a 2xx body of snapshot data (JSON lines), never an HTML page.
 */
export type Expectation = 'json' | 'done' | 'data';

export function expectationFor(method: string): Expectation {
  return method === 'DELETE' ? 'done' : 'json';
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * The one place that decides whether an answer below 400 is the success it looks like, before
 * its body is read. PostHog's API never redirects (trailing slashes are optional), never answers
 * 304 (we send no conditional request) and never serves HTML: each of those means something
 * else stands in front of it (an SSO or login page, a proxy), and whatever was asked was not
 * done as far as anyone can tell. Returns the error to throw, or undefined to read the body.
 */
export function refuseStatus(answer: Answer, expect: Expectation, where: string, redact: (text: string) => string): UpstreamUnavailableError | undefined {
  const { status } = answer;
  const notDone = expect === 'json' && where.startsWith('GET') ? 'Nothing was read.' : 'Treat the request as not done.';
  if (status === 304) {
    return refuse(`PostHog answered ${where} with 304 Not Modified, which it never sends to this server (no conditional request was made): a cache or proxy sits in front of POSTHOG_HOST. ${notDone}`);
  }
  if (status >= 300 && status < 400) {
    const location = header(answer.headers, 'location');
    const target = location ? ` to ${redact(describeLocation(location))}` : '';
    const login = location && /log-?in|sign-?in|sso|saml|oauth|auth/i.test(location) ? 'a login/SSO page' : 'another address';
    return refuse(
      `PostHog answered ${where} with a redirect (${status})${target}: POSTHOG_HOST may point at ${login} (an SSO or proxy in front of a self-hosted PostHog) instead of the PostHog API. ${notDone} Set POSTHOG_HOST to the address that serves /api/ directly.`,
    );
  }
  if (status < 200) return refuse(`PostHog answered ${where} with an unexpected status ${status}. ${notDone}`);
  if ((status === 204 || status === 205) && expect !== 'done') {
    return refuse(`PostHog answered ${where} with ${status} No Content where it always sends ${expect === 'json' ? 'a JSON answer' : 'data'}: something in front of POSTHOG_HOST answered instead of PostHog. ${notDone}`);
  }
  if (isHtml(header(answer.headers, 'content-type'))) return htmlPage(where, notDone);
  return undefined;
}

/**
 * Decides about a body read whole: the JSON object a `json` request needs, or, for `done`,
 * nothing or JSON. Returns the parsed value (undefined for an empty `done` answer).
 */
export function judgeBody(text: string, expect: Expectation, where: string, parse: (text: string) => unknown, redact: (text: string) => string): unknown {
  const notDone = where.startsWith('GET') ? 'Nothing was read.' : 'Treat the request as not done.';
  const trimmed = text.trim();
  if (!trimmed) {
    if (expect === 'done') return undefined;
    throw refuse(`PostHog answered ${where} with an empty body where it always sends JSON: something in front of POSTHOG_HOST answered instead of PostHog. ${notDone}`);
  }
  if (/^<(!doctype|html|head|body|\?xml)/i.test(trimmed)) throw htmlPage(where, notDone);
  let value: unknown;
  try {
    value = parse(trimmed);
  } catch {
    throw refuse(`PostHog answered ${where} with a body that is not JSON (${redact(trimmed.slice(0, 400)).slice(0, 120).replace(/\s+/g, ' ')}…). Check POSTHOG_HOST points at the PostHog app (not a proxy or login page). ${notDone}`);
  }
  if (expect === 'json' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw refuse(`PostHog answered ${where} with JSON that is not an object (${Array.isArray(value) ? 'a list' : value === null ? 'null' : typeof value}), unlike any PostHog answer. ${notDone}`);
  }
  return value;
}

function htmlPage(where: string, notDone: string): UpstreamUnavailableError {
  return refuse(`PostHog answered ${where} with an HTML page, not JSON: POSTHOG_HOST may point at a login/SSO page or a proxy rather than the PostHog API. ${notDone}`);
}

function refuse(message: string): UpstreamUnavailableError {
  return new UpstreamUnavailableError('malformed', message);
}

function header(headers: Answer['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isHtml(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*(text\/html|application\/xhtml)/i.test(contentType);
}

/** A redirect target without its query (which may carry tokens), kept short. */
function describeLocation(location: string): string {
  let shown: string;
  try {
    const url = new URL(location, 'http://relative.invalid');
    shown = url.origin === 'http://relative.invalid' ? url.pathname : `${url.origin}${url.pathname}`;
  } catch {
    shown = location.split(/[?#]/)[0] ?? '';
  }
  return shown.replace(/[^\x21-\x7e]/g, '?').slice(0, 160);
}
