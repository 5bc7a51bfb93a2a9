/**
 * `posthog-replay-mcp doctor`: what a newcomer would otherwise learn from the first failing call.
 * The settings were already parsed (so the same mistakes are refused first); this asks PostHog
 * about the key, its scopes, the default project and the replay retention its plan allows, and
 * whether replay reads are throttled for the key right now, and prints one line per check with
 * what to do. Never the key itself.
 */
import type { Config } from './config.js';
import type { Toolset } from './settings.js';
import { UpstreamError, UpstreamUnavailableError } from './errors.js';
import { PostHogClient } from './posthog/client.js';
import { operationsOver, type PersonalApiKey, type PostHogOperations, type Project } from './posthog/operations/index.js';
import { isRetentionPeriod } from './posthog/plan.js';
import { plural } from './words.js';

export type Status = 'PASS' | 'WARN' | 'FAIL' | 'SKIP';

export interface Check {
  status: Status;
  name: string;
  detail: string;
}

export interface DoctorTarget {
  baseUrl: string;
  apiKey: string | undefined;
  /** The project the recording tools default to (the configured one, or the sandbox's demo project). */
  defaultProjectId: string | undefined;
}

/** What each toolset needs of a key: reads always, writes unless read-only (docs/posthog-api.md, "Scopes" and "The query API"). */
const NEEDS: Record<Toolset, { read: Array<[string, string]>; write: Array<[string, string]> }> = {
  recordings: {
    read: [
      ['session_recording:read', 'list, get, snapshots, summary, triage, replay'],
      ['query:read', 'matching events and session properties on PostHog Cloud; uncaught exceptions in summary and reproduce'],
    ],
    write: [['session_recording:write', 'session-recording-delete']],
  },
  projects: {
    read: [['project:read', 'projects-list, project-get']],
    write: [['project:write', 'project-create, project-update, project-delete']],
  },
};

/** app.posthog.com is PostHog Cloud US under its older name (docs/configuration.md, POSTHOG_HOST). */
const CLOUD_REGIONS: Record<string, { name: string; region: 'us' | 'eu' }> = {
  'https://us.posthog.com': { name: 'PostHog Cloud US', region: 'us' },
  'https://app.posthog.com': { name: 'PostHog Cloud US, under its older name; POSTHOG_HOST=us is the current one', region: 'us' },
  'https://eu.posthog.com': { name: 'PostHog Cloud EU', region: 'eu' },
};

/** Runs every check in order, printing each as it is known; returns the exit status (1 when a check failed). */
export async function runDoctor(config: Config, target: DoctorTarget, print: (line: string) => void): Promise<number> {
  // One request per check and no retries: a 429 is what the throttle check wants to see, not to hide.
  const proxy = target.baseUrl === config.baseUrl ? config.upstream.proxy : undefined;
  const client = new PostHogClient({ baseUrl: target.baseUrl, apiKey: target.apiKey, timeoutMs: Math.min(config.timeoutMs, 15_000), maxRetries: 0, replayRates: [], proxy });
  const posthog = operationsOver(client);
  const checks: Check[] = [];
  const report = (check: Check) => {
    checks.push(check);
    print(`${check.status.padEnd(4)}  ${check.name}: ${client.redact(check.detail)}`);
  };
  try {
    for (const check of settingsChecks(config, target)) report(check);
    const reached = await keyCheck(posthog, config, target);
    report(reached);
    if (reached.status === 'FAIL') {
      for (const name of ['scopes', 'default project', 'replay retention', 'replay throttle']) report({ status: 'SKIP', name, detail: 'needs the key to be accepted first.' });
    } else {
      report(await scopesCheck(posthog, config));
      const project = await projectCheck(posthog, target.defaultProjectId);
      report(project.check);
      report(await retentionCheck(posthog, target.defaultProjectId, project.record));
      report(await throttleCheck(posthog, config, target.defaultProjectId));
    }
  } finally {
    await client.close();
  }
  const failed = checks.filter((c) => c.status === 'FAIL').length;
  const warned = checks.filter((c) => c.status === 'WARN').length;
  print(failed === 0 ? `All set${warned ? ` (${plural(warned, 'warning')})` : ''}: add the server to your MCP client (README, "Connect a client").` : `${plural(failed, 'check')} failed: fix ${failed === 1 ? 'it' : 'them'} and run doctor again.`);
  return failed === 0 ? 0 : 1;
}

