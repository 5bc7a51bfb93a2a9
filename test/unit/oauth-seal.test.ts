import { createCipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Sealer } from '../../src/transports/oauth-seal.js';

// Sealed values (src/transports/oauth-seal.ts): compact JWEs that open only as the kind they were
// sealed as, under one of the server's secrets, and never when any part was changed.
describe('Sealer: what opens and what does not', () => {
  const secret = 's'.repeat(40);
  const sealer = new Sealer([secret]);
  const part = (value: string, prefix: string, i: number) => value.slice(prefix.length).split('.')[i]!;
  const header = (value: string, prefix: string) => JSON.parse(Buffer.from(part(value, prefix, 0), 'base64url').toString('utf8')) as Record<string, unknown>;

  it('opens what it sealed; the payload is not readable in the value', async () => {
    const code = await sealer.seal('code', { k: 'phx_secret_key_material', exp: 1 });
    expect(code).toMatch(/^rmcp_code_[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(header(code, 'rmcp_code_')).toMatchObject({ alg: 'dir', enc: 'A256GCM', typ: 'code' });
    expect(code).not.toContain('phx_secret');
    expect(Buffer.from(part(code, 'rmcp_code_', 3), 'base64url').toString('latin1')).not.toContain('phx_');
    expect(await sealer.open('code', code)).toEqual({ k: 'phx_secret_key_material', exp: 1 });
  });

  it('a value of one kind never opens as another, even with the prefix swapped', async () => {
    const code = await sealer.seal('code', { k: 'phx_k' });
    expect(await sealer.open('access', code)).toBeUndefined();
    expect(await sealer.open('access', 'rmcp_at_' + code.slice('rmcp_code_'.length))).toBeUndefined();
  });

  it('a header rewritten to another kind, or to another algorithm, does not open', async () => {
    const code = await sealer.seal('code', { k: 'phx_k' });
    const [, ...rest] = code.slice('rmcp_code_'.length).split('.');
    const rewrite = (changes: Record<string, unknown>) => Buffer.from(JSON.stringify({ ...header(code, 'rmcp_code_'), ...changes })).toString('base64url');
    expect(await sealer.open('access', `rmcp_at_${[rewrite({ typ: 'access' }), ...rest].join('.')}`)).toBeUndefined();
    expect(await sealer.open('code', `rmcp_code_${[rewrite({ enc: 'A128GCM' }), ...rest].join('.')}`)).toBeUndefined();
    expect(await sealer.open('code', `rmcp_code_${[Buffer.from('{"alg":"none"}').toString('base64url'), '', '', part(code, 'rmcp_code_', 3), ''].join('.')}`)).toBeUndefined();
  });

  it('a changed ciphertext, tag or IV does not open', async () => {
    const code = await sealer.seal('code', { k: 'phx_k' });
    for (const i of [2, 3, 4]) {
      const parts = code.slice('rmcp_code_'.length).split('.');
      const bytes = Buffer.from(parts[i]!, 'base64url');
      bytes[0] = bytes[0]! ^ 1;
      parts[i] = bytes.toString('base64url');
      expect(await sealer.open('code', `rmcp_code_${parts.join('.')}`), `part ${i}`).toBeUndefined();
    }
  });

  it('another secret does not open it; a previous secret still does after rotation', async () => {
    const value = await sealer.seal('access', { k: 'phx_k' });
    expect(await new Sealer(['t'.repeat(40)]).open('access', value)).toBeUndefined();
    expect(await new Sealer(['t'.repeat(40), secret]).open('access', value)).toEqual({ k: 'phx_k' });
  });

  it('a value in the format before jose (version byte, key id, IV, AES-GCM) is refused: its holder signs in again', async () => {
    const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'posthog-replay-mcp oauth', 'seal v1', 32));
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from('access'));
    const body = Buffer.concat([cipher.update(JSON.stringify({ k: 'phx_k' })), cipher.final()]);
    const id = createHash('sha256').update(key).digest().subarray(0, 4);
    const legacy = 'rmcp_at_' + Buffer.concat([Buffer.from([1]), id, iv, body, cipher.getAuthTag()]).toString('base64url');
    expect(await sealer.open('access', legacy)).toBeUndefined();
  });
});
