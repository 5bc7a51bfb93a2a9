// The embedded sandbox: a local PostHog-compatible upstream (session recordings and projects)
// over realistic demo data, on 127.0.0.1. It is what `--sandbox` runs against, the upstream
// of the test suite, and a playground for agents. It never prints anything.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  ACTIONS,
  BIG_RECORDING_ID,
  MAIN_PROJECT_ID,
  MARKETING_PROJECT_ID,
  ORGANIZATION,
  PROJECT_SEEDS,
  RECORDING_SEEDS,
  SANDBOX_USER,
  STAGING_PROJECT_ID,
  bigRecordingSeed,
  extraRecordingSeeds,
  givenRecordingSeed,
  ltsBlobKey,
  type PersonSeed,
  type StoryName,
} from './demo/catalog.js';
import { Hostile, type HostileMode } from './hostile.js';
import { ApiError, authenticationFailed, defaultErrorBody, errors, notAuthenticated, wwwAuthenticate, type Reply } from './http.js';
import { dispatch, matchRoute } from './router.js';
import { SandboxState, type RequestContext, type ResolvedOptions, type SandboxApi } from './state.js';
import { ReplayThrottle, type ThrottleSetting } from './throttle.js';
import { DEFAULT_SCALE_SEED, REPLAY_OFF_PROJECT_ID, SCALE_HELP_SEED, SCALE_PROJECT_ID, SCALE_STORE_SEED } from './scale/catalog.js';

export { SANDBOX_TIMEZONES, type SandboxTimezone } from './timezones.js';
export type { SandboxApi } from './state.js';
export { BIG_RECORDING_ID };
export { ENTERPRISE_PLAN_RATES, FREE_PLAN_RATES, PAID_PLAN_RATES, planRates, type ThrottlePlan, type ThrottleRate, type ThrottleSetting } from './throttle.js';
export type { EchoForm, HostileMode } from './hostile.js';

export { scaleTruth, foldNumbers, type ScaleTruth } from './scale/truth.js';

export const SANDBOX_API_KEY = 'phx_localDemoKeyNotASecret';

/** The projects of the sandbox at scale (option `scale`, --sandbox-scale) and the seed it uses by default. */
export const SCALE = {
  projectId: SCALE_PROJECT_ID,
  projectName: SCALE_STORE_SEED.name,
  replayOffProjectId: REPLAY_OFF_PROJECT_ID,
  replayOffProjectName: SCALE_HELP_SEED.name,
  defaultSeed: DEFAULT_SCALE_SEED,
} as const;