function settingsChecks(config: Config, target: DoctorTarget): Check[] {
  const checks: Check[] = [];
  // With --sandbox a key left in the settings is ignored: that warning is a settings line like the others.
  const keyWarning = config.sandbox ? undefined : config.warnings.find((w) => w.startsWith('POSTHOG_PERSONAL_API_KEY'));
  if (config.sandbox) checks.push({ status: 'PASS', name: 'key', detail: 'the sandbox\'s own key (--sandbox).' });
  else if (keyWarning) checks.push({ status: 'WARN', name: 'key', detail: keyWarning });
  else checks.push({ status: 'PASS', name: 'key', detail: `a personal API key (${target.apiKey?.slice(0, 4) ?? ''}…, ${target.apiKey?.length ?? 0} characters) from POSTHOG_PERSONAL_API_KEY.` });
  const region = config.sandbox ? 'the embedded sandbox' : (CLOUD_REGIONS[target.baseUrl]?.name ?? 'self-hosted PostHog');
  checks.push({ status: 'PASS', name: 'host', detail: `${target.baseUrl} (${region}).` });
  const proxy = config.upstream.proxy;
  if (proxy) checks.push({ status: 'PASS', name: 'proxy', detail: `requests to PostHog go through ${proxy.shown} (${proxy.from}; NO_PROXY does not list the host).` });
  const mode = [`toolsets ${config.toolsets.join(', ')}`, config.readOnly ? 'read-only' : 'read and write', target.defaultProjectId ? `default project ${target.defaultProjectId}` : 'no default project (POSTHOG_PROJECT_ID)'];
  checks.push({ status: 'PASS', name: 'mode', detail: `${mode.join('; ')}.` });
  for (const warning of config.warnings.filter((w) => w !== keyWarning)) checks.push({ status: 'WARN', name: 'settings', detail: warning });
  return checks;
}

async function keyCheck(posthog: PostHogOperations, config: Config, target: DoctorTarget): Promise<Check> {
  const name = 'host and key';
  try {
    const me = await posthog.projects.currentUser();
    const who = [
      typeof me.email === 'string' ? `user ${me.email}` : '',
      typeof me.organization?.name === 'string' ? `organization "${me.organization.name}"` : '',
      typeof me.team?.id === 'number' ? `current project ${me.team.id}${typeof me.team.name === 'string' ? ` "${me.team.name}"` : ''}` : '',
    ].filter(Boolean);
    return { status: 'PASS', name, detail: `PostHog at ${target.baseUrl} accepted the key${who.length ? ` (${who.join(', ')})` : ''}.` };
  } catch (error) {
    if (error instanceof UpstreamUnavailableError) {
      // A connection failure's message names the host already; the others (a timeout, an HTML page) do not.
      const detail = error.message.startsWith('Could not reach PostHog') ? error.message : `could not reach PostHog at ${target.baseUrl}: ${error.message}`;
      return { status: 'FAIL', name, detail };
    }
    if (error instanceof UpstreamError && error.status === 401) {
      const cloud = CLOUD_REGIONS[target.baseUrl]?.region;
      const other = cloud === 'us' ? 'eu' : cloud === 'eu' ? 'us' : undefined;
      const region = other ? ` Keys belong to one region: if your PostHog account is on ${other.toUpperCase()} Cloud, set POSTHOG_HOST=${other}.` : '';
      return { status: 'FAIL', name, detail: `PostHog at ${target.baseUrl} did not accept the key (401${error.detail ? `: ${error.detail}` : ''}). Check it is a valid, unexpired personal API key (Settings → Personal API keys).${region}` };
    }
    if (error instanceof UpstreamError && error.status === 403) {
      // Authenticated, but not allowed to read the user: a scoped key without user:read, which no tool needs.
      return { status: 'PASS', name, detail: `PostHog at ${target.baseUrl} accepted the key (it may not read the user's profile, which no tool needs).` };
    }
    if (error instanceof UpstreamError) {
      return { status: 'FAIL', name, detail: `PostHog at ${target.baseUrl} answered ${error.status} to ${error.path}${error.detail ? `: ${error.detail}` : ''}. ${config.sandbox ? '' : 'Is POSTHOG_HOST your PostHog app\'s URL (not a proxy or a login page)?'}`.trim() };
    }
    throw error;
  }
}

async function scopesCheck(posthog: PostHogOperations, config: Config): Promise<Check> {
  const name = 'scopes';
  let key: PersonalApiKey;
  try {
    key = await posthog.projects.currentKey();
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    return { status: 'WARN', name, detail: `could not read the key's scopes (PostHog answered ${error.status} to ${error.path}); each tool names a missing scope when it meets one.` };
  }
  const scopes = key.scopes ?? [];
  const teams = key.scoped_teams ?? [];
  const limited = teams.length > 0 ? ` It is limited to ${plural(teams.length, 'project')} (${teams.join(', ')}): projects-list is refused for such keys.` : '';
  if (scopes.length === 0) return { status: 'PASS', name, detail: `a key without scopes (a legacy key): PostHog lets it do what its user may.${limited}` };
  if (scopes.includes('*')) return { status: teams.length > 0 && config.toolsets.includes('projects') ? 'WARN' : 'PASS', name, detail: `all scopes (*).${limited}` };
  const has = (scope: string) => scopes.includes(scope) || (scope.endsWith(':read') && scopes.includes(scope.replace(/:read$/, ':write')));
  const missing: string[] = [];
  for (const toolset of config.toolsets) {
    const needs = [...NEEDS[toolset].read, ...(config.readOnly ? [] : NEEDS[toolset].write)];
    for (const [scope, what] of needs) if (!has(scope)) missing.push(`${scope} (${toolset}: ${what})`);
  }
  if (missing.length === 0) return { status: teams.length > 0 && config.toolsets.includes('projects') ? 'WARN' : 'PASS', name, detail: `the key has what the chosen toolsets need (${scopes.join(', ')}).${limited}` };
  return {
    status: 'FAIL',
    name,
    detail: `the key lacks ${missing.join('; ')}. Add them to the key in PostHog (Settings → Personal API keys → edit), or offer fewer tools: --read-only drops the write tools, --toolsets the others.${limited}`,
  };
}

