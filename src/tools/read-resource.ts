// Reading PostHog's answer with its resource schema (posthog/resources.ts) once, where the answer
// arrives, for the tools that return the resource as their structured view.
import type { z } from 'zod';
import { UpstreamUnavailableError } from '../errors.js';

/** The answer as the resource; one without an id (or not an object) is none, said so. */
export function readResource<T extends z.ZodType>(schema: T, raw: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new UpstreamUnavailableError('malformed', `PostHog answered with ${what} that has no id; check POSTHOG_HOST points at the PostHog app.`);
  return parsed.data;
}

/** A list page's rows as resources; a row that is none (no id) is left out, as no next call could name it. */
export function readRows<T extends z.ZodType>(schema: T, rows: readonly unknown[]): Array<z.output<T>> {
  return rows.flatMap((row) => {
    const parsed = schema.safeParse(row);
    return parsed.success ? [parsed.data] : [];
  });
}
