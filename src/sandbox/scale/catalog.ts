// Fixed facts of the sandbox's project at scale (sandbox option `scale`): its two projects, the
// devices, places, names and referrers people come with, and the problems planted in the week
// (their texts, fingerprints and where they happen). How often each happens is drawn by the
// generator; the exact counts are read back from the generated data (truth.ts).

import type { ProjectSeed } from '../demo/catalog.js';
import { SHOP_ORIGIN } from '../demo/pages.js';
import type { Device } from '../demo/timeline.js';

/** The seed the CLI's --sandbox-scale uses; tests pass it (or another) to truth.ts. */
export const DEFAULT_SCALE_SEED = 20_261_129;

export const SCALE_PROJECT_ID = 2001;
export const REPLAY_OFF_PROJECT_ID = 2002;

export const HELP_ORIGIN = 'https://help.example.com';

/** The shop at scale: replay on for 90 % of sessions, at least 2 s long (the project's settings). */
export const SCALE_STORE_SEED: ProjectSeed = {
  id: SCALE_PROJECT_ID,
  uuid: '019a7c10-2e41-7a52-8c63-1d4e5f6a7b80',
  name: 'Acme Shop (a week at scale)',
  timezone: 'UTC',
  apiToken: 'phc_sandboxScaleShop5Tq8Wn2Xe7Lk4Rb1Yd9Gm3Jv6Hc0',
  createdDaysAgo: 380,
  appUrls: [SHOP_ORIGIN],
  recordingDomains: [SHOP_ORIGIN],
  ingestedEvent: true,
  completedSnippetOnboarding: true,
  sessionRecordingOptIn: true,
  weekStartDay: 1,
  productDescription: 'The Acme Outdoor shop with a week of real traffic: thousands of recorded sessions (sandbox scale mode).',
  primaryDashboard: null,
};

/** The help centre: posthog-js installed, replay switched off in the project. */
export const SCALE_HELP_SEED: ProjectSeed = {
  id: REPLAY_OFF_PROJECT_ID,
  uuid: '019a7c10-3f52-7b63-9d74-2e5f6a7b8c91',
  name: 'Acme Help Centre',
  timezone: 'UTC',
  apiToken: 'phc_sandboxScaleHelp8Vm3Qa6Zt1Ks9Ep4Wd7Rc2Ny5Fb0',
  createdDaysAgo: 200,
  appUrls: [HELP_ORIGIN],
  recordingDomains: [],
  ingestedEvent: true,
  completedSnippetOnboarding: true,
  sessionRecordingOptIn: false,
  weekStartDay: 1,
  productDescription: 'Help articles and the contact form for Acme Outdoor customers.',
  primaryDashboard: null,
};

export const STORE_SAMPLE_RATE = 0.9;
export const STORE_MINIMUM_DURATION_MS = 2_000;
export const STORE_PEOPLE = 2_400;
export const HELP_PEOPLE = 45;

/** A browser on a device, before the place and referrer of a session are added. */
export type DeviceProfile = Pick<Device, 'browser' | 'browserVersion' | 'os' | 'osVersion' | 'deviceType' | 'width' | 'height'>;

const device = (browser: string, browserVersion: number, os: string, osVersion: string, deviceType: DeviceProfile['deviceType'], width: number, height: number): DeviceProfile => ({
  browser,
  browserVersion,
  os,
  osVersion,
  deviceType,
  width,
  height,
});

export const DEVICES: ReadonlyArray<readonly [DeviceProfile, number]> = [
  [device('Chrome', 142, 'Mac OS X', '15.1', 'Desktop', 1440, 900), 18],
  [device('Chrome', 142, 'Windows', '10', 'Desktop', 1920, 1080), 20],
  [device('Safari', 18.1, 'Mac OS X', '15.1', 'Desktop', 1440, 900), 8],
  [device('Microsoft Edge', 141, 'Windows', '11', 'Desktop', 1536, 864), 7],
  [device('Firefox', 144, 'Windows', '11', 'Desktop', 1366, 768), 5],
  [device('Mobile Safari', 18.1, 'iOS', '18.1', 'Mobile', 390, 844), 22],
  [device('Chrome', 142, 'Android', '15', 'Mobile', 412, 915), 15],
  [device('Samsung Internet', 28, 'Android', '14', 'Mobile', 360, 800), 3],
  [device('Mobile Safari', 18.1, 'iOS', '18.1', 'Tablet', 820, 1180), 2],
];

export const PLACES: ReadonlyArray<readonly [readonly [string, string, string], number]> = [
  [['GB', 'United Kingdom', 'London'], 14],
  [['GB', 'United Kingdom', 'Manchester'], 5],
  [['US', 'United States', 'New York'], 12],
  [['US', 'United States', 'Seattle'], 6],
  [['US', 'United States', 'Denver'], 5],
  [['DE', 'Germany', 'Berlin'], 8],
  [['DE', 'Germany', 'Munich'], 4],
  [['FR', 'France', 'Paris'], 6],
  [['NL', 'Netherlands', 'Amsterdam'], 4],
  [['CA', 'Canada', 'Toronto'], 5],
  [['AU', 'Australia', 'Sydney'], 4],
  [['IE', 'Ireland', 'Dublin'], 3],
  [['SE', 'Sweden', 'Stockholm'], 3],
  [['ES', 'Spain', 'Madrid'], 3],
  [['JP', 'Japan', 'Tokyo'], 2],
  [['IN', 'India', 'Bengaluru'], 2],
];

