import { z } from 'zod';

/**
 * A moment in a recording as the replay and snapshots tools take it: seconds from the recording's
 * start ("95", 95), a digest clock ("1:35", "1:02:03", as digest lines say `start_at`) or an ISO
 * timestamp. One parser, so a time the digest names opens the same moment in either tool.
 */
export type StartAt = { kind: 'offset'; ms: number } | { kind: 'time'; at: number };

const CLOCK = /^(?:(\d{1,3}):)?(\d{1,4}):([0-5]\d)(?:\.\d+)?$/;
const SECONDS = /^\d{1,7}(?:\.\d+)?$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?$/;

/** The forms, as a refusal names them. */
export const TIME_FORMS = 'seconds into the recording ("95"), a digest clock ("1:35"), or an ISO timestamp ("2026-11-20T10:15:31Z")';

export function parseStartAt(value: string | undefined): StartAt | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (SECONDS.test(text)) return { kind: 'offset', ms: Math.round(Number(text) * 1000) };
  const clock = CLOCK.exec(text);
  if (clock) return { kind: 'offset', ms: ((Number(clock[1] ?? 0) * 60 + Number(clock[2])) * 60 + Number(clock[3])) * 1000 };
  if (ISO.test(text) && !Number.isNaN(Date.parse(text))) return { kind: 'time', at: Date.parse(text) };
  return undefined;
}

/** A time field named `name` in one of those forms (a non-negative number is taken as seconds). */
export function timeField(name: string, description: string) {
  return z
    .preprocess(
      (v) => (v === null ? undefined : typeof v === 'number' && Number.isFinite(v) && v >= 0 ? String(v) : v),
      z
        .string()
        .max(40)
        .refine((v) => parseStartAt(v) !== undefined, `${name} must be ${TIME_FORMS}`),
    )
    .optional()
    .describe(description);
}

/** Milliseconds from the recording's start (`start`, epoch ms) of a parsed time. */
export function offsetOf(at: StartAt, start: number): number {
  return at.kind === 'offset' ? at.ms : at.at - start;
}
