/**
 * Connection hints taken out of what the player replays. A recorded `<link rel=preconnect>` or
 * `rel=dns-prefetch` makes the viewer's browser look up and connect to a host of the recording's
 * choosing, and no Content-Security-Policy governs either (Chromium opened the connections under
 * the player's default-src 'none': test/attack4-watch-hostile.test.ts). Anyone who visits a
 * customer's site shapes its recordings, so a replay would tell them who watched it and when.
 * Only rel tokens that fetch nothing by themselves, or that the policy does govern, are kept.
 */

import { FULL_SNAPSHOT, INCREMENTAL_SNAPSHOT, MUTATION } from '../../posthog/rrweb.js';

/** rel tokens a replay keeps: how the page looks (style sheets, refused outside by the CSP) and how links relate. */
const KEPT_REL = new Set(['stylesheet', 'alternate', 'icon', 'shortcut', 'apple-touch-icon', 'mask-icon', 'canonical', 'author', 'license', 'help', 'search', 'next', 'prev', 'noopener', 'noreferrer', 'nofollow', 'external', 'bookmark', 'tag', 'opener']);

/** `rel` with only the tokens kept (lower-cased, as the browser compares them). */
function keptRel(rel: string): string {
  return rel
    .split(/[\t\n\f\r ]+/)
    .filter((token) => KEPT_REL.has(token.toLowerCase()))
    .join(' ');
}

function dropHintsIn(attributes: unknown): void {
  if (typeof attributes !== 'object' || attributes === null) return;
  const a = attributes as Record<string, unknown>;
  if (typeof a.rel === 'string') a.rel = keptRel(a.rel);
}

/** The tree's elements' rel attributes, in place and without recursion (a tree may be thousands deep). */
function dropHintsInTree(root: unknown): void {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    dropHintsIn((node as { attributes?: unknown }).attributes);
    const children = (node as { childNodes?: unknown }).childNodes;
    if (Array.isArray(children)) stack.push(...children);
  }
}

/**
 * An event as the player may replay it: connection hints gone from a full snapshot's elements, a
 * mutation's added ones, and its attribute changes (which name a node, not its tag: any `rel`).
 */
export function dropConnectionHints(event: { type: number; data?: unknown }): void {
  const data = event.data as Record<string, unknown> | undefined;
  if (typeof data !== 'object' || data === null) return;
  if (event.type === FULL_SNAPSHOT) dropHintsInTree(data.node);
  if (event.type !== INCREMENTAL_SNAPSHOT || data.source !== MUTATION) return;
  if (Array.isArray(data.adds)) for (const add of data.adds) if (typeof add === 'object' && add !== null) dropHintsInTree((add as { node?: unknown }).node);
  if (Array.isArray(data.attributes)) for (const change of data.attributes) if (typeof change === 'object' && change !== null) dropHintsIn((change as { attributes?: unknown }).attributes);
}
