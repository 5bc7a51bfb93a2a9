import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { ConfigurationError, parseCli, readDespiteError, type Config } from '../../src/config.js';
import { USAGE } from '../../src/help-text.js';
import { isLoopbackHost } from '../../src/http-settings.js';
import { resolveHost } from '../../src/posthog-host.js';
import type { Setting } from '../../src/setting-kinds.js';
import { SETTINGS } from '../../src/settings.js';

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

  it('--sandbox-api / POSTHOG_SANDBOX_API pick the PostHog the sandbox imitates (default today)', () => {
    expect(run(['--sandbox'], {}).sandboxApi).toBe('today');
    expect(run(['--sandbox', '--sandbox-api', '2024'], {}).sandboxApi).toBe('2024');
    expect(run(['--sandbox'], { POSTHOG_SANDBOX_API: '2024' }).sandboxApi).toBe('2024');
    expect(run(['--sandbox', '--sandbox-api', 'today'], { POSTHOG_SANDBOX_API: '2024' }).sandboxApi).toBe('today');
    expect(() => run(['--sandbox', '--sandbox-api', '2023'], {})).toThrow(/--sandbox-api must be "today" or "2024"/);
    expect(() => run(['--sandbox-api', '2024'], { POSTHOG_PERSONAL_API_KEY: KEY })).toThrow(/only applies with --sandbox/);
    expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_SANDBOX_API: '2024' }).warnings).toContain('POSTHOG_SANDBOX_API is ignored without --sandbox.');
  });

  it('--sandbox-scale / POSTHOG_SANDBOX_SCALE add the sandbox\'s week at scale (off by default, only with --sandbox)', () => {
    expect(run(['--sandbox'], {}).sandboxScale).toBe(false);
    expect(run(['--sandbox', '--sandbox-scale'], {}).sandboxScale).toBe(true);
    expect(run(['--sandbox'], { POSTHOG_SANDBOX_SCALE: 'on' }).sandboxScale).toBe(true);
    expect(() => run(['--sandbox'], { POSTHOG_SANDBOX_SCALE: 'lots' })).toThrow(/POSTHOG_SANDBOX_SCALE must be 1, true, yes, on/);
    expect(() => run(['--sandbox-scale'], { POSTHOG_PERSONAL_API_KEY: KEY })).toThrow(/--sandbox-scale only applies with --sandbox/);
    const ignored = run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_SANDBOX_SCALE: 'on' });
    expect(ignored.sandboxScale).toBe(false);
    expect(ignored.warnings).toContain('POSTHOG_SANDBOX_SCALE is ignored without --sandbox.');
  });

  it('maps us/eu shorthands and ingestion hosts (with a warning)', () => {
    const none = () => {};
    expect(resolveHost('eu', none)).toBe('https://eu.posthog.com');
    expect(resolveHost('US', none)).toBe('https://us.posthog.com');
    const warnings: string[] = [];
    expect(resolveHost('https://eu.i.posthog.com', (w) => warnings.push(w))).toBe('https://eu.posthog.com');
    expect(warnings[0]).toMatch(/ingestion host/);
    expect(resolveHost('https://posthog.example.com/', none)).toBe('https://posthog.example.com');
    expect(resolveHost('http://127.0.0.1:8000/api', none)).toBe('http://127.0.0.1:8000');
  });

  it('refuses a host without its scheme that is no region name, showing the https:// form (a typo of "eu" is not a host)', () => {
    expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: 'posthog.example.com' })).toThrow(/POSTHOG_HOST must be .*got "posthog\.example\.com"\. Write the scheme too: https:\/\/posthog\.example\.com/);
    expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: 'foo' })).toThrow(/POSTHOG_HOST .*got "foo"\. Write the scheme too: https:\/\/foo/);
    expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: 'eur' })).toThrow(/Did you mean "eu"\?/);
    expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: 'EU' }).baseUrl).toBe('https://eu.posthog.com');
  });

  it('refuses a page of the app pasted as the host, naming the address it came from', () => {
    const host = (value: string) => () => run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: value });
    expect(host('https://us.posthog.com/project/123/replay/abc?t=5')).toThrow(/page of PostHog's app.*POSTHOG_HOST=https:\/\/us\.posthog\.com \(or us\)\.$/);
    expect(host('https://eu.posthog.com/project/1/settings')).toThrow(/POSTHOG_HOST=https:\/\/eu\.posthog\.com \(or eu\)\.$/);
    expect(host('us.posthog.com/project/123/replay/abc')).toThrow(/POSTHOG_HOST=https:\/\/us\.posthog\.com \(or us\)\.$/);
    expect(host('https://app.posthog.com/home')).toThrow(/POSTHOG_HOST=https:\/\/app\.posthog\.com\.$/);
    // Self-hosted under a base path: the path before /project/<id> is kept; the base path alone is taken.
    expect(host('https://ph.example.com/posthog/project/2/replay/x')).toThrow(/POSTHOG_HOST=https:\/\/ph\.example\.com\/posthog\.$/);
    expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: 'https://ph.example.com/posthog' }).baseUrl).toBe('https://ph.example.com/posthog');
    expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: 'https://us.posthog.com/api/' }).baseUrl).toBe('https://us.posthog.com');
    expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: 'https://app.posthog.com' }).baseUrl).toBe('https://app.posthog.com');
  });

  it('says --sandbox ignores a host left in the settings, and does not read it', () => {
    const config = run(['--sandbox'], { POSTHOG_HOST: 'https://us.posthog.com/project/1/replay/x' });
    expect(config.baseUrl).toBe('http://127.0.0.1');
    expect(config.warnings).toContain('POSTHOG_HOST is ignored with --sandbox (the sandbox serves its demo data on 127.0.0.1; nothing goes to that host).');
    expect(run(['--sandbox'], {}).warnings).toEqual([]);
  });

  describe('what a server whose settings were refused may still offer (readDespiteError)', () => {
    it('reads the command and the transport, stdio when the transport cannot be read', () => {
      expect(readDespiteError(['doctor', '--toolsets', 'x'], {})).toMatchObject({ command: 'doctor', transport: 'stdio' });
      expect(readDespiteError(['--transport', 'http', '--bogus'], {})).toMatchObject({ command: 'serve', transport: 'http' });
      expect(readDespiteError(['--transport', 'htp'], {})).toMatchObject({ command: 'serve', transport: 'stdio' });
    });

    it('fails closed: a read-only switch or toolset list it cannot read leaves only the read-only tools', () => {
      expect(readDespiteError([], { POSTHOG_READ_ONLY: 'maybe' }).tools).toMatchObject({ readOnly: true, toolsets: ['recordings', 'projects'] });
      expect(readDespiteError([], { POSTHOG_TOOLSETS: 'recordings,insights', POSTHOG_READ_ONLY: 'off' }).tools).toMatchObject({ readOnly: true, toolsets: ['recordings', 'projects'] });
      // A setting that is no safety switch keeps what the readable ones say.
      expect(readDespiteError([], { POSTHOG_TIMEOUT_MS: 'soon', POSTHOG_TOOLSETS: 'projects', POSTHOG_PROJECT_ID: '7' }).tools).toEqual({ readOnly: false, toolsets: ['projects'], defaultProjectId: '7' });
      expect(readDespiteError(['--read-only'], {}).tools.readOnly).toBe(true);
    });
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

  it('turns the sandbox on with POSTHOG_SANDBOX (the bundle\'s Demo mode), no key needed', () => {
    expect(run([], { POSTHOG_SANDBOX: 'true' }).sandbox).toBe(true);
    expect(() => run([], { POSTHOG_SANDBOX: 'false' })).toThrow(/POSTHOG_PERSONAL_API_KEY is not set.*POSTHOG_SANDBOX=1/);
  });

  it('asks before destructive calls unless POSTHOG_CONFIRM_DESTRUCTIVE=0 or --no-confirm; refuses other words', () => {
    expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY }).confirmDestructive).toBe(true);
    for (const word of ['0', 'false', 'No', 'off']) expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_CONFIRM_DESTRUCTIVE: word }).confirmDestructive).toBe(false);
    expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_CONFIRM_DESTRUCTIVE: 'true' }).confirmDestructive).toBe(true);
    expect(run(['--no-confirm'], { POSTHOG_PERSONAL_API_KEY: KEY }).confirmDestructive).toBe(false);
    expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_CONFIRM_DESTRUCTIVE: 'sometimes' })).toThrow(/POSTHOG_CONFIRM_DESTRUCTIVE must be/);
  });

  it('lists input schemas per MCP_TOOL_SCHEMAS: full, compact or auto (default); another word is refused naming the setting', () => {
    expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY }).toolSchemas).toBe('auto');
    expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, MCP_TOOL_SCHEMAS: 'Compact' }).toolSchemas).toBe('compact');
    expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, MCP_TOOL_SCHEMAS: 'full' }).toolSchemas).toBe('full');
    expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, MCP_TOOL_SCHEMAS: 'compat' })).toThrow(/^MCP_TOOL_SCHEMAS must be "full" or "compact" or "auto"; got "compat"\. Did you mean "compact"\?/);
  });

  it('treats a setting a bundle host left as its ${user_config.…} placeholder as unset', () => {
    const config = run([], {
      POSTHOG_PERSONAL_API_KEY: KEY,
      POSTHOG_HOST: '${user_config.host}',
      POSTHOG_PROJECT_ID: '${user_config.project_id}',
      POSTHOG_TOOLSETS: '${user_config.toolsets}',
      POSTHOG_CONFIRM_DESTRUCTIVE: '${user_config.confirm_destructive}',
    });
    expect(config).toMatchObject({ baseUrl: 'https://us.posthog.com', defaultProjectId: undefined, toolsets: ['recordings', 'projects'], confirmDestructive: true });
    expect(() => run([], { POSTHOG_PERSONAL_API_KEY: '${user_config.api_key}' })).toThrow(/POSTHOG_PERSONAL_API_KEY is not set/);
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

  describe('HTTP access', () => {
    const TOKEN = 'an-access-token-of-32-characters';
    const http = (argv: string[], env: Record<string, string>) => run(['--transport', 'http', ...argv], env);

    it('has limits and no token by default', () => {
      expect(http([], {}).http).toEqual({ authToken: undefined, allowedHosts: undefined, allowedOrigins: [], maxConcurrency: 64, maxConcurrencyPerUser: 16, maxQueuePerUser: 64, queueTimeoutMs: 30_000, shutdownTimeoutMs: 10_000 });
    });

    it('refuses a non-loopback address when the server has its own key and no access token', () => {
      expect(() => http(['--host', '0.0.0.0'], { POSTHOG_PERSONAL_API_KEY: KEY })).toThrow(/Refusing to listen on 0\.0\.0\.0.*MCP_AUTH_TOKEN/);
      expect(() => http(['--host', '::', '--sandbox'], {})).toThrow(/Refusing.*sandbox key/);
      expect(http(['--host', '0.0.0.0'], { POSTHOG_PERSONAL_API_KEY: KEY, MCP_AUTH_TOKEN: TOKEN }).http.authToken).toBe(TOKEN);
      // Per-user keys: every caller brings its own credential.
      const perUser = http(['--host', '0.0.0.0'], {});
      expect(perUser.apiKey).toBeUndefined();
      expect(perUser.warnings.join('\n')).toMatch(/MCP_ALLOWED_HOSTS/);
      // Loopback with a key and no token: only this machine can call it.
      expect(http(['--host', 'localhost'], { POSTHOG_PERSONAL_API_KEY: KEY }).http.authToken).toBeUndefined();
    });

    it('refuses a token without a server key, and a short token, without echoing it', () => {
      expect(() => http([], { MCP_AUTH_TOKEN: TOKEN })).toThrow(/MCP_AUTH_TOKEN is set but POSTHOG_PERSONAL_API_KEY is not/);
      let message = '';
      try {
        http([], { POSTHOG_PERSONAL_API_KEY: KEY, MCP_AUTH_TOKEN: 'short-secret' });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/MCP_AUTH_TOKEN must be 16/);
      expect(message).not.toContain('short-secret');
      expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, MCP_AUTH_TOKEN: TOKEN }).warnings.join('\n')).toMatch(/ignored in stdio mode/);
    });

    it('MCP_OAUTH: needs a long secret, per-user keys and, beyond loopback, the public https origin', () => {
      const SECRET = 'an-oauth-secret-of-at-least-32-characters';
      expect(http([], { MCP_OAUTH: 'on', MCP_OAUTH_SECRET: SECRET }).http.oauth).toEqual({ secrets: [SECRET], publicUrl: undefined });
      expect(() => http([], { MCP_OAUTH: 'on' })).toThrow(/MCP_OAUTH_SECRET is not set/);
      expect(() => http([], { MCP_OAUTH: 'on', MCP_OAUTH_SECRET: 'too-short-secret' })).toThrow(/MCP_OAUTH_SECRET must be 32/);
      expect(() => http([], { MCP_OAUTH: 'on', MCP_OAUTH_SECRET: SECRET, POSTHOG_PERSONAL_API_KEY: KEY })).toThrow(/must not have one: unset POSTHOG_PERSONAL_API_KEY/);
      expect(() => http(['--sandbox'], { MCP_OAUTH: 'on', MCP_OAUTH_SECRET: SECRET })).toThrow(/unset --sandbox/);
      expect(() => http(['--host', '0.0.0.0'], { MCP_OAUTH: 'on', MCP_OAUTH_SECRET: SECRET })).toThrow(/set MCP_PUBLIC_URL/);
      const deployed = http(['--host', '0.0.0.0'], { MCP_OAUTH: 'on', MCP_OAUTH_SECRET: SECRET, MCP_OAUTH_PREVIOUS_SECRET: `${SECRET}-old`, MCP_PUBLIC_URL: 'https://Replay.example.com/' });
      expect(deployed.http.oauth).toEqual({ secrets: [SECRET, `${SECRET}-old`], publicUrl: 'https://replay.example.com' });
      expect(() => http([], { MCP_OAUTH: 'on', MCP_OAUTH_SECRET: SECRET, MCP_PUBLIC_URL: 'http://replay.example.com' })).toThrow(/https beyond loopback/);
      expect(() => http([], { MCP_OAUTH: 'on', MCP_OAUTH_SECRET: SECRET, MCP_PUBLIC_URL: 'https://replay.example.com/mcp' })).toThrow(/without a path/);
      expect(http([], { MCP_OAUTH_SECRET: SECRET }).warnings.join('\n')).toMatch(/MCP_OAUTH is off/);
      let message = '';
      try {
        http([], { MCP_OAUTH: 'on', MCP_OAUTH_SECRET: 'short secret with spaces' });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).not.toContain('short secret');
    });

    it('MCP_WATCH_SECRET: watch links over HTTP only with MCP_PUBLIC_URL; otherwise a warning, and none', () => {
      const SECRET = 'a-watch-secret-of-at-least-32-characters';
      const both = http([], { MCP_WATCH_SECRET: SECRET, MCP_PUBLIC_URL: 'https://Replay.example.com' });
      expect(both.http.watch).toEqual({ secret: SECRET, publicUrl: 'https://replay.example.com' });
      expect(both.warnings.join('\n')).not.toMatch(/MCP_OAUTH is off/);
      const alone = http([], { MCP_WATCH_SECRET: SECRET });
      expect(alone.http.watch).toBeUndefined();
      expect(alone.warnings.join('\n')).toMatch(/MCP_WATCH_SECRET is set but MCP_PUBLIC_URL is not/);
      expect(http([], { MCP_PUBLIC_URL: 'https://replay.example.com' }).http.watch).toBeUndefined();
      expect(() => http([], { MCP_WATCH_SECRET: 'too-short-secret', MCP_PUBLIC_URL: 'https://replay.example.com' })).toThrow(/MCP_WATCH_SECRET must be 32/);
      expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, MCP_WATCH_SECRET: SECRET }).warnings.join('\n')).toMatch(/MCP_WATCH_SECRET is ignored in stdio mode/);
    });

    it('parses allowed hosts and origins, flag over env, and rejects malformed ones', () => {
      const config = http(['--allowed-hosts', 'MCP.example.com, 10.0.0.5:8080,[::1]:3000'], { MCP_ALLOWED_HOSTS: 'ignored.example.com', MCP_ALLOWED_ORIGINS: 'https://app.example.com/' });
      expect(config.http.allowedHosts).toEqual(['mcp.example.com', '10.0.0.5:8080', '[::1]:3000']);
      expect(config.http.allowedOrigins).toEqual(['https://app.example.com']);
      expect(() => http(['--allowed-hosts', 'http://mcp.example.com'], {})).toThrow(/--allowed-hosts/);
      expect(() => http(['--allowed-hosts', '*.example.com'], {})).toThrow(/--allowed-hosts/);
      expect(() => http(['--allowed-origins', 'https://app.example.com/path'], {})).toThrow(/--allowed-origins/);
      expect(() => http([], { MCP_MAX_CONCURRENCY: '0' })).toThrow(/MCP_MAX_CONCURRENCY/);
      expect(http([], { MCP_MAX_CONCURRENCY: '8', MCP_SHUTDOWN_TIMEOUT_MS: '2500' }).http).toMatchObject({ maxConcurrency: 8, shutdownTimeoutMs: 2500 });
      expect(http([], { MCP_MAX_QUEUE_PER_USER: '0', MCP_QUEUE_TIMEOUT_MS: '5000' }).http).toMatchObject({ maxQueuePerUser: 0, queueTimeoutMs: 5000 });
      expect(() => http([], { MCP_MAX_QUEUE_PER_USER: '-1' })).toThrow(/MCP_MAX_QUEUE_PER_USER/);
      expect(() => http([], { MCP_QUEUE_TIMEOUT_MS: '10' })).toThrow(/MCP_QUEUE_TIMEOUT_MS must be a whole number from 100/);
    });

    it('knows which bind addresses are loopback', () => {
      for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopbackHost(host), host).toBe(true);
      for (const host of ['0.0.0.0', '::', '10.0.0.5', 'example.com', '128.0.0.1', '127.0.0.1.example.com']) expect(isLoopbackHost(host), host).toBe(false);
    });
  });

  describe('every setting, from the one table', () => {
    const settings = Object.entries(SETTINGS) as Array<[string, Setting<unknown>]>;
    // A value no setting takes: not a word, a number, a list, a URL or a key.
    const BAD = 'maybe?';

    it('has a name to be given by for each setting', () => {
      for (const [name, spec] of settings) expect(spec.env ?? spec.flag, name).toBeTruthy();
    });

    it.each(settings.filter(([, s]) => s.env).map(([name, s]) => [s.env!, name, s] as const))('%s with a bad value stops the start, naming the setting, the value and what it accepts', (variable, _name, spec) => {
      let message = '';
      try {
        run([...(spec.appliesWith ?? [])], { POSTHOG_PERSONAL_API_KEY: KEY, [variable]: BAD });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError);
        message = (error as Error).message;
      }
      expect(message, `${variable}=${BAD} was accepted`).toContain(`${variable} must be ${spec.accepted}`);
      // Secrets are not echoed, even wrong ones.
      if (spec.secret) expect(message).not.toContain(BAD);
      else expect(message).toContain(`"${BAD}"`);
    });

    it.each(settings.filter(([, s]) => s.flag && s.flagValue === undefined).map(([name, s]) => [s.flag!, name, s] as const))('%s with a bad value stops the start', (flag, _name, spec) => {
      expect(() => run([...(spec.appliesWith ?? []).filter((a) => a !== flag), flag, BAD], { POSTHOG_PERSONAL_API_KEY: KEY })).toThrow(`${flag} must be ${spec.accepted}`);
    });

    it('is named in --help and in docs/configuration.md', () => {
      const docs = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
      for (const [name, spec] of settings) {
        for (const word of [spec.env, spec.flag].filter((w): w is string => w !== undefined)) {
          expect(USAGE, `${name}: ${word} in --help`).toContain(word);
          expect(docs, `${name}: ${word} in docs/configuration.md`).toContain(`\`${word}`);
        }
      }
    });
  });

  describe('on/off settings', () => {
    const onOff = ['POSTHOG_READ_ONLY', 'POSTHOG_SANDBOX', 'POSTHOG_CONFIRM_DESTRUCTIVE'];

    it('read 1/true/yes/on and 0/false/no/off in any case, the same way for each', () => {
      for (const variable of onOff) {
        const key = (Object.entries(SETTINGS) as Array<[keyof Config, Setting<unknown>]>).find(([, s]) => s.env === variable)![0];
        for (const word of ['1', 'true', 'YES', 'On']) expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, [variable]: word })[key], `${variable}=${word}`).toBe(true);
        for (const word of ['0', 'False', 'no', 'OFF']) expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, [variable]: word })[key], `${variable}=${word}`).toBe(false);
        for (const word of ['maybe', 'y', '2', 'enabled']) expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, [variable]: word }), `${variable}=${word}`).toThrow(`${variable} must be 1, true, yes, on or 0, false, no, off`);
      }
    });

    it('never fail open: POSTHOG_READ_ONLY=on is read-only, =maybe is refused, and the flag wins over an env "off"', () => {
      expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_READ_ONLY: 'on' }).readOnly).toBe(true);
      expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_READ_ONLY: 'maybe' })).toThrow(/POSTHOG_READ_ONLY must be .*got "maybe"/);
      expect(run(['--read-only'], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_READ_ONLY: 'off' }).readOnly).toBe(true);
      expect(run([], { POSTHOG_SANDBOX: 'on' }).sandbox).toBe(true);
    });
  });

  describe('the key, checked before any call', () => {
    const refusal = (key: string) => {
      try {
        run([], { POSTHOG_PERSONAL_API_KEY: key });
      } catch (error) {
        return (error as Error).message;
      }
      return undefined;
    };

    it('refuses the placeholder of the README and mcp.json, saying what to do', () => {
      const mcpJson = JSON.parse(readFileSync(new URL('../../mcp.json', import.meta.url), 'utf8')) as { mcpServers: Record<string, { env?: Record<string, string> }> };
      const placeholders = Object.values(mcpJson.mcpServers).map((s) => s.env?.POSTHOG_PERSONAL_API_KEY).filter((k): k is string => k !== undefined);
      expect(placeholders.length).toBeGreaterThan(0);
      for (const placeholder of placeholders) expect(refusal(placeholder)).toMatch(/placeholder.*Settings → Personal API keys.*--sandbox/);
      expect(refusal('<your key>')).toMatch(/placeholder/);
    });

    it('refuses a project API key and a key with spaces or odd characters, never echoing it', () => {
      expect(refusal('phc_abcdefghijklmnopqrstuvwxyz0123456789')).toMatch(/project API key \(phc_…\).*personal API key/);
      expect(refusal('phc_abcdefghijklmnopqrstuvwxyz0123456789')).not.toContain('abcdefghij');
      expect(refusal('phx_abc def')).toMatch(/whitespace/);
      expect(refusal('phx_abcdéf0123456789')).toMatch(/characters/);
    });

    it('takes a personal key or an OAuth token silently, and warns about an unfamiliar shape', () => {
      expect(run([], { POSTHOG_PERSONAL_API_KEY: KEY }).warnings).toEqual([]);
      expect(run([], { POSTHOG_PERSONAL_API_KEY: 'pha_abcdefghijklmnop' }).warnings).toEqual([]);
      const odd = run([], { POSTHOG_PERSONAL_API_KEY: 'sk-0123456789abcdef' });
      expect(odd.apiKey).toBe('sk-0123456789abcdef');
      expect(odd.warnings.join('\n')).toMatch(/does not look like a PostHog personal API key/);
      expect(odd.warnings.join('\n')).not.toContain('sk-0123456789abcdef');
    });

    it('does not read a key left in the config when the sandbox brings its own', () => {
      const config = run(['--sandbox'], { POSTHOG_PERSONAL_API_KEY: 'phx_your_personal_api_key' });
      expect(config.apiKey).toBeUndefined();
      expect(config.warnings.join('\n')).toMatch(/ignored with --sandbox/);
    });
  });

  it('takes the doctor command, and refuses any other word', () => {
    expect(parseCli(['doctor'], { POSTHOG_PERSONAL_API_KEY: KEY }).kind).toBe('doctor');
    expect(() => parseCli(['docter'], { POSTHOG_PERSONAL_API_KEY: KEY })).toThrow(/Unknown command "docter"/);
    expect(() => parseCli(['doctor'], {})).toThrow(/POSTHOG_PERSONAL_API_KEY is not set/);
  });

  it('suggests the near value of an enumerated setting', () => {
    expect(() => run(['--transport', 'htp'], { POSTHOG_PERSONAL_API_KEY: KEY })).toThrow(/Did you mean "http"\?/);
    expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_TOOLSETS: 'recording' })).toThrow(/Unknown toolset "recording"\. Did you mean "recordings"\?/);
    expect(() => run([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_REPLAY_RATE_LIMITS: 'payed' })).toThrow(/Did you mean "paid"\?/);
  });
});

