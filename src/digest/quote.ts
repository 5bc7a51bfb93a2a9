/**
 * Recorded strings as JSON string literals, for the model to read as data. Beyond JSON's own
 * escapes, line and paragraph separators (which some readers treat as line breaks) and the
 * bidirectional controls (which can make text read differently than it is) are escaped too.
 */
export function quote(text: string): string {
  return JSON.stringify(text).replace(/[\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
