/**
 * Placeholders the page accepts. A neutral value of the right kind is not enough where the field
 * constrains it: a date under the page's `min` (today, on a booking form), a number off its `step`,
 * text its `pattern` refuses, a select's placeholder option. Each default here follows the
 * field as the recording held it, and a date whose bounds were counted from the day of the
 * recording is counted, in the spec, from the day the test runs.
 */

import type { Step } from './journey.js';
import type { SelectOption } from './page-facts.js';
import { envName, isMasked, neutralValue, sensitiveReason, type FieldFacts, type Placeholder } from './privacy.js';

const DAY_MS = 86_400_000;
/** A bound this close to the recording's day was the page's "today" (the person's time zone is not recorded). */
const TODAY_SLACK_DAYS = 1;
/** A bound this close was counted from that day (tomorrow, a week ahead); a farther one is a fixed date. */
const RELATIVE_DAYS = 31;

/**
 * The default of a typed field's placeholder, kept inside the field's constraints: unchanged where
 * the neutral one fits, else a value derived from the field (never from what was typed, except how
 * far a date lay from its bound, which is a count of days, not the person's words).
 */
export function fitToField(placeholder: Placeholder, field: FieldFacts, recorded: string | undefined, at: number): Placeholder {
  if (placeholder.source === 'copied') return placeholder;
  const type = field.type?.toLowerCase() ?? '';
  const clear = recorded !== undefined && recorded !== '' && !isMasked(recorded) ? recorded : undefined;
  if (type === 'date' || type === 'datetime-local' || type === 'month') return { ...placeholder, ...dateDefault(type, field, clear, at) };
  if (type === 'number' || type === 'range') return { ...placeholder, default: numberDefault(field) };
  if (type === 'time') return { ...placeholder, default: timeDefault(field) };
  if (type === 'week' && (field.min || field.max)) return { ...placeholder, default: (field.min || field.max)! };
  return { ...placeholder, default: textDefault(field, placeholder.default) };
}

/** What the spec needs declared before the placeholders when one is counted from the day it runs. */
export const FROM_TODAY_HELPER = [
  '  // A date counted from the day the test runs, as the page counted its bounds from the day it was recorded.',
  '  const fromToday = (days: number, months = 0): string => {',
  '    const d = new Date();',
  '    if (months !== 0) d.setDate(1);',
  '    d.setMonth(d.getMonth() + months, d.getDate() + days);',
  "    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;",
  '  };',
];

/**
 * A date, datetime or month inside `min`/`max`. A fixed bound (a date far from the recording's)
 * gives the bound itself, a page-authored value. A bound counted from the recording's day (its day,
 * within a day for the person's time zone, or a month of it) is counted, in the spec, from the run's
 * day, plus how far the recorded value lay past it when that is under a month (the bound itself when
 * masked, which is always allowed and on its step); a field without bounds takes the run's day
 * likewise. Never the recorded value as such: a date can be personal (a birthday), and the default
 * (`expression`) is a count of days, not the date the person gave.
 */
function dateDefault(type: string, field: FieldFacts, recorded: string | undefined, at: number): Pick<Placeholder, 'default' | 'expression' | 'relative'> {
  const months = type === 'month';
  const unit = (value: string | undefined) => (value === undefined ? undefined : months ? monthIndex(value) : dayIndex(value));
  const today = months ? monthIndexOfDay(utcDay(at)) : utcDay(at);
  const min = unit(field.min);
  const max = unit(field.max);
  const value = unit(recorded);
  const bound = min ?? max;
  const span = months ? 12 : RELATIVE_DAYS;
  let offset: number;
  if (bound === undefined) {
    offset = value !== undefined && Math.abs(value - today) <= span ? value - today : 0;
  } else {
    const fromToday = bound - today;
    // A fixed bound: the page's own date, as it set it.
    if (Math.abs(fromToday) > span) return { default: (field.min ?? field.max)! };
    let shift = value !== undefined && Math.abs(value - bound) <= span ? value - bound : 0;
    if (min !== undefined && max !== undefined && min + shift > max) shift = 0;
    offset = (Math.abs(fromToday) <= (months ? 0 : TODAY_SLACK_DAYS) ? 0 : fromToday) + shift;
  }
  const call = months ? `fromToday(0, ${offset}).slice(0, 7)` : `fromToday(${offset})`;
  // A datetime's time is the page's (its bound's) where the day is the bound's own, else one inside the day.
  const time = type !== 'datetime-local' ? undefined : bound === undefined ? '12:00' : bound === min ? '23:59' : '00:00';
  const expression = time !== undefined ? `\`\${${call}}T${time}\`` : call;
  const what = months ? 'month' : 'day';
  const relative = `the run's ${what}${offset === 0 ? '' : ` ${offset > 0 ? '+' : '-'} ${Math.abs(offset)} ${what}(s)`}${bound === undefined ? '' : `, as the field's ${min !== undefined ? 'min' : 'max'} was counted from the day of the recording`}`;
  return { default: expression, expression, relative };
}

