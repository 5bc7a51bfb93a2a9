/**
 * Words the server writes in more than one room (settings, tools, the digest, the operations): text
 * clipped to a length, counts with their noun in the right number, lengths of time in one format,
 * the valid values nearest to a near miss, and any upstream value as text. Below config.ts, tools/
 * and digest/, so each says these things the same way.
 */

/** Keep text lines short: the model pays for every character. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** "1 rage click", "3 rage clicks"; irregular plurals given by the caller. */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralForm}`;
}

/** A moment into a recording as a player shows it: "1:05" from 65,400 ms; hours when needed. */
export function clock(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  return clockOf(Math.floor(Math.max(0, ms) / 1000));
}

/**
 * A length of time, in the player's format ("20:11", "1:06:40"), rounded to the second: the same
 * recording reads the same in a list (PostHog's whole seconds) and in a summary (the events' ms).
 */
export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '?';
  return clockOf(Math.round(Math.max(0, seconds)));
}

function clockOf(totalSeconds: number): string {
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = String(totalSeconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/**
 * The valid values a near miss probably meant, best first (at most `max`): the same value in
 * another case ("europe/london"), with spaces or dashes for underscores, the last part of a
 * path-like value ("London" → "Europe/London"), else those a few typos away.
 */
export function nearest(input: string, candidates: readonly string[], max = 3): string[] {
  const query = input.trim().toLowerCase().slice(0, 100);
  if (query === '') return [];
  const exact = candidates.filter((c) => c.toLowerCase() === query);
  if (exact.length > 0) return exact.slice(0, max);
  const loose = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, '_');
  const q = loose(query);
  const partial = candidates.filter((c) => loose(c) === q || loose(c).split('/').pop() === q);
  if (partial.length > 0) return partial.slice(0, max);
  const limit = Math.max(1, Math.min(3, Math.ceil(query.length / 3)));
  const scored: Array<[string, number]> = [];
  for (const candidate of candidates) {
    const d = editDistance(query, candidate.toLowerCase(), limit);
    if (d <= limit) scored.push([candidate, d]);
  }
  scored.sort((a, b) => a[1] - b[1]);
  const best = scored[0]?.[1];
  return scored.filter(([, d]) => d === best).slice(0, max).map(([c]) => c);
}

/** " Did you mean "Europe/London"?" or the empty string: for the end of a refusal. */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const near = nearest(input, candidates);
  return near.length === 0 ? '' : `Did you mean ${near.map((n) => `"${n}"`).join(' or ')}?`;
}

/** Edits from a to b (insert, delete, replace, swap two neighbours), given up (limit + 1) once every path is past `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Any upstream value as text. String() and template literals throw on an object whose toString is
 * not a function, and upstream data is written by the recorded site's users: {"toString": "x"} in
 * a person's or event's properties must read as data, not stop the tool.
 */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') {
    try {
      return JSON.stringify(value) ?? '';
    } catch {
      return '[unreadable value]';
    }
  }
  return String(value);
}

/**
 * Two messages that differ only in their numbers, as one: each number that differs written
 * "first…last" ("Attempt 1…5 of 5"), so a folded message never shows a bare placeholder; the
 * message itself when both are the same; undefined when they differ in more than numbers.
 */
export function numberRange(first: string, last: string): string | undefined {
  if (first === last) return first;
  const a = first.split(/(\d+(?:\.\d+)?)/);
  const b = last.split(/(\d+(?:\.\d+)?)/);
  if (a.length !== b.length || a.some((part, i) => i % 2 === 0 && part !== b[i])) return undefined;
  return a.map((part, i) => (i % 2 === 1 && part !== b[i] ? `${part}…${b[i]}` : part)).join('');
}
