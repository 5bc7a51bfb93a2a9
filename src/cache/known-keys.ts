// Which keys PostHog has accepted, shared by the replicas through Redis (transports/newcomers.ts):
// in HTTP mode a caller whose key is not known waits within the part of the capacity made-up
// keys share, so "known" must survive a restart and reach every replica. Stored as a keyed hash
// of the key's hash (HMAC-SHA256 under a random salt the first replica writes to Redis), never
// the key: the entries say nothing about a key to whoever does not already hold it, and nothing
// outside this deployment's Redis can be matched against them.

import { createHmac, randomBytes } from 'node:crypto';

export interface SharedKnownKeys {
  /** Whether a replica has recorded this key (by its hash) as accepted; undefined when Redis did not answer. */
  has(keyId: string): Promise<boolean | undefined>;
  add(keyId: string): Promise<void>;
}

/** The one connection's operations the store needs; `run` answers undefined when Redis did not. */
export interface RedisEval {
  run<R>(op: (client: { eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown> }) => Promise<R>): Promise<R | undefined>;
}

const SALT_KEY = 'posthog-replay-mcp:known-salt';
const PREFIX = 'posthog-replay-mcp:known:';
/** Long enough for a person who comes back monthly; each use by a new process renews it. */
const KNOWN_TTL_MS = 30 * 86_400_000;

const SALT = `local s = redis.call('GET', KEYS[1])
if not s then redis.call('SET', KEYS[1], ARGV[1]) s = ARGV[1] end
return s`;
// The salt given must still be Redis's (a restart or flush makes a new one): -1 says to read it again.
const HAS = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
return redis.call('EXISTS', KEYS[2])`;
const ADD = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return 1`;

export function redisKnownKeys(redis: RedisEval): SharedKnownKeys {
  let salt: Promise<string | undefined> | undefined;
  const readSalt = async () => {
    salt ??= redis.run((c) => c.eval(SALT, { keys: [SALT_KEY], arguments: [randomBytes(32).toString('base64url')] })).then((s) => (typeof s === 'string' ? s : undefined));
    const s = await salt;
    // Not read (Redis away): asked again next time.
    if (s === undefined) salt = undefined;
    return s;
  };
  /** Runs `script` with the current salt, reading it again once if Redis has a new one. */
  const withSalt = async (keyId: string, script: string, extra: string[]): Promise<unknown> => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const s = await readSalt();
      if (s === undefined) return undefined;
      const name = PREFIX + createHmac('sha256', s).update(keyId).digest('base64url');
      const answer = await redis.run((c) => c.eval(script, { keys: [SALT_KEY, name], arguments: [s, ...extra] }));
      if (answer !== -1) return answer;
      salt = undefined;
    }
    return undefined;
  };
  return {
    has: async (keyId) => {
      const answer = await withSalt(keyId, HAS, []);
      return answer === undefined ? undefined : answer === 1;
    },
    add: async (keyId) => {
      await withSalt(keyId, ADD, [String(KNOWN_TTL_MS)]);
    },
  };
}
