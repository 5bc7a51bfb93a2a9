// Response and error primitives of the sandbox. Error bodies follow PostHog's
// drf-exceptions-hog envelope {type, code, detail, attr} unless PostHog itself answers
// differently (several replay endpoints answer {"error": "..."}).

import { pyType } from './util.js';

export interface Reply {
  status: number;
  body?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface ErrorEnvelope {
  type: 'authentication_error' | 'invalid_request' | 'validation_error' | 'throttled_error' | 'server_error';
  code: string;
  detail: string;
  attr: string | null;
}

/** A failed request; thrown by handlers and turned into a reply by the dispatcher. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: object,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

export function json(status: number, value: unknown, headers?: Record<string, string>): Reply {
  const reply: Reply = { status, body: JSON.stringify(value), contentType: 'application/json' };
  if (headers) reply.headers = headers;
  return reply;
}

export function noContent(): Reply {
  return { status: 204 };
}

function envelope(type: ErrorEnvelope['type'], code: string, detail: string, attr: string | null = null): ErrorEnvelope {
  return { type, code, detail, attr };
}

export const errors = {
  notFound: (detail = 'Not found.') => new ApiError(404, envelope('invalid_request', 'not_found', detail)),
  endpointNotFound: () => new ApiError(404, envelope('invalid_request', 'not_found', 'Endpoint not found.')),
  projectNotFound: () => new ApiError(404, envelope('invalid_request', 'not_found', 'Project not found.')),
  recordingNotFound: () => new ApiError(404, envelope('invalid_request', 'not_found', 'Recording not found')),
  validation: (detail: string, attr: string | null = null, code = 'invalid_input') => new ApiError(400, envelope('validation_error', code, detail, attr)),
  parse: (detail: string) => new ApiError(400, envelope('invalid_request', 'parse_error', detail)),
  unsupportedMediaType: (contentType: string) =>
    new ApiError(415, envelope('invalid_request', 'unsupported_media_type', `Unsupported media type "${contentType}" in request.`)),
  methodNotAllowed: (method: string, allow: string[]) =>
    new ApiError(405, envelope('invalid_request', 'method_not_allowed', `Method "${method}" not allowed.`), { Allow: allow.join(', ') }),
  conflict: (detail: string, attr: string | null) => new ApiError(409, envelope('server_error', 'conflict', detail, attr)),
};

const INVALID_KEY_DETAIL = 'Personal API key found in request Authorization header is invalid.';

export function wwwAuthenticate(siteUrl: string): Record<string, string> {
  return { 'WWW-Authenticate': `Bearer resource_metadata="${siteUrl}/.well-known/oauth-protected-resource"` };
}

export function notAuthenticated(siteUrl: string): ApiError {
  return new ApiError(401, envelope('authentication_error', 'not_authenticated', 'Authentication credentials were not provided.'), wwwAuthenticate(siteUrl));
}

export function authenticationFailed(siteUrl: string): ApiError {
  return new ApiError(
    401,
    envelope('authentication_error', 'authentication_failed', INVALID_KEY_DETAIL),
    wwwAuthenticate(siteUrl),
  );
}

/** The body an injected fault answers with when the test gives only a status. */
export function defaultErrorBody(status: number): object {
  switch (status) {
    case 400:
      return envelope('validation_error', 'invalid_input', 'Invalid input.');
    case 401:
      return envelope('authentication_error', 'authentication_failed', INVALID_KEY_DETAIL);
    case 403:
      return envelope('authentication_error', 'permission_denied', 'You do not have permission to perform this action.');
    case 404:
      return envelope('invalid_request', 'not_found', 'Not found.');
    case 405:
      return envelope('invalid_request', 'method_not_allowed', 'Method not allowed.');
    case 409:
      return envelope('server_error', 'conflict', 'Conflict.');
    case 429:
      return envelope('throttled_error', 'throttled', 'Request was throttled. Expected available in 2 seconds.');
    case 500:
      return { error: 'An internal server error occurred. Please try again later.' };
    case 502:
      return envelope('server_error', 'bad_gateway', 'Bad gateway: an upstream service returned an invalid response. Please try again later.');
    case 503:
      return envelope('server_error', 'service_unavailable', 'Service temporarily unavailable, try again later.');
    case 504:
      return envelope('server_error', 'gateway_timeout', 'Gateway timeout: the request took too long. Please try again later.');
    default:
      return status >= 500 ? envelope('server_error', 'error', 'A server error occurred.') : envelope('invalid_request', 'error', 'Request failed.');
  }
}

/** DRF's strict positive-int parsing of limit/offset: anything unusable falls back to the default. */
export function positiveInt(raw: string | undefined, fallback: number, strict: boolean): number {
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return fallback;
  const n = Number.parseInt(raw, 10);
  if (!Number.isSafeInteger(n) || (strict && n === 0)) return fallback;
  return n;
}

/** DRF's replace_query_param/remove_query_param, for absolute next/previous page URLs. */
export function pageUrl(requestUrl: URL, limit: number, offset: number): string {
  const url = new URL(requestUrl.href);
  url.searchParams.set('limit', String(limit));
  if (offset > 0) url.searchParams.set('offset', String(offset));
  else url.searchParams.delete('offset');
  return url.href;
}

export interface PageLinks {
  next: string | null;
  previous: string | null;
}

export function pageLinks(requestUrl: URL, count: number, limit: number, offset: number): PageLinks {
  return {
    next: offset + limit < count ? pageUrl(requestUrl, limit, offset + limit) : null,
    previous: offset <= 0 ? null : pageUrl(requestUrl, limit, Math.max(0, offset - limit)),
  };
}

/** Parses a JSON request body as DRF would; an empty body is an empty object. */
export function parseJsonBody(body: string, contentType: string | undefined): Record<string, unknown> {
  if (body.trim() === '') return {};
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) throw errors.unsupportedMediaType(contentType ?? '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    throw errors.parse(`JSON parse error - ${(e as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw errors.validation(`Invalid data. Expected a dictionary, but got ${pyType(parsed)}.`);
  }
  return parsed as Record<string, unknown>;
}