export const REFERRERS: ReadonlyArray<readonly [string, number]> = [
  ['$direct', 35],
  ['https://www.google.com/', 35],
  ['https://www.instagram.com/', 10],
  ['https://l.facebook.com/', 7],
  ['https://www.bing.com/', 5],
  ['https://newsletter.example.com/', 8],
];

export const FIRST_NAMES = ['Olivia', 'Liam', 'Emma', 'Noah', 'Ava', 'Mateo', 'Sofia', 'Lucas', 'Mia', 'Ethan', 'Amara', 'Kenji', 'Priya', 'Omar', 'Chloe', 'Jonas', 'Ines', 'Tariq', 'Hana', 'Felix', 'Zara', 'Diego', 'Nora', 'Kwame', 'Elena', 'Ravi', 'Leila', 'Tom', 'Grace', 'Yuki', 'Maya', 'Samir'];
export const LAST_NAMES = ['Martin', 'Chen', 'Fischer', 'Okafor', 'Tanaka', 'Dubois', 'Carter', 'Souza', 'Nguyen', 'Patel', 'Kowalski', 'Silva', 'Jensen', 'Rossi', 'Müller', 'Garcia', 'Brown', 'Haddad', 'Larsen', 'Ivanova', 'Murphy', 'Sato', 'Adeyemi', 'Novak', 'Berg', 'Costa', 'Khan', 'Walsh', 'Moreau', 'Lindqvist'];
export const EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org', 'example.co.uk', 'example.de'];

export interface ExceptionDef {
  type: string;
  value: string;
  handled: boolean;
  mechanism: 'onerror' | 'onunhandledrejection' | 'generic';
  fingerprint: string;
  issueId: string;
  source: string;
  fn: string;
  line: number;
  column: number;
}

/** The week's top problem: an uncaught error in the "recently viewed" widget, on any page. */
export const VARIANTS_ERROR: ExceptionDef = {
  type: 'TypeError',
  value: "Cannot read properties of undefined (reading 'variants')",
  handled: false,
  mechanism: 'onerror',
  fingerprint: 'c1f4a9e27b3d5f60e8a2b4c6d8e0f1a3',
  issueId: '019a7c11-0a1b-7c2d-8e3f-4a5b6c7d8e01',
  source: `${SHOP_ORIGIN}/_next/static/chunks/components/recently-viewed-7c2e91.js`,
  fn: 'RecentlyViewed.render',
  line: 1,
  column: 4211,
};

/** What the browser's console shows for it (rrweb's console plugin records uncaught errors). */
export const VARIANTS_CONSOLE = "Uncaught TypeError: Cannot read properties of undefined (reading 'variants')";

/** The failed checkout: its request fails, this is thrown, the page says so, the buyer rage-clicks. */
export const PAYMENT_ERROR: ExceptionDef = {
  type: 'Error',
  value: 'Payment request failed with status 500',
  handled: false,
  mechanism: 'onunhandledrejection',
  fingerprint: '7d2e9b41c8a6f3e05b1d7c9a2e4f6b80',
  issueId: '019a7c11-1b2c-7d3e-9f4a-5b6c7d8e9f02',
  source: `${SHOP_ORIGIN}/_next/static/chunks/pages/checkout-8c1d2f.js`,
  fn: 'submitPayment',
  line: 1,
  column: 18423,
};

export const CHECKOUT_FAILED_CONSOLE = (ms: number) => `[checkout] POST /api/checkout failed with 500 after ${ms} ms`;
export const PAYMENT_PAGE_MESSAGE = "We couldn't process your payment. Please try again.";

/** Caught by the app's error boundary and reported with posthog.captureException (handled). */
export const CHUNK_ERROR = (chunk: number): ExceptionDef => ({
  type: 'ChunkLoadError',
  value: `Loading chunk ${chunk} failed.`,
  handled: true,
  mechanism: 'generic',
  fingerprint: '3b8f0e6d2a4c7e91f5a3d1b9c7e5a203',
  issueId: '019a7c11-2c3d-7e4f-8a5b-6c7d8e9f0a03',
  source: `${SHOP_ORIGIN}/_next/static/chunks/webpack-2f7a9c.js`,
  fn: 'loadChunk',
  line: 1,
  column: 3120,
});
export const CHUNKS = [812, 815, 4077] as const;

/** Console lines: an error with numbers inside (they fold to one message), and the usual noise. */
export const INVENTORY_CONSOLE = (request: number, ms: number) => `Inventory request ${request} timed out after ${ms} ms`;
export const DEPRECATION_CONSOLE = '[deprecation] The storefront widget uses the legacy Cart API; it will be removed in the next major version.';
export const PAGE_READY_CONSOLE = (ms: number) => `[analytics] page ready in ${ms} ms`;

/** Where the planted clicks land: dead clicks on a button that does nothing on one page, rage clicks on two buttons. */
export const DEAD_REVIEWS = { product: 'alpine-down-jacket', key: 'more-reviews', text: 'Show more reviews' } as const;
export const RAGE_PLACE_ORDER = { key: 'place-order', text: 'Place order', pathname: '/checkout' } as const;
export const RAGE_PROMO = { key: 'apply-promo', text: 'Apply', pathname: '/cart' } as const;

export const HELP_PAGES: ReadonlyArray<{ path: string; title: string; link: string }> = [
  { path: '/', title: 'Help Centre', link: 'Help Centre' },
  { path: '/articles/returns-policy', title: 'Returns policy', link: 'Returns policy' },
  { path: '/articles/shipping-times', title: 'Shipping times', link: 'Shipping times' },
  { path: '/articles/size-guide', title: 'Size guide', link: 'Size guide' },
  { path: '/contact', title: 'Contact us', link: 'Contact us' },
];
