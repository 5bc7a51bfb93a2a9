// Fixed identities of the demo data set: organization, projects, persons, recordings.
// Everything here is constant; only timestamps are derived from the sandbox clock, so a test
// can hard-code ids and a story can be found by name.

import { fixture } from './recorded.js';
import type { Device } from './timeline.js';
import type { RrwebEvent } from './rrweb.js';

export const ORGANIZATION = {
  id: '01928f3c-6a1e-7b52-9c1d-2f5e8a4b7c10',
  name: 'Acme Outdoor',
} as const;

/** The user who owns the sandbox key (what `viewed` and `deleted_by` refer to). */
export const SANDBOX_USER = {
  id: 41872,
  uuid: '01928f3c-6a2f-7c0d-8e1f-3a4b5c6d7e8f',
  email: 'demo@acme.example.com',
  first_name: 'Demo',
} as const;

export interface ProjectSeed {
  id: number;
  uuid: string;
  name: string;
  timezone: string;
  apiToken: string;
  createdDaysAgo: number;
  appUrls: string[];
  recordingDomains: string[];
  ingestedEvent: boolean;
  completedSnippetOnboarding: boolean;
  sessionRecordingOptIn: boolean;
  weekStartDay: 0 | 1 | null;
  productDescription: string | null;
  primaryDashboard: number | null;
}

export const PROJECT_SEEDS: readonly ProjectSeed[] = [
  {
    id: 1001,
    uuid: '01928f3c-7b20-7c41-8e2a-5d9f1b3c6e21',
    name: 'Acme Shop',
    timezone: 'Europe/London',
    apiToken: 'phc_sandboxAcmeShop7Qm2Vx9LkT4hRz1NwYb8Jd3Fp6Ce0',
    createdDaysAgo: 412,
    appUrls: ['https://shop.example.com'],
    recordingDomains: ['https://shop.example.com'],
    ingestedEvent: true,
    completedSnippetOnboarding: true,
    sessionRecordingOptIn: true,
    weekStartDay: 1,
    productDescription: 'Online store for outdoor clothing and gear (web, desktop and mobile browsers).',
    primaryDashboard: 5011,
  },
  {
    id: 1002,
    uuid: '01928f3c-7c31-7d52-9f3b-6e0a2c4d7f32',
    name: 'Acme Marketing Site',
    timezone: 'America/New_York',
    apiToken: 'phc_sandboxAcmeMktg2Hs8Wq5Ne1Tb7Ya4Rk9Uc3Lm6Gv0Z',
    createdDaysAgo: 240,
    appUrls: ['https://www.example.com'],
    recordingDomains: ['https://www.example.com'],
    ingestedEvent: true,
    completedSnippetOnboarding: true,
    sessionRecordingOptIn: true,
    weekStartDay: 0,
    productDescription: 'Marketing site and membership sign-up for Acme Outdoor.',
    primaryDashboard: 5034,
  },
  {
    id: 1003,
    uuid: '01928f3c-7d42-7e63-a04c-7f1b3d5e8a43',
    name: 'Staging',
    timezone: 'UTC',
    apiToken: 'phc_sandboxStaging4Pd7Xa2Mf9Qj5Wc1Eh8Tn3Kb6Sr0Yv',
    createdDaysAgo: 95,
    appUrls: ['https://staging.shop.example.com'],
    recordingDomains: [],
    ingestedEvent: false,
    completedSnippetOnboarding: false,
    sessionRecordingOptIn: false,
    weekStartDay: null,
    productDescription: null,
    primaryDashboard: null,
  },
];

export const MAIN_PROJECT_ID = 1001;
export const MARKETING_PROJECT_ID = 1002;
export const STAGING_PROJECT_ID = 1003;

/** Internal users are excluded by "filter test accounts" through this project filter. */
export const TEST_ACCOUNT_FILTERS = [{ key: 'email', value: '@acme.example.com', operator: 'not_icontains', type: 'person' }];

