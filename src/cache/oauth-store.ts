// What the OAuth server keeps in the shared Redis (transports/oauth-memory.ts): each code issued
// and whether it was spent, and each sign-in's current refresh token or its revocation. Redis
// vouches for what is valid rather than remembering what is not: a code counts only while Redis
// holds it as issued, a refresh token only while it is its sign-in's current one there, an
// access token only while its sign-in is there and not revoked. So when Redis restarts without
// persistence, is flushed, or evicts a key, what it forgot is refused (that person signs in
// again) and never becomes valid again. Random ids only, never a key or a token.

/** Redis's answer, or undefined when Redis did not answer (the caller falls back to its own memory). */
export type Answer<T> = Promise<T | undefined>;

export type Spend = 'spent' | 'reused' | 'unknown';
export type Rotation = 'rotated' | 'stale' | 'revoked' | 'unknown';
export type SignInState = 'live' | 'revoked' | 'unknown';

export interface SharedOAuthStore {
  /** A code was issued: it may be spent once while this lasts. */
  issue(code: string, ttlMs: number): Promise<void>;
  /** Spends an issued code: `spent` now, `reused` (spent before), `unknown` (Redis does not hold it: forgotten, or issued while it was away). */
  spend(code: string, ttlMs: number): Answer<Spend>;
  /** A sign-in begins with its first refresh token. */
  start(signIn: string, refreshId: string, ttlMs: number): Promise<void>;
  /** Makes `next` the sign-in's current refresh token if `used` is the current one (one step: two replicas cannot both take it). */
  rotate(signIn: string, used: string, next: string, ttlMs: number): Answer<Rotation>;
  revoke(signIn: string, ttlMs: number): Promise<void>;
  state(signIn: string): Answer<SignInState>;
}

/** The one connection's operations the store needs; `run` answers undefined when Redis did not. */
export interface RedisOps {
  run<R>(op: (client: { set(key: string, value: string, options: { PX: number }): Promise<unknown>; eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown> }) => Promise<R>): Promise<R | undefined>;
}

const PREFIX = 'posthog-replay-mcp:oauth:';
/** A sign-in's value once revoked; refresh ids are base64url, so it can be no id. */
const REVOKED = '!revoked';

const SPEND = `local v = redis.call('GET', KEYS[1])
if v == 'issued' then redis.call('SET', KEYS[1], 'spent', 'PX', ARGV[1]) return 'spent' end
if v then return 'reused' end
return 'unknown'`;

// KEYS[2] is where versions before this one marked a revoked sign-in: still honoured.
const STATE = `if redis.call('EXISTS', KEYS[2]) == 1 then return 'revoked' end
local current = redis.call('GET', KEYS[1])
if not current then return 'unknown' end
if current == '${REVOKED}' then return 'revoked' end
return 'live'`;

const ROTATE = `if redis.call('EXISTS', KEYS[2]) == 1 then return 'revoked' end
local current = redis.call('GET', KEYS[1])
if not current then return 'unknown' end
if current == '${REVOKED}' then return 'revoked' end
if current ~= ARGV[1] then return 'stale' end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 'rotated'`;

const px = (ttlMs: number) => Math.max(1, Math.round(ttlMs));

function oneOf<T extends string>(answer: unknown, values: readonly T[]): T | undefined {
  return values.find((v) => v === answer);
}

export function redisOAuthStore(redis: RedisOps): SharedOAuthStore {
  const code = (id: string) => `${PREFIX}code:${id}`;
  const signIn = (id: string) => [`${PREFIX}signin:${id}`, `${PREFIX}revoked:${id}`];
  return {
    issue: async (id, ttlMs) => {
      await redis.run((c) => c.set(code(id), 'issued', { PX: px(ttlMs) }));
    },
    spend: async (id, ttlMs) => oneOf(await redis.run((c) => c.eval(SPEND, { keys: [code(id)], arguments: [String(px(ttlMs))] })), ['spent', 'reused', 'unknown'] as const),
    start: async (id, refreshId, ttlMs) => {
      await redis.run((c) => c.set(signIn(id)[0]!, refreshId, { PX: px(ttlMs) }));
    },
    rotate: async (id, used, next, ttlMs) => oneOf(await redis.run((c) => c.eval(ROTATE, { keys: signIn(id), arguments: [used, next, String(px(ttlMs))] })), ['rotated', 'stale', 'revoked', 'unknown'] as const),
    revoke: async (id, ttlMs) => {
      await redis.run((c) => c.set(signIn(id)[0]!, REVOKED, { PX: px(ttlMs) }));
    },
    state: async (id) => oneOf(await redis.run((c) => c.eval(STATE, { keys: signIn(id), arguments: [] })), ['live', 'revoked', 'unknown'] as const),
  };
}
