/** Pages: how a URL is kept and shown, and which custom events mean a page view or a tab change. */

import { maskUrlSecrets } from '../../url-secrets.js';
import { clip } from '../../words.js';

const URL_MAX = 300;
/** Masking reads no further than this into a URL: what is shown is cut at URL_MAX anyway. */
const URL_READ = 4 * URL_MAX;

/** A URL as the digest may show it: secret-named parameters masked (url-secrets.ts), then cut. */
export function shownUrl(href: string): string {
  return clip(maskUrlSecrets(href.length > URL_READ ? href.slice(0, URL_READ) : href), URL_MAX);
}

/**
 * A page's URL as shown and kept. A `data:` URL is the page's own content (43 KB of HTML, say),
 * not an address: only its media type and size are told.
 */
export function pageUrl(href: string): string {
  if (/^data:/i.test(href)) {
    const type = /^data:([^,;]{0,60})/i.exec(href)?.[1] || 'text/plain';
    return `data:${type},… (${href.length.toLocaleString('en-US')} characters)`;
  }
  return shownUrl(href);
}

/** A link's href as its path when it stays on the page's origin. */
export function samePath(href: string, page: string | undefined): string {
  if (!page || !/^https?:/i.test(href)) return maskUrlSecrets(href);
  // Kept per page: the same links are named again and again (a menu, a button's target).
  let paths = samePaths.get(page);
  let path = paths?.get(href);
  if (path !== undefined) return path;
  path = maskUrlSecrets(relativeTo(href, page));
  if (samePathCount >= SAME_PATHS_KEPT) {
    samePaths.clear();
    samePathCount = 0;
    paths = undefined;
  }
  if (!paths) {
    paths = new Map();
    samePaths.set(page, paths);
  }
  paths.set(href, path);
  samePathCount++;
  return path;
}

const SAME_PATHS_KEPT = 256;
const samePaths = new Map<string, Map<string, string>>();
let samePathCount = 0;

function relativeTo(href: string, page: string): string {
  try {
    const target = new URL(href);
    return target.origin === new URL(page).origin ? target.pathname + target.search + target.hash : href;
  } catch {
    return href;
  }
}

export type CustomMeaning = { kind: 'pageview'; href: unknown } | { kind: 'tab-hidden' } | { kind: 'tab-visible' } | undefined;

/** posthog-js custom events that tell a page view (SPA navigation) or the tab hidden or shown. */
export function readCustom(data: Record<string, unknown>): CustomMeaning {
  const tag = data.tag;
  const payload = (typeof data.payload === 'object' && data.payload !== null ? data.payload : {}) as Record<string, unknown>;
  if (tag === '$pageview') return { kind: 'pageview', href: payload.href ?? payload.$current_url };
  if (tag === 'window hidden' || tag === '$visibility_hidden' || (tag === 'visibility' && payload.visibilityState === 'hidden')) return { kind: 'tab-hidden' };
  if (tag === 'window visible' || tag === '$visibility_visible' || (tag === 'visibility' && payload.visibilityState === 'visible')) return { kind: 'tab-visible' };
  return undefined;
}