export interface SandboxOptions {
  /**
   * Which PostHog to imitate (default 'today'): today's Cloud refuses personal API keys on
   * matching_events, has no properties endpoint, requires arrays for the filter settings, drops
   * slack_incoming_webhook and deletes projects in the background; '2024' is the older API.
   */
  api?: SandboxApi;
  /**
   * Scopes of the sandbox key, enforced as PostHog does (403 "API key missing required scope").
   * Default ['*'] today; in 2024 mode a legacy key without scopes ([]), which PostHog then let
   * call the internal endpoints.
   */
  scopes?: string[];
  host?: string; // default '127.0.0.1'
  port?: number; // default 0 (random free port)
  apiKey?: string; // accepted personal API key; default SANDBOX_API_KEY
  acceptAnyKey?: boolean; // accept any Bearer phx_… key (for multi-user tests later); default false
  recordingsEnvelope?: 'has_next' | 'drf'; // recordings list envelope; default 'has_next' (real PostHog)
  projectsEnvelope?: 'drf' | 'has_next'; // projects list envelope; default 'drf' (real PostHog)
  now?: Date; // clock for demo data; default new Date()
  /**
   * Add a long synthetic recording (id BIG_RECORDING_ID): the real checkout recording, `copies`
   * times over (~117 KB each), `copiesPerBlock` copies to a blob_v2 block (default 1).
   */
  bigRecording?: { copies: number; copiesPerBlock?: number };
  /** Add this many recordings to the main project: copies of its demo recordings with ids of their own (for list-size benchmarks). */
  extraRecordings?: number;
  /**
   * Recordings a test made itself: `[windowId, rrweb event]` lines as blob_v2 serves them, and the
   * analytics events sent beside them (`$exception`…), served like the demo recordings (main project);
   * `person`, the person PostHog matched to its distinct id (none unless given).
   */
  recordings?: Array<{ id: string; projectId?: number; distinctId?: string; person?: PersonSeed; lines: Array<[string, { type: number; timestamp: number; data: unknown }]>; captured?: Array<{ event: string; timestamp: number; properties?: Record<string, unknown> }> }>;
  /**
   * Per-key replay throttle (recordings list, snapshots), counted per key as PostHog does: a plan
   * ('free', 'paid', 'enterprise'), 'generous' (the default: far above what a person does), 'none',
   * or windows of its own (planRates() scales a plan's windows for tests).
   */
  replayThrottle?: ThrottleSetting;
  /** Keys (with acceptAnyKey, or the sandbox key) throttled like another plan than replayThrottle says. */
  replayThrottleByKey?: Record<string, ThrottleSetting>;
  /**
   * Add a project at real scale (docs/sandbox.md, "At scale"): a generated week of ~3,000 recorded
   * sessions from ~2,200 people in the shop (SCALE.projectId), with planted problems, and a help
   * centre with replay off (SCALE.replayOffProjectId). `true` uses the default seed; the same seed
   * within the same hour of `now` gives the same ids. scaleTruth() says what was planted.
   */
  scale?: boolean | { seed?: number };
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Fault {
  method?: string; // match method (default any)
  path: string | RegExp; // string: exact pathname match ignoring a trailing slash; RegExp: tested on pathname
  query?: Record<string, string>; // match only requests whose query has these values (e.g. one snapshot source)
  times?: number; // how many matching requests it applies to (default 1; Infinity allowed)
  status?: number; // answer with this status...
  body?: string | object; // ...and this body (object → JSON); default a PostHog error envelope fitting the status
  headers?: Record<string, string>;
  delayMs?: number; // wait before answering (or before the normal answer if no status given)
  reset?: boolean; // destroy the socket without answering (connection reset)
  malformed?: boolean; // answer 200 with a body that is not valid JSON
}

export interface Sandbox {
  url: string; // e.g. 'http://127.0.0.1:43121'
  apiKey: string;
  requests: RecordedRequest[]; // every request received, in order
  injectFault(fault: Fault): void;
  clearFaults(): void;
  /** Misbehave as a hostile upstream would (hostile.ts), until called with undefined. */
  setHostile(mode: HostileMode | undefined): void;
  reset(): void; // restore demo data to pristine, clear requests, faults, throttle counts and hostile mode
  close(): Promise<void>; // also closes keep-alive connections so tests end fast
}

/** Fixed ids of the demo data, so tests and docs can refer to them. Timestamps depend on `now`. */
export const DEMO = {
  organizationId: ORGANIZATION.id,
  organizationName: ORGANIZATION.name,
  user: { email: SANDBOX_USER.email },
  mainProjectId: MAIN_PROJECT_ID,
  marketingProjectId: MARKETING_PROJECT_ID,
  emptyProjectId: STAGING_PROJECT_ID,
  projects: PROJECT_SEEDS.map((p) => ({ id: p.id, name: p.name, uuid: p.uuid, timezone: p.timezone, apiToken: p.apiToken })),
  recordingIds: Object.fromEntries(RECORDING_SEEDS.map((r) => [r.name, r.id])) as Record<StoryName, string>,
  recordings: RECORDING_SEEDS.map((r) => ({
    name: r.name,
    id: r.id,
    projectId: r.projectId,
    distinctId: r.distinctId,
    personUuid: r.person?.uuid ?? null,
    windowIds: r.windowIds,
    storage: r.storage,
    compressed: r.compressed,
    summary: r.summary,
    // The legacy recording has a long-term copy too: today's API serves it that way (snapshots.ts).
    ltsBlobKey: r.storage === 'blob_v2_lts' || r.storage === 'blob' ? ltsBlobKey(r.projectId, r.id) : null,
  })),
  /** Action ids usable in `actions` filters, and the event each stands for. */
  actions: ACTIONS.map((a) => ({ ...a })),
} as const;

const MALFORMED_BODY = '{"results": [{"id": "0193a1f0-5c2e-7d41-9b8a-4e6f2a1c3d01", "distinct_id": "cus_88';

interface ActiveFault {
  fault: Fault;
  remaining: number;
}

function stripSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function faultMatches(fault: Fault, method: string, pathname: string, query: Record<string, string>): boolean {
  if (fault.method && fault.method.toUpperCase() !== method) return false;
  if (fault.query && Object.entries(fault.query).some(([key, value]) => query[key] !== value)) return false;
  if (typeof fault.path === 'string') return stripSlash(fault.path) === stripSlash(pathname);
  fault.path.lastIndex = 0;
  return fault.path.test(pathname);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Keep at most 5 MB; a PostHog request body is never close to that.
      if (size <= 5 * 1024 * 1024) chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const api = options.api ?? 'today';
  const resolved: ResolvedOptions = {
    api,
    scopes: options.scopes ?? (api === '2024' ? [] : ['*']),
    apiKey: options.apiKey ?? SANDBOX_API_KEY,
    acceptAnyKey: options.acceptAnyKey ?? false,
    recordingsEnvelope: options.recordingsEnvelope ?? 'has_next',
    projectsEnvelope: options.projectsEnvelope ?? 'drf',
  };
  const extraSeeds = [...(options.bigRecording ? [bigRecordingSeed(options.bigRecording.copies, options.bigRecording.copiesPerBlock)] : []), ...extraRecordingSeeds(options.extraRecordings ?? 0), ...(options.recordings ?? []).map(givenRecordingSeed)];
  const scaleSeed = options.scale === undefined || options.scale === false ? undefined : options.scale === true ? DEFAULT_SCALE_SEED : (options.scale.seed ?? DEFAULT_SCALE_SEED);
  const state = new SandboxState((options.now ?? new Date()).getTime(), extraSeeds, scaleSeed);
  const requests: RecordedRequest[] = [];
  let faults: ActiveFault[] = [];
  const throttle = new ReplayThrottle(options.replayThrottle ?? 'generous', options.replayThrottleByKey);
  let hostile: Hostile | undefined;
  // Pending fault delays: close() ends them at once so nothing outlives the sandbox.
  const delays = new Map<NodeJS.Timeout, () => void>();
  let siteUrl = '';

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        delays.delete(timer);
        resolve();
      }, ms);
      delays.set(timer, resolve);
    });

  function send(res: ServerResponse, method: string, reply: Reply, started: number, timingName: string): void {
    if (res.destroyed || res.writableEnded) return;
    const body = reply.status === 204 || reply.status === 304 ? undefined : reply.body;
    const headers: Record<string, string | number> = {
      'Server-Timing': `${timingName};dur=${(performance.now() - started).toFixed(1)}`,
      Vary: 'Accept, Origin, Cookie',
      'X-Content-Type-Options': 'nosniff',
      ...reply.headers,
    };
    if (body !== undefined) {
      // A fault may bring its own Content-Type (e.g. an HTML error page from a proxy).
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = reply.contentType ?? 'application/json';
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    res.writeHead(reply.status, headers);
    res.end(method === 'HEAD' ? undefined : body);
  }

  function authenticate(authorization: string | undefined): void {
    const match = authorization === undefined ? null : /^Bearer\s+(\S.*)$/.exec(authorization);
    if (!match) throw notAuthenticated(siteUrl);
    const key = match[1]!.trim();
    const ok = key === resolved.apiKey || (resolved.acceptAnyKey && key.startsWith('phx_'));
    if (!ok) throw authenticationFailed(siteUrl);
  }

  function faultReply(fault: Fault): Reply {
    const status = fault.status!;
    const given = fault.body;
    const body = given === undefined ? JSON.stringify(defaultErrorBody(status)) : typeof given === 'string' ? given : JSON.stringify(given);
    const reply: Reply = { status, body, contentType: 'application/json' };
    if (fault.headers) reply.headers = fault.headers;
    if (status === 401 && fault.body === undefined) reply.headers = { ...wwwAuthenticate(siteUrl), ...fault.headers };
    return reply;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const url = requestUrl(req, siteUrl);
    const body = await readBody(req);
    const query = Object.fromEntries(url.searchParams);
    const authorization = req.headers.authorization;
    requests.push({ method, path: url.pathname, query, authorization, headers: { ...req.headers }, body });
    const hostileNow = hostile?.applies(url.pathname, method, req.headers.authorization) ? hostile : undefined;
    if (hostileNow && (await hostileNow.before(req, res, url.pathname, query, sleep)) === 'handled') return;

    let extraHeaders: Record<string, string> | undefined;
    const active = faults.find((f) => f.remaining > 0 && faultMatches(f.fault, method, url.pathname, query));
    if (active) {
      active.remaining--;
      faults = faults.filter((f) => f.remaining > 0);
      const { fault } = active;
      if (fault.delayMs) await sleep(fault.delayMs);
      if (fault.reset) {
        req.socket.destroy();
        return;
      }
      if (fault.malformed) {
        const reply: Reply = { status: 200, body: MALFORMED_BODY, contentType: 'application/json' };
        if (fault.headers) reply.headers = fault.headers;
        send(res, method, reply, started, 'fault');
        return;
      }
      if (fault.status !== undefined) {
        send(res, method, faultReply(fault), started, 'fault');
        return;
      }
      extraHeaders = fault.headers;
    }

    let reply: Reply;
    let timing = 'request';
    try {
      if (!url.pathname.startsWith('/api/') && url.pathname !== '/api') {
        reply = rootReply(url.pathname, url.searchParams.get('t'));
      } else {
        authenticate(authorization);
        const matched = matchRoute(url.pathname);
        if (!matched) throw errors.endpointNotFound();
        throttle.check(matched.route.name, method, authorization);
        timing = matched.route.name;
        const ctx: RequestContext = { method, url, query, body, headers: req.headers, siteUrl, state, options: resolved };
        reply = await dispatch(ctx, matched);
      }
    } catch (e) {
      reply =
        e instanceof ApiError
          ? { status: e.status, body: JSON.stringify(e.body), contentType: 'application/json', headers: e.headers }
          : { status: 500, body: JSON.stringify({ error: 'An internal server error occurred. Please try again later.' }), contentType: 'application/json' };
    }
    if (extraHeaders) reply.headers = { ...reply.headers, ...extraHeaders };
    if (hostileNow) reply = hostileNow.after(reply);
    send(res, method, reply, started, timing);
  }

  const server = createServer({ keepAlive: true }, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: 'An internal server error occurred. Please try again later.' }));
      }
    });
  });
  server.keepAliveTimeout = 5_000;
  server.on('clientError', (_err: Error, socket: Socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  siteUrl = `http://${host}:${address.port}`;

  let closed: Promise<void> | undefined;
  return {
    url: siteUrl,
    apiKey: resolved.apiKey,
    requests,
    injectFault(fault: Fault): void {
      const times = fault.times ?? 1;
      if (times > 0) faults.push({ fault, remaining: times });
    },
    clearFaults(): void {
      faults = [];
    },
    setHostile(mode: HostileMode | undefined): void {
      hostile?.close();
      hostile = mode ? new Hostile(mode, resolved.apiKey) : undefined;
    },
    reset(): void {
      state.reset();
      requests.length = 0;
      faults = [];
      throttle.reset();
      hostile?.close();
      hostile = undefined;
    },
    close(): Promise<void> {
      closed ??= new Promise<void>((resolve) => {
        for (const [timer, wake] of delays) {
          clearTimeout(timer);
          wake();
        }
        delays.clear();
        hostile?.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** The absolute request URL (as DRF builds page links from it); never throws on odd input. */
function requestUrl(req: IncomingMessage, siteUrl: string): URL {
  const target = req.url ?? '/';
  try {
    return new URL(`http://${req.headers.host ?? new URL(siteUrl).host}${target.startsWith('/') ? target : `/${target}`}`);
  } catch {
    return new URL(`${siteUrl}${target.startsWith('/') ? target : '/'}`.replace(/[^\x21-\x7e]/g, ''));
  }
}

function rootReply(pathname: string, t: string | null): Reply {
  // Where session-recording-replay's deep link ("PostHog's own player") points in the sandbox.
  const replay = /^\/project\/([^/]+)\/replay\/([^/]+)\/?$/.exec(pathname);
  if (replay) {
    const at = t !== null && /^\d{1,7}$/.test(t) ? ` at ${t} s` : '';
    return {
      status: 200,
      contentType: 'text/plain; charset=utf-8',
      body:
        `posthog-replay-mcp sandbox: recording ${replay[2]} of project ${replay[1]}${at}.\n` +
        'The sandbox has no player page of its own: watch the recording with session-recording-replay in a host that renders MCP Apps, or read it with session-recording-summary.\n',
    };
  }
  if (pathname === '/' || pathname === '') {
    return {
      status: 200,
      contentType: 'text/plain; charset=utf-8',
      body:
        'posthog-replay-mcp sandbox: a local, PostHog-compatible API with demo data.\n' +
        'Try: GET /api/projects/ with the header "Authorization: Bearer <sandbox key>".\n',
    };
  }
  const notFound = errors.notFound();
  return { status: notFound.status, body: JSON.stringify(notFound.body), contentType: 'application/json' };
}
