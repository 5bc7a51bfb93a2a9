import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServerCaller } from '../server.js';
import { HTTP_SETTINGS } from '../http-settings.js';
import type { PostHogClient } from '../posthog/client.js';
import type { SharedKnownKeys } from '../cache/known-keys.js';
import { Admission, type Ticket } from './admission.js';
import { readBody } from './body.js';
import { bearer, hostAllowed, originAllowed, resolveAllowedHosts, tokenMatches } from './http-access.js';
import { OAuthServer, type OAuthSettings } from './oauth.js';
import { MAX_SEALED_CHARS } from './oauth-seal.js';
import { Newcomers, type NewcomerTicket } from './newcomers.js';
import { WATCH_PREFIX, type WatchPages } from '../watch/page.js';
import type { SignInEnded } from '../watch/links.js';

export interface HttpOptions {
  host: string;
  port: number;
  /** The shared client; without a key of its own, each request's Bearer key is used for that request only. */
  client: PostHogClient;
  createServer: (client: PostHogClient, caller?: ServerCaller) => McpServer;
  log: (message: string) => void;
  /** The replay's watch pages (MCP_WATCH_SECRET with MCP_PUBLIC_URL), served under /watch/. */
  watchPages?: WatchPages | undefined;
  /** With the server's own key: the Bearer token every caller must send (MCP_AUTH_TOKEN). */
  authToken?: string | undefined;
  /** Host header values accepted (see resolveAllowedHosts for the default). */
  allowedHosts?: readonly string[] | undefined;
  /** Browser Origins accepted besides those naming an allowed host. */
  allowedOrigins?: readonly string[] | undefined;
  /** MCP requests handled at once; beyond it, they wait their turn (see admission.ts). */
  maxConcurrency?: number | undefined;
  /** Of those, how many one caller (one per-user key) may have; beyond it, that caller's calls wait. */
  maxConcurrencyPerUser?: number | undefined;
  /** Calls one caller may have waiting; beyond it, 503 with Retry-After for that caller only. 0: no waiting. */
  maxQueuePerUser?: number | undefined;
  /** How long a call may wait for its turn; then 503 with Retry-After. */
  queueTimeoutMs?: number | undefined;
  maxBodyBytes?: number | undefined;
  /** How long a client may take to send a request body; then 408. */
  requestTimeoutMs?: number | undefined;
  /** MCP_OAUTH: also an OAuth authorization server, its MCP endpoint /oauth/mcp (oauth.ts). Needs a keyless client. */
  oauth?: OAuthSettings | undefined;
  /** Redis, shared by the replicas, for which keys PostHog accepted (newcomers.ts); default: this process only. */
  knownKeys?: SharedKnownKeys | undefined;
}

