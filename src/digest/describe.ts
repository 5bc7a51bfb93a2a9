/**
 * Names for what a user clicked or typed into, from a window's DOM mirror: `button "Place order"`,
 * `a "Shop" → "/shop"`, `input[email]#email "Email address"`. Never a field's value.
 */

import type { NodeMirror } from './mirror.js';
import { quote } from './quote.js';
import { samePath } from './rules/pages.js';
import { clip } from '../words.js';

export interface NamingContext {
  mirror: NodeMirror;
  /** whether a full snapshot was seen (else ids are all there is) */
  hadSnapshot: boolean;
  /** the page's URL, to show same-origin links by their path */
  pageUrl: string | undefined;
}

/** An element by its text, aria-label, id or link target; a field by its label. */
export function describeElement(ctx: NamingContext, id: number): string {
  const node = Number.isFinite(id) ? ctx.mirror.get(id) : undefined;
  if (!node?.tag) return ctx.hadSnapshot ? `element ${id}` : `element ${id} (no DOM snapshot seen)`;
  // A field (or an option of one) by its label, never by what is in it.
  if (ctx.mirror.isUserText(node)) return describeField(ctx, node.tag === 'option' || node.tag === 'datalist' ? fieldOf(ctx.mirror, node.id) : node.id);
  const attrs = node.attrs ?? {};
  let out = ident(node.tag);
  if (attrs.id) out += `#${ident(attrs.id)}`;
  // The whole page is no name for a click that hit no element in particular.
  if (node.tag === 'html' || node.tag === 'body') return `${out} (the page background)`;
  const name = attrs['aria-label'] || (node.tag === 'input' ? attrs.value : undefined) || ctx.mirror.textOf(node.id, 60) || attrs.title || attrs.alt;
  if (name) out += ` ${quote(name)}`;
  else if (attrs.name) out += `[name=${quote(attrs.name)}]`;
  if (node.tag === 'a' && attrs.href) out += ` → ${quote(clip(samePath(attrs.href, ctx.pageUrl), 120))}`;
  return out;
}

/** A form field by its label, never its value: `input[email] "Email address"`. */
export function describeField(ctx: NamingContext, id: number): string {
  const node = ctx.mirror.get(id);
  if (!node?.tag) return ctx.hadSnapshot ? `field ${id}` : `field ${id} (no DOM snapshot seen)`;
  const attrs = node.attrs ?? {};
  let out = ident(node.tag);
  if (attrs.type && node.tag === 'input') out += `[${ident(attrs.type)}]`;
  if (attrs.id) out += `#${ident(attrs.id)}`;
  const label = ctx.mirror.labelOf(id) || attrs['aria-label'] || attrs.placeholder || attrs.name;
  if (label) out += ` ${quote(clip(label, 60))}`;
  // Which radio of a group (or which checkbox of a list): its value is the page's, not typed.
  if ((attrs.type === 'radio' || attrs.type === 'checkbox') && attrs.value && attrs.value !== label) out += ` value ${quote(clip(attrs.value, 40))}`;
  return out;
}

/** The select (or other element) an option belongs to. */
function fieldOf(mirror: NodeMirror, id: number): number {
  let current = mirror.get(id);
  for (let depth = 0; current && depth < 4; depth++) {
    if (current.tag === 'select' || current.tag === 'input') return current.id;
    current = mirror.get(current.parent);
  }
  return id;
}

/** Tag names, ids and types are page-authored too: only identifier characters pass unquoted. */
function ident(text: string): string {
  // Most are clean already (tag names): returned as they are, which is what the replace gives.
  if (CLEAN_IDENT.test(text)) return text;
  return text.replace(/[^A-Za-z0-9_:.-]/g, '').slice(0, 40) || '?';
}
const CLEAN_IDENT = /^[A-Za-z0-9_:.-]{1,40}$/;
