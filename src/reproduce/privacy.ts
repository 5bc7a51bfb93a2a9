/**
 * What a generated test may say about what the person typed: by default nothing. Every typed
 * value becomes a placeholder read from an environment variable with a neutral default; an
 * explicit option copies a value verbatim, but never a masked one, a password, or anything a
 * field's name, type, label or autocomplete hint marks as a secret or payment data.
 */

export interface FieldFacts {
  tag: string;
  type?: string | undefined;
  name?: string | undefined;
  id?: string | undefined;
  autocomplete?: string | undefined;
  label?: string | undefined;
  placeholder?: string | undefined;
  ariaLabel?: string | undefined;
  inputmode?: string | undefined;
  pattern?: string | undefined;
  /** The constraints a value must meet (fields.ts keeps placeholders inside them). */
  min?: string | undefined;
  max?: string | undefined;
  step?: string | undefined;
  minlength?: string | undefined;
  maxlength?: string | undefined;
  required?: boolean | undefined;
}

const SECRET_WORDS = /pass(word|wd|code|phrase)?|pwd|secret|token|api.?key|otp|one.?time|\bpin\b|2fa|mfa|verification.?code|security.?code|ssn|social.?security|tax.?id|national.?id/i;
const PAYMENT_WORDS = /card|\bcc\b|cc.?(num|number|exp|csc|cvc|cvv)|cvc|cvv|csc|expir|\biban\b|\bbic\b|swift|routing|account.?(no|num|number)|sort.?code|billing.?(card|account)/i;

/** Why a field's value must never be copied (a secret, payment data), or undefined when it may be. */
export function sensitiveReason(field: FieldFacts): string | undefined {
  const type = field.type?.toLowerCase();
  if (type === 'password') return 'a password field';
  const autocomplete = field.autocomplete?.toLowerCase() ?? '';
  if (/(current|new)-password|one-time-code/.test(autocomplete)) return 'a password or one-time-code field (autocomplete)';
  if (/\bcc-/.test(autocomplete)) return 'a payment card field (autocomplete)';
  const words = [field.name, field.id, field.label, field.placeholder, field.ariaLabel].filter((w): w is string => typeof w === 'string' && w.length > 0).join(' ');
  if (SECRET_WORDS.test(words)) return 'its name or label suggests a secret';
  if (PAYMENT_WORDS.test(words)) return 'its name or label suggests payment data';
  return undefined;
}

/** posthog-js masks typed text as one `*` per character (maskAllInputs, the default). */
export function isMasked(value: string): boolean {
  return value.length > 0 && /^\*+$/.test(value);
}

/** Names and labels of fields that hold a quantity. */
const QUANTITY_WORDS = /\b(?:qty|quantity|amount|count|guests|tickets|seats|pieces|items|age|adults|children|nights)\b/;

/** A field that takes a number: what it holds is a quantity, not a person's words. */
export function numberish(field: FieldFacts | undefined): boolean {
  if (!field) return false;
  const type = field.type?.toLowerCase() ?? '';
  if (type === 'number' || type === 'range') return true;
  if (field.inputmode === 'numeric' || field.inputmode === 'decimal') return true;
  if (field.pattern && /^\^?(?:\\d|\[0-9\])(?:\{\d+(?:,\d*)?\}|[+*])?\$?$/.test(field.pattern)) return true;
  return QUANTITY_WORDS.test(`${field.name ?? ''} ${field.id ?? ''} ${field.label ?? ''}`.toLowerCase());
}

/** A neutral value of the field's kind, so forms that validate their input still accept it. */
export function neutralValue(field: FieldFacts): string {
  const type = field.type?.toLowerCase() ?? '';
  const autocomplete = field.autocomplete?.toLowerCase() ?? '';
  const words = `${field.name ?? ''} ${field.id ?? ''} ${field.label ?? ''} ${field.placeholder ?? ''} ${autocomplete}`.toLowerCase();
  if (type === 'email' || /e-?mail/.test(words)) return 'user@example.test';
  if (type === 'password' || /pass/.test(words)) return 'Example-Passw0rd';
  if (/cc-number|card.?(no|num)|card\b/.test(words)) return '4111 1111 1111 1111';
  if (/cvc|cvv|csc|security.?code/.test(words)) return '123';
  if (/exp/.test(words)) return '12/30';
  if (type === 'tel' || /phone|mobile|\btel\b/.test(words)) return '+1 555 0100';
  if (type === 'url' || /website|\burl\b/.test(words)) return 'https://example.test';
  if (type === 'number' || type === 'range') return '1';
  // A field that takes a number (inputmode, a digits pattern, a quantity): a number, or a validating form refuses it.
  const digits = field.pattern?.match(/^\^?(?:\\d|\[0-9\])\{(\d+)(?:,\d*)?\}\$?$/);
  if (digits) return '1'.repeat(Math.min(20, Math.max(1, Number(digits[1]))));
  if (field.inputmode === 'numeric' || field.inputmode === 'decimal' || (field.pattern && /^\^?(?:\\d|\[0-9\])[+*]\$?$/.test(field.pattern))) return '1';
  if (QUANTITY_WORDS.test(words)) return '1';
  if (type === 'date') return '2024-01-01';
  if (type === 'time') return '12:00';
  if (type === 'datetime-local') return '2024-01-01T12:00';
  if (type === 'month') return '2024-01';
  if (type === 'color') return '#336699';
  if (/zip|postal|postcode/.test(words)) return '10001';
  if (/name/.test(words)) return 'Test User';
  if (type === 'search' || /search|query|\bq\b/.test(words)) return 'test';
  if (field.tag === 'textarea') return 'Test message';
  return 'test';
}