export interface RunningHttp {
  url: string;
  /** With MCP_OAUTH: the OAuth-protected MCP endpoint. */
  oauthUrl?: string | undefined;
  /** MCP requests being handled now. */
  readonly inFlight: number;
  /** MCP requests waiting for their turn. */
  readonly queued: number;
  /** Requests whose body is still being read (they hold no slot). */
  readonly receiving: number;
  /**
   * Stops accepting connections, lets running requests finish for up to `graceMs`, then closes
   * whatever is left. Resolves with how many requests were cut off (0 after a clean drain).
   */
  shutdown(graceMs: number): Promise<{ abandoned: number }>;
  /** Immediate close, for tests and start-up failures. */
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** All callers' waiting calls together, as a multiple of MCP_MAX_CONCURRENCY: per-user keys cost nothing to make up. */
const QUEUED_PER_SLOT = 16;
/**
 * The part of MCP_MAX_CONCURRENCY (and of the waiting line) that callers whose key PostHog has
 * not accepted yet share: a quarter, so made-up keys can never take the slots of known users,
 * and a new user's first calls (initialize, tools/list) still find room.
 */
const UNVERIFIED_SHARE = 4;
/** What a refused caller is told to wait before trying again. */
const QUEUE_RETRY_AFTER_S = 5;
/** After the grace period, how long the calls still running have to take their error answers out. */
const FAREWELL_MS = 1_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Longer than the usual 60 s idle timeout of load balancers, so they never reuse a connection we just closed. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** JSON-RPC's "server error" code, used for every HTTP-level refusal that is not a parse error. */
const SERVER_ERROR = -32000;
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * Stateless Streamable HTTP at /mcp: every POST gets a fresh McpServer and transport, so any
 * replica can answer any request and nothing of one caller's request (key, client, state) is
 * reachable from another's. Answers are plain JSON (no SSE): no call here streams.
 */
export async function serveHttp(options: HttpOptions): Promise<RunningHttp> {
  if (options.oauth && options.client.hasApiKey) throw new Error('MCP_OAUTH needs per-user keys: the server must not have a PostHog key of its own.');
  let oauth: OAuthServer | undefined;
  /** What the watch pages ask of a link made through a sign-in; none without OAuth (such a link then never opens). */
  let signInEnded: SignInEnded | undefined;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Left out (tests): the settings' own defaults (MCP_MAX_CONCURRENCY and the rest).
  const maxConcurrency = options.maxConcurrency ?? HTTP_SETTINGS.maxConcurrency.fallback;
  const maxPerUser = options.maxConcurrencyPerUser ?? HTTP_SETTINGS.maxConcurrencyPerUser.fallback;
  const maxQueuePerUser = options.maxQueuePerUser ?? HTTP_SETTINGS.maxQueuePerUser.fallback;
  const queueTimeoutMs = options.queueTimeoutMs ?? HTTP_SETTINGS.queueTimeoutMs.fallback;
  const unverifiedRunning = Math.max(1, Math.floor(maxConcurrency / UNVERIFIED_SHARE));
  /** Calls running and waiting per caller (a hash of its credential): one caller's burst waits in its own line. */
  const admission = new Admission({
    maxRunning: maxConcurrency,
    maxRunningPerUser: maxPerUser,
    maxQueuedPerUser: maxQueuePerUser,
    maxQueued: maxConcurrency * QUEUED_PER_SLOT,
    queueTimeoutMs,
    maxRunningUnverified: unverifiedRunning,
    maxQueuedUnverified: unverifiedRunning * QUEUED_PER_SLOT,
  });
  /** Callers whose key PostHog has not accepted yet: checked with PostHog when they would wait. */
  const newcomers = new Newcomers(options.client, options.knownKeys, unverifiedRunning, queueTimeoutMs);
  /** Request bodies being read now: they hold a socket, no slot. */
  let receiving = 0;
  /** What each running call needs for a last answer at shutdown: its JSON-RPC id and a way to stop it. */
  const calls = new Map<ServerResponse, { id: unknown; stop: () => void }>();
  // A client gets this long to send its body (it holds no slot meanwhile, only its socket).
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const active = new Set<ServerResponse>();
  let draining = false;
  let drained: (() => void) | undefined;
  let allowedHosts = resolveAllowedHosts(options.allowedHosts, options.host, options.port);

  function admit(res: ServerResponse, release: () => void): void {
    active.add(res);
    res.once('close', () => {
      active.delete(res);
      calls.delete(res);
      release();
      if (draining && active.size === 0) drained?.();
    });
  }

  /**
   * Waits for the caller's turn; false when the answer (a 503, or a 401 for a key PostHog refused)
   * was already sent, or the caller left. A newcomer (a key PostHog has not accepted yet) may
   * have its key checked meanwhile (newcomers.ts).
   */
  async function turn(res: ServerResponse, user: string, newcomer: { key: string; keyId: string } | undefined, oauthMcp: boolean): Promise<boolean> {
    const ticket: Ticket | NewcomerTicket = newcomer ? newcomers.enter(admission, user, newcomer.key, newcomer.keyId) : admission.enter(user, false);
    let gone = false;
    const left = () => {
      gone = true;
      ticket.cancel();
    };
    res.once('close', left);
    const outcome = await ticket.outcome;
    res.off('close', left);
    if (outcome.kind === 'admitted') {
      // Admitted just as the caller hung up: the slot goes straight to the next in line.
      if (gone) {
        outcome.release();
        return false;
      }
      admit(res, outcome.release);
      return true;
    }
    if (outcome.kind === 'key-refused') {
      refuseKey(res, oauthMcp);
      return false;
    }
    const retry = { 'retry-after': String(QUEUE_RETRY_AFTER_S) };
    switch (outcome.why) {
      case 'queue-full':
        reply(res, 503, SERVER_ERROR, `Service unavailable: no slot is free and ${user ? 'your' : 'the'} waiting line is full: ${maxQueuePerUser} may wait (MCP_MAX_QUEUE_PER_USER) while ${user ? `${maxPerUser} of yours run (MCP_MAX_CONCURRENCY_PER_USER) or ` : ''}${maxConcurrency} run in all (MCP_MAX_CONCURRENCY); retry in ${QUEUE_RETRY_AFTER_S} seconds.`, retry);
        break;
      case 'server-queue-full':
        reply(res, 503, SERVER_ERROR, `Service unavailable: the server has ${maxConcurrency * QUEUED_PER_SLOT} requests waiting; retry in ${QUEUE_RETRY_AFTER_S} seconds.`, retry);
        break;
      case 'unverified-queue-full':
        reply(res, 503, SERVER_ERROR, `Service unavailable: ${unverifiedRunning * QUEUED_PER_SLOT} requests with keys PostHog has not accepted yet are waiting (your key is one until a call with it succeeds); retry in ${QUEUE_RETRY_AFTER_S} seconds.`, retry);
        break;
      case 'timeout':
        reply(res, 503, SERVER_ERROR, `Service unavailable: this request waited ${queueTimeoutMs} ms for its turn (MCP_QUEUE_TIMEOUT_MS) and was not started; retry in ${QUEUE_RETRY_AFTER_S} seconds.`, retry);
        break;
      case 'closed':
        if (!res.destroyed) reply(res, 503, SERVER_ERROR, 'Service unavailable: this server is shutting down; retry (another replica will answer).', { 'retry-after': '1', connection: 'close' });
        break;
    }
    return false;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (draining) res.setHeader('connection', 'close');
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      // Not Host-checked: load balancers probe by address, and it tells nothing but up or down.
      res.writeHead(draining ? 503 : 200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(draining ? '{"status":"draining"}' : '{"status":"ok"}');
      return;
    }
    if (options.watchPages && path?.startsWith(WATCH_PREFIX)) {
      // A page for a browser, its token the only credential: the Host still has to be ours.
      if (!hostAllowed(req.headers.host, allowedHosts)) return reply(res, 421, SERVER_ERROR, 'Misdirected request: not a host this server answers to.');
      // A link made through an OAuth sign-in opens only while the sign-in stands (docs/oauth.md).
      return options.watchPages.handle(req, res, signInEnded);
    }
    const oauthMcp = oauth !== undefined && path === '/oauth/mcp';
    if (path !== '/mcp' && !oauthMcp && !oauth?.handles(path ?? '')) {
      return reply(res, 404, SERVER_ERROR, `Not found: the MCP endpoint is /mcp${oauth ? ` (with OAuth: /oauth/mcp)` : ''} (and the health check /healthz).`);
    }
    if (!hostAllowed(req.headers.host, allowedHosts)) {
      return reply(res, 403, SERVER_ERROR, `Forbidden: Host "${printable(req.headers.host)}" is not one this server answers to (DNS-rebinding protection). An operator can add it with MCP_ALLOWED_HOSTS.`);
    }
    if (draining) {
      return reply(res, 503, SERVER_ERROR, 'Service unavailable: this server is shutting down; retry (another replica will answer).', { 'retry-after': '1' });
    }
    // OAuth's own endpoints hold no ambient credential (the key is typed into the form, tokens
    // are in the body): browser-based clients from any origin may use them.
    if (oauth && !oauthMcp && path !== '/mcp') return oauth.route(req, res, path!);
    if (!originAllowed(req.headers.origin, allowedHosts, options.allowedOrigins ?? [])) {
      return reply(res, 403, SERVER_ERROR, `Forbidden: Origin "${printable(req.headers.origin)}" is not allowed (DNS-rebinding protection). An operator can add it with MCP_ALLOWED_ORIGINS.`);
    }
    let client = options.client;
    let credential = bearer(req.headers.authorization, oauthMcp ? MAX_SEALED_CHARS : undefined);
    // On /oauth/mcp the token is checked first, whatever the method: a client that opens with a
    // GET (an event stream) must still meet the 401 that starts its sign-in.
    const auth = oauthMcp ? await oauth!.authenticate(credential) : undefined;
    if (auth && !auth.ok) return reply(res, 401, SERVER_ERROR, auth.message, { 'www-authenticate': auth.challenge });
    if (req.method !== 'POST') {
      // Stateless: no session to stream to (GET) or end (DELETE). SDK clients expect exactly this.
      return reply(res, 405, SERVER_ERROR, 'Method not allowed: this stateless MCP server takes POST only.', { allow: 'POST' });
    }

    if (auth?.ok) {
      // The token stands for the key the person gave on the consent page; from here on the call
      // is that key's, exactly as if it had come to /mcp in the header.
      credential = auth.key;
      client = client.withApiKey(credential);
    } else if (client.hasApiKey) {
      if (options.authToken !== undefined && !tokenMatches(options.authToken, credential)) {
        const why = credential === undefined ? 'requires an access token' : 'did not accept the access token';
        return unauthorized(res, `Unauthorized: this server ${why}: send "Authorization: Bearer <the server's MCP_AUTH_TOKEN>".`);
      }
    } else {
      // This server's own OAuth tokens (rmcp_at_…) are no PostHog key: said here, never sent there.
      if (/^Bearer +rmcp_/i.test(req.headers.authorization ?? '')) {
        const where = oauth ? `use them at ${oauth.resource}` : 'this server does not take them (MCP_OAUTH is off)';
        return unauthorized(res, `Unauthorized: that is an OAuth token from a sign-in, not a PostHog key: ${where}. ${path} takes your PostHog personal API key as "Authorization: Bearer phx_…".`);
      }
      if (credential === undefined) {
        const signIn = oauth ? `, or use ${oauth.resource}, which signs you in` : '';
        return unauthorized(res, `Unauthorized: ${path} has no sign-in: add the header "Authorization: Bearer phx_…" with your PostHog personal API key to this server's entry in your MCP client${signIn}. The key is used for your requests only.`);
      }
      client = client.withApiKey(credential);
    }

    // The body is read, within its bounds, before the call asks for a slot: a caller that sends
    // nothing (or trickles) holds a socket and a timer, nothing another caller needs.
    receiving++;
    const body = await readJsonBody(req, maxBodyBytes, requestTimeout).finally(() => receiving--);
    if (body.kind === 'too-slow') {
      return reply(res, 408, SERVER_ERROR, `Request timeout: the request body did not arrive within ${requestTimeout} ms.`, { connection: 'close' });
    }
    if (body.kind === 'too-large') {
      return reply(res, 413, SERVER_ERROR, `Payload too large: a request body may be at most ${maxBodyBytes} bytes.`, { connection: 'close' });
    }
    if (body.kind === 'invalid') return reply(res, 400, PARSE_ERROR, 'Parse error: the body is not valid JSON.');
    // A batch would run up to 100 calls on one of the MCP_MAX_CONCURRENCY slots; protocol
    // 2025-06-18 has no batches, so one message per request keeps the cap a cap on calls.
    if (Array.isArray(body.value)) {
      return reply(res, 400, INVALID_REQUEST, 'Invalid request: JSON-RPC batches are not accepted; send one message per request.');
    }
    if (res.destroyed) return;

    // Per-user keys tell callers apart; with the server's own key every caller is the same user.
    // A key PostHog has not answered yet may be made up: its calls share the unverified part.
    const user = options.client.hasApiKey ? '' : client.keyIdentity;
    let unverified = false;
    if (!options.client.hasApiKey && !client.keyAccepted) {
      // Refused a moment ago: said at once, without asking the shared store or taking a place.
      if (newcomers.refusedRecently(client.keyIdentity)) return refuseKey(res, oauthMcp);
      unverified = !(await newcomers.known(client));
      if (res.destroyed) return;
    }
    if (!(await turn(res, user, unverified ? { key: credential!, keyId: client.keyIdentity } : undefined, oauthMcp))) return;
    // A key PostHog accepted during the call becomes known to every replica sharing Redis.
    if (!options.client.hasApiKey) res.once('close', () => newcomers.remember(client));

    const server = options.createServer(client, auth?.ok && auth.signIn !== undefined ? { signIn: auth.signIn } : undefined);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // Also when the caller hangs up early: closing the server (and so its transport) aborts the
    // tool's upstream request.
    const stop = () => void server.close().catch(() => {});
    res.once('close', stop);
    const message = body.value as { id?: unknown } | null;
    calls.set(res, { id: typeof message === 'object' && message !== null && 'id' in message ? message.id : null, stop });
    await server.connect(transport);
    await transport.handleRequest(req, res, body.value);
  }

  /** A key PostHog refused when it was checked: said plainly, no slot, no wait. */
  function refuseKey(res: ServerResponse, oauthMcp: boolean): void {
    if (oauthMcp && oauth) {
      return reply(res, 401, SERVER_ERROR, 'Unauthorized: PostHog no longer accepts the key this sign-in was made with; sign in again.', { 'www-authenticate': oauth.challenge('invalid_token', 'PostHog refused the key') });
    }
    unauthorized(res, 'Unauthorized: PostHog did not accept this key (it was checked while the server was busy); send a valid personal API key as "Authorization: Bearer phx_…".');
  }

  // Node's own limits, the backstop for a client that trickles its headers (the body has ours,
  // with a JSON-RPC answer); how long a call takes to answer is not limited here.
  const timeouts = {
    requestTimeout: requestTimeout + 5_000,
    headersTimeout: Math.min(requestTimeout, 20_000),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: Math.min(1_000, requestTimeout),
  };
  const httpServer: Server = createHttpServer(timeouts, (req, res) => {
    handle(req, res).catch((err) => {
      options.log(`http: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) reply(res, 500, -32603, 'Internal server error; the server is still running.');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port, options.host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  allowedHosts = resolveAllowedHosts(options.allowedHosts, options.host, address.port);
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  if (options.oauth) {
    oauth = new OAuthServer({ ...options.oauth, publicUrl: options.oauth.publicUrl ?? `http://${host}:${address.port}`, client: options.client, log: options.log, bodyTimeoutMs: options.requestTimeoutMs });
    signInEnded = oauth.signInEnded;
  }

  let stopped: Promise<{ abandoned: number }> | undefined;
  const shutdown = (graceMs: number) =>
    (stopped ??= (async () => {
      draining = true;
      // Calls still waiting for their turn are answered now: they would not start anyway.
      admission.close();
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      // Idle keep-alive connections go now; busy ones are told to close after their answer.
      httpServer.closeIdleConnections();
      for (const res of active) if (!res.headersSent) res.setHeader('connection', 'close');
      if (active.size > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      // Every call still running gets an answer, not a reset: an error saying it was not finished.
      const abandoned = active.size;
      for (const res of [...active]) {
        const call = calls.get(res);
        if (!res.headersSent) {
          const body = JSON.stringify({
            jsonrpc: '2.0',
            error: { code: SERVER_ERROR, message: 'The server is shutting down and could not finish this call in time; it was stopped. Retry it (another replica, or this server once restarted, will answer).' },
            id: call?.id ?? null,
          });
          res.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close', 'retry-after': '1' });
          res.end(body);
        }
        call?.stop();
      }
      if (active.size > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, FAREWELL_MS);
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      httpServer.closeAllConnections();
      await closed;
      return { abandoned };
    })());

  return {
    url: `http://${host}:${address.port}/mcp`,
    oauthUrl: oauth ? `${oauth.origin}/oauth/mcp` : undefined,
    get inFlight() {
      return active.size;
    },
    get queued() {
      return admission.queuedCount;
    },
    get receiving() {
      return receiving;
    },
    shutdown,
    close: async () => {
      await shutdown(0);
    },
  };
}

type Body = { kind: 'ok'; value: unknown } | { kind: 'too-large' } | { kind: 'too-slow' } | { kind: 'invalid' };

/** The body as JSON; a body cut short by the caller hanging up reads as invalid (its answer goes nowhere). */
async function readJsonBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<Body> {
  const raw = await readBody(req, maxBytes, timeoutMs);
  if (raw.kind === 'failed') return { kind: 'invalid' };
  if (raw.kind !== 'ok') return raw;
  try {
    return { kind: 'ok', value: JSON.parse(raw.bytes.toString('utf8')) };
  } catch {
    return { kind: 'invalid' };
  }
}

/** Every refusal is a JSON-RPC error body (id null: the request was never read as a message). */
/**
 * The 401 of /mcp, which takes a key in the header and offers no sign-in: no resource_metadata, so
 * a client is not led into OAuth discovery (every discovery path here is a 404). The reason is
 * also the challenge's error_description (docs/oauth.md), for clients that show the header, not the
 * body, when they give up; its quoted-string allows only printable ASCII without '"' or '\'.
 */
function unauthorized(res: ServerResponse, message: string): void {
  const description = message.replace(/…/g, '...').replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');
  reply(res, 401, SERVER_ERROR, message, { 'www-authenticate': `Bearer error="invalid_token", error_description="${description}"` });
}

function reply(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** A header value quoted back in an error, kept short and printable. */
function printable(value: string | undefined): string {
  return (value ?? '').replace(/[^\x20-\x7e]/g, '?').slice(0, 100);
}
