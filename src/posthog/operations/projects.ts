import { UpstreamError, UpstreamUnavailableError } from '../../errors.js';
import { organizationSchema, personalApiKeySchema, userSchema, type Organization, type PersonalApiKey, type User } from '../answers.js';
import { BudgetExceeded } from '../budget.js';
import type { PostHogClient } from '../client.js';
import type { Page } from '../pagination.js';
import { retentionCapOf, type RetentionCap } from '../plan.js';
import { apiPath, encodePlainQuery } from '../query.js';
import { projectListItemSchema, projectSchema, type Project, type ProjectListItem } from '../resources.js';
import type { CallOptions } from './options.js';
import { parseAnswer, parsePage, unusable } from './parse.js';

export type { Organization, PersonalApiKey, User };

export interface ProjectListQuery {
  limit: number;
  offset: number;
  /** Names containing this. */
  search?: string | undefined;
}

/** Projects, their organization, and who the key is (docs/posthog-api.md, "Projects"). */
export interface ProjectOperations {
  /** One page of the projects of the key owner's current organization; a row without an id is left out. */
  list(query: ProjectListQuery, options?: CallOptions): Promise<Page<ProjectListItem>>;
  /** A project by its number, or "@current". */
  get(id: number | string, options?: CallOptions): Promise<Project>;
  /** Creates a project in the key owner's organization: PostHog's answer, the project as stored. */
  create(body: Record<string, unknown>, options?: CallOptions): Promise<Project>;
  /** Changes the fields `body` names (PATCH): PostHog's answer, the project as stored. */
  update(id: number, body: Record<string, unknown>, options?: CallOptions): Promise<Project>;
  delete(id: number, options?: CallOptions): Promise<void>;
  /** The project's number ("@current" resolved with one request; a number as it is); null when it cannot be known. */
  numericId(projectId: string, options?: CallOptions): Promise<string | null>;
  organization(orgId: string, options?: CallOptions): Promise<Organization>;
  /**
   * The longest replay retention the organization's plan allows, or why it is not known. Never
   * throws for what PostHog (or whatever answers in its place) says, nor for a body that is not
   * what PostHog sends: the caller's own result must not fail because of it. Cancelling throws,
   * and so does an error that is no answer at all (a bug here, not to be hidden).
   */
  retentionCap(orgId: string, options?: CallOptions): Promise<RetentionCap>;
  /** The key's user. */
  currentUser(options?: CallOptions): Promise<User>;
  /** The key itself: its scopes and the projects it is limited to. */
  currentKey(options?: CallOptions): Promise<PersonalApiKey>;
}

export function projectOperations(client: PostHogClient): ProjectOperations {
  // The id is what every next call needs; an answer without a usable one is not a project.
  const readProject = (body: unknown) => parseAnswer(projectSchema, body, () => unusable('a project', 'that has no id (not a project this server can use)'));
  const notAnObject = (what: string) => () => unusable(what, 'that is not an object');
  const operations: ProjectOperations = {
    async list(query, options = {}) {
      const body = await client.json({ method: 'GET', path: apiPath('projects') + encodePlainQuery({ limit: query.limit, offset: query.offset, search: query.search }), signal: options.signal, meter: options.meter });
      return parsePage(projectListItemSchema, body, query.offset, 'projects list', query.limit);
    },

    async get(id, options = {}) {
      return readProject(await client.json({ method: 'GET', path: apiPath('projects', id), signal: options.signal, meter: options.meter }));
    },

    async create(body, options = {}) {
      return readProject(await client.json({ method: 'POST', path: apiPath('projects'), body, signal: options.signal, meter: options.meter }));
    },

    async update(id, body, options = {}) {
      return readProject(await client.json({ method: 'PATCH', path: apiPath('projects', id), body, signal: options.signal, meter: options.meter }));
    },

    async delete(id, options = {}) {
      await client.json({ method: 'DELETE', path: apiPath('projects', id), signal: options.signal, meter: options.meter });
    },

    async numericId(projectId, options = {}) {
      if (/^\d+$/.test(projectId)) return projectId;
      try {
        return String((await operations.get(projectId, options)).id);
      } catch {
        return null;
      }
    },

    async organization(orgId, options = {}) {
      return parseAnswer(organizationSchema, await client.json({ method: 'GET', path: apiPath('organizations', orgId), signal: options.signal, meter: options.meter }), notAnObject('an organization'));
    },

    async retentionCap(orgId, options = {}) {
      try {
        apiPath('organizations', orgId);
      } catch {
        return { unknown: "the project's organization id is not one PostHog uses" };
      }
      try {
        return retentionCapOf((await operations.organization(orgId, options)).available_product_features);
      } catch (error) {
        if (options.signal?.aborted) throw error;
        if (error instanceof UpstreamError) {
          if (error.status === 403) return { unknown: 'this key may not read the organization (it needs organization:read)' };
          if (error.status === 404) return { unknown: 'PostHog has no such organization for this key (404)' };
          return { unknown: `PostHog answered ${error.status} for the organization` };
        }
        if (error instanceof UpstreamUnavailableError) {
          if (error.kind === 'cancelled') throw error;
          if (error instanceof BudgetExceeded) return { unknown: error.reason === 'stalled' ? 'PostHog had stopped answering this call' : 'this call had no time or requests left for it' };
          if (error.kind === 'malformed') return { unknown: "the answer for the organization was not PostHog's JSON" };
          return { unknown: error.kind === 'timeout' ? 'PostHog did not answer for the organization in time' : 'PostHog could not be reached for the organization' };
        }
        throw error;
      }
    },

    async currentUser(options = {}) {
      return parseAnswer(userSchema, await client.json({ method: 'GET', path: apiPath('users', '@me'), signal: options.signal, meter: options.meter }), notAnObject('a user'));
    },

    async currentKey(options = {}) {
      return parseAnswer(personalApiKeySchema, await client.json({ method: 'GET', path: apiPath('personal_api_keys', '@current'), signal: options.signal, meter: options.meter }), notAnObject('a key'));
    },
  };
  return operations;
}
