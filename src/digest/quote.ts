/**
 * Line and paragraph separators and NEL (some readers break lines there) and the bidirectional
 * controls and marks (which can make text read differently than it is).
 */
const INVISIBLE = /[\u0085\u061c\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Recorded strings as JSON string literals, for the model to read as data. Beyond JSON's own
 * escapes, the INVISIBLE characters are escaped too.
 */
export function quote(text: string): string {
  return JSON.stringify(text).replace(INVISIBLE, escape);
}

/**
 * A recorded string as a plain value of a structured view: the INVISIBLE characters written as
 * their escapes (`\u202e` as six characters), which JSON.stringify leaves raw, so the structured
 * view reads as the quoted text does.
 */
export function unbidi(text: string): string {
  return text.replace(INVISIBLE, escape);
}
