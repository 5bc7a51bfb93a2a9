import { eventDefinitionSchema, propertyDefinitionSchema, propertyValueSchema, propertyValuesSchema, type EventDefinition, type PropertyDefinition, type PropertyValue } from '../answers.js';
import type { PostHogClient } from '../client.js';
import type { Page } from '../pagination.js';
import { apiPath, encodePlainQuery } from '../query.js';
import type { CallOptions } from './options.js';
import { parseItems, parsePage } from './parse.js';

export type { EventDefinition, PropertyDefinition, PropertyValue };

export interface DefinitionQuery {
  /** Names containing every word. */
  search?: string | undefined;
  limit: number;
  offset: number;
}

/** What a project's events and properties are called, and a property's common values (docs/filter-options.md). */
export interface DefinitionOperations {
  /** Event names, one page. */
  events(projectId: string, query: DefinitionQuery, options?: CallOptions): Promise<Page<EventDefinition>>;
  /** Property keys of one type (event, person, session), one page. */
  properties(projectId: string, type: string, query: DefinitionQuery, options?: CallOptions): Promise<Page<PropertyDefinition>>;
  /** A property's common values, most frequent first where PostHog counts them (persons); `search` narrows them. */
  values(projectId: string, of: 'events' | 'persons', key: string, search?: string, options?: CallOptions): Promise<PropertyValue[]>;
}

export function definitionOperations(client: PostHogClient): DefinitionOperations {
  return {
    async events(projectId, query, options = {}) {
      const path = apiPath('projects', projectId, 'event_definitions') + encodePlainQuery({ search: query.search, limit: query.limit, offset: query.offset });
      return parsePage(eventDefinitionSchema, await client.json({ method: 'GET', path, signal: options.signal, meter: options.meter }), query.offset, 'event definitions', query.limit);
    },

    async properties(projectId, type, query, options = {}) {
      const path = apiPath('projects', projectId, 'property_definitions') + encodePlainQuery({ type, search: query.search, limit: query.limit, offset: query.offset });
      return parsePage(propertyDefinitionSchema, await client.json({ method: 'GET', path, signal: options.signal, meter: options.meter }), query.offset, 'property definitions', query.limit);
    },

    async values(projectId, of, key, search, options = {}) {
      // A bare list (the only shape read so far); a {results} envelope is taken too, should PostHog page it.
      const body = await client.json({ method: 'GET', path: apiPath('projects', projectId, of, 'values') + encodePlainQuery({ key, value: search }), signal: options.signal, meter: options.meter, expect: 'data' });
      return parseItems(propertyValueSchema, propertyValuesSchema.parse(body));
    },
  };
}