export interface PersonSeed {
  id: number;
  uuid: string;
  distinctIds: string[];
  createdDaysAgo: number;
  properties: Record<string, unknown>;
}

function person(id: number, uuid: string, distinctIds: string[], createdDaysAgo: number, properties: Record<string, unknown>): PersonSeed {
  return { id, uuid, distinctIds, createdDaysAgo, properties };
}

export const PERSONS = {
  olivia: person(218004311, '0192e4a1-3b5c-7d2e-8f90-a1b2c3d4e5f1', ['cus_8842', '0192e4a0-ffee-7abc-9def-0123456789ab'], 163, {
    email: 'olivia.martin@example.com',
    name: 'Olivia Martin',
    customer_tier: 'gold',
    orders_count: 7,
    newsletter: true,
    $initial_browser: 'Chrome',
    $initial_os: 'Mac OS X',
    $initial_referring_domain: 'www.google.com',
    $initial_utm_source: 'google',
    $geoip_country_code: 'GB',
    $geoip_country_name: 'United Kingdom',
    $geoip_city_name: 'Bristol',
  }),
  marcus: person(218004377, '0192e4a1-4c6d-7e3f-9a01-b2c3d4e5f6a2', ['cus_9107'], 71, {
    email: 'marcus.chen@example.net',
    name: 'Marcus Chen',
    customer_tier: 'standard',
    orders_count: 2,
    $initial_browser: 'Safari',
    $initial_os: 'Mac OS X',
    $initial_referring_domain: '$direct',
    $geoip_country_code: 'US',
    $geoip_country_name: 'United States',
    $geoip_city_name: 'Seattle',
  }),
  lena: person(218004402, '0192e4a1-5d7e-7f40-ab12-c3d4e5f6a7b3', ['cus_7720'], 240, {
    email: 'lena.fischer@example.de',
    name: 'Lena Fischer',
    customer_tier: 'standard',
    orders_count: 1,
    preferred_language: 'de',
    $initial_browser: 'Firefox',
    $initial_os: 'Windows',
    $geoip_country_code: 'DE',
    $geoip_country_name: 'Germany',
    $geoip_city_name: 'Munich',
  }),
  sam: person(218004466, '0192e4a1-6e8f-7051-bc23-d4e5f6a7b8c4', ['cus_9321', '0193a1e9-1a2b-7c3d-8e4f-5a6b7c8d9e0f'], 12, {
    email: 'sam.okafor@example.org',
    name: 'Sam Okafor',
    orders_count: 0,
    $initial_browser: 'Mobile Safari',
    $initial_os: 'iOS',
    $initial_referring_domain: 'www.instagram.com',
    $geoip_country_code: 'NG',
    $geoip_country_name: 'Nigeria',
    $geoip_city_name: 'Lagos',
  }),
  hiroshi: person(218004490, '0192e4a1-7f90-7162-8d34-e5f6a7b8c9d5', ['cus_6658'], 302, {
    email: 'hiroshi.tanaka@example.jp',
    name: 'Hiroshi Tanaka',
    customer_tier: 'gold',
    orders_count: 11,
    $initial_browser: 'Chrome',
    $initial_os: 'Windows',
    $geoip_country_code: 'JP',
    $geoip_country_name: 'Japan',
    $geoip_city_name: 'Osaka',
  }),
  chloe: person(218004515, '0192e4a1-80a1-7273-9e45-f6a7b8c9d0e6', ['cus_9502'], 3, {
    email: 'chloe.dubois@example.fr',
    name: 'Chloé Dubois',
    orders_count: 0,
    $initial_browser: 'Chrome',
    $initial_os: 'Mac OS X',
    $initial_referring_domain: 'www.example.com',
    $geoip_country_code: 'FR',
    $geoip_country_name: 'France',
    $geoip_city_name: 'Lyon',
  }),
  ben: person(218004533, '0192e4a1-91b2-7384-af56-a7b8c9d0e1f7', ['cus_5013'], 388, {
    email: 'ben.carter@example.com.au',
    name: 'Ben Carter',
    customer_tier: 'standard',
    orders_count: 4,
    $initial_browser: 'Microsoft Edge',
    $initial_os: 'Windows',
    $geoip_country_code: 'AU',
    $geoip_country_name: 'Australia',
    $geoip_city_name: 'Melbourne',
  }),
  ana: person(218004560, '0192e4a1-a2c3-7495-8067-b8c9d0e1f2a8', ['cus_4471'], 520, {
    email: 'ana.souza@example.com.br',
    name: 'Ana Souza',
    customer_tier: 'silver',
    orders_count: 5,
    $initial_browser: 'Chrome',
    $initial_os: 'Mac OS X',
    $geoip_country_code: 'BR',
    $geoip_country_name: 'Brazil',
    $geoip_city_name: 'São Paulo',
  }),
  qa: person(218004588, '0192e4a1-b3d4-75a6-9178-c9d0e1f2a3b9', ['qa-bot-01'], 90, {
    email: 'qa.bot@acme.example.com',
    name: 'QA Bot',
    is_internal: true,
    $initial_browser: 'Chrome',
    $initial_os: 'Linux',
    $geoip_country_code: 'GB',
    $geoip_country_name: 'United Kingdom',
    $geoip_city_name: 'London',
  }),
  tom: person(218004601, '0192e4a1-c4e5-76b7-a289-d0e1f2a3b4ca', ['cus_9550'], 28, {
    email: 'tom.w@example.ca',
    orders_count: 0,
    $initial_browser: 'Chrome',
    $initial_os: 'Windows',
    $geoip_country_code: 'CA',
    $geoip_country_name: 'Canada',
    $geoip_city_name: 'Toronto',
  }),
  grace: person(219100021, '0192e4a2-0a11-7c22-8d33-e4f5a6b7c8d9', ['mk_2231'], 44, {
    email: 'grace.lee@example.com',
    name: 'Grace Lee',
    membership: 'none',
    $initial_browser: 'Safari',
    $initial_os: 'Mac OS X',
    $geoip_country_code: 'US',
    $geoip_country_name: 'United States',
    $geoip_city_name: 'Boston',
  }),
  diego: person(219100058, '0192e4a2-1b22-7d33-9e44-f5a6b7c8d9ea', ['mk_2290'], 9, {
    email: 'diego.ramirez@example.mx',
    name: 'Diego Ramírez',
    $initial_browser: 'Chrome',
    $initial_os: 'Windows',
    $geoip_country_code: 'MX',
    $geoip_country_name: 'Mexico',
    $geoip_city_name: 'Guadalajara',
  }),
} as const satisfies Record<string, PersonSeed>;

