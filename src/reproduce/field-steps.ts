/**
 * What the steps around a field say about the value it needs: a select whose choice brought what
 * the person did next (the test must choose as they did), and a search whose result the person
 * clicked (the test must search for something that finds it).
 */

import type { NodeMirror } from '../digest/mirror.js';
import type { WorkBudget } from './budget.js';
import type { Step } from './journey.js';
import type { FieldFacts } from './privacy.js';

/** A click that sends its form (a submit button): what follows it is the form's answer, not a result of the page. */
export function submits(tag: string, type: string): boolean {
  return (tag === 'button' && (type === '' || type === 'submit')) || (tag === 'input' && (type === 'submit' || type === 'image'));
}

/** The highest node id a page holds. */
export function maxNodeId(mirror: NodeMirror, budget: WorkBudget): number {
  let max = 0;
  for (const node of mirror.all()) {
    budget.tick();
    if (node.id > max) max = node.id;
  }
  return max;
}

/**
 * Marks the selects the journey depends on: the choice changed the page (a new path), or a later
 * step on the same page acts on an element added after it (rrweb numbers new nodes above every
 * older one), which the choice may have brought (a size's stock, a country's fields).
 */
export function markChoicesThatMatter(steps: Step[], horizon: ReadonlyMap<Step, number>): void {
  steps.forEach((step, i) => {
    const seen = horizon.get(step);
    if (step.action !== 'select' || seen === undefined) return;
    let matters = step.navigates !== undefined;
    for (let j = i + 1; j < steps.length && !matters; j++) {
      const next = steps[j]!;
      if (next.window !== step.window) continue;
      if (next.path !== step.path || next.action === 'goto' || (next.action === 'select' && next.node === step.node)) break;
      if (next.node !== undefined && next.node > seen) matters = true;
      if (next.navigates !== undefined) break;
    }
    if (matters) {
      step.choiceMatters = true;
      step.notes.push('the recorded option is chosen: what followed depends on it');
    }
  });
}

/** A field that searches, by its type or what it is called. */
export function searchField(field: FieldFacts | undefined): boolean {
  if (!field) return false;
  if (field.type?.toLowerCase() === 'search') return true;
  const words = [field.name, field.id, field.label, field.placeholder, field.ariaLabel].filter((w) => typeof w === 'string').join(' ');
  return /search|query|\bq\b|\bfind\b|look ?up/i.test(words);
}

/** A page query parameter that carries a search. */
export const SEARCH_PARAM = /^(?:q|query|search|s|term|terms|keywords?|k)$/i;

/** A step that searches: typing into a search field, or opening a page whose query holds a search. */
function searches(step: Step): boolean {
  if (step.action === 'fill') return searchField(step.field);
  return step.action === 'goto' && (step.query ?? []).some(([name]) => SEARCH_PARAM.test(name));
}

/**
 * For each search the person typed (or opened) and then clicked a result of, a word of that result's text for
 * the search's placeholder: a neutral word ('test') would find nothing, and the typed one is the
 * person's. The longest word of three letters or more that is no part of anything typed.
 */
export function searchesFor(steps: Step[], clickText: ReadonlyMap<Step, string>, typed: readonly string[], note: (text: string) => void): void {
  const lowerTyped = typed.map((t) => t.toLowerCase()).filter((t) => t !== '');
  steps.forEach((step, i) => {
    if (!searches(step)) return;
    const result = resultClick(steps, i, clickText);
    if (result === undefined) return;
    const words = result.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 3 && /\p{L}/u.test(w));
    const fresh = words.filter((w) => {
      const lower = w.toLowerCase();
      return !lowerTyped.some((t) => t.includes(lower) || lower.includes(t));
    });
    const word = fresh.reduce<string | undefined>((best, w) => (best === undefined || w.length > best.length ? w : best), undefined);
    if (word === undefined) {
      note(`Step ${i + 1} searched, then a result was clicked, but the result's text has no word apart from what was typed: the search's placeholder is neutral, set it to find that result.`);
      return;
    }
    step.searchFor = word;
    step.notes.push("the search's default is a word of the result the person clicked");
  });
}

/** The text of the first click after a search at `from` (past its submit and the page it brings), if that is what followed. */
function resultClick(steps: Step[], from: number, clickText: ReadonlyMap<Step, string>): string | undefined {
  const tab = steps[from]!.window;
  for (let j = from + 1; j < steps.length; j++) {
    const next = steps[j]!;
    if (next.window !== tab) continue;
    if (next.action === 'press' || next.action === 'goto') continue;
    if (next.action === 'click' || next.action === 'dblclick') {
      const text = clickText.get(next);
      if (text === undefined) continue;
      return text;
    }
    return undefined;
  }
  return undefined;
}
