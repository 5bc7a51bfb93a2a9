// Sealed values for the OAuth server (oauth.ts): registered clients, consent requests,
// authorization codes, access and refresh tokens are each a small JSON payload in a compact JWE
// made by `jose` (docs/oauth.md): direct encryption (`dir`) with AES-256-GCM under a key derived from
// MCP_OAUTH_SECRET, so the payload is secret and any change to it or to its header is refused.
// The value's kind is the header's `typ` (explicit typing), which the encryption
// authenticates: a value sealed as one kind never opens as another. Nothing is stored to make them
// valid, so any replica with the same secret reads them, and a sealed PostHog key is recoverable
// by nothing but a holder of the secret. Expiry (`exp`) is in each payload and judged by the
// caller, which tells "expired" apart from "not ours". Pure (no I/O), so the rules can be read and
// tested apart from the HTTP plumbing.

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CompactJWEHeaderParameters } from 'jose';
import { jweKey, openJwe, sealJwe } from '../jwe.js';

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

/** Longer values are not ours: refused before any decoding. */
export const MAX_SEALED_CHARS = 8_192;

interface Key {
  /** Names the secret in the header (`kid`), so a value sealed before a rotation finds its key. */
  id: string;
  seal: Uint8Array;
  mac: Buffer;
}

function deriveKey(secret: string): Key {
  const derive = (info: string) => jweKey(secret, 'posthog-replay-mcp oauth', info);
  const seal = derive('seal v2 jwe');
  return { id: createHash('sha256').update(seal).digest().subarray(0, 4).toString('base64url'), seal, mac: derive('client secret v1') };
}

export class Sealer {
  private readonly keys: Key[];

  /** The current secret first; any others (MCP_OAUTH_PREVIOUS_SECRET) only open what they sealed. */
  constructor(secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error('Sealer needs a secret');
    this.keys = secrets.map(deriveKey);
  }

  async seal(kind: SealKind, payload: Record<string, unknown>): Promise<string> {
    const key = this.keys[0]!;
    return PREFIX[kind] + (await sealJwe(key.seal, { kid: key.id, typ: kind }, payload));
  }

  /** The payload, or undefined for anything not sealed as this kind by one of our secrets. */
  async open(kind: SealKind, value: string | undefined): Promise<Record<string, unknown> | undefined> {
    if (typeof value !== 'string' || value.length > MAX_SEALED_CHARS || !value.startsWith(PREFIX[kind])) return undefined;
    const keyFor = (header: CompactJWEHeaderParameters) => {
      const key = this.keys.find((k) => k.id === header.kid);
      if (!key) throw new Error('not our key');
      return key.seal;
    };
    const payload = await openJwe(value.slice(PREFIX[kind].length), keyFor, kind);
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : undefined;
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