/** Recordings captured from a real browser (fixtures/recordings, see scripts/record-fixtures). */
export type RecordedName = 'recordedCheckout' | 'recordedSearchTabs' | 'recordedSdkSignup';

export type StoryName = ScriptedName | RecordedName;

export type ScriptedName =
  | 'checkoutFailure'
  | 'successfulPurchase'
  | 'longBrowse'
  | 'compressedMobile'
  | 'twoTabs'
  | 'anonymousBounce'
  | 'ongoing'
  | 'longTermStorage'
  | 'legacyBlob'
  | 'accountSettings'
  | 'internalQa'
  | 'searchRageClick'
  | 'pricingVisit'
  | 'blogReader'
  | 'newsletterSignup';

/** How a recording's snapshot data is served (see snapshots.ts). */
export type Storage = 'blob_v2' | 'blob_v2_lts' | 'blob' | 'blob_v2+realtime';

export interface RecordingSeed {
  name: StoryName | 'generated';
  id: string;
  projectId: number;
  distinctId: string;
  person: PersonSeed | null;
  /** When the recording starts (ms before the sandbox clock), or when it ends for a live one. */
  startsAgoMs?: number;
  endsAgoMs?: number;
  storage: Storage;
  /** posthog-js "cv: 2024-10" field compression. */
  compressed: boolean;
  blockMs: number;
  windowIds: string[];
  /** For a recorded fixture: its slug in fixtures/recordings/index.json (its events come from there). */
  fixture?: string;
  /** Events given as they were recorded (sandbox option `recordings`), instead of a fixture or a story. */
  lines?: ReadonlyArray<readonly [string, RrwebEvent]>;
  /** Analytics events sent beside those (absolute times), e.g. `$exception`. */
  captured?: ReadonlyArray<{ event: string; timestamp: number; properties?: Record<string, unknown> }>;
  /** Serve the events this many times over, one copy after another (a synthetic long recording for benchmarks). */
  repeat?: number;
  /** With `repeat`: this many consecutive copies served as one block (default 1), so a long recording fits fewer requests. */
  copiesPerBlock?: number;
  device: Device;
  viewed: boolean;
  viewers: string[];
  summary: string;
}

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

