/**
 * How a recorded rrweb event may leave the snapshots tool as data: what users typed masked, and
 * nothing nested too deep to serialize. Both walks are iterative (a hostile DOM can be 10,000
 * elements deep) and change the event in place: each event is a fresh parse of its line.
 */

import { CUSTOM, FULL_SNAPSHOT, INCREMENTAL_SNAPSHOT, INPUT, META, MUTATION, PLUGIN } from '../../posthog/rrweb.js';
import { maskUrlSecrets } from '../../url-secrets.js';

/** Deeper than this, an event is summarized instead of returned (JSON.stringify recurses, and overflows near 2,500). */
export const MAX_EVENT_DEPTH = 200;

/** rrweb-snapshot node types. */
const ELEMENT = 2;
const TEXT = 3;

/** Inputs whose value the page wrote (a caption, which radio of a group), not the user. */
const AUTHORED_VALUE_TYPES = new Set(['button', 'submit', 'reset', 'image', 'radio', 'checkbox']);

/** A typed value as the text shows it: its length, nothing of its content. */
export function maskValue(value: string): string {
  return '*'.repeat(value.length);
}

/** Whether `value` nests objects and arrays more than `max` levels deep. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ v: unknown; d: number }> = [{ v: value, d: 0 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === 'object' && child !== null) stack.push({ v: child, d: d + 1 });
  }
  return false;
}

/**
 * Masks what a user typed or chose: the text of Input events, in DOM snapshots and mutations
 * the value of fields (not of buttons, radios and checkboxes) and the text inside a textarea, the
 * bodies of recorded requests (see maskRequestBodies), and secret-named parameters of the page's
 * and the requests' URLs (see maskEventUrls).
 */
export function maskTypedValues(event: { type: number; data?: unknown }): void {
  const data = event.data as Record<string, unknown> | undefined;
  if (typeof data !== 'object' || data === null) return;
  maskEventUrls(event);
  if (event.type === PLUGIN) maskRequestBodies(event);
  if (event.type === FULL_SNAPSHOT) maskTree(data.node);
  if (event.type !== INCREMENTAL_SNAPSHOT) return;
  if (data.source === INPUT && typeof data.text === 'string') data.text = maskValue(data.text);
  if (data.source !== MUTATION) return;
  if (Array.isArray(data.adds)) for (const add of data.adds) if (typeof add === 'object' && add !== null) maskTree((add as { node?: unknown }).node);
  // An attribute change names only the node: any `value` change is masked, a button's included.
  if (Array.isArray(data.attributes)) {
    for (const change of data.attributes) {
      const attributes = (change as { attributes?: unknown } | null)?.attributes as Record<string, unknown> | undefined;
      if (typeof attributes === 'object' && attributes !== null && typeof attributes.value === 'string') attributes.value = maskValue(attributes.value);
    }
  }
}

function maskTree(root: unknown, insideField = false): void {
  const stack: Array<{ node: unknown; field: boolean }> = [{ node: root, field: insideField }];
  while (stack.length > 0) {
    const { node, field } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    const n = node as Record<string, unknown>;
    let childField = field;
    if (n.type === ELEMENT && typeof n.tagName === 'string') {
      const tag = n.tagName.toLowerCase();
      const attributes = typeof n.attributes === 'object' && n.attributes !== null ? (n.attributes as Record<string, unknown>) : undefined;
      const type = typeof attributes?.type === 'string' ? attributes.type.toLowerCase() : '';
      const typed = tag === 'textarea' || tag === 'select' || (tag === 'input' && !AUTHORED_VALUE_TYPES.has(type));
      if (typed && attributes && typeof attributes.value === 'string') attributes.value = maskValue(attributes.value);
      if (tag === 'textarea') childField = true;
    } else if (n.type === TEXT && field && typeof n.textContent === 'string') {
      n.textContent = maskValue(n.textContent);
    }
    if (Array.isArray(n.childNodes)) for (const child of n.childNodes) stack.push({ node: child, field: childField });
  }
}