/** REPRO_<WORDS>, from the field's name, id, label or type, unique among `taken`. */
export function envName(field: FieldFacts, taken: Set<string>): string {
  const source = [field.name, field.id, field.label, field.placeholder, field.ariaLabel, field.type, field.tag].find((w) => typeof w === 'string' && /[A-Za-z0-9]/.test(w))!;
  const words = source
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 28)
    .replace(/_+$/, '');
  const base = `REPRO_${words || 'VALUE'}`;
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

export interface Placeholder {
  env: string;
  /** What the test uses when the variable is not set. */
  default: string;
  /** The field, as the test addresses it. */
  field: string;
  /**
   * How the default was chosen: neutral, copied (asked for), one of the page's options, the
   * recorded option because the journey needs it, or a word of the page (a search's result).
   */
  source: 'neutral' | 'copied' | 'page-option' | 'recorded-option' | 'page-text';
  /** The spec computes the default when it runs (a date counted from its day): this expression, `default` being its value on the recording's day. */
  expression?: string;
  /** What `expression` counts from, in words. */
  relative?: string;
  /** A select option with no value attribute: chosen by its label. */
  byLabel?: true;
  /** Why the recorded value could not be copied, when copying was asked for. */
  withheld?: string;
}

/**
 * The placeholder for a field the person typed into. `recorded` is the last value the recording
 * holds (masked or not); it is used only when `copy` is asked for and nothing forbids it.
 */
export function placeholderFor(field: FieldFacts, recorded: string | undefined, copy: boolean, selector: string, taken: Set<string>): Placeholder {
  const env = envName(field, taken);
  const base = { env, default: neutralValue(field), field: selector, source: 'neutral' as const };
  if (!copy) return base;
  const sensitive = sensitiveReason(field);
  if (sensitive) return { ...base, withheld: `not copied: ${sensitive}` };
  if (recorded === undefined || recorded === '') return { ...base, withheld: 'not copied: the recording holds no value' };
  if (isMasked(recorded)) return { ...base, withheld: 'not copied: masked in the recording' };
  return { ...base, default: recorded, source: 'copied' };
}

const EMAIL = /[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[A-Za-z]{2,}/g;

/** Where the first run of `text` shaped like an email address starts, or -1. */
export function emailIndex(text: string): number {
  return text.search(EMAIL);
}

/**
 * Recorded text the test quotes (a console message, an exception, a heading) with what the
 * person typed taken out: the values the recording holds in clear and their words, however short
 * (typedAt), and anything shaped like an email address. Says whether it changed anything.
 */
export function scrubText(text: string, typed: ReadonlySet<string>): { text: string; scrubbed: boolean } {
  let out = text;
  for (const part of typedParts(typed)) {
    for (let at = typedAt(out, part), n = 0; at !== -1 && n < 50; at = typedAt(out, part), n++) out = `${out.slice(0, at)}…${out.slice(at + part.length)}`;
  }
  out = out.replace(EMAIL, '…@…');
  return { text: out, scrubbed: out !== text };
}

/**
 * What must not be written from what the person typed: each value the recording holds in clear
 * and each of its words, of any length, so that a page echoing part of a name ("Thank you,
 * Marcus!", "QA Bot" for "QA") is caught as well as the whole.
 */
export function typedParts(values: Iterable<string>): string[] {
  const parts = new Set<string>();
  for (const value of values) {
    if (isMasked(value)) continue;
    const whole = value.trim().toLowerCase();
    // Punctuation alone ("'", "-") is no one's words, and would match every page.
    if (WORD_CHAR.test(whole)) parts.add(whole);
    for (const word of whole.split(/[^\p{L}\p{N}]+/u)) if (word !== '') parts.add(word);
  }
  return [...parts];
}

/**
 * Where page text holds a typed part (lower case), or -1. A part of three characters or more counts
 * anywhere (a name inside "Marcus's"); a shorter one only as a word of its own, since two letters
 * turn up inside most words ("qa" in "aqua") while "QA" on its own is the person's.
 */
export function typedAt(text: string, part: string): number {
  const lower = text.toLowerCase();
  if (part.length >= 3) return lower.indexOf(part);
  for (let at = lower.indexOf(part); at !== -1; at = lower.indexOf(part, at + 1)) {
    if (!WORD_CHAR.test(lower.charAt(at - 1)) && !WORD_CHAR.test(lower.charAt(at + part.length))) return at;
  }
  return -1;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Whether page text holds part of a typed value or anything shaped like an email address. */
export function echoesTyped(text: string, parts: readonly string[]): boolean {
  if (emailIndex(text) !== -1) return true;
  return parts.some((part) => typedAt(text, part) !== -1);
}

/** A query parameter whose value a person types (a search, a name, an address), known by its name. */
export const TYPED_PARAM = /^(?:q|query|search|s|term|terms|keywords?|k|text|name|first_?name|last_?name|full_?name|e_?mail|phone|tel|mobile|address|street|city|zip|postcode|postal_?code|user(?:name)?|login|message|comment)$/i;

/**
 * The placeholder for a value in a page's query. A typed one (a parameter named like one, or like
 * a field the journey typed into) is the person's: a neutral default, or the recorded value with
 * `copy`. A short number is the page's own (an id, a page number) and is kept, so the page opens
 * as it did; anything else gets a neutral default, since words in a link can still be personal.
 */
export function queryPlaceholder(name: string, value: string, typed: boolean, copy: boolean, taken: Set<string>): Placeholder {
  const field: FieldFacts = { tag: 'input', name };
  if (typed || sensitiveReason(field) !== undefined || !/^\d{1,8}$/.test(value)) return placeholderFor(field, value, copy, '', taken);
  return { env: envName(field, taken), default: value, field: '', source: 'page-option' };
}