function dayIndex(value: string): number | undefined {
  const m = /^(\d{4,6})-(\d{2})-(\d{2})/.exec(value);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isFinite(ms) ? Math.floor(ms / DAY_MS) : undefined;
}

function monthIndex(value: string): number | undefined {
  const m = /^(\d{4,6})-(\d{2})/.exec(value);
  return m ? Number(m[1]) * 12 + Number(m[2]) - 1 : undefined;
}

function monthIndexOfDay(day: number): number {
  const d = new Date(day * DAY_MS);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

function utcDay(at: number): number {
  return Math.floor(at / DAY_MS);
}

/** A number inside min/max on the step counted from min: 1 where it fits, else the bound. */
function numberDefault(field: FieldFacts): string {
  const min = finite(field.min);
  const max = finite(field.max);
  const step = field.step?.toLowerCase() === 'any' ? undefined : (finite(field.step) ?? 1);
  const fits = (v: number) => (min === undefined || v >= min) && (max === undefined || v <= max) && (step === undefined || step <= 0 || Math.abs(((v - (min ?? 0)) / step) - Math.round((v - (min ?? 0)) / step)) < 1e-9);
  for (const v of [1, min, max, 0]) if (v !== undefined && fits(v)) return String(v);
  return String(min ?? max ?? 1);
}

/** A time inside min/max on its step (seconds, 60 unless set): noon where it fits, else the lower bound. */
function timeDefault(field: FieldFacts): string {
  const seconds = (v: string | undefined) => {
    const m = v ? /^(\d{2}):(\d{2})(?::(\d{2}))?/.exec(v) : null;
    return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0) : undefined;
  };
  const min = seconds(field.min);
  const max = seconds(field.max);
  const step = finite(field.step) ?? 60;
  const noon = 12 * 3600;
  // A range that wraps midnight (min after max) holds noon only if noon is outside the gap.
  const inside = min !== undefined && max !== undefined && min > max ? noon >= min || noon <= max : (min === undefined || noon >= min) && (max === undefined || noon <= max);
  if (inside && (noon - (min ?? 0)) % step === 0) return '12:00';
  return (field.min ?? field.max ?? '12:00').slice(0, 8);
}

function finite(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * A field's attributes are the site's, or any visitor's who sends a recording: a placeholder is
 * padded to a minlength of at most this many characters (beyond it the neutral value is kept),
 * and no longer value is tried against a pattern.
 */
const MAX_FITTED_CHARS = 128;
/** Patterns tried, as JavaScript backtracks: short ones without a repeated group, with few quantifiers (each multiplies the tries). */
const MAX_PATTERN_CHARS = 200;
const MAX_PATTERN_QUANTIFIERS = 4;

/** Text inside `pattern`, `minlength` and `maxlength`: the neutral value where it fits, else one built from the pattern. */
function textDefault(field: FieldFacts, neutral: string): string {
  const max = finite(field.maxlength);
  const min = finite(field.minlength) ?? 0;
  const fits = (v: string) => (max === undefined || v.length <= max) && v.length >= min && (field.pattern === undefined || matchesPattern(field.pattern, v) !== false);
  if (fits(neutral)) return neutral;
  const candidates = [field.pattern !== undefined ? fromPattern(field.pattern) : undefined, max !== undefined ? neutral.slice(0, max) : undefined, min <= MAX_FITTED_CHARS ? neutral.padEnd(min, 'x') : undefined];
  return candidates.find((c): c is string => c !== undefined && fits(c)) ?? neutral;
}

/**
 * Whether `value` matches a field's pattern as a browser applies it (whole value, `v` flag);
 * undefined when the pattern does not compile, or could take long to try (backtracking), or the
 * value is longer than any placeholder made here.
 */
export function matchesPattern(pattern: string, value: string): boolean | undefined {
  if (value.length > MAX_FITTED_CHARS || slowPattern(pattern)) return undefined;
  try {
    return new RegExp(`^(?:${pattern})$`, 'v').test(value);
  } catch {
    return undefined;
  }
}

/**
 * A pattern whose tries could multiply past a moment: long, a group repeated (`(a+)+`,
 * `(a|a)*`, `(.*){9}`: exponential or of a high power), or many quantifiers one after another
 * (`.*.*.*.*.*x`). Classes and escapes are read past; a group made optional (`?`) is fine.
 */
function slowPattern(pattern: string): boolean {
  if (pattern.length > MAX_PATTERN_CHARS) return true;
  let quantifiers = 0;
  // Whether the last thing read closed a group (an escaped parenthesis does not).
  let afterGroup = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
    } else if (c === '[') {
      // To the class's end, nested classes (the v flag's) and escapes included.
      for (let depth = 1; depth > 0 && ++i < pattern.length; ) {
        if (pattern[i] === '\\') i++;
        else if (pattern[i] === '[') depth++;
        else if (pattern[i] === ']') depth--;
      }
    } else if (c === '*' || c === '+' || c === '{') {
      if (afterGroup) return true;
      quantifiers++;
    }
    afterGroup = c === ')';
  }
  return quantifiers > MAX_PATTERN_QUANTIFIERS;
}

