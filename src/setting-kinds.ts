/**
 * What one setting is (where it is read from, what it accepts, its default) and the kinds of value
 * settings take: on/off, a whole number in a range, one word of a list, a comma list. Below the
 * settings table (settings.ts, http-settings.ts) and config.ts, which reads it.
 */

import { didYouMean } from './words.js';

/**
 * Thrown by a setting's parser: the value is not one it accepts (`message`, when given, says why
 * or what was meant). `public`: a secret setting's value that is no secret (a documented
 * placeholder), so it may be shown.
 */
export class Refused extends Error {
  constructor(
    message?: string,
    readonly isPublic = false,
  ) {
    super(message);
  }
}

export function refuse(message?: string): never {
  throw new Refused(message);
}

export interface Setting<T> {
  /** Environment variable. */
  env?: string;
  /** Command-line flag. */
  flag?: string;
  /** For an on/off flag: the value its presence sets (the flag takes no argument). */
  flagValue?: T;
  /** What the setting accepts, in words, for errors, --help and docs. */
  accepted: string;
  fallback: T;
  /** Reads a non-empty value; throws Refused for anything it does not accept. */
  parse: (raw: string, warn: (message: string) => void) => T;
  /** Never echoed in errors (a key, a token, a URL that may hold a password). */
  secret?: boolean;
  /** The flags under which the setting takes effect, when not always (for docs and the table's test). */
  appliesWith?: readonly string[];
}

export function setting<T>(spec: Setting<T>): Setting<T> {
  return spec;
}

/** The values a table of settings reads to, by name. */
export type ValuesOf<Table> = { [K in keyof Table]: Table[K] extends Setting<infer T> ? T : never };

const YES = ['1', 'true', 'yes', 'on'];
const NO = ['0', 'false', 'no', 'off'];

/** On/off: 1/true/yes/on or 0/false/no/off in any case, nothing else (a safety switch must not read "maybe" as off). */
export function onOff(fallback: boolean): Pick<Setting<boolean>, 'accepted' | 'fallback' | 'parse'> {
  return {
    accepted: '1, true, yes, on or 0, false, no, off (any case)',
    fallback,
    parse: (raw) => {
      const word = raw.toLowerCase();
      if (YES.includes(word)) return true;
      if (NO.includes(word)) return false;
      throw new Refused();
    },
  };
}

export function wholeNumber(fallback: number, min: number, max: number, unit = ''): Pick<Setting<number>, 'accepted' | 'fallback' | 'parse'> {
  return {
    accepted: `a whole number from ${min} to ${max}${unit}`,
    fallback,
    parse: (raw) => {
      if (!/^\d{1,16}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new Refused();
      return Number(raw);
    },
  };
}

export function oneOf<const T extends string>(values: readonly T[], fallback: T): Pick<Setting<T>, 'accepted' | 'fallback' | 'parse'> {
  return {
    accepted: values.map((v) => `"${v}"`).join(' or '),
    fallback,
    parse: (raw) => {
      const hit = values.find((v) => v === raw.toLowerCase());
      if (hit === undefined) throw new Refused(didYouMean(raw, values));
      return hit;
    },
  };
}

/** A comma list's entries, trimmed and lower-cased, empty ones dropped. */
export function splitList(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}
