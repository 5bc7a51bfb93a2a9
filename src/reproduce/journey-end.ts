/**
 * Where the journey ended, as far as a test can hold it to: the page of the last step's tab and a
 * heading seen there (loosened where it may echo what the person typed), that the tab left the site,
 * or that the last click's link was being followed as the recording stopped.
 */

import type { NodeMirror } from '../digest/mirror.js';
import { maskUrlSecrets } from '../url-secrets.js';
import type { WorkBudget } from './budget.js';
import { relativePath, type Reproduction, type Step } from './journey.js';
import { headingOf } from './page-facts.js';
import { echoesTyped, emailIndex, typedAt, typedParts } from './privacy.js';

/** What the end reads of the tab the last step was in. */
export interface EndTab {
  external: boolean;
  /** path + search of its page, or the scheme of a page a test cannot go to. */
  url: string | undefined;
  /** The other site's host, while the tab is on one. */
  externalHost?: string;
  path: string;
  mirror: NodeMirror;
}

export interface EndContext {
  origin: string | null;
  /** What the person typed, where the recording holds it in clear. */
  typed: ReadonlySet<string>;
  /** The person typed into a field the recording masked. */
  maskedTyping: boolean;
  budget: WorkBudget;
  note: (text: string) => void;
  /** When the journey's request went out: a message it brought came after. */
  after?: number | undefined;
}

/** The journey's end after its last step (`tab`: that step's tab), saying in notes what is not asserted. */
export function journeyEnd(lastStep: Step, tab: EndTab | undefined, { origin, typed, maskedTyping, budget, note, after }: EndContext): Reproduction['final'] {
  let final: Reproduction['final'];
  const target = lastStep.action === 'click' && lastStep.href && lastStep.navigates === undefined && lastStep.opens === undefined && !lastStep.newTab ? new URL(lastStep.href) : undefined;
  if (tab?.external && tab.url !== undefined && !tab.url.endsWith(':')) {
    // The last step took the tab to another site: all a test can hold it to is that it left.
    // The path only as the page's own link gave it: one reached otherwise (a redirect, a sign-in) may carry the person's data.
    const link = lastStep.href ? new URL(lastStep.href) : undefined;
    const path = link && link.host === tab.externalHost ? maskUrlSecrets(link.pathname) : undefined;
    final = { window: lastStep.window, path: lastStep.path, leaves: tab.externalHost ?? 'another site', ...destination(tab.externalHost, path) };
    note(`The journey ended on another site (${final.leaves}): the test checks that the last step goes there${final.leavesTo ? '' : ' (leaves this site)'}.`);
  } else if (target && target.origin !== origin) {
    final = { window: lastStep.window, path: lastStep.path, leaves: target.host, ...destination(target.host, maskUrlSecrets(target.pathname)) };
    note(`The recording ends as the last click's link to ${target.host} was followed: the test checks that the page goes there.`);
  } else if (target && relativePath(maskUrlSecrets(target.pathname)) !== lastStep.path) {
    // The recording stopped before the link's page came: the end is where the link goes, not the page left.
    final = { window: lastStep.window, path: relativePath(maskUrlSecrets(target.pathname)), followed: true };
    note(`The recording ends as the last click's link was followed: the test checks it reaches ${final.path}, the link's target (no heading of that page was recorded).`);
  } else if (tab && !tab.external) {
    final = { window: lastStep.window, path: tab.path, ...headingOf(tab.mirror, budget) };
    if (final.heading !== undefined) {
      const loose = loosen(final.heading, [...typed].map((t) => t.toLowerCase()), maskedTyping);
      if (loose === undefined) {
        delete final.heading;
        note("The last page's heading holds what the person typed (or an email address): not asserted.");
      } else if (loose !== final.heading) {
        final.heading = loose;
        final.loose = true;
        note("The last page's heading may echo what the person typed: it is asserted by its page-authored start only.");
      }
    }
    const message = shownMessage(lastStep, tab, typed, maskedTyping, budget, after);
    if (message !== undefined && message !== final.heading) final.message = message;
  }
  return final;
}

/**
 * The message the page showed after the last step (after the journey's request, when it sent
 * one), as a test can find it: still on the last page, the text of one element alone, no digits, echoing
 * nothing the person typed (nor, where their typing was masked, naming anyone: a capitalised word
 * after the first).
 */
function shownMessage(lastStep: Step, tab: EndTab, typed: ReadonlySet<string>, maskedTyping: boolean, budget: WorkBudget, after: number | undefined): string | undefined {
  const parts = [...typed].map((t) => t.toLowerCase()).filter((t) => t.length > 0);
  const candidates = (lastStep.appeared ?? []).filter((a) => after === undefined || a.at >= after).reverse();
  for (const { text } of candidates) {
    // Digits change from run to run (a count, a time, an order number): not what proves the journey.
    if (/\d/.test(text) || echoesTyped(text, parts)) continue;
    if (maskedTyping && [...text.matchAll(/\p{L}[\p{L}'’-]*/gu)].slice(1).some((w) => /^\p{Lu}/u.test(w[0]))) continue;
    let holders = 0;
    for (const node of tab.mirror.all()) {
      budget.tick();
      if (!node.tag || tab.mirror.textOf(node.id, 100) !== text) continue;
      // The innermost element holding it: its ancestors hold the same text.
      if ([...tab.mirror.children(node.id)].some((c) => c.tag && tab.mirror.textOf(c.id, 100) === text)) continue;
      holders++;
    }
    if (holders === 1) return text;
  }
  return undefined;
}

/** The other site's host and path the person reached, as the test asserts it: the host alone where the path held a token (masked) or is not known. */
function destination(host: string | undefined, path: string | undefined): { leavesTo?: string } {
  if (host === undefined) return {};
  return { leavesTo: path === undefined || path.includes('***') ? host : `${host}${relativePath(path)}` };
}

/**
 * A final heading the test may assert, given what the person typed: unchanged when it echoes
 * nothing; else a regular expression source matching its page-authored start (everything from
 * the first echoed part, or from the first capitalised word after the first when a masked value
 * may be echoed, is matched loosely); undefined when too little is left to name the page.
 */
function loosen(heading: string, parts: string[], maskedTyping: boolean): string | undefined {
  let cut = heading.length;
  for (const part of typedParts(parts)) {
    const at = typedAt(heading, part);
    if (at !== -1) cut = Math.min(cut, at);
  }
  const email = emailIndex(heading);
  if (email !== -1) cut = Math.min(cut, email);
  if (maskedTyping) {
    const words = [...heading.matchAll(/\p{L}[\p{L}'’-]*/gu)];
    const name = words.slice(1).find((w) => /^\p{Lu}/u.test(w[0]));
    if (name?.index !== undefined) cut = Math.min(cut, name.index);
  }
  if (cut === heading.length) return heading;
  const start = heading.slice(0, cut);
  if (start.replace(/[^\p{L}\p{N}]/gu, '').length < 3) return undefined;
  return `^${start.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}.+$`;
}
