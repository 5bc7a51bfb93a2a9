// MCP_OAUTH: the HTTP server as an OAuth 2.1 authorization server for MCP clients that cannot
// send a PostHog key themselves (Claude.ai and Claude Desktop connectors, ChatGPT). The issuer is
// <origin>/oauth and its protected MCP endpoint <origin>/oauth/mcp; /mcp is left as it was, and
// none of its discovery paths answer (a client that finds OAuth there would stop sending the
// header its user configured). The consent page asks for the PostHog key once; every code and
// token is that key sealed with MCP_OAUTH_SECRET (oauth-seal.ts). What each endpoint takes and
// answers, with the RFCs it follows, is in docs/oauth.md.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidClientError, InvalidClientMetadataError, InvalidGrantError, InvalidRequestError, InvalidTargetError, OAuthError, UnsupportedGrantTypeError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull, OAuthMetadata, OAuthProtectedResourceMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { isLoopbackHost } from '../http-settings.js';
import type { PostHogClient } from '../posthog/client.js';
import { readBody, type RawBody } from './body.js';
import { askPostHog, CONSENT_CHECK_LIMITS, ConsentChecks } from './key-checks.js';
import { consentPage, problemPage } from './oauth-page.js';
import type { SharedOAuthStore } from '../cache/oauth-store.js';
import { OAuthMemory } from './oauth-memory.js';
import { MAX_SEALED_CHARS, pkceMatches, randomId, Sealer } from './oauth-seal.js';

export interface OAuthSettings {
  /** MCP_OAUTH_SECRET first, then MCP_OAUTH_PREVIOUS_SECRET when rotating. */
  secrets: readonly string[];
  /** The origin clients reach this server at (MCP_PUBLIC_URL); default: the address it listens on. */
  publicUrl?: string | undefined;
  /** Redis, shared by the replicas, for what the server remembers (oauth-memory.ts); default: this process only. */
  store?: SharedOAuthStore | undefined;
}

export interface OAuthOptions extends OAuthSettings {
  publicUrl: string;
  /** The shared keyless client: each key is checked with PostHog through it before a code is issued. */
  client: PostHogClient;
  log: (message: string) => void;
  /** The HTTP server's own limit for receiving a request body, when shorter than a form's 15 s. */
  bodyTimeoutMs?: number | undefined;
  now?: () => number;
}

/** An access token lives an hour; a refresh token 30 days, replaced at each use. */
const ACCESS_TTL_S = 3_600;
const REFRESH_TTL_S = 30 * 86_400;
const CODE_TTL_S = 60;
const CONSENT_TTL_S = 15 * 60;
const MAX_FORM_BYTES = 64 * 1024;
const FORM_TIMEOUT_MS = 15_000;
const MAX_REDIRECT_URIS = 10;
const MAX_URI_CHARS = 2_000;
/**
 * A client id is sealed again inside its consent requests, codes and tokens, which open only up
 * to MAX_SEALED_CHARS: this bound leaves room for the longest of them (a code with its redirect
 * URI and a 512-character key), so every id handed out can be used.
 */
const MAX_CLIENT_ID_CHARS = 3_000;
/** What a token whose sign-in the shared store no longer holds is told: it failed closed. */
const FORGOTTEN = 'This sign-in is no longer known to the server (its shared store restarted or dropped it); sign in again.';

type Json = Record<string, unknown>;

/** What the MCP endpoint makes of a Bearer credential. */
export type Authenticated = { ok: true; key: string; signIn?: string } | { ok: false; message: string; challenge: string };

export class OAuthServer {
  readonly origin: string;
  readonly issuer: string;
  readonly resource: string;
  readonly resourceMetadataUrl: string;
  private readonly sealer: Sealer;
  private readonly memory: OAuthMemory;
  private readonly now: () => number;
  /** Key checks with PostHog take turns per client registration and consent page (key-checks.ts). */
  private readonly checks: ConsentChecks;
  private readonly bodyTimeoutMs: number;

