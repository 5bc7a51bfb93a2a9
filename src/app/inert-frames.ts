/**
 * Recorded frames stay empty in the replay. rrweb's replayer sets a recorded iframe's `src` as it
 * was (its recorder writes `rr_src` only for frames it could not read), and a frame given an
 * outside address starts a navigation: the player's CSP (frame-src 'self') refuses the request,
 * but Chromium has already opened a connection to that host by then
 * (test/attack4-watch-hostile.test.ts). A recording anyone can shape would learn who watched it,
 * and when. So a frame's `src` is kept as `rr_src`, which the replayer does not load; the frame
 * still shows what the recording holds of its document.
 */

import type { RrwebEvent } from './model.js';

const FULL_SNAPSHOT = 2;
const INCREMENTAL_SNAPSHOT = 3;
const MUTATION = 0;
const FRAMES = new Set(['iframe', 'frame']);

interface SerializedNode {
  id?: unknown;
  tagName?: unknown;
  attributes?: Record<string, unknown>;
  childNodes?: unknown;
}

function holdSrc(attributes: Record<string, unknown> | undefined): void {
  if (!attributes || !('src' in attributes)) return;
  attributes.rr_src = attributes.src;
  delete attributes.src;
}

/** Every frame in the tree made inert and its id remembered (`frames`), without recursion (a tree may be thousands deep). */
function inertTree(root: unknown, frames: Set<unknown>): void {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop() as SerializedNode | null | undefined;
    if (typeof node !== 'object' || node === null) continue;
    if (typeof node.tagName === 'string' && FRAMES.has(node.tagName.toLowerCase())) {
      frames.add(node.id);
      if (typeof node.attributes === 'object' && node.attributes !== null) holdSrc(node.attributes);
    }
    if (Array.isArray(node.childNodes)) stack.push(...(node.childNodes as unknown[]));
  }
}

/**
 * The event, in place, with no frame given an address to load: in a full snapshot, in the nodes a
 * mutation adds, and in its attribute changes of frames seen before (`frames`, one set a window).
 */
export function inertFrames(event: RrwebEvent, frames: Set<unknown>): void {
  const data = event.data as Record<string, unknown> | undefined;
  if (typeof data !== 'object' || data === null) return;
  if (event.type === FULL_SNAPSHOT) inertTree(data.node, frames);
  if (event.type !== INCREMENTAL_SNAPSHOT || data.source !== MUTATION) return;
  if (Array.isArray(data.adds)) for (const add of data.adds) if (typeof add === 'object' && add !== null) inertTree((add as { node?: unknown }).node, frames);
  if (Array.isArray(data.attributes)) {
    for (const change of data.attributes as Array<{ id?: unknown; attributes?: Record<string, unknown> } | null>) {
      if (change && frames.has(change.id) && typeof change.attributes === 'object' && change.attributes !== null) holdSrc(change.attributes);
    }
  }
}
