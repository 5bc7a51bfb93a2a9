/**
 * POSTHOG_HOST: which PostHog the server talks to. The `us`/`eu` shorthands, a URL with its
 * scheme, an ingestion host mapped to its app host, and a page of PostHog's app (copied from the
 * address bar) refused with the host to write instead. Below the settings table (settings.ts).
 */

import { refuse } from './setting-kinds.js';
import { didYouMean } from './words.js';

export const CLOUD_HOSTS: Record<string, string> = {
  us: 'https://us.posthog.com',
  eu: 'https://eu.posthog.com',
};

/**
 * `us`/`eu` shorthands and URLs; ingestion hosts mapped to their app host. A host without its
 * scheme is refused with the form to write: guessing https would hide a typo of a region name.
 */
export function resolveHost(raw: string, warn: (message: string) => void): string {
  const shorthand = CLOUD_HOSTS[raw.toLowerCase()];
  if (shorthand) return shorthand;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    const near = didYouMean(raw, Object.keys(CLOUD_HOSTS));
    const page = /^[\w.-]+(:\d+)?\//.test(raw) ? appPageBase(`https://${raw}`) : undefined;
    if (page) refuse(appPageAdvice(page));
    refuse(near || (/^[\w.-]+(:\d+)?(\/\S*)?$/.test(raw) ? `Write the scheme too: https://${raw.replace(/\/+$/, '')}` : ''));
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    refuse('It is not a valid URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse('Only http and https are served.');
  const page = appPageBase(raw);
  if (page) refuse(appPageAdvice(page));
  if (url.username || url.password || url.search || url.hash) refuse('Give the plain base URL: no credentials, query or fragment.');
  const ingestion = /^([a-z0-9-]+)\.i\.posthog\.com$/i.exec(url.hostname);
  if (ingestion) {
    const region = ingestion[1]!.toLowerCase().replace(/-assets$/, '');
    const appHost = `https://${region}.posthog.com`;
    warn(`POSTHOG_HOST ${url.hostname} is an ingestion host, which does not serve the REST API; using ${appHost} instead.`);
    return appHost;
  }
  const basePath = url.pathname.replace(/\/+$/, '').replace(/\/api$/, '');
  return `${url.origin}${basePath}`;
}

/** PostHog Cloud's app hosts (app.posthog.com is the US one's older name): their API is at the root. */
const CLOUD_APP_HOST = /^(us|eu|app)\.posthog\.com$/i;

/**
 * The base URL a page of PostHog's app was copied from (a replay, a project's settings), or
 * undefined when the URL is no such page: on PostHog Cloud any path; elsewhere a path with
 * `/project/<id>`, which is where the app's pages live (under a base path, kept).
 */
function appPageBase(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (CLOUD_APP_HOST.test(url.hostname)) {
    const path = url.pathname.replace(/\/+$/, '');
    return path === '' || path === '/api' ? undefined : url.origin;
  }
  const at = /\/project\/(\d+|@current)(\/|$)/.exec(url.pathname);
  return at ? `${url.origin}${url.pathname.slice(0, at.index)}` : undefined;
}

function appPageAdvice(base: string): string {
  const shorthand = Object.entries(CLOUD_HOSTS).find(([, host]) => host === base)?.[0];
  return `It is the address of a page of PostHog's app, not of PostHog itself: set POSTHOG_HOST=${base}${shorthand ? ` (or ${shorthand})` : ''}.`;
}