function device(
  browser: string,
  browserVersion: number,
  os: string,
  osVersion: string,
  deviceType: Device['deviceType'],
  width: number,
  height: number,
  where: [string, string, string],
  referrer = '$direct',
): Device {
  return { browser, browserVersion, os, osVersion, deviceType, width, height, countryCode: where[0], countryName: where[1], city: where[2], referrer };
}

const P = PERSONS;

export const RECORDING_SEEDS: readonly RecordingSeed[] = [
  {
    name: 'checkoutFailure',
    id: '0193a1f0-5c2e-7d41-9b8a-4e6f2a1c3d01',
    projectId: MAIN_PROJECT_ID,
    distinctId: 'cus_8842',
    person: P.olivia,
    startsAgoMs: 2 * HOUR + 14 * MIN,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 30_000,
    windowIds: ['0193a1f0-5c31-7a00-8b11-c2d3e4f5a601'],
    device: device('Chrome', 131, 'Mac OS X', '14.6.1', 'Desktop', 1440, 900, ['GB', 'United Kingdom', 'Bristol'], 'https://www.google.com/'),
    viewed: false,
    viewers: ['sofia.ortega@acme.example.com'],
    summary: 'Adds two items, applies a promo code, checkout POST fails with 500, console TypeError, then a rage click on "Place order".',
  },
  {
    name: 'successfulPurchase',
    id: '0193a1f0-62b4-7a10-8c3d-1b2e4f6a8c02',
    projectId: MAIN_PROJECT_ID,
    distinctId: 'cus_9107',
    person: P.marcus,
    startsAgoMs: 5 * HOUR + 5 * MIN,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 30_000,
    windowIds: ['0193a1f0-62c0-7b00-9c22-d3e4f5a6b702'],
    device: device('Safari', 17.6, 'Mac OS X', '14.5', 'Desktop', 1280, 800, ['US', 'United States', 'Seattle']),
    viewed: true,
    viewers: [],
    summary: 'Searches for "daypack", buys the Summit Daypack and reaches the order confirmation.',
  },
  {
    name: 'longBrowse',
    id: '0193a1f0-6f11-7e3a-a4b5-9c8d7e6f5a03',
    projectId: MAIN_PROJECT_ID,
    distinctId: 'cus_7720',
    person: P.lena,
    startsAgoMs: 1 * DAY + 21 * HOUR,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 40_000,
    windowIds: ['0193a1f0-6f20-7c00-ad33-e4f5a6b7c803'],
    device: device('Firefox', 132, 'Windows', '10', 'Desktop', 1920, 1080, ['DE', 'Germany', 'Munich'], 'https://www.bing.com/'),
    viewed: true,
    viewers: ['sofia.ortega@acme.example.com', 'raj.patel@acme.example.com'],
    summary: 'A 20-minute comparison-shopping session across every product, with long reading pauses and a window resize. More than 21 blob_v2 blocks.',
  },
  {
    name: 'compressedMobile',
    id: '0193a1f0-7a3c-7b82-b1c2-3d4e5f6a7b04',
    projectId: MAIN_PROJECT_ID,
    distinctId: 'cus_9321',
    person: P.sam,
    startsAgoMs: 9 * HOUR + 30 * MIN,
    storage: 'blob_v2',
    compressed: true,
    blockMs: 20_000,
    windowIds: ['0193a1f0-7a40-7d00-be44-f5a6b7c8d904'],
    device: device('Mobile Safari', 17.5, 'iOS', '17.5.1', 'Mobile', 390, 844, ['NG', 'Nigeria', 'Lagos'], 'https://www.instagram.com/'),
    viewed: false,
    viewers: [],
    summary: 'iPhone visitor from Instagram filters the sale, rotates the phone, adds a jacket to the cart. Events use posthog-js compression (cv "2024-10").',
  },
  {
    name: 'twoTabs',
    id: '0193a1f0-8be5-7c93-85d6-e7f8091a2b05',
    projectId: MAIN_PROJECT_ID,
    distinctId: 'cus_6658',
    person: P.hiroshi,
    startsAgoMs: 14 * HOUR + 20 * MIN,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 20_000,
    windowIds: ['0193a1f0-8bf0-7e00-8f55-a6b7c8d9e005', '0193a1f0-8bf9-7e01-9066-b7c8d9e0f106'],
    device: device('Chrome', 130, 'Windows', '11', 'Desktop', 1536, 864, ['JP', 'Japan', 'Osaka']),
    viewed: false,
    viewers: [],
    summary: 'Compares the jacket and the base layer in two tabs (two window ids), then adds the jacket to the cart.',
  },
  {
    name: 'anonymousBounce',
    id: '0193a1f0-9d07-7da4-96e7-f8091a2b3c06',
    projectId: MAIN_PROJECT_ID,
    distinctId: '0193a1ef-2f3a-7c55-8e11-5a6b7c8d9e0f',
    person: null,
    startsAgoMs: 19 * HOUR + 45 * MIN,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 12_000,
    windowIds: ['0193a1f0-9d10-7f00-a177-c8d9e0f1a207'],
    device: device('Chrome', 131, 'Android', '14', 'Mobile', 412, 915, ['US', 'United States', 'Austin'], 'https://l.facebook.com/'),
    viewed: false,
    viewers: [],
    summary: 'Anonymous visitor from a Facebook ad scrolls the sale page and leaves after ~30 s. No person (placeholder person).',
  },
  {
    name: 'ongoing',
    id: '0193a1f0-a1f9-7eb5-a7f8-091a2b3c4d07',
    projectId: MAIN_PROJECT_ID,
    distinctId: 'cus_9502',
    person: P.chloe,
    endsAgoMs: 40_000,
    storage: 'blob_v2+realtime',
    compressed: false,
    blockMs: 60_000,
    windowIds: ['0193a1f0-a200-7000-b288-d9e0f1a2b308'],
    device: device('Chrome', 131, 'Mac OS X', '15.1', 'Desktop', 1440, 900, ['FR', 'France', 'Lyon'], 'https://www.example.com/'),
    viewed: false,
    viewers: [],
    summary: 'Still in progress: browsing jackets right now. Its last ~90 s are not in a stored block yet: only the 2024 API serves them (realtime source).',
  },
  {
    name: 'longTermStorage',
    id: '0193a1f0-b2aa-7fc6-b809-1a2b3c4d5e08',
    projectId: MAIN_PROJECT_ID,
    distinctId: 'cus_5013',
    person: P.ben,
    startsAgoMs: 2 * DAY + 11 * HOUR,
    storage: 'blob_v2_lts',
    compressed: false,
    blockMs: 20_000,
    windowIds: ['0193a1f0-b2b0-7100-8399-e0f1a2b3c409'],
    device: device('Microsoft Edge', 130, 'Windows', '11', 'Desktop', 1366, 768, ['AU', 'Australia', 'Melbourne']),
    viewed: false,
    viewers: ['raj.patel@acme.example.com'],
    summary: 'Reads reviews of the Trail Runner 2 and adds a pair to the cart. Served only as one blob_v2_lts source.',
  },
  {
    name: 'legacyBlob',
    id: '0193a1f0-c3bb-70d7-891a-2b3c4d5e6f09',
    projectId: MAIN_PROJECT_ID,
    distinctId: 'cus_4471',
    person: P.ana,
    startsAgoMs: 5 * DAY + 3 * HOUR,
    storage: 'blob',
    compressed: false,
    blockMs: 60_000,
    windowIds: ['0193a1f0-c3c0-7200-94aa-f1a2b3c4d50a'],
    device: device('Chrome', 129, 'Mac OS X', '13.6', 'Desktop', 1280, 720, ['BR', 'Brazil', 'São Paulo']),
    viewed: true,
    viewers: [],
    summary: 'Five days old (outside the default -3d window): adds and removes items in the cart. Served as legacy v1 "blob" sources in the 2024 API, as one blob_v2_lts file today.',
  },
  {
    name: 'accountSettings',
    id: '0193a1f0-d4cc-71e8-9a2b-3c4d5e6f7a10',
    projectId: MAIN_PROJECT_ID,
    distinctId: 'cus_8842',
    person: P.olivia,
    startsAgoMs: 1 * DAY + 2 * HOUR,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 12_000,
    windowIds: ['0193a1f0-d4d0-7300-a5bb-a2b3c4d5e60b'],
    device: device('Chrome', 131, 'Mac OS X', '14.6.1', 'Desktop', 1440, 900, ['GB', 'United Kingdom', 'Bristol']),
    viewed: false,
    viewers: [],
    summary: "Olivia's earlier session: updates her account details; console deprecation warnings.",
  },
  {
    name: 'internalQa',
    id: '0193a1f0-e5dd-72f9-ab3c-4d5e6f7a8b11',
    projectId: MAIN_PROJECT_ID,
    distinctId: 'qa-bot-01',
    person: P.qa,
    startsAgoMs: 1 * DAY + 6 * HOUR,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 12_000,
    windowIds: ['0193a1f0-e5e0-7400-b6cc-b3c4d5e6f70c'],
    device: device('Chrome', 131, 'Linux', '', 'Desktop', 1280, 720, ['GB', 'United Kingdom', 'London']),
    viewed: false,
    viewers: [],
    summary: 'Internal QA bot runs a test checkout. Excluded by filter_test_accounts.',
  },
  {
    name: 'searchRageClick',
    id: '0193a1f0-f6ee-730a-bc4d-5e6f7a8b9c12',
    projectId: MAIN_PROJECT_ID,
    distinctId: 'cus_9550',
    person: P.tom,
    startsAgoMs: 3 * HOUR + 40 * MIN,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 12_000,
    windowIds: ['0193a1f0-f6f0-7500-87dd-c4d5e6f7a80d'],
    device: device('Chrome', 131, 'Windows', '10', 'Desktop', 1366, 768, ['CA', 'Canada', 'Toronto']),
    viewed: false,
    viewers: [],
    summary: 'Search API answers 503; the visitor rage-clicks "Search" five times, then gives up and browses new arrivals.',
  },
  {
    name: 'pricingVisit',
    id: '0193a1f1-0a01-741b-8d5e-6f7a8b9c0d13',
    projectId: MARKETING_PROJECT_ID,
    distinctId: 'mk_2231',
    person: P.grace,
    startsAgoMs: 4 * HOUR + 10 * MIN,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 12_000,
    windowIds: ['0193a1f1-0a10-7600-98ee-d5e6f7a8b90e'],
    device: device('Safari', 18.1, 'Mac OS X', '15.1', 'Desktop', 1440, 900, ['US', 'United States', 'Boston'], 'https://www.google.com/'),
    viewed: false,
    viewers: [],
    summary: 'Compares membership plans, switches to yearly billing, opens an FAQ and starts a Summit trial.',
  },
  {
    name: 'blogReader',
    id: '0193a1f1-1b12-752c-9e6f-7a8b9c0d1e14',
    projectId: MARKETING_PROJECT_ID,
    distinctId: '0193a1f1-1a00-7c00-8f00-0a1b2c3d4e5f',
    person: null,
    startsAgoMs: 1 * DAY + 3 * HOUR,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 30_000,
    windowIds: ['0193a1f1-1b20-7700-a9ff-e6f7a8b9c00f'],
    device: device('Firefox', 132, 'Linux', '', 'Desktop', 1600, 900, ['GB', 'United Kingdom', 'Edinburgh'], 'https://news.ycombinator.com/'),
    viewed: false,
    viewers: [],
    summary: 'Anonymous reader scrolls through a trip report and follows the product link to the shop.',
  },
  {
    name: 'newsletterSignup',
    id: '0193a1f1-2c23-763d-af70-8b9c0d1e2f15',
    projectId: MARKETING_PROJECT_ID,
    distinctId: 'mk_2290',
    person: P.diego,
    startsAgoMs: 2 * DAY + 5 * HOUR,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 12_000,
    windowIds: ['0193a1f1-2c30-7800-ba00-f7a8b9c0d110'],
    device: device('Chrome', 130, 'Windows', '11', 'Desktop', 1440, 900, ['MX', 'Mexico', 'Guadalajara']),
    viewed: false,
    viewers: [],
    summary: 'Signs up for the newsletter; the first submit fails validation (missing consent), the second succeeds.',
  },
  {
    name: 'recordedCheckout',
    id: '0193c4a2-5e10-7a3b-8c4d-1e2f3a4b5c6d',
    projectId: MAIN_PROJECT_ID,
    distinctId: 'customer-1815',
    person: null,
    startsAgoMs: 3 * DAY + 2 * HOUR,
    storage: 'blob_v2',
    // As posthog-js sends them: full snapshots and large mutations gzipped ("cv": "2024-10").
    compressed: true,
    blockMs: 8_000,
    windowIds: ['0193c4a2-5e11-7b2c-9d3e-2f3a4b5c6d7e'],
    fixture: 'checkout-failure',
    device: device('Chrome', 150, 'Linux', '', 'Desktop', 1280, 800, ['GB', 'United Kingdom', 'London']),
    viewed: false,
    viewers: [],
    summary: 'Recorded in real Chromium: checkout POST fails with 500, console error, rage click on "Place order", a dead click, a resize.',
  },
  {
    name: 'recordedSearchTabs',
    id: '0193c4b9-0f20-7c4d-ad5e-3a4b5c6d7e8f',
    projectId: MAIN_PROJECT_ID,
    distinctId: '0193c4b9-0e01-7a11-9b22-c33d44e55f66',
    person: null,
    startsAgoMs: 3 * DAY + 5 * HOUR,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 10_000,
    windowIds: ['0193c4b9-0f21-7d5e-be6f-4b5c6d7e8f90', '0193c4b9-3a42-7e6f-8f70-5c6d7e8f9012'],
    fixture: 'search-two-tabs',
    device: device('Chrome', 150, 'Linux', '', 'Desktop', 1440, 900, ['DE', 'Germany', 'Berlin']),
    viewed: false,
    viewers: [],
    summary: 'Recorded in real Chromium: a search, a help page in a second tab with planted prompt-injection text, add to cart.',
  },
  {
    name: 'recordedSdkSignup',
    // posthog-js makes the session and window ids: they are whatever the last recording got.
    id: fixture('posthog-js-signup').session_id,
    projectId: MAIN_PROJECT_ID,
    distinctId: fixture('posthog-js-signup').distinct_id,
    person: null,
    startsAgoMs: 3 * DAY + 8 * HOUR,
    storage: 'blob_v2',
    // Already as posthog-js sent it: compressed where the SDK compressed ("cv": "2024-10").
    compressed: false,
    blockMs: 10_000,
    windowIds: fixture('posthog-js-signup').window_ids,
    fixture: 'posthog-js-signup',
    device: device('Chrome', 156, 'Linux', '', 'Desktop', 1280, 800, ['GB', 'United Kingdom', 'London']),
    viewed: false,
    viewers: [],
    summary: 'Recorded by posthog-js 1.449.2 in real Chromium: sign-up, the profile save fails with a 500, a console error and an uncaught TypeError ($exception event).',
  },
];

