// The people of a generated project. posthog-js makes person profiles for identified users only
// (its default `person_profiles: 'identified_only'`), so an anonymous visitor has no row in
// `persons`: their events carry the person id PostHog derives from the distinct id, which is also
// what the recordings list shows for them. An identified person keeps every distinct id they had:
// the anonymous id of each device they logged in from, then their own.

import type { DatedPersonSeed, PersonRecord } from '../project-data.js';
import { teamNamespace, uuidV5 } from '../util.js';
import { DEVICES, EMAIL_DOMAINS, FIRST_NAMES, LAST_NAMES, PLACES, type DeviceProfile } from './catalog.js';
import type { Random } from './random.js';

const DAY = 86_400_000;

/** Returning customers were identified before the week; new ones identify during it; anonymous ones never do. */
export type PersonKind = 'returning' | 'new' | 'anonymous';

export interface ScalePerson {
  kind: PersonKind;
  /** The person as HogQL reads it (an anonymous visitor's: the derived id, no properties, not in `persons`). */
  record: PersonRecord;
  /** What a recording shows as its person (null: PostHog's placeholder for a distinct id without a person). */
  seed: DatedPersonSeed | null;
  identifiedId: string | null;
  /** One anonymous id per device. */
  anonIds: string[];
  devices: DeviceProfile[];
  place: readonly [string, string, string];
  email: string | null;
  name: string | null;
  sessionCount: number;
}

const SESSIONS: ReadonlyArray<readonly [number, number]> = [
  [1, 70],
  [2, 16],
  [3, 7],
  [4, 3],
  [5, 2],
  [6, 1],
  [8, 1],
];
const ANONYMOUS_SESSIONS: ReadonlyArray<readonly [number, number]> = [
  [1, 84],
  [2, 11],
  [3, 5],
];

export interface PeopleOptions {
  projectId: number;
  count: number;
  weekStartMs: number;
  /** Share of people of each kind. */
  kinds: ReadonlyArray<readonly [PersonKind, number]>;
  /** Identified ids: `cus_12345` in the shop, `hc_…` in the help centre. */
  idPrefix: string;
  emails: Set<string>;
  /** People (ids) already taken in another project, so the two do not share a customer number. */
  firstNumber: number;
}

function uniqueEmail(rng: Random, first: string, last: string, taken: Set<string>): string {
  const base = `${first}.${last}`.toLowerCase().normalize('NFD').replace(/[^a-z.]/g, '');
  for (let n = 0; ; n++) {
    const email = `${base}${n === 0 ? '' : n + 1}@${rng.pick(EMAIL_DOMAINS)}`;
    if (!taken.has(email)) {
      taken.add(email);
      return email;
    }
  }
}

export function makePeople(rng: Random, options: PeopleOptions): ScalePerson[] {
  const people: ScalePerson[] = [];
  for (let i = 0; i < options.count; i++) {
    const kind = rng.weighted(options.kinds);
    const sessionCount = rng.weighted(kind === 'anonymous' ? ANONYMOUS_SESSIONS : SESSIONS);
    const devices = [rng.weighted(DEVICES)];
    if (kind !== 'anonymous' && sessionCount >= 2 && rng.chance(0.35)) {
      const other = rng.weighted(DEVICES);
      devices.push(other === devices[0] ? DEVICES[(DEVICES.findIndex(([d]) => d === other) + 1) % DEVICES.length]![0] : other);
    }
    const place = rng.weighted(PLACES);
    const firstSeen = kind === 'returning' ? options.weekStartMs - rng.int(20, 400) * DAY - rng.int(0, DAY / 1000) * 1000 : options.weekStartMs;
    const anonIds = devices.map(() => rng.uuidV7(firstSeen + rng.int(0, 3_600_000)));
    if (kind === 'anonymous') {
      const uuid = uuidV5(teamNamespace(options.projectId), anonIds[0]!);
      people.push({
        kind,
        record: { uuid, id: 0, createdMs: firstSeen, properties: {}, distinctIds: anonIds, isIdentified: false },
        seed: null,
        identifiedId: null,
        anonIds,
        devices,
        place,
        email: null,
        name: null,
        sessionCount,
      });
      continue;
    }
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    const email = uniqueEmail(rng, first, last, options.emails);
    const name = `${first} ${last}`;
    const identifiedId = `${options.idPrefix}${options.firstNumber + i}`;
    const d = devices[0]!;
    const properties: Record<string, unknown> = {
      email,
      name,
      ...(kind === 'returning' ? { customer_tier: rng.weighted([['standard', 6], ['silver', 3], ['gold', 1]] as const), orders_count: rng.int(1, 14) } : { orders_count: 0 }),
      $initial_browser: d.browser,
      $initial_os: d.os,
      $initial_device_type: d.deviceType,
      $geoip_country_code: place[0],
      $geoip_country_name: place[1],
      $geoip_city_name: place[2],
    };
    // A new person's profile is made when they identify; their record is dated then (population.ts).
    const record: PersonRecord = { uuid: rng.uuidV7(firstSeen), id: 300_000_000 + options.projectId * 10_000 + i, createdMs: firstSeen, properties, distinctIds: [...anonIds, identifiedId], isIdentified: true };
    people.push({
      kind,
      record,
      seed: { id: record.id, uuid: record.uuid, distinctIds: [...record.distinctIds], createdDaysAgo: 0, createdMs: firstSeen, properties },
      identifiedId,
      anonIds,
      devices,
      place,
      email,
      name,
      sessionCount,
    });
  }
  return people;
}

/** Dates an identified person's record (and what recordings show) at `ms`: when their profile was made. */
export function datePerson(person: ScalePerson, ms: number): void {
  const createdMs = Math.floor(ms / 1000) * 1000;
  person.record.createdMs = createdMs;
  if (person.seed) person.seed.createdMs = createdMs;
}
