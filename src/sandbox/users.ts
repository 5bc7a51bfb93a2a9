// Who the sandbox key belongs to: /api/users/@me/, /api/personal_api_keys/@current and the
// organization, /api/organizations/{id|@current}/. Clients that find their organization, project
// and scopes before anything else (PostHog's own agent toolkit does) ask these first. All are
// trimmed to the fields such clients read, in PostHog's shapes (UserSerializer,
// PersonalAPIKeySerializer, OrganizationSerializer).

import { ORGANIZATION, SANDBOX_USER } from './demo/catalog.js';
import { errors, json, type Reply } from './http.js';
import { projectListItem } from './project-object.js';
import { RETENTION_FEATURE } from './retention-plan.js';
import type { RequestContext } from './state.js';
import { drfDate } from './util.js';

const DAY = 86_400_000;
/** PostHog gives each user a random distinct id at sign-up; this one is fixed. */
const DISTINCT_ID = 'HlV0nP3sZq8eKxW2mT6yRb1cJf4uGd7aLo9iNh5kEwQ';
const KEY_ID = '01928f3c-6b40-7e21-9a3c-4d5e6f7a8b90';
/** The user signed up when the organization was made. */
const JOINED_DAYS_AGO = 430;

/** `/api/users/@me/`: the key owner, their current project (`team`) and organization. */
export function currentUser(ctx: RequestContext, who: string): Reply {
  if (who !== '@me') throw errors.notFound();
  const { state } = ctx;
  const projects = [...state.projects.values()].sort((a, b) => a.id - b.id);
  const current = state.currentProjectId === null ? undefined : state.projects.get(state.currentProjectId);
  const joined = drfDate(state.clock() - JOINED_DAYS_AGO * DAY);
  return json(200, {
    date_joined: joined,
    uuid: SANDBOX_USER.uuid,
    distinct_id: DISTINCT_ID,
    first_name: SANDBOX_USER.first_name,
    last_name: '',
    email: SANDBOX_USER.email,
    pending_email: null,
    is_email_verified: true,
    id: SANDBOX_USER.id,
    is_staff: false,
    is_impersonated: false,
    team: current ? { ...projectListItem(current), project_id: current.id } : null,
    organization: {
      id: ORGANIZATION.id,
      name: ORGANIZATION.name,
      slug: slug(ORGANIZATION.name),
      created_at: joined,
      membership_level: 15,
      projects: projects.map((p) => ({ id: p.id, name: p.name, organization_id: ORGANIZATION.id })),
      teams: projects.map(projectListItem),
    },
    organizations: [
      { id: ORGANIZATION.id, name: ORGANIZATION.name, slug: slug(ORGANIZATION.name), logo_media_id: null, membership_level: 15, members_can_use_personal_api_keys: true },
    ],
    is_2fa_enabled: false,
    has_social_auth: false,
  });
}

/**
 * `/api/personal_api_keys/@current`: the key the request was made with, masked as PostHog masks
 * it, with the scopes the sandbox enforces (SandboxOptions.scopes), unscoped to projects or
 * organizations.
 */
export function currentPersonalApiKey(ctx: RequestContext, which: string): Reply {
  if (which !== '@current') throw errors.notFound();
  const key = /^Bearer\s+(\S+)/.exec(String(ctx.headers.authorization ?? ''))?.[1] ?? '';
  const now = ctx.state.clock();
  return json(200, {
    id: KEY_ID,
    label: 'Sandbox demo key',
    mask_value: `${key.slice(0, 4)}...${key.slice(-4)}`,
    created_at: drfDate(now - 90 * DAY),
    last_used_at: drfDate(now),
    last_rolled_at: null,
    user_id: SANDBOX_USER.id,
    scopes: [...ctx.options.scopes],
    scoped_teams: [],
    scoped_organizations: [],
  });
}

/**
 * `/api/organizations/{id}/` (or `@current`): the demo organization, with the plan's features in
 * `available_product_features`, where PostHog states the longest replay retention it allows.
 */
export function organization(ctx: RequestContext, which: string): Reply {
  if (which !== ORGANIZATION.id && which !== '@current') throw errors.notFound();
  const { state } = ctx;
  const projects = [...state.projects.values()].sort((a, b) => a.id - b.id);
  const created = drfDate(state.clock() - JOINED_DAYS_AGO * DAY);
  return json(200, {
    id: ORGANIZATION.id,
    name: ORGANIZATION.name,
    slug: slug(ORGANIZATION.name),
    logo_media_id: null,
    created_at: created,
    updated_at: created,
    membership_level: 15,
    plugins_access_level: 9,
    teams: projects.map(projectListItem),
    projects: projects.map((p) => ({ id: p.id, name: p.name, organization_id: ORGANIZATION.id })),
    available_product_features: [
      { key: 'recordings_playlists', name: 'Recording saved filters', description: 'Save filters to find recordings again.', limit: null, unit: null, note: null },
      RETENTION_FEATURE,
    ],
    is_member_join_email_enabled: true,
    metadata: {},
    customer_id: null,
    enforce_2fa: null,
    members_can_invite: true,
    members_can_use_personal_api_keys: true,
    allow_publicly_shared_resources: true,
    member_count: 1,
  });
}

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}
