import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisDigestCache } from '../src/cache/redis.js';
import type { PostHogClient } from '../src/posthog/client.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import type { RunningHttp } from '../src/transports/http.js';
import { codeByHand, serveOAuth, tokenRequest, perUserUpstream } from './support/oauth.js';
import { freeLoopbackPort } from './support/ports.js';
import { REDIS_SERVER, startRedis, type RedisProcess } from './support/redis.js';

// Issue 35 with replicas: two servers with one MCP_OAUTH_SECRET and one Redis (the digest
// cache's) act as one OAuth server: a code or refresh token used on one is used on both, and a
// sign-in revoked on one is revoked on both. Without Redis each would only know its own.

if (!REDIS_SERVER) console.warn('Skipping the OAuth replica tests: redis-server is not installed (apt-get install redis-server; .ci/run does this).');

const SECRET = 'replicas-share-this-secret-0123456789abcdef';
/** What a load balancer in front of both would be reached at: tokens name it as their resource. */
const PUBLIC = 'https://replay.example';

describe.skipIf(!REDIS_SERVER)('MCP_OAUTH on two replicas sharing a Redis', () => {
  let redis: RedisProcess;
  let sandbox: Sandbox;
  let upstream: PostHogClient;
  const caches: RedisDigestCache[] = [];
  const replicas: RunningHttp[] = [];
  const origins: string[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    sandbox = await startSandbox();
    upstream = perUserUpstream(sandbox.url);
    for (let i = 0; i < 2; i++) {
      const cache = new RedisDigestCache({ url: redis.url, ttlMs: 60_000, log: () => {} });
      caches.push(cache);
      const http = await serveOAuth(upstream, SECRET, () => {}, { oauth: { secrets: [SECRET], store: cache.oauthStore(), publicUrl: PUBLIC } });
      replicas.push(http);
      origins.push(new URL(http.url).origin);
    }
  });
  afterAll(async () => {
    for (const http of replicas) await http.close();
    for (const cache of caches) await cache.close();
    await upstream.close();
    await sandbox.close();
    await redis.stop();
  });

  const [A, B] = [0, 1];
  const exchange = (on: number, grant: { clientId: string; code: string; verifier: string; redirect: string }) =>
    tokenRequest(origins[on]!, { grant_type: 'authorization_code', code: grant.code, client_id: grant.clientId, code_verifier: grant.verifier, redirect_uri: grant.redirect });

  it('a code used on one replica is refused on the other', async () => {
    const grant = await codeByHand(origins[A]!, sandbox.apiKey);
    expect((await exchange(A, grant)).status).toBe(200);
    const again = await exchange(B, grant);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a refresh token rotated on one replica is refused on the other, and that ends the sign-in on both', async () => {
    const grant = await codeByHand(origins[A]!, sandbox.apiKey);
    const first = (await (await exchange(A, grant)).json()) as { access_token: string; refresh_token: string };
    const refresh = (on: number, token: string) => tokenRequest(origins[on]!, { grant_type: 'refresh_token', refresh_token: token, client_id: grant.clientId });
    const renewed = await refresh(A, first.refresh_token);
    expect(renewed.status).toBe(200);
    const second = (await renewed.json()) as { access_token: string; refresh_token: string };
    const replay = await refresh(B, first.refresh_token);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    // Revoked on both: the newest refresh token, and the newest access token on either replica.
    expect((await refresh(A, second.refresh_token)).status).toBe(400);
    for (const on of [A, B]) {
      const r = await fetch(`${origins[on]}/oauth/mcp`, { method: 'POST', headers: { authorization: `Bearer ${second.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      expect(r.status, `replica ${on}`).toBe(401);
    }
  });

  it('with Redis not answering, a replica signs people in and rotates tokens on its own memory', async () => {
    const dead = new RedisDigestCache({ url: `redis://127.0.0.1:${await freeLoopbackPort()}`, ttlMs: 60_000, log: () => {}, opTimeoutMs: 200 });
    const alone = await serveOAuth(upstream, SECRET, () => {}, { oauth: { secrets: [SECRET], store: dead.oauthStore(), publicUrl: PUBLIC } });
    const at = new URL(alone.url).origin;
    try {
      const grant = await codeByHand(at, sandbox.apiKey);
      const got = await tokenRequest(at, { grant_type: 'authorization_code', code: grant.code, client_id: grant.clientId, code_verifier: grant.verifier, redirect_uri: grant.redirect });
      expect(got.status).toBe(200);
      const pair = (await got.json()) as { refresh_token: string };
      const refresh = () => tokenRequest(at, { grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: grant.clientId });
      expect((await refresh()).status).toBe(200);
      expect((await refresh()).status).toBe(400);
      // The code a second time: refused (and, as on one server, what it bought is revoked).
      expect((await tokenRequest(at, { grant_type: 'authorization_code', code: grant.code, client_id: grant.clientId, code_verifier: grant.verifier, redirect_uri: grant.redirect })).status).toBe(400);
    } finally {
      await alone.close();
      await dead.close();
    }
  });
});