/**
 * Masks the request bodies of a network event (`rrweb/network@1`). What a user typed into a form
 * travels in the request that submits it, and posthog-js records request bodies in clear text
 * even when it masked the inputs themselves (it redacts only bodies naming a password, token or
 * the like). Keys stay, so the request's shape still shows: a JSON body keeps its structure with
 * every string and number masked, a form-encoded body its field names; any other body is masked
 * whole. Response bodies are the server's words (error messages an agent needs) and stay.
 */
export function maskRequestBodies(event: { type: number; data?: unknown }): void {
  for (const r of networkRequests(event)) {
    if (r.requestBody !== undefined && r.requestBody !== null) r.requestBody = maskBody(r.requestBody);
  }
}

/** The request records of a network-plugin event (posthog-js's `rrweb/network@1`); none for any other event. */
export function networkRequests(event: { type: number; data?: unknown }): Array<Record<string, unknown>> {
  if (event.type !== PLUGIN) return [];
  const data = event.data as { plugin?: unknown; payload?: { requests?: unknown } } | null | undefined;
  if (typeof data !== 'object' || data === null || data.plugin !== 'rrweb/network@1') return [];
  const requests = data.payload?.requests;
  return Array.isArray(requests) ? requests.filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null) : [];
}

/**
 * Tokens in URLs (a magic link, an OAuth code, a signed URL): the page's address in a Meta event
 * and a page-view custom event, and each recorded request's URL, with their values masked
 * (url-secrets.ts). In place.
 */
export function maskEventUrls(event: { type: number; data?: unknown }): void {
  const data = event.data as Record<string, unknown> | null | undefined;
  if (typeof data !== 'object' || data === null) return;
  if (event.type === META && typeof data.href === 'string') data.href = maskUrlSecrets(data.href);
  if (event.type === CUSTOM && typeof data.payload === 'object' && data.payload !== null) {
    const payload = data.payload as Record<string, unknown>;
    for (const key of ['href', '$current_url']) if (typeof payload[key] === 'string') payload[key] = maskUrlSecrets(payload[key]);
  }
  for (const r of networkRequests(event)) {
    for (const key of ['name', 'url']) if (typeof r[key] === 'string') r[key] = maskUrlSecrets(r[key]);
  }
}

const FORM_ENCODED = /^[^=&\s]+=[^&\s]*(?:&[^=&\s]+=[^&\s]*)*$/;

function maskBody(body: unknown): unknown {
  if (typeof body !== 'string') return typeof body === 'object' ? maskLeaves(body) : maskValue(String(body));
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === 'object' && parsed !== null) return JSON.stringify(maskLeaves(parsed));
  if (FORM_ENCODED.test(body)) {
    return body
      .split('&')
      .map((pair) => {
        const at = pair.indexOf('=');
        return `${pair.slice(0, at + 1)}${maskValue(pair.slice(at + 1))}`;
      })
      .join('&');
  }
  return maskValue(body);
}

/** A copy of a JSON value with each string and number masked; nested too deep, masked whole. */
function maskLeaves(value: unknown): unknown {
  // Not serialized to measure it: JSON.stringify recurses, and a hostile body nests thousands deep.
  if (nestedDeeperThan(value, MAX_EVENT_DEPTH)) return '*';
  const mask = (v: unknown): unknown => (typeof v === 'string' ? maskValue(v) : typeof v === 'number' ? maskValue(String(v)) : v);
  const root = mask(value);
  if (typeof root !== 'object' || root === null) return root;
  const out: unknown = Array.isArray(root) ? [...root] : { ...root };
  const stack: unknown[] = [out];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown> | unknown[];
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) {
        const copy = Array.isArray(child) ? [...child] : { ...child };
        (node as Record<string, unknown>)[key] = copy;
        stack.push(copy);
      } else (node as Record<string, unknown>)[key] = mask(child);
    }
  }
  return out;
}
