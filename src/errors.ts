/**
 * Typed errors. Handlers throw these; server.ts is the one place that turns them into tool results.
 * Every message is written for an agent: what went wrong and what to do next.
 */

/**
 * The settings (flags and environment) cannot be used as given. Its message is one line for stderr
 * and for the chat: the setting, what it takes, and how to fix it; never a secret's value.
 */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

/** The caller's input cannot be sent upstream (caught before any request). */
export class UserInputError extends Error {
  override readonly name = 'UserInputError';
}

/**
 * The user declined or dismissed a confirmation (or it got no answer): nothing was changed. A
 * UserInputError, so it is reported as the message alone, never as a failure of PostHog's.
 */
export class NotConfirmedError extends UserInputError {}

export interface UpstreamErrorInit {
  status: number;
  method: string;
  path: string;
  detail?: string | undefined;
  code?: string | undefined;
  type?: string | undefined;
  attr?: string | undefined;
  /** Seconds after which a retry may succeed (Retry-After or PostHog's "Expected available in N seconds"). */
  retryAfterSeconds?: number | undefined;
}

/** PostHog answered with a non-2xx status. */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly detail: string | undefined;
  readonly code: string | undefined;
  readonly type: string | undefined;
  readonly attr: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(init: UpstreamErrorInit) {
    super(`PostHog answered ${init.status} to ${init.method} ${init.path}${init.detail ? `: ${init.detail}` : ''}`);
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.detail = init.detail;
    this.code = init.code;
    this.type = init.type;
    this.attr = init.attr;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

export type NetworkFailure = 'timeout' | 'connection' | 'malformed' | 'cancelled' | 'budget';

/** No usable answer: timeout, connection failure, or a body that is not what PostHog sends. */
export class UpstreamUnavailableError extends Error {
  override readonly name = 'UpstreamUnavailableError';
  constructor(
    readonly kind: NetworkFailure,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Whether a tool may answer around a failed request, saying what it could not read: PostHog's
 * error answer or no usable answer. A cancelled call (`signal` aborted, or the request cancelled)
 * and any other error (our own bugs, a spent call budget) are thrown on.
 */
export function isAnswerableFailure(error: unknown, signal?: AbortSignal): error is UpstreamError | UpstreamUnavailableError {
  if (signal?.aborted) return false;
  if (error instanceof UpstreamUnavailableError) return error.kind !== 'cancelled';
  return error instanceof UpstreamError;
}

/**
 * A JSON-RPC error for the SDK to send as it is (its code, this message). Not the SDK's McpError:
 * that puts "MCP error <code>:" into the message it sends, and the client's McpError adds the
 * prefix again, so the user would read it twice.
 */
export function protocolError(code: number, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}
