// Sealed values for the OAuth server (oauth.ts): registered clients, consent requests,
// authorization codes, access and refresh tokens are each a small JSON payload encrypted and
// authenticated with a key derived from MCP_OAUTH_SECRET (AES-256-GCM, the value's kind bound in
// as associated data). Nothing is stored to make them valid, so any replica with the same secret
// reads them, and a sealed PostHog key is recoverable by nothing but a holder of the secret.
// Pure (no I/O), so the rules can be read and tested apart from the HTTP plumbing.

import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a sealed value is; a value sealed as one kind never opens as another. */
export type SealKind = 'client' | 'consent' | 'code' | 'access' | 'refresh';

/** Each kind's prefix: a token is recognisable at a glance (and never mistaken for a PostHog key). */
const PREFIX: Record<SealKind, string> = {
  client: 'rmcp_client_',
  consent: 'rmcp_consent_',
  code: 'rmcp_code_',
  access: 'rmcp_at_',
  refresh: 'rmcp_rt_',
};

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_BYTES = 4;
/** Longer values are not ours: refused before any decoding. */
export const MAX_SEALED_CHARS = 8_192;

interface Key {
  id: Buffer;
  seal: Buffer;
  mac: Buffer;
}

function deriveKey(secret: string): Key {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'posthog-replay-mcp oauth', info, 32));
  const seal = derive('seal v1');
  return { id: createHash('sha256').update(seal).digest().subarray(0, KEY_ID_BYTES), seal, mac: derive('client secret v1') };
}

export class Sealer {
  private readonly keys: Key[];

  /** The current secret first; any others (MCP_OAUTH_PREVIOUS_SECRET) only open what they sealed. */
  constructor(secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error('Sealer needs a secret');
    this.keys = secrets.map(deriveKey);
  }

  seal(kind: SealKind, payload: Record<string, unknown>): string {
    const key = this.keys[0]!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.seal, iv);
    cipher.setAAD(Buffer.from(kind, 'utf8'));
    const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
    return PREFIX[kind] + Buffer.concat([Buffer.from([VERSION]), key.id, iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The payload, or undefined for anything not sealed as this kind by one of our secrets. */
  open(kind: SealKind, value: string | undefined): Record<string, unknown> | undefined {
    if (typeof value !== 'string' || value.length > MAX_SEALED_CHARS || !value.startsWith(PREFIX[kind])) return undefined;
    const raw = value.slice(PREFIX[kind].length);
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) return undefined;
    const bytes = Buffer.from(raw, 'base64url');
    if (bytes.length < 1 + KEY_ID_BYTES + IV_BYTES + TAG_BYTES || bytes[0] !== VERSION) return undefined;
    const id = bytes.subarray(1, 1 + KEY_ID_BYTES);
    const key = this.keys.find((k) => k.id.equals(id));
    if (!key) return undefined;
    try {
      const iv = bytes.subarray(1 + KEY_ID_BYTES, 1 + KEY_ID_BYTES + IV_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key.seal, iv);
      decipher.setAAD(Buffer.from(kind, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const text = Buffer.concat([decipher.update(bytes.subarray(1 + KEY_ID_BYTES + IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      const payload: unknown = JSON.parse(text);
      return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  /** A confidential client's secret: derived from its id, so nothing is stored. */
  clientSecret(clientId: string): string {
    return createHmac('sha256', this.keys[0]!.mac).update(clientId, 'utf8').digest('base64url');
  }

  /** Constant-time check of a presented client secret against every secret still accepted. */
  clientSecretMatches(clientId: string, presented: string | undefined): boolean {
    if (presented === undefined) return false;
    const given = createHash('sha256').update(presented, 'utf8').digest();
    return this.keys.some((key) => timingSafeEqual(createHash('sha256').update(createHmac('sha256', key.mac).update(clientId, 'utf8').digest('base64url'), 'utf8').digest(), given));
  }
}

/** PKCE S256: BASE64URL(SHA256(verifier)) === challenge, compared in constant time. */
export function pkceMatches(verifier: string | undefined, challenge: string): boolean {
  if (verifier === undefined || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'), 'utf8');
  const wanted = Buffer.from(challenge, 'utf8');
  return computed.length === wanted.length && timingSafeEqual(computed, wanted);
}

export function randomId(): string {
  return randomBytes(16).toString('base64url');
}
