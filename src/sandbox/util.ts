// Small helpers shared by the sandbox: PostHog/Python-flavoured date and JSON formatting,
// and deterministic UUIDs.

import { createHash } from 'node:crypto';

/** DRF's DateTimeField output: ISO-8601 in UTC with a `Z`, microseconds only when non-zero. */
export function drfDate(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2025-06-02T09:14:03.120Z
  const millis = iso.slice(20, 23);
  return millis === '000' ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 19)}.${millis}000Z`;
}

/** Python's datetime.isoformat() for an aware UTC datetime: `+00:00` suffix. */
export function pyIsoDate(ms: number): string {
  const iso = new Date(ms).toISOString();
  const millis = iso.slice(20, 23);
  return millis === '000' ? `${iso.slice(0, 19)}+00:00` : `${iso.slice(0, 19)}.${millis}000+00:00`;
}

/** Python's json.dumps() with default separators and ensure_ascii, as PostHog puts pydantic errors in `detail`. */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'NaN';
  if (typeof value === 'string') {
    return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${pythonJsonDumps(k)}: ${pythonJsonDumps(v)}`).join(', ')}}`;
  }
  return pythonJsonDumps(String(value));
}

function formatUuid(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

/** A name-based UUID (version 5, SHA-1): the same name gives the same id on every run. */
export function uuidV5(namespace: string, name: string): string {
  const hash = createHash('sha1').update(uuidBytes(namespace)).update(name, 'utf8').digest();
  const bytes = new Uint8Array(hash.subarray(0, 16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return formatUuid(bytes);
}

/** A UUIDv7 for time `ms` whose random bits come from `seed`, so the same inputs give the same id. */
export function uuidV7(ms: number, seed: string): string {
  const bytes = new Uint8Array(createHash('sha256').update(seed).digest().subarray(0, 16));
  let t = Math.max(0, Math.floor(ms));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = t % 256;
    t = Math.floor(t / 256);
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return formatUuid(bytes);
}

/** The namespace PostHog-style placeholder persons derive from: UUID(int=team_id). */
export function teamNamespace(teamId: number): string {
  return `00000000-0000-0000-0000-${teamId.toString(16).padStart(12, '0')}`;
}

/** Python's type name for a decoded JSON value, as DRF puts it in its error messages. */
export function pyType(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return 'dict';
}