/** Demo actions: PostHog action ids a `matching_events`/list `actions` filter can use. */
export const ACTIONS: ReadonlyArray<{ id: number; name: string; event: string }> = [
  { id: 1, name: 'Added to cart', event: 'product_added_to_cart' },
  { id: 2, name: 'Checkout started', event: 'checkout_started' },
  { id: 3, name: 'Order completed', event: 'order_completed' },
  { id: 4, name: 'Rage click', event: '$rageclick' },
  { id: 5, name: 'JavaScript exception', event: '$exception' },
  { id: 6, name: 'Newsletter sign-up', event: 'newsletter_signed_up' },
];

/** A recording of `copies` back-to-back copies of the real checkout recording (sandbox option `bigRecording`). */
export const BIG_RECORDING_ID = '0193c4ff-b16b-7000-8000-000000000b16';

export function bigRecordingSeed(copies: number, copiesPerBlock = 1): RecordingSeed {
  return {
    name: 'recordedCheckout',
    id: BIG_RECORDING_ID,
    projectId: MAIN_PROJECT_ID,
    distinctId: 'bench-visitor',
    person: null,
    endsAgoMs: HOUR,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 60_000,
    windowIds: ['0193c4a2-5e11-7b2c-9d3e-2f3a4b5c6d7e'],
    fixture: 'checkout-failure',
    repeat: copies,
    copiesPerBlock,
    device: device('Chrome', 150, 'Linux', '', 'Desktop', 1280, 800, ['GB', 'United Kingdom', 'London']),
    viewed: false,
    viewers: [],
    summary: `Synthetic: the recorded checkout failure ${copies} times over.`,
  };
}