/** The default project's check, and its record for the retention check (none when it was not read). */
async function projectCheck(posthog: PostHogOperations, projectId: string | undefined): Promise<{ check: Check; record?: Project }> {
  const name = 'default project';
  if (projectId === undefined) return { check: { status: 'SKIP', name, detail: 'none set; the recording tools then need project_id (projects-list finds it), or set POSTHOG_PROJECT_ID.' } };
  try {
    const project = await posthog.projects.get(projectId);
    return { check: { status: 'PASS', name, detail: `${project.id}${typeof project.name === 'string' ? ` "${project.name}"` : ''}.` }, record: project };
  } catch (error) {
    // An answer that is no project (it has no id) says so, as a wrong host's would.
    if (error instanceof UpstreamUnavailableError && error.kind === 'malformed') return { check: { status: 'FAIL', name, detail: error.message } };
    if (!(error instanceof UpstreamError)) throw error;
    if (error.status === 404) return { check: { status: 'FAIL', name, detail: `PostHog has no project ${projectId} visible to this key: fix POSTHOG_PROJECT_ID (projects-list shows the ids).` } };
    return { check: { status: 'FAIL', name, detail: `PostHog answered ${error.status} for project ${projectId}${error.detail ? `: ${error.detail}` : ''}.` } };
  }
}

/**
 * One organization request: the longest replay retention the plan allows, beside the default
 * project's period. Informational: a key without organization:read, or a PostHog that states no
 * cap (self-hosted), skips it, never fails it.
 */
async function retentionCheck(posthog: PostHogOperations, projectId: string | undefined, record: Project | undefined): Promise<Check> {
  const name = 'replay retention';
  if (projectId === undefined) return { status: 'SKIP', name, detail: 'no default project to read it for (POSTHOG_PROJECT_ID).' };
  if (record === undefined) return { status: 'SKIP', name, detail: 'needs the default project to be readable first.' };
  const id = String(record.id);
  if (typeof record.organization !== 'string') return { status: 'SKIP', name, detail: `PostHog's answer for project ${id} names no organization.` };
  const cap = await posthog.projects.retentionCap(record.organization);
  if ('unknown' in cap) return { status: 'SKIP', name, detail: `the longest the plan allows is not known: ${cap.unknown}.` };
  const kept = record.session_recording_retention_period;
  const keeps = isRetentionPeriod(kept) ? `project ${id} keeps recordings ${kept}` : `project ${id} names no retention period`;
  return { status: 'PASS', name, detail: `${keeps}; the plan allows up to ${cap.longest}.` };
}

/**
 * One recordings-list request: PostHog states how long its replay throttle holds only in a
 * 429's body ("Expected available in N seconds"), so asking is the only way to know.
 */
async function throttleCheck(posthog: PostHogOperations, config: Config, projectId: string | undefined): Promise<Check> {
  const name = 'replay throttle';
  if (!config.toolsets.includes('recordings')) return { status: 'SKIP', name, detail: 'the recordings toolset is off.' };
  const project = projectId ?? '@current';
  try {
    await posthog.recordings.list(project, { limit: 1 });
    return { status: 'PASS', name, detail: `replay reads are not throttled for this key right now (this check spent one of its replay requests: the free plan allows 12 a minute and 60 an hour).` };
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    if (error.status === 429) {
      const wait = error.retryAfterSeconds !== undefined ? `for about ${Math.ceil(error.retryAfterSeconds)} more seconds` : 'for now (PostHog named no wait)';
      return { status: 'WARN', name, detail: `PostHog is throttling replay reads for this key ${wait}: recording tools wait for it (up to POSTHOG_THROTTLE_WAIT_MS) or return partial results with when to continue. Another client using the same key shares the budget.` };
    }
    if (error.status === 403) return { status: 'FAIL', name, detail: `PostHog refused the recordings list (403${error.detail ? `: ${error.detail}` : ''}): the key needs session_recording:read and access to project ${project}.` };
    if (error.status === 404) return { status: 'FAIL', name, detail: `PostHog has no project ${project} for this key (404).` };
    return { status: 'WARN', name, detail: `the recordings list answered ${error.status}${error.detail ? `: ${error.detail}` : ''}.` };
  }
}
