import type { z } from 'zod';
import { UpstreamUnavailableError } from '../../errors.js';
import { normalizePage, type Page } from '../pagination.js';

/**
 * Reading an answer once into a typed value. A loose value (fields not named kept) keeps the order
 * PostHog sent its fields in, where zod would put the named ones first: the "every other field"
 * parts of a result read as PostHog wrote them. A strict one (z.object) has the schema's order.
 */

/** What an agent reads when an answer cannot be used as `what` at all. */
export function unusable(what: string, why: string): UpstreamUnavailableError {
  return new UpstreamUnavailableError('malformed', `PostHog answered with ${what} ${why}; check POSTHOG_HOST points at the PostHog app.`);
}

/** The answer as `schema` reads it, or `refusal` (an UpstreamUnavailableError the agent can act on). */
export function parseAnswer<S extends z.ZodType>(schema: S, body: unknown, refusal: () => Error): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw refusal();
  return inSentOrder(body, parsed.data);
}

/** Each item `schema` reads; an item it cannot (not an object, no id) is left out, as a list page leaves out what is not a row. */
export function parseItems<S extends z.ZodType>(schema: S, items: readonly unknown[]): Array<z.output<S>> {
  const out: Array<z.output<S>> = [];
  for (const item of items) {
    const parsed = schema.safeParse(item);
    if (parsed.success) out.push(inSentOrder(item, parsed.data));
  }
  return out;
}

/** One page of a list (either envelope, pagination.ts), each row read with `schema`. */
export function parsePage<S extends z.ZodType>(schema: S, body: unknown, offset: number, what: string, limit?: number): Page<z.output<S>> {
  const page = normalizePage<unknown>(body, offset, what, limit);
  return { ...page, results: parseItems(schema, page.results) };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `parsed` with its fields (and its nested objects' fields) in the order `sent` has them; fields only `parsed` has last. */
function inSentOrder<T>(sent: unknown, parsed: T): T {
  if (sent === parsed || !isObject(sent) || !isObject(parsed)) return parsed;
  // A strict value: the fields it has are the schema's, in the schema's order.
  if (Object.keys(sent).some((key) => !Object.hasOwn(parsed, key))) return parsed;
  const out: Record<string, unknown> = {};
  const put = (key: string, value: unknown) => Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  for (const key of Object.keys(sent)) if (Object.hasOwn(parsed, key)) put(key, inSentOrder(sent[key], parsed[key]));
  for (const key of Object.keys(parsed)) if (!Object.hasOwn(out, key)) put(key, parsed[key]);
  return out as T;
}
