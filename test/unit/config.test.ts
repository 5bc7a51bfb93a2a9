import { describe, expect, it } from 'vitest';
import { ConfigurationError, parseCli, resolveHost, type Config } from '../../src/config.js';

const KEY = 'phx_unit_test_key_1234567890';

function run(argv: string[], env: Record<string, string> = {}): Config {
  const action = parseCli(argv, env);
  if (action.kind !== 'run') throw new Error(`expected run, got ${action.kind}`);
  return action.config;
}

describe('config', () => {
  it('defaults to the US cloud, stdio, both toolsets, 30 s timeout', () => {
    const config = run([], { POSTHOG_PERSONAL_API_KEY: KEY });
    expect(config).toMatchObject({
      apiKey: KEY,
      baseUrl: 'https://us.posthog.com',
      transport: 'stdio',
      toolsets: ['recordings', 'projects'],
      timeoutMs: 30_000,
      readOnly: false,
      port: 3000,
      bindHost: '127.0.0.1',
    });
  });

  it('requires a key unless --sandbox, with a message that says how to get one', () => {
    expect(() => run([], {})).toThrow(/POSTHOG_PERSONAL_API_KEY is not set.*--sandbox/);
    expect(run(['--sandbox'], {}).sandbox).toBe(true);
  });

  it('maps us/eu shorthands and ingestion hosts (with a warning)', () => {
    expect(resolveHost('eu', [])).toBe('https://eu.posthog.com');
    expect(resolveHost('US', [])).toBe('https://us.posthog.com');
    const warnings: string[] = [];
    expect(resolveHost('https://eu.i.posthog.com', warnings)).toBe('https://eu.posthog.com');
    expect(warnings[0]).toMatch(/ingestion host/);
    expect(resolveHost('posthog.example.com/', [])).toBe('https://posthog.example.com');
    expect(resolveHost('http://127.0.0.1:8000/api', [])).toBe('http://127.0.0.1:8000');
  });

  it('rejects a malformed host, an unknown toolset, a bad project id and a bad timeout', () => {
    expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: 'ftp://x' })).toThrow(ConfigurationError);
    expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: 'https://exa mple.com' })).toThrow(/not a valid URL/);
    expect(() => run(['--toolsets', 'recordings,flags'], { POSTHOG_PERSONAL_API_KEY: KEY })).toThrow(/Unknown toolset "flags"/);
    expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_TOOLSETS: 'nope' })).toThrow(/Unknown toolset/);
    expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_PROJECT_ID: 'abc' })).toThrow(/POSTHOG_PROJECT_ID/);
    expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_TIMEOUT_MS: '-5' })).toThrow(/POSTHOG_TIMEOUT_MS/);
    expect(() => run(['--transport', 'sse'], { POSTHOG_PERSONAL_API_KEY: KEY })).toThrow(/--transport/);
  });

  it('reads read-only from the flag or the env words 1/true/yes', () => {
    expect(run(['--read-only'], { POSTHOG_PERSONAL_API_KEY: KEY }).readOnly).toBe(true);
    for (const word of ['1', 'true', 'YES']) expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_READ_ONLY: word }).readOnly).toBe(true);
    expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_READ_ONLY: '0' }).readOnly).toBe(false);
  });

  it('takes toolsets and a default project, flag over env', () => {
    const config = run(['--toolsets', 'projects'], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_TOOLSETS: 'recordings', POSTHOG_PROJECT_ID: '@current' });
    expect(config.toolsets).toEqual(['projects']);
    expect(config.defaultProjectId).toBe('@current');
  });

  it('refuses unknown flags without echoing a long value such as a key', () => {
    let message = '';
    try {
      run([`--api-key=${KEY}`], {});
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/--help/);
    expect(message).not.toContain(KEY);
  });
});
