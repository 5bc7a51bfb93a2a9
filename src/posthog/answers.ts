/**
 * PostHog's other answers, as its API sends them (docs/posthog-api.md, "Snapshots", "The query API" and "Recording filters"): the snapshot
 * sources listing, the query API's HogQL result, the organization, the user and the key, event and
 * property definitions and a property's values, and the internal matching-events and properties
 * endpoints. One zod schema each, in the manner of resources.ts: fields not named are kept, a
 * variant type is read as the declared one or becomes null. The operations (operations/) parse
 * every answer with these, once; what leaves an answer unusable is refused there.
 */
import { z } from 'zod';
import { asText } from '../words.js';
import { field } from './resources.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A nested object, null when PostHog sent another type. */
const nested = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === undefined || v === null || isObject(v) ? v : null), schema.nullable()).optional();

// --- Snapshots -------------------------------------------------------------------------------

/**
 * One source of a recording's snapshot data: every field present, null when PostHog did not say
 * (the snapshots tool lists sources as they are). A key sent as a number is read as its text.
 */
export const snapshotSourceSchema = z.object({
  source: z.string(),
  blob_key: z.preprocess((v) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null), z.string().nullable()),
  start_timestamp: z.string().nullable().catch(null),
  end_timestamp: z.string().nullable().catch(null),
});
export type SnapshotSource = z.output<typeof snapshotSourceSchema>;

/** The sources listing: a `sources` list (an item that is no source is left out, operations/snapshots.ts). */
export const snapshotListingSchema = z.looseObject({ sources: z.array(z.unknown()) });

// --- The query API ---------------------------------------------------------------------------

/** A HogQL result: column names, and the rows as lists in their order. */
export const hogqlResultSchema = z.looseObject({
  columns: z.array(z.string()),
  results: z.array(z.array(z.unknown())),
  hasMore: z.unknown().optional(),
});

// --- Organization, user, key -----------------------------------------------------------------

/** The organization (plan.ts reads its `available_product_features`). */
export const organizationSchema = z.looseObject({
  id: field.text(),
  name: field.text(),
  /** A list of `{key, limit, unit, …}`; read as sent, plan.ts judges it. */
  available_product_features: field.json(),
});
export type Organization = z.output<typeof organizationSchema>;

/** The key's user (`/api/users/@me/`): who, in which organization, and the current project. */
export const userSchema = z.looseObject({
  email: field.text(),
  organization: nested(z.looseObject({ id: field.text(), name: field.text() })),
  team: nested(z.looseObject({ id: field.int(), name: field.text() })),
});
export type User = z.output<typeof userSchema>;

/** The personal API key itself (`/api/personal_api_keys/@current/`): its scopes, and the projects it is limited to. */
export const personalApiKeySchema = z.looseObject({
  scopes: field.strings(),
  scoped_teams: z.preprocess((v) => (Array.isArray(v) ? v.filter((t) => typeof t === 'number') : v === undefined || v === null ? v : null), z.array(z.number()).nullable()).optional(),
});
export type PersonalApiKey = z.output<typeof personalApiKeySchema>;

// --- Definitions -----------------------------------------------------------------------------

/** An event definition: the event's name. */
export const eventDefinitionSchema = z.looseObject({ id: field.text(), name: field.text() });
export type EventDefinition = z.output<typeof eventDefinitionSchema>;

/** A property definition: its key, and the type PostHog gives its values (String, Numeric, Boolean, DateTime). */
export const propertyDefinitionSchema = z.looseObject({ id: field.text(), name: field.text(), property_type: field.text() });
export type PropertyDefinition = z.output<typeof propertyDefinitionSchema>;

/** One of a property's common values, with how often it occurs where PostHog counts (persons). */
export const propertyValueSchema = z
  .looseObject({ name: z.unknown(), count: z.number().optional().catch(undefined) })
  .refine((value) => 'name' in value);
export type PropertyValue = z.output<typeof propertyValueSchema>;

/** The values answer: a bare list (the only shape seen so far), or a `{results}` page; anything else holds none. */
export const propertyValuesSchema = z
  .union([z.array(z.unknown()), z.looseObject({ results: z.array(z.unknown()) }).transform((page) => page.results)])
  .catch([]);

// --- The internal recordings endpoints (older self-hosted PostHog) ----------------------------

/** `{results: [...]}`; without a list, no results. */
export const resultsListSchema = z.looseObject({ results: z.array(z.unknown()).catch([]) });

/** A match: its event's name and the page it happened on, where known (the internal endpoint answers uuid and time only). */
export type Match = { uuid: string | null; timestamp: string | null; event?: string | null; url?: string | null };

const textOrNull = (value: unknown) => (value !== null && value !== undefined ? asText(value) : null);

/** Newer PostHog answers {uuid, timestamp}; older builds sent raw rows [uuid, timestamp, …]. */
export const matchSchema = z.unknown().transform((row): Match => {
  if (Array.isArray(row)) return { uuid: textOrNull(row[0]), timestamp: textOrNull(row[1]) };
  const record = (isObject(row) ? row : {}) as Record<string, unknown>;
  return { uuid: textOrNull(record.uuid), timestamp: textOrNull(record.timestamp) };
});

/** A session's properties, as 2024's properties endpoint gave them. */
export type SessionProperties = { id: string; properties: Record<string, unknown> };

export const sessionPropertiesSchema = z
  .looseObject({ id: z.unknown().optional(), session_id: z.unknown().optional(), properties: z.unknown().optional() })
  .transform((r): SessionProperties => ({ id: asText(r.id ?? r.session_id), properties: isObject(r.properties) ? r.properties : {} }));
