import type { Dispatcher } from 'undici';
import { UpstreamError, UpstreamUnavailableError } from '../errors.js';
import { readPrefix } from './body.js';
import type { CallBudget } from './budget.js';
import type { UpstreamProxy } from './shared-pool.js';

/**
 * What a failed request means, said for the user: a request that got no answer (classify: a
 * timeout, a refused or broken connection, a TLS or proxy problem, and whether asking again may
 * help), and PostHog's error answers (toUpstreamError: its two error bodies, and how long it asked
 * us to wait).
 */

/** The request as a failure names it. */
export interface FailedRequest {
  method: string;
  path: string;
  /** The MCP call's signal: when it aborted, the failure is a cancellation. */
  signal?: AbortSignal | undefined;
}

/** The upstream as a failure names it. */
export interface Upstream {
  baseUrl: string;
  origin: string;
  proxy: UpstreamProxy | undefined;
  timeoutMs: number;
  /** The key removed from any text shown (redact.ts). */
  redact: (text: string) => string;
}

export interface Failure {
  error: Error;
  /** Asking again may get an answer (a connection reset or refused, not a timeout or a certificate). */
  retryable: boolean;
  /** Node's or undici's code, for the stall breaker and the retry decision. */
  code?: string;
}

const RETRYABLE_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
/**
 * Node's codes for a certificate it does not trust: asking again gets the same answer, so the
 * error says what to change instead of "retry".
 */
const UNTRUSTED_CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);
/** undici's timeout errors, by code: the module itself may not be loaded yet (shared-pool.ts loads it on first use). */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const MAX_ERROR_BODY = 64 * 1024;
/** Longest Retry-After / "available in" honoured: a day. A number too large to be finite (a 400-digit header) counts as no Retry-After. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

/** The abort reason when a call's wall clock, not the request's own timeout, cut a request. */
export class TimeoutMarker extends UpstreamUnavailableError {
  constructor() {
    super('timeout', 'The call reached its time budget.');
  }
}

/** A request as errors name it: its method and path, without the query. */
export function whereOf(request: { method: string; path: string }): string {
  return `${request.method} ${stripQuery(request.path)}`;
}

/**
 * What a TLS failure means for the user, or undefined when the failure is not about TLS.
 * `setting` names what to change: POSTHOG_HOST, or the proxy's variable when it is the proxy
 * that is reached over TLS.
 */
function tlsProblem(code: string, message: string, setting = 'POSTHOG_HOST'): string | undefined {
  if (UNTRUSTED_CERT_CODES.has(code)) {
    const whose = setting === 'POSTHOG_HOST' ? 'a self-hosted PostHog' : 'a proxy';
    return `its certificate is not one this machine trusts. For ${whose} with its own certificate authority, start this server with NODE_EXTRA_CA_CERTS=/path/to/ca.pem`;
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return "its certificate is outside its validity dates (check this machine's clock too)";
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `its certificate is for another host name: check ${setting}`;
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number/i.test(message)) return `it does not speak TLS there: ${setting} may need http:// instead of https://, or another port`;
  return undefined;
}