// The key pasted into the wrong variable (or a flag) is a common slip; the refusal goes to stderr,
// which MCP clients keep in their logs, and people paste those into issues.
describe('a PostHog key given to another setting', () => {
  const settings = (Object.entries(SETTINGS) as Array<[string, Setting<unknown>]>).filter(([, s]) => !s.secret);
  const messageOf = (argv: string[], env: Record<string, string>): string => {
    try {
      parseCli(argv, env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      return (error as Error).message;
    }
    return '';
  };

  it.each(settings.filter(([, s]) => s.env).map(([name, s]) => [s.env!, name, s] as const))('%s set to the key is refused without echoing it, in any case', (variable, _name, spec) => {
    const key = 'phx_Zq8rT1vYb2nM4kL6pW9sX3cV5bN7mQ0aE2dF4gH6';
    const message = messageOf([...(spec.appliesWith ?? [])], { POSTHOG_PERSONAL_API_KEY: key, [variable]: key });
    // Every setting refuses a key; none may name it, nor its lower-cased form, nor a run of it.
    expect(message).toContain(`${variable} must be`);
    expect(message.toLowerCase()).not.toContain(key.slice(4, 16).toLowerCase());
    expect(message).toMatch(/looks like a PostHog API key/);
  });

  it('also when it is not the configured key, and given as a flag', () => {
    const message = messageOf(['--toolsets', 'phx_Aa11Bb22Cc33Dd44Ee55Ff66Gg77'], { POSTHOG_PERSONAL_API_KEY: KEY });
    expect(message).toContain('--toolsets must be');
    expect(message).not.toContain('Aa11Bb22');
  });
});