  constructor(private readonly options: OAuthOptions) {
    this.origin = options.publicUrl.replace(/\/+$/, '');
    this.issuer = `${this.origin}/oauth`;
    this.resource = `${this.origin}/oauth/mcp`;
    this.resourceMetadataUrl = `${this.origin}/.well-known/oauth-protected-resource/oauth/mcp`;
    this.sealer = new Sealer(options.secrets);
    this.now = options.now ?? Date.now;
    this.memory = new OAuthMemory(options.store, this.now);
    this.checks = new ConsentChecks(CONSENT_CHECK_LIMITS, this.now);
    this.bodyTimeoutMs = Math.min(FORM_TIMEOUT_MS, options.bodyTimeoutMs ?? FORM_TIMEOUT_MS);
  }

  /** The paths this server answers besides /oauth/mcp (which the MCP handler serves). */
  handles(path: string): boolean {
    return ROUTES.has(path);
  }

  async route(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const kind = ROUTES.get(path)!;
    // Discovery, registration and tokens are fetched by browser-based clients too (CORS); they
    // rely on no ambient credential, so any origin may read them.
    if (kind !== 'authorize') {
      res.setHeader('access-control-allow-origin', '*');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { 'access-control-allow-methods': 'GET, POST, OPTIONS', 'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version', 'access-control-max-age': '600' });
        res.end();
        return;
      }
    }
    switch (kind) {
      case 'resource-metadata':
        return this.onlyGet(req, res, () => sendJson(res, 200, this.resourceMetadata()));
      case 'server-metadata':
        return this.onlyGet(req, res, () => sendJson(res, 200, this.serverMetadata()));
      case 'register':
        if (req.method !== 'POST') return oauthError(res, 405, new InvalidRequestError('Registration takes POST.'), { allow: 'POST' });
        return this.register(req, res);
      case 'token':
        if (req.method !== 'POST') return oauthError(res, 405, new InvalidRequestError('The token endpoint takes POST.'), { allow: 'POST' });
        return this.token(req, res);
      case 'authorize':
        if (req.method === 'GET') return this.authorizeGet(req, res);
        if (req.method === 'POST') return this.authorizePost(req, res);
        return sendHtml(res, 405, problemPage('Method not allowed', 'The authorization endpoint takes GET (from the app) and POST (from its form).'), { allow: 'GET, POST' });
    }
  }

  /** A Bearer credential on /oauth/mcp: one of our access tokens, live, for this resource. */
  async authenticate(credential: string | undefined): Promise<Authenticated> {
    if (credential === undefined) {
      return { ok: false, message: `Unauthorized: this endpoint takes an access token from this server's OAuth flow (metadata: ${this.resourceMetadataUrl}). Header users send their PostHog key to ${this.origin}/mcp instead.`, challenge: this.challenge() };
    }
    if (/^ph[a-z]_/.test(credential)) {
      return { ok: false, message: `Unauthorized: ${this.resource} takes OAuth access tokens, not PostHog keys; to use a key in the Authorization header, connect to ${this.origin}/mcp.`, challenge: this.challenge('invalid_token', 'a PostHog key is not an access token here') };
    }
    const token = await this.sealer.open('access', credential);
    if (!token || typeof token.k !== 'string' || token.res !== this.resource || typeof token.exp !== 'number') {
      return { ok: false, message: 'Unauthorized: the access token is not one this server issued for this endpoint; sign in again.', challenge: this.challenge('invalid_token', 'unknown token') };
    }
    if (token.exp * 1000 <= this.now()) return { ok: false, message: 'Unauthorized: the access token has expired; refresh it or sign in again.', challenge: this.challenge('invalid_token', 'expired') };
    const status = typeof token.f === 'string' ? await this.memory.status(token.f) : 'live';
    if (status === 'revoked') return { ok: false, message: 'Unauthorized: this sign-in was revoked (a refresh token was used twice); sign in again.', challenge: this.challenge('invalid_token', 'revoked') };
    if (status === 'forgotten') return { ok: false, message: FORGOTTEN, challenge: this.challenge('invalid_token', 'sign in again') };
    return { ok: true, key: token.k, ...(typeof token.f === 'string' ? { signIn: token.f } : {}) };
  }

  /**
   * Whether a sign-in no longer stands, as its access tokens are judged: revoked, or no longer
   * held by the shared store (fail closed). Asked when a watch link made through it is opened.
   */
  readonly signInEnded = async (signIn: string): Promise<boolean> => (await this.memory.status(signIn)) !== 'live';

  /** The WWW-Authenticate of /oauth/mcp's 401 (with an error when a token was sent; docs/oauth.md). */
  challenge(error?: string, description?: string): string {
    return `Bearer resource_metadata="${this.resourceMetadataUrl}"${error ? `, error="${error}", error_description="${description}"` : ''}`;
  }

  private onlyGet(req: IncomingMessage, res: ServerResponse, answer: () => void): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') return oauthError(res, 405, new InvalidRequestError('GET only.'), { allow: 'GET' });
    answer();
  }

  /** Protected-resource metadata: what protects /oauth/mcp (docs/oauth.md). */
  private resourceMetadata(): OAuthProtectedResourceMetadata {
    return { resource: this.resource, authorization_servers: [this.issuer], bearer_methods_supported: ['header'], resource_name: 'PostHog Replay MCP' };
  }

  /** Authorization-server metadata (and the OpenID Connect discovery paths clients also try; docs/oauth.md). */
  private serverMetadata(): OAuthMetadata {
    return {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/authorize`,
      token_endpoint: `${this.issuer}/token`,
      registration_endpoint: `${this.issuer}/register`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
      authorization_response_iss_parameter_supported: true,
    };
  }

  /** Dynamic client registration: the client's metadata sealed into its id, nothing stored. */
  private async register(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readForm(req, this.bodyTimeoutMs);
    if (body.kind !== 'ok') return oauthError(res, 400, new InvalidClientMetadataError(bodyProblem(body.kind)));
    let meta: unknown;
    try {
      meta = JSON.parse(body.text);
    } catch {
      return oauthError(res, 400, new InvalidClientMetadataError('The body is not JSON.'));
    }
    if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return oauthError(res, 400, new InvalidClientMetadataError('The body must be a JSON object.'));
    const m = meta as Json;
    const uris = m.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS || !uris.every((u) => typeof u === 'string')) {
      return oauthError(res, 400, new InvalidRedirectUriError(`redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URIs.`));
    }
    for (const uri of uris as string[]) {
      const problem = redirectUriProblem(uri);
      if (problem) return oauthError(res, 400, new InvalidRedirectUriError(problem));
    }
    const method = m.token_endpoint_auth_method ?? 'none';
    if (method !== 'none' && method !== 'client_secret_post' && method !== 'client_secret_basic') {
      return oauthError(res, 400, new InvalidClientMetadataError('token_endpoint_auth_method must be none, client_secret_post or client_secret_basic.'));
    }
    const grants = m.grant_types ?? ['authorization_code', 'refresh_token'];
    if (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
      return oauthError(res, 400, new InvalidClientMetadataError('grant_types may hold authorization_code and refresh_token only.'));
    }
    const responses = m.response_types ?? ['code'];
    if (!Array.isArray(responses) || responses.some((r) => r !== 'code')) return oauthError(res, 400, new InvalidClientMetadataError('response_types may hold code only.'));
    // Shown on the consent page: no control characters, and no invisible format characters (bidi
    // overrides would reorder the sentence around the name, so it reads as something else).
    const name = typeof m.client_name === 'string' ? m.client_name.replace(/\p{Cc}/gu, ' ').replace(/\p{Cf}/gu, '').trim().slice(0, 120) : undefined;
    const issuedAt = Math.floor(this.now() / 1000);
    const clientId = await this.sealer.seal('client', { r: uris, a: method, ...(name ? { n: name } : {}), iat: issuedAt });
    if (clientId.length > MAX_CLIENT_ID_CHARS) return oauthError(res, 400, new InvalidClientMetadataError('The redirect URIs and client name are too long together: register fewer or shorter ones.'));
    const answer: OAuthClientInformationFull = {
      client_id: clientId,
      client_id_issued_at: issuedAt,
      redirect_uris: uris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: method,
      ...(name ? { client_name: name } : {}),
    };
    if (method !== 'none') Object.assign(answer, { client_secret: this.sealer.clientSecret(clientId), client_secret_expires_at: 0 } satisfies Partial<OAuthClientInformationFull>);
    sendJson(res, 201, answer);
  }

  private async client(clientId: string | undefined): Promise<{ id: string; redirectUris: string[]; method: string; name?: string } | undefined> {
    const c = await this.sealer.open('client', clientId);
    if (!c || !Array.isArray(c.r) || typeof c.a !== 'string') return undefined;
    return { id: clientId!, redirectUris: c.r.filter((u): u is string => typeof u === 'string'), method: c.a, ...(typeof c.n === 'string' ? { name: c.n } : {}) };
  }

  /** The resource a request names must be this server's MCP endpoint (absent: it is implied). */
  private resourceOk(resource: string | undefined): boolean {
    return resource === undefined || resource.replace(/\/+$/, '') === this.resource;
  }

  private async authorizeGet(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const q = new URL(req.url ?? '/', this.origin).searchParams;
    const single = (name: string) => (q.getAll(name).length > 1 ? null : (q.get(name) ?? undefined));
    const client = await this.client(single('client_id') ?? undefined);
    if (!client) return sendHtml(res, 400, problemPage('Unknown app', 'The app asking to connect is not registered with this server (its client_id is missing, wrong, or from another server or secret). Remove the connector from the app and add it again.'));
    const redirectUri = single('redirect_uri');
    // Given twice, neither can be trusted (nor sent an error).
    const redirect = redirectUri === null ? undefined : typeof redirectUri === 'string' ? matchRedirect(client.redirectUris, redirectUri) : client.redirectUris.length === 1 ? client.redirectUris[0] : undefined;
    if (!redirect) return sendHtml(res, 400, problemPage('Unknown return address', 'The redirect_uri is missing or not one the app registered, so this server will not send your browser there.'));
    // Anyone can register a client with their own https address, so a request that is not right
    // is told to the person on a page and sent nowhere: redirecting every malformed request to
    // the client's address would make this server an open redirector (docs/oauth.md).
    const refuse = (description: string) => sendHtml(res, 400, problemPage('This sign-in request is not valid', `${description} Start again from the app; if this keeps happening, the app is not using this server correctly.`));
    const state = single('state');
    if ([state, single('response_type'), single('code_challenge'), single('code_challenge_method'), single('resource')].includes(null)) return refuse('A parameter was given twice.');
    if (single('response_type') !== 'code') return refuse('Only response_type=code is supported.');
    const challenge = single('code_challenge');
    if (typeof challenge !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) return refuse('PKCE is required: code_challenge (S256) is missing or malformed.');
    if (single('code_challenge_method') !== 'S256') return refuse('code_challenge_method must be S256.');
    const resource = single('resource') ?? undefined;
    if (!this.resourceOk(resource)) return refuse(`This server issues tokens for ${this.resource} only.`);
    const request = await this.sealer.seal('consent', { c: client.id, r: redirect, cc: challenge, ...(state ? { s: state } : {}), exp: Math.floor(this.now() / 1000) + CONSENT_TTL_S });
    // The form would post back a request that no longer opens: say so now.
    if (request.length > MAX_SEALED_CHARS) return refuse('Its state is too long.');
    sendHtml(res, 200, consentPage({ clientName: client.name, returnTo: shownTarget(redirect), server: this.origin, request }));
  }

  private async authorizePost(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readForm(req, this.bodyTimeoutMs);
    if (body.kind !== 'ok') return sendHtml(res, 400, problemPage('The form did not arrive', bodyProblem(body.kind)));
    const form = new URLSearchParams(body.text);
    const consent = await this.sealer.open('consent', form.get('request') ?? undefined);
    const client = consent ? await this.client(typeof consent.c === 'string' ? consent.c : undefined) : undefined;
    if (!consent || !client || typeof consent.r !== 'string' || typeof consent.cc !== 'string' || typeof consent.exp !== 'number') {
      return sendHtml(res, 400, problemPage('This sign-in page is not valid', 'Start again from the app: the form was altered, or comes from another server.'));
    }
    const state = typeof consent.s === 'string' ? consent.s : undefined;
    const redirect = consent.r;
    if (consent.exp * 1000 <= this.now()) return sendHtml(res, 400, problemPage('This sign-in page expired', 'It was open for more than 15 minutes. Start again from the app.'));
    if (form.get('deny') !== null) return this.toApp(res, redirect, state, { error: 'access_denied', error_description: 'The user cancelled.' });
    const key = (form.get('api_key') ?? '').trim();
    const again = (error: string, status = 400) => sendHtml(res, status, consentPage({ clientName: client.name, returnTo: shownTarget(redirect), server: this.origin, request: form.get('request')!, error }));
    if (!/^[\x21-\x7e]{8,512}$/.test(key)) return again('Paste a PostHog personal API key (it starts with phx_).');
    const left = new AbortController();
    res.once('close', () => left.abort());
    const verdict = await this.checks.check(client.id, form.get('request')!, consent.exp * 1000, left.signal, (signal) => askPostHog(this.options.client, key, signal));
    switch (verdict.kind) {
      case 'accepted':
        break;
      case 'gone':
        return;
      case 'refused':
        return again('PostHog did not accept this key: check it is a valid, unexpired personal API key from the right region (US or EU).');
      case 'unknown':
        this.options.log(`oauth: could not check a key with PostHog (${verdict.why}).`);
        return again('Could not check the key with PostHog just now; try again in a moment.', 503);
      case 'busy':
        return again('This server is checking many keys right now; try again in a few seconds.', 503);
      case 'pending':
        return again('This page is already waiting for a key to be checked; wait for that answer.', 429);
      case 'too-many':
        return again('Too many keys were tried on this page; start again from the app.', 429);
    }
    const id = randomId();
    const exp = Math.floor(this.now() / 1000) + CODE_TTL_S;
    // Shared with the replicas before the browser carries it anywhere: a code counts only while the store holds it.
    await this.memory.issueCode(id, exp * 1000);
    const code = await this.sealer.seal('code', { c: client.id, r: redirect, cc: consent.cc, k: key, j: id, exp });
    this.toApp(res, redirect, state, { code });
  }

  /** The browser sent back to the app's redirect URI with a code or an error, its state, and this issuer (docs/oauth.md). */
  private toApp(res: ServerResponse, redirect: string, state: string | null | undefined, params: Record<string, string>): void {
    redirectTo(res, redirect, { ...params, ...(state ? { state } : {}), iss: this.issuer });
  }

  private async token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readForm(req, this.bodyTimeoutMs);
    if (body.kind !== 'ok') return oauthError(res, 400, new InvalidRequestError(bodyProblem(body.kind)));
    const form = formOrJson(body.text, req.headers['content-type']);
    if (!form) return oauthError(res, 400, new InvalidRequestError('Send the parameters as application/x-www-form-urlencoded.'));
    // Client authentication: a secret in the body or in Basic, checked for confidential clients.
    let clientId = form.get('client_id') ?? undefined;
    let secret = form.get('client_secret') ?? undefined;
    const basic = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (basic) {
      const pair = basicCredentials(basic);
      if (!pair) return oauthError(res, 401, new InvalidClientError('Malformed Basic credentials.'));
      [clientId, secret] = pair;
    }
    const client = await this.client(clientId);
    if (!client) return oauthError(res, 401, new InvalidClientError('Unknown client_id: register again.'));
    if (client.method !== 'none' && !this.sealer.clientSecretMatches(client.id, secret)) return oauthError(res, 401, new InvalidClientError('The client secret is missing or wrong.'));
    if (!this.resourceOk(form.get('resource') ?? undefined)) return oauthError(res, 400, new InvalidTargetError(`This server issues tokens for ${this.resource} only.`));
    const grant = form.get('grant_type');
    if (grant === 'authorization_code') return this.codeGrant(res, form, client.id);
    if (grant === 'refresh_token') return this.refreshGrant(res, form, client.id);
    return oauthError(res, 400, new UnsupportedGrantTypeError('grant_type must be authorization_code or refresh_token.'));
  }

  private async codeGrant(res: ServerResponse, form: URLSearchParams, clientId: string): Promise<void> {
    const code = await this.sealer.open('code', form.get('code') ?? undefined);
    const now = this.now();
    if (!code || code.c !== clientId || typeof code.k !== 'string' || typeof code.j !== 'string' || typeof code.exp !== 'number' || typeof code.cc !== 'string') {
      return oauthError(res, 400, new InvalidGrantError('The code is not valid for this client.'));
    }
    if (code.exp * 1000 <= now) return oauthError(res, 400, new InvalidGrantError('The code has expired; sign in again.'));
    if (form.get('redirect_uri') !== null && form.get('redirect_uri') !== code.r) return oauthError(res, 400, new InvalidGrantError('redirect_uri differs from the one the code was issued for.'));
    if (!pkceMatches(form.get('code_verifier') ?? undefined, code.cc)) return oauthError(res, 400, new InvalidGrantError('The code_verifier does not match the code_challenge.'));
    const use = await this.memory.spendCode(code.j, code.exp * 1000);
    if (use === 'reused') {
      // A code used twice: the first use may have been a thief's, so what it bought ends too.
      await this.memory.revoke(code.j, now + REFRESH_TTL_S * 1000);
      return oauthError(res, 400, new InvalidGrantError('The code was already used; the tokens it bought are revoked: sign in again.'));
    }
    if (use === 'forgotten') return oauthError(res, 400, new InvalidGrantError(FORGOTTEN));
    // The sign-in's family is named after its code, so a second use of the code can revoke it.
    const next = randomId();
    await this.memory.startSignIn(code.j, next, now + REFRESH_TTL_S * 1000);
    await this.issueTokens(res, clientId, code.k, code.j, next);
  }

  private async refreshGrant(res: ServerResponse, form: URLSearchParams, clientId: string): Promise<void> {
    const token = await this.sealer.open('refresh', form.get('refresh_token') ?? undefined);
    const now = this.now();
    if (!token || token.c !== clientId || typeof token.k !== 'string' || typeof token.j !== 'string' || typeof token.f !== 'string' || typeof token.exp !== 'number' || token.res !== this.resource) {
      return oauthError(res, 400, new InvalidGrantError('The refresh token is not valid for this client.'));
    }
    if (token.exp * 1000 <= now) return oauthError(res, 400, new InvalidGrantError('The refresh token has expired; sign in again.'));
    const next = randomId();
    const use = await this.memory.rotate(token.f, token.j, next, now + REFRESH_TTL_S * 1000);
    if (use === 'revoked') return oauthError(res, 400, new InvalidGrantError('This sign-in was revoked; sign in again.'));
    if (use === 'forgotten') return oauthError(res, 400, new InvalidGrantError(FORGOTTEN));
    if (use === 'reused') {
      // A refresh token used twice may have been stolen: its whole sign-in ends.
      await this.memory.revoke(token.f, now + REFRESH_TTL_S * 1000);
      return oauthError(res, 400, new InvalidGrantError('The refresh token was already used; this sign-in is revoked: sign in again.'));
    }
    await this.issueTokens(res, clientId, token.k, token.f, next);
  }

  private async issueTokens(res: ServerResponse, clientId: string, key: string, family: string, refreshId: string): Promise<void> {
    const now = Math.floor(this.now() / 1000);
    const access = await this.sealer.seal('access', { c: clientId, k: key, res: this.resource, f: family, exp: now + ACCESS_TTL_S });
    const refresh = await this.sealer.seal('refresh', { c: clientId, k: key, res: this.resource, f: family, j: refreshId, exp: now + REFRESH_TTL_S });
    sendJson(res, 200, { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TTL_S, refresh_token: refresh } satisfies OAuthTokens);
  }
}

type Route = 'resource-metadata' | 'server-metadata' | 'register' | 'authorize' | 'token';

/**
 * The protected resource's metadata at the well-known path for /oauth/mcp; the server's metadata at
 * the well-known path for the issuer /oauth and at both OpenID Connect discovery paths clients try.
 * Nothing at the root: that is where clients of /mcp look.
 */
const ROUTES = new Map<string, Route>([
  ['/.well-known/oauth-protected-resource/oauth/mcp', 'resource-metadata'],
  ['/.well-known/oauth-authorization-server/oauth', 'server-metadata'],
  ['/.well-known/openid-configuration/oauth', 'server-metadata'],
  ['/oauth/.well-known/openid-configuration', 'server-metadata'],
  ['/oauth/.well-known/oauth-authorization-server', 'server-metadata'],
  ['/oauth/register', 'register'],
  ['/oauth/authorize', 'authorize'],
  ['/oauth/token', 'token'],
]);

/**
 * OAuth 2.1's rules for where a code may be sent: https; http on a loopback address (a native
 * app's local listener); or an app's own scheme (cursor://…). Never a fragment, never a
 * scheme that runs or embeds content.
 */
function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > MAX_URI_CHARS) return `A redirect URI may be at most ${MAX_URI_CHARS} characters.`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `Not an absolute URI: ${uri.slice(0, 100)}`;
  }
  if (url.hash || uri.includes('#')) return 'A redirect URI must not have a fragment.';
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (['javascript', 'data', 'file', 'blob', 'vbscript', 'about', 'ftp', 'ws', 'wss'].includes(scheme)) return `The ${scheme}: scheme cannot be a redirect URI.`;
  if (scheme === 'http' && !isLoopbackHost(url.hostname)) return 'http: redirect URIs must be on a loopback address (localhost, 127.0.0.1, [::1]); use https.';
  if (url.username || url.password) return 'A redirect URI must not carry credentials.';
  return undefined;
}

/** Exact match, except that a loopback http URI may come back on another port (docs/oauth.md). */
function matchRedirect(registered: readonly string[], given: string): string | undefined {
  if (registered.includes(given)) return given;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname)) return undefined;
  const portless = (u: URL) => `${u.protocol}//${u.hostname}${u.pathname}${u.search}`;
  return registered.some((r) => {
    try {
      return portless(new URL(r)) === portless(url);
    } catch {
      return false;
    }
  })
    ? given
    : undefined;
}

/** The part of a redirect URI a person can judge: scheme and host (or the app's scheme alone). */
function shownTarget(uri: string): string {
  const url = new URL(uri);
  return url.host ? `${url.protocol}//${url.host}` : url.protocol;
}

function redirectTo(res: ServerResponse, target: string, params: Record<string, string>): void {
  const url = new URL(target);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  res.writeHead(302, { location: url.toString(), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'content-length': '0' });
  res.end();
}

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // No script at all; the page may not be framed (clickjacking the Connect button).
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
};