/**
 * The shortest string a simple pattern accepts (literals, classes, escapes, groups with their first
 * alternative, quantifiers at their minimum): enough for postcodes, codes and ids. A pattern it
 * cannot read gives undefined (the caller keeps the neutral value).
 */
export function fromPattern(pattern: string): string | undefined {
  let i = 0;
  const atom = (): string | undefined => {
    const c = pattern[i++];
    if (c === undefined) return undefined;
    if (c === '\\') {
      const e = pattern[i++];
      if (e === 'd') return '1';
      if (e === 'w') return 'a';
      if (e === 's') return ' ';
      return e === undefined || /[A-Za-z]/.test(e) ? undefined : e;
    }
    if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end === -1 || pattern[i] === '^') return undefined;
      const body = pattern.slice(i, end);
      i = end + 1;
      if (body.startsWith('\\d')) return '1';
      if (body.startsWith('\\w')) return 'a';
      return body[0] === '\\' ? body[1] : body[0];
    }
    if (c === '(') {
      if (pattern.startsWith('?:', i)) i += 2;
      let out = '';
      while (i < pattern.length && pattern[i] !== ')' && pattern[i] !== '|') {
        const piece = quantified();
        if (piece === undefined) return undefined;
        out += piece;
      }
      // The other alternatives are skipped, nested groups included.
      for (let depth = 0; i < pattern.length && (depth > 0 || pattern[i] !== ')'); i++) {
        if (pattern[i] === '\\') i++;
        else if (pattern[i] === '(') depth++;
        else if (pattern[i] === ')') depth--;
      }
      i++;
      return out;
    }
    if (c === '.') return 'a';
    if ('^$'.includes(c)) return '';
    if ('|)*+?{'.includes(c)) return undefined;
    return c;
  };
  const quantified = (): string | undefined => {
    const piece = atom();
    if (piece === undefined) return undefined;
    const q = pattern[i];
    if (q === '*' || q === '?') {
      i++;
      return '';
    }
    if (q === '+') {
      i++;
      return piece;
    }
    if (q === '{') {
      const m = /^\{(\d+)(?:,\d*)?\}/.exec(pattern.slice(i));
      if (!m) return undefined;
      i += m[0].length;
      return piece.repeat(Math.min(64, Number(m[1])));
    }
    return piece;
  };
  let out = '';
  while (i < pattern.length) {
    if (pattern[i] === '|') break;
    const piece = quantified();
    if (piece === undefined) return undefined;
    out += piece;
  }
  return matchesPattern(pattern, out) === true ? out : undefined;
}

/** An option no one means to choose: disabled or hidden, an empty value, or a prompt ("Choose…", "-- select --"). */
function promptOption(option: SelectOption): boolean {
  return option.disabled === true || option.value === '' || (option.value === undefined && option.label === '') || /^\W*(?:choose|select|pick|please)\b/i.test(option.label);
}

/** What selectOption matches for an option: its value attribute, or its text where it has none. */
function optionKey(option: SelectOption): string {
  return option.value ?? option.label;
}

/**
 * A select's choice, one of the page's own options. The person's choice (their country, their
 * title) is theirs: the default is the first option that is not a prompt, not disabled and not the
 * recorded one (known in clear, or masked as the only option of its length), so a test never copies
 * it. Where the journey needs that choice (what followed was brought by it), the recorded option is
 * used and said so. An option without a value attribute is chosen by its label.
 */
export function selectPlaceholder(step: Step, copy: boolean, taken: Set<string>): Placeholder {
  const field = step.field!;
  const env = envName(field, taken);
  const options = step.options ?? [];
  const usable = options.filter((o) => !promptOption(o));
  const recorded = step.recorded;
  const sensitive = sensitiveReason(field);
  const chosen = recorded === undefined || recorded === '' ? undefined : isMasked(recorded) ? only(usable.filter((o) => optionKey(o).length === recorded.length)) : usable.find((o) => optionKey(o) === recorded);
  const as = (option: SelectOption | undefined, source: Placeholder['source'], withheld?: string): Placeholder => ({
    env,
    default: option ? optionKey(option) : '',
    field: step.selector!.code,
    source,
    ...(option && option.value === undefined ? { byLabel: true } : {}),
    ...(withheld ? { withheld } : {}),
  });
  if (chosen && !sensitive && (step.choiceMatters || (copy && !isMasked(recorded!)))) {
    return as(chosen, step.choiceMatters ? 'recorded-option' : 'copied');
  }
  const neutral = usable.find((o) => o !== chosen) ?? chosen ?? options.find((o) => !o.disabled) ?? options[0];
  const why = sensitive ? `not copied: ${sensitive}` : chosen ? 'the recorded choice is the person\'s' : recorded && isMasked(recorded) ? 'masked in the recording' : 'the recorded choice is not among the page\'s options';
  return as(neutral, 'page-option', `${why}; the page's first option${chosen ? ' other than it' : ''} is used`);
}

function only<T>(list: T[]): T | undefined {
  return list.length === 1 ? list[0] : undefined;
}
