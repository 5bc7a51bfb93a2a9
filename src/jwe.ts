// Sealed JSON as a compact JWE made by `jose`: direct encryption (`dir`) with AES-256-GCM under a
// key derived from a secret for one use, the value's kind in the header's `typ` (explicit typing,
// authenticated with the rest), so a value sealed for one use never opens as another. The one way
// the OAuth server's values (transports/oauth-seal.ts) and the watch links (watch/sealed.ts) are
// sealed; what each payload holds, and how long it lives, is theirs.

import { hkdfSync } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, type CompactJWEHeaderParameters } from 'jose';

/** The only algorithms a value may name: anything else is refused before any key is tried. */
const ALGORITHMS = { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] };

/** A 256-bit key for one use of a secret: another salt or label, another key. */
export function jweKey(secret: string, salt: string, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), salt, label, 32));
}

/** `payload` as JSON, sealed under `key` with its kind (`typ`) and, to find the key again after a rotation, its id (`kid`). */
export function sealJwe(key: Uint8Array, header: { typ: string; kid?: string }, payload: unknown): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', ...header }).encrypt(key);
}

/** The JSON a value sealed as `typ` holds, or undefined for anything else (another kind, another key, a changed byte, not JSON). */
export async function openJwe(value: string, key: Uint8Array | ((header: CompactJWEHeaderParameters) => Uint8Array), typ: string): Promise<unknown> {
  try {
    const { plaintext, protectedHeader } = await compactDecrypt(value, key, ALGORITHMS);
    if (protectedHeader.typ !== typ) return undefined;
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext)) as unknown;
  } catch {
    return undefined;
  }
}