/** A request that got no answer (or whose body broke off): the error to show, and whether asking again may help. */
export function classify(err: unknown, request: FailedRequest, upstream: Upstream, budget: CallBudget | undefined): Failure {
  const where = whereOf(request);
  if (err instanceof TimeoutMarker || (err as { cause?: unknown })?.cause instanceof TimeoutMarker) {
    return { error: budget?.timeUp(where) ?? new UpstreamUnavailableError('timeout', err instanceof Error ? err.message : String(err)), retryable: false };
  }
  if (request.signal?.aborted) {
    return { error: new UpstreamUnavailableError('cancelled', `The request ${where} was cancelled by the client.`), retryable: false };
  }
  const name = (err as { name?: string })?.name;
  const code = (err as { code?: string })?.code ?? '';
  const { baseUrl, proxy, redact } = upstream;
  const notDone = request.method === 'GET' ? 'Nothing was read.' : 'Nothing was sent.';
  // undici reports a proxy's refusal of the tunnel as an abort: it is the proxy's answer.
  const refusal = proxy ? /^Proxy response \((\d{3})\)/.exec(err instanceof Error ? err.message : '') : null;
  if (proxy && refusal) {
    const status = Number(refusal[1]);
    const why =
      status === 407
        ? 'it wants credentials: put them in the proxy URL (http://user:password@host:port)'
        : `it answered ${status}: check ${proxy.from}, and NO_PROXY if PostHog should be reached directly`;
    return { error: new UpstreamUnavailableError('connection', `Could not reach PostHog at ${baseUrl} for ${where}: the proxy ${proxy.shown} (${proxy.from}) refused the connection (${status}: ${why}). ${notDone}`), retryable: false, code: 'PROXY_REFUSED' };
  }
  if (
    name === 'TimeoutError' ||
    name === 'AbortError' || // undici's RequestAbortedError too
    TIMEOUT_CODES.has(code)
  ) {
    return {
      error: new UpstreamUnavailableError(
        'timeout',
        `PostHog did not answer ${where}${proxy ? ` through the proxy ${proxy.shown} (${proxy.from}; it may be the one not answering)` : ''} within ${upstream.timeoutMs} ms. It may be under load: try again shortly, narrow the request (smaller limit or date range), or raise POSTHOG_TIMEOUT_MS.`,
      ),
      retryable: false,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  // A TLS failure with an http:// PostHog behind an https:// proxy can only be the proxy's.
  const proxyTls = proxy !== undefined && proxy.shown.startsWith('https:') && !upstream.origin.startsWith('https:');
  const tls = tlsProblem(code, message, proxyTls ? proxy.from : undefined);
  if (tls) {
    const subject = proxyTls ? `the proxy ${proxy.shown} (${proxy.from}): ` : '';
    return { error: new UpstreamUnavailableError('connection', `Could not reach PostHog at ${baseUrl} for ${where}: ${subject}${tls} (${code || 'TLS'}: ${redact(message).slice(0, 160)}). ${notDone}`), retryable: false, code };
  }
  return {
    error: new UpstreamUnavailableError(
      'connection',
      `Could not reach PostHog at ${baseUrl}${proxy ? ` through the proxy ${proxy.shown} (${proxy.from})` : ''} for ${where} (${code || 'network error'}: ${redact(message).slice(0, 200)}). Check POSTHOG_HOST${proxy ? `, ${proxy.from}` : ''} and the network, then retry.`,
    ),
    retryable: RETRYABLE_NETWORK_CODES.has(code) || /other side closed|socket hang up/i.test(message),
    code,
  };
}

/** PostHog's error answer (status 400 and up) as a typed error, the key removed from all it quotes. */
export async function toUpstreamError(response: Dispatcher.ResponseData, request: FailedRequest, redact: (text: string) => string): Promise<UpstreamError> {
  let text = '';
  try {
    text = await readPrefix(response.body, MAX_ERROR_BODY);
  } catch {
    // A body that breaks off still leaves us the status.
  }
  // Redact the whole text before anything is cut, so no part of the key can survive a cut;
  // and the parsed fields again, as JSON decoding can join what escapes kept apart.
  const parsed = parseErrorBody(redact(text));
  const detail = parsed.detail === undefined ? undefined : redact(parsed.detail);
  if (parsed.attr !== undefined) parsed.attr = redact(parsed.attr);
  return new UpstreamError({
    status: response.statusCode,
    method: request.method,
    path: stripQuery(request.path),
    detail,
    code: parsed.code,
    type: parsed.type,
    attr: parsed.attr,
    retryAfterSeconds: retryAfterSeconds(response.headers['retry-after'], detail),
  });
}

interface ParsedErrorBody {
  detail?: string | undefined;
  code?: string | undefined;
  type?: string | undefined;
  attr?: string | undefined;
}

/** PostHog answers `{type, code, detail, attr}` or, on some replay paths, `{error, message?}`. */
export function parseErrorBody(text: string): ParsedErrorBody {
  const trimmed = text.trim();
  if (!trimmed) return {};
  let body: unknown;
  try {
    body = JSON.parse(trimmed);
  } catch {
    // An HTML error page from a proxy: keep a short, tag-free excerpt.
    const plain = trimmed.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
    return { detail: plain.slice(0, 200) || undefined };
  }
  if (typeof body !== 'object' || body === null) return { detail: String(body).slice(0, 500) };
  const record = body as Record<string, unknown>;
  const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
  if ('detail' in record || 'type' in record) {
    return {
      detail: str(record.detail) ?? (record.detail !== undefined ? JSON.stringify(record.detail).slice(0, 500) : undefined),
      code: str(record.code),
      type: str(record.type),
      attr: str(record.attr),
    };
  }
  if ('error' in record) {
    const error = str(record.error);
    const message = str(record.message);
    return { detail: message && error ? `${error}: ${message}` : (message ?? error), code: error && /^[a-z_]+$/.test(error) ? error : undefined };
  }
  return { detail: JSON.stringify(body).slice(0, 500) };
}

/** Retry-After (seconds or an HTTP date), else PostHog's "Expected available in N seconds". */
export function retryAfterSeconds(header: string | string[] | undefined, detail: string | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  // A number beyond a day (a 400-digit header is Infinity) says nothing usable: capped at a day.
  const sane = (seconds: number) => (Number.isFinite(seconds) ? Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, seconds)) : undefined);
  if (value !== undefined && value.length <= 100) {
    if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return sane(Number(value));
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return sane(Math.ceil((date - Date.now()) / 1000));
  }
  const match = detail ? /available in (\d{1,30}(?:\.\d{1,10})?) seconds?/i.exec(detail) : null;
  return match ? sane(Number(match[1])) : undefined;
}

function stripQuery(path: string): string {
  const index = path.indexOf('?');
  return index === -1 ? path : path.slice(0, index);
}