/**
 * `count` more recordings in the main project (sandbox option `extraRecordings`): copies of its
 * demo recordings, each with an id of its own and an earlier start, all stored as blob_v2, for
 * benchmarks that need a fuller page than the demo set gives.
 */
export function extraRecordingSeeds(count: number): RecordingSeed[] {
  const originals = RECORDING_SEEDS.filter((seed) => seed.projectId === MAIN_PROJECT_ID);
  return Array.from({ length: count }, (_, i) => {
    const { endsAgoMs: _live, ...original } = originals[i % originals.length]!;
    return {
      ...original,
      id: `0193c4ff-e000-7000-8000-${(i + 1).toString(16).padStart(12, '0')}`,
      startsAgoMs: 3 * DAY + i * 5 * HOUR,
      storage: 'blob_v2',
      viewed: false,
      viewers: [],
      summary: `Copy ${i + 1} of "${original.name}", for benchmarks.`,
    };
  });
}

/** A recording a test made itself (sandbox option `recordings`), in the main project unless it says. */
export function givenRecordingSeed(given: { id: string; projectId?: number; distinctId?: string; person?: PersonSeed; lines: ReadonlyArray<readonly [string, RrwebEvent]>; captured?: ReadonlyArray<{ event: string; timestamp: number; properties?: Record<string, unknown> }> }): RecordingSeed {
  return {
    name: 'recordedCheckout',
    id: given.id,
    projectId: given.projectId ?? MAIN_PROJECT_ID,
    distinctId: given.distinctId ?? 'test-visitor',
    person: given.person ?? null,
    endsAgoMs: HOUR,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 60_000,
    windowIds: [...new Set(given.lines.map(([windowId]) => windowId))],
    lines: given.lines,
    ...(given.captured ? { captured: given.captured } : {}),
    device: device('Chrome', 150, 'Linux', '', 'Desktop', 1280, 800, ['GB', 'United Kingdom', 'London']),
    viewed: false,
    viewers: [],
    summary: 'Recorded in a browser by a test.',
  };
}

export function ltsBlobKey(projectId: number, sessionId: string): string {
  return `session_recordings_lts/team_id/${projectId}/session_id/${sessionId}/data`;
}
