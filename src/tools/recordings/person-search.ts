import { z } from 'zod';
import { UpstreamError, isAnswerableFailure } from '../../errors.js';
import type { FoundPerson, PostHogOperations } from '../../posthog/operations/index.js';
import { clip } from '../../words.js';
import { tallyUnrecorded, type UnrecordedTally } from './sequence.js';

/**
 * `person` (docs/design.md, "Filters, sequences and people", issue 40): an email, a name or a distinct id, found in the project with every
 * distinct id the person had (anonymous ones included: segments.findPersons reads
 * person_distinct_ids), or, failing that, in the other projects the key reads.
 */

export const personField = z
  .string()
  .trim()
  .min(1)
  .max(400)
  .describe('Email, name or distinct id: all their recordings (every distinct id). Not here: names the project that has them.');

/** Most other projects searched for a person this project lacks (one query each). */
const MAX_OTHER_PROJECTS = 20;

export interface PersonElsewhere {
  project_id: number;
  project_name: string | null;
  people: FoundPerson[];
}

export type PersonResolution =
  | { kind: 'found'; people: FoundPerson[] }
  | { kind: 'elsewhere'; projects: PersonElsewhere[]; searched: number }
  | { kind: 'nowhere'; searched: number };

/** Whether an error means "this project cannot be searched" (no access, no query API there) rather than a failed call. */
function unsearchable(error: unknown): boolean {
  return error instanceof UpstreamError && [400, 403, 404].includes(error.status);
}

/** The person in the project, else the other projects (of the key's organization) that have them. */
export async function resolvePerson(posthog: PostHogOperations, projectId: string, search: string, signal?: AbortSignal): Promise<PersonResolution> {
  const people = await posthog.segments.findPersons(projectId, search, { signal });
  if (people.length > 0) return { kind: 'found', people };
  const own = await posthog.projects.numericId(projectId, { signal });
  const listed = await posthog.projects.list({ limit: 100, offset: 0 }, { signal });
  const others = listed.results.filter((p) => String(p.id) !== own).slice(0, MAX_OTHER_PROJECTS);
  const projects: PersonElsewhere[] = [];
  let searched = 0;
  for (const project of others) {
    try {
      const found = await posthog.segments.findPersons(String(project.id), search, { signal });
      searched++;
      if (found.length > 0) projects.push({ project_id: Number(project.id), project_name: typeof project.name === 'string' ? project.name : null, people: found });
    } catch (error) {
      if (!unsearchable(error)) throw error;
    }
  }
  return projects.length > 0 ? { kind: 'elsewhere', projects, searched } : { kind: 'nowhere', searched };
}

/** The list's parameters that pick the people's recordings: one person by uuid; several by their distinct ids. */
export function personParams(people: readonly FoundPerson[]): { person_uuid?: string; distinct_ids?: string[] } {
  if (people.length === 1) return { person_uuid: people[0]!.uuid };
  return { distinct_ids: [...new Set(people.flatMap((p) => p.distinctIds))].slice(0, 100) };
}

/** What the list says of the people's sessions that have events but no recording. */
export interface PersonUnrecorded extends Partial<UnrecordedTally> {
  /** Why the numbers are a floor, or were not counted at all. */
  partial?: string;
}

/**
 * The people's sessions in the period with events but no recording, counted by the reason their
 * events give (one query). A failed query leaves the list as it is and says why nothing was counted.
 */
export async function personUnrecorded(posthog: PostHogOperations, projectId: string, people: readonly FoundPerson[], period: { from: Date; to: Date }, signal?: AbortSignal): Promise<PersonUnrecorded> {
  try {
    const answer = await posthog.segments.personUnrecorded(projectId, { personUuids: people.map((p) => p.uuid), from: period.from, to: period.to }, { signal });
    return { ...tallyUnrecorded(answer.sessions), ...(answer.truncated ? { partial: `PostHog cut the query at ${answer.sessions.length} sessions: the numbers are a floor; narrow the dates.` } : {}) };
  } catch (error) {
    if (!isAnswerableFailure(error, signal)) throw error;
    const why = error instanceof UpstreamError && error.status === 429 ? `the query API is rate limiting this key${error.retryAfterSeconds !== undefined ? ` (retry in about ${Math.ceil(error.retryAfterSeconds)} s)` : ''}` : clip(posthog.redact(error.message), 160);
    return { partial: `Sessions without a recording not counted: ${why}.` };
  }
}
