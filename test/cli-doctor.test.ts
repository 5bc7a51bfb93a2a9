// `posthog-replay-mcp doctor`, run as users run it (the built CLI), against sandboxes whose key
// has all scopes, too few, no organization:read, or is throttled right now; and a key PostHog
// does not know.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO, startSandbox, type Sandbox, type SandboxOptions } from '../src/sandbox/index.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const KEY = 'phx_doctor_test_key_0123456789abcdef';

function doctor(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'doctor', ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The status doctor gave a check, from its "STATUS  name: detail" line. */
function status(stdout: string, name: string): string | undefined {
  return new RegExp(`^(PASS|WARN|FAIL|SKIP) +${name}:`, 'm').exec(stdout)?.[1];
}

describe('doctor', () => {
  let sandbox: Sandbox | undefined;
  const start = async (options: SandboxOptions = {}) => {
    sandbox = await startSandbox({ apiKey: KEY, ...options });
    return { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: sandbox.url };
  };
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it('passes a key with every scope, naming the user, project, the plan\'s replay retention and throttle state, and never prints the key', async () => {
    const env = await start();
    const r = await doctor([], { ...env, POSTHOG_PROJECT_ID: String(DEMO.mainProjectId) });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    for (const check of ['key', 'host', 'host and key', 'scopes', 'default project', 'replay retention', 'replay throttle']) expect(status(r.stdout, check), check).toBe('PASS');
    const checks = r.stdout.split('\n').map((l) => /^(?:PASS|WARN|FAIL|SKIP) +([^:]+):/.exec(l)?.[1]).filter(Boolean);
    expect(checks).toEqual(['key', 'host', 'mode', 'host and key', 'scopes', 'default project', 'replay retention', 'replay throttle']);
    expect(r.stdout).toMatch(/default project: 1001 "Acme Shop"/);
    // The organization's plan, beside the project's own period (one request for the organization).
    expect(r.stdout).toMatch(/^PASS +replay retention: project 1001 keeps recordings 30d; the plan allows up to 90d\.$/m);
    expect(sandbox!.requests.filter((q) => q.path.startsWith('/api/organizations/')).map((q) => q.path)).toEqual([`/api/organizations/${DEMO.organizationId}/`]);
    expect(r.stdout).toMatch(/not throttled/);
    expect(r.stdout + r.stderr).not.toContain(KEY.slice(4, 14));
  });

  it('fails a key without the scopes the chosen toolsets need, naming them; read-only and fewer toolsets need fewer', async () => {
    const env = await start({ scopes: ['session_recording:read'] });
    const r = await doctor([], env);
    expect(r.code).toBe(1);
    expect(status(r.stdout, 'scopes')).toBe('FAIL');
    for (const scope of ['query:read', 'session_recording:write', 'project:read', 'project:write']) expect(r.stdout).toContain(scope);
    expect(r.stdout).toMatch(/Settings → Personal API keys/);
    await sandbox!.close();
    const narrow = await start({ scopes: ['session_recording:read', 'query:read'] });
    const ok = await doctor(['--read-only', '--toolsets', 'recordings'], narrow);
    expect(status(ok.stdout, 'scopes'), ok.stdout).toBe('PASS');
    expect(ok.code).toBe(0);
  });

  it('skips the replay retention, never fails it, for a key without organization:read or without a default project', async () => {
    const env = await start({ scopes: ['session_recording:read', 'session_recording:write', 'query:read', 'project:read', 'project:write'] });
    const r = await doctor([], { ...env, POSTHOG_PROJECT_ID: String(DEMO.mainProjectId) });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(status(r.stdout, 'default project')).toBe('PASS');
    expect(r.stdout).toMatch(/^SKIP +replay retention: the longest the plan allows is not known: this key may not read the organization \(it needs organization:read\)\.$/m);
    const none = await doctor([], env);
    expect(none.stdout).toMatch(/^SKIP +replay retention: no default project to read it for \(POSTHOG_PROJECT_ID\)\.$/m);
    expect(sandbox!.requests.filter((q) => q.path.startsWith('/api/organizations/'))).toHaveLength(1);
  });

  it('passes a legacy key without scopes, which PostHog lets do what its user may', async () => {
    const env = await start({ scopes: [] });
    const r = await doctor([], env);
    expect(status(r.stdout, 'scopes'), r.stdout).toBe('PASS');
    expect(r.stdout).toMatch(/a key without scopes \(a legacy key\)/);
  });

  it('says PostHog is throttling replay reads for the key right now, and for how long (from the 429 body)', async () => {
    const env = await start({ replayThrottle: [{ count: 1, windowMs: 60_000 }] });
    // Another client spends the key's one replay request of this minute.
    const spent = await fetch(`${sandbox!.url}/api/projects/${DEMO.mainProjectId}/session_recordings/?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(spent.status).toBe(200);
    const r = await doctor([], { ...env, POSTHOG_PROJECT_ID: String(DEMO.mainProjectId) });
    expect(status(r.stdout, 'replay throttle'), r.stdout).toBe('WARN');
    expect(r.stdout).toMatch(/throttling replay reads for this key for about \d+ more seconds/);
    expect(r.code).toBe(0);
  });

  it('fails a key PostHog does not accept, and skips what needs the key', async () => {
    const env = await start();
    const r = await doctor([], { ...env, POSTHOG_PERSONAL_API_KEY: 'phx_some_other_key_0123456789abcdef' });
    expect(r.code).toBe(1);
    expect(status(r.stdout, 'host and key')).toBe('FAIL');
    expect(r.stdout).toMatch(/did not accept the key \(401/);
    for (const check of ['scopes', 'default project', 'replay retention', 'replay throttle']) expect(status(r.stdout, check), check).toBe('SKIP');
    expect(r.stdout + r.stderr).not.toContain('some_other_key');
  });

  it('fails an unreachable host', async () => {
    const env = await start();
    const url = sandbox!.url;
    await sandbox!.close();
    sandbox = undefined;
    const r = await doctor([], { ...env, POSTHOG_HOST: url });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL +host and key: Could not reach PostHog at http:\/\/127\.0\.0\.1:\d+ for GET \/api\/users\/@me\/ \(ECONNREFUSED/);
  });

  it('refuses the placeholder key before any request (exit 2), as the server would', async () => {
    const env = await start();
    const r = await doctor([], { ...env, POSTHOG_PERSONAL_API_KEY: 'phx_your_personal_api_key' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/placeholder/);
    expect(sandbox!.requests).toHaveLength(0);
  });

  it('says --sandbox ignores a key and a host left in the settings', async () => {
    const r = await doctor(['--sandbox'], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: 'eu' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^WARN +settings: POSTHOG_PERSONAL_API_KEY is ignored with --sandbox/m);
    expect(r.stdout).toMatch(/^WARN +settings: POSTHOG_HOST is ignored with --sandbox/m);
    expect(r.stdout).not.toContain(KEY);
  });

  it('calls https://app.posthog.com US Cloud (its older name), not self-hosted', async () => {
    // Through a proxy on a loopback port nobody listens on: the request fails at once, on this machine.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await doctor([], { POSTHOG_PERSONAL_API_KEY: KEY, POSTHOG_HOST: 'https://app.posthog.com', HTTPS_PROXY: `http://127.0.0.1:${port}` });
    expect(r.stdout).toMatch(/^PASS +host: https:\/\/app\.posthog\.com \(PostHog Cloud US, under its older name/m);
    expect(r.stdout).not.toMatch(/self-hosted/);
  });

  it('checks the embedded sandbox with --sandbox', async () => {
    const r = await doctor(['--sandbox'], {});
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/PASS +host: http:\/\/127\.0\.0\.1:\d+ \(the embedded sandbox\)/);
    expect(r.stdout).toMatch(/^PASS +replay retention: project 1001 keeps recordings 30d; the plan allows up to 90d\.$/m);
  });
});