function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...PAGE_HEADERS, 'content-length': Buffer.byteLength(html), ...headers });
  res.end(html);
}

function sendJson(res: ServerResponse, status: number, body: Json, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** An OAuth error answer (token and registration errors, docs/oauth.md) in the SDK's shape; a 401 names the Basic scheme a client may retry with. */
function oauthError(res: ServerResponse, status: number, error: OAuthError, headers: Record<string, string> = {}): void {
  sendJson(res, status, error.toResponseObject(), { ...(status === 401 ? { 'www-authenticate': 'Basic realm="oauth"' } : {}), ...headers });
}

/** Registration's error for a redirect URI the rules refuse: the SDK has no class for it. */
class InvalidRedirectUriError extends OAuthError {
  static override errorCode = 'invalid_redirect_uri';
}

/** Basic client credentials: id and secret, each form-encoded, joined by the first colon; undefined when malformed. */
function basicCredentials(encoded: string): [string, string] | undefined {
  const text = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return [decodeURIComponent(text.slice(0, colon)), decodeURIComponent(text.slice(colon + 1))];
  } catch {
    return undefined;
  }
}

function formOrJson(text: string, contentType: string | undefined): URLSearchParams | undefined {
  if (/^application\/json/i.test(contentType ?? '')) {
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
      return new URLSearchParams(Object.entries(value as Json).filter((e): e is [string, string] => typeof e[1] === 'string'));
    } catch {
      return undefined;
    }
  }
  return new URLSearchParams(text);
}

/** readBody's answer, with the bytes read as UTF-8 text. */
type FormBody = Exclude<RawBody, { kind: 'ok' }> | { kind: 'ok'; text: string };

function bodyProblem(kind: Exclude<FormBody['kind'], 'ok'>): string {
  return kind === 'too-large' ? `The body is larger than ${MAX_FORM_BYTES} bytes.` : kind === 'too-slow' ? 'The body did not arrive in time.' : 'The body could not be read.';
}

async function readForm(req: IncomingMessage, timeoutMs: number): Promise<FormBody> {
  const raw = await readBody(req, MAX_FORM_BYTES, timeoutMs);
  return raw.kind === 'ok' ? { kind: 'ok', text: raw.bytes.toString('utf8') } : raw;
}
