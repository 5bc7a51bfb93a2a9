// Every HogQL query the tools can send is one PostHog accepts: each builder of
// src/posthog/hogql-queries.ts, over sample options with hostile values, parsed by PostHog's own
// parser (@posthog/hogql-parser). All parse; input reaches the query only as placeholders; and a
// query built anywhere else in src/ fails the guard at the end.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import createHogQLParser, { type HogQLParser } from '@posthog/hogql-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOGQL_BUILDERS, RECORDING_TTL_DAYS, type BuiltQuery } from '../../src/posthog/hogql-queries.js';
import { placeholderNames, replacePlaceholders, type AstNode } from '../../src/sandbox/hogql-parse.js';
import { DEMO, SANDBOX_API_KEY, startSandbox, type Sandbox } from '../../src/sandbox/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Values a model or a user could put in a tool's input, chosen to break a query built as text. */
const HOSTILE = [
  "it's quoted",
  "'; DROP TABLE events; --",
  "') OR 1 = 1 OR ('",
  'back\\slash and a trailing one\\',
  'braces } { and a {session_id} and {x} inside',
  '"double" `backtick` $session_id properties.$browser',
  '日本語 🙂 \u202e right-to-left \u0000 nul ñ',
  'new\nline\r\tand tab',
  `ten kilobytes ${'x'.repeat(10_240)}`,
];

type Builders = typeof HOGQL_BUILDERS;
type Samples = { [K in keyof Builders]: Array<Parameters<Builders[K]>[0]> };

const FROM = new Date('2025-06-01T00:00:00.000Z');
const TO = new Date('2025-06-01T23:59:59.999Z');

/**
 * Every option set worth sending, per builder: each optional list absent, one, several; the
 * hostile values in every string slot. The type requires an entry for every builder.
 */
const SAMPLES: Samples = {
  matchingEventsQuery: [
    ...HOSTILE.map((value) => ({ sessionId: value, eventNames: [value], actionIds: [], from: FROM, to: TO })),
    ...HOSTILE.map((value) => ({ sessionId: 'session-a', eventNames: ['$pageview', value, value], actionIds: [1, 2 ** 31, Number.MAX_SAFE_INTEGER], from: FROM, to: TO })),
    { sessionId: 'session-b', eventNames: [], actionIds: [12], from: new Date(0), to: new Date('2999-12-31T00:00:00Z') },
    { sessionId: 'session-c', eventNames: HOSTILE, actionIds: Array.from({ length: 20 }, (_, i) => i + 1), from: FROM, to: TO },
  ],
  sessionPropertiesQuery: [
    ...HOSTILE.map((value) => ({ sessionIds: [value], from: FROM, to: TO })),
    { sessionIds: HOSTILE, from: FROM, to: TO },
    { sessionIds: Array.from({ length: 100 }, (_, i) => `session-${i}-${HOSTILE[i % HOSTILE.length]}`), from: new Date(0), to: TO },
  ],
  sessionExceptionsQuery: [
    ...HOSTILE.map((value) => ({ sessionIds: [value], from: FROM, to: TO })),
    { sessionIds: HOSTILE, from: FROM, to: TO },
    { sessionIds: ['session-d'], from: new Date(0), to: new Date('2999-12-31T00:00:00Z') },
    { sessionIds: Array.from({ length: 50 }, (_, i) => `session-${i}-${HOSTILE[i % HOSTILE.length]}`), from: FROM, to: TO },
  ],
  sessionRecorderStateQuery: [
    ...HOSTILE.map((value) => ({ sessionId: value, from: FROM, to: TO })),
    { sessionId: '019a0000-0000-7000-8000-000000000000', from: new Date(0), to: new Date('2999-12-31T00:00:00Z') },
  ],
  sessionEventsAfterQuery: [
    ...HOSTILE.map((value) => ({ sessionId: value, after: FROM, to: TO })),
    { sessionId: '019a0000-0000-7000-8000-000000000000', after: new Date(0), to: new Date('2999-12-31T00:00:00Z') },
  ],
  sequenceSessionsQuery: [
    ...HOSTILE.map((value) => ({ steps: [{ event: value, properties: [] }, { event: `${value} then`, properties: [] }], lastAbsent: false, from: FROM, to: TO })),
    ...HOSTILE.map((value) => ({ steps: [{ event: 'checkout_started', properties: [{ key: value, exact: [JSON.stringify(value), value] }] }, { event: value, properties: [{ key: `$${value}`, icontains: `${value} part` }] }], lastAbsent: true, from: FROM, to: TO })),
    {
      steps: [
        { event: '$pageview', properties: [{ key: '$current_url', not_icontains: '/help' }, { key: '$pathname', regex: '^/(cart|checkout)$' }, { key: '$browser', is_not: ['"Safari"'] }] },
        { event: 'product_added_to_cart', properties: [{ key: 'price', gt: 10 }, { key: 'quantity', lt: 5 }, { key: 'coupon', is_set: true }] },
        { event: 'checkout_started', properties: [{ key: 'note', is_not_set: true }, { key: '$pathname', not_regex: 'x+y' }] },
        { event: '$rageclick', properties: [] },
        { event: 'order_completed', properties: [] },
      ],
      lastAbsent: true,
      from: new Date(0),
      to: new Date('2999-12-31T00:00:00Z'),
    },
  ],
  personLookupQuery: HOSTILE.map((value) => ({ search: value })),
  personUnrecordedQuery: [
    ...HOSTILE.map((value) => ({ personUuids: [value], from: FROM, to: TO })),
    { personUuids: HOSTILE, from: new Date(0), to: new Date('2999-12-31T00:00:00Z') },
  ],
  recordedSessionsQuery: [
    { from: FROM, to: TO },
    ...HOSTILE.map((value) => ({ from: FROM, to: TO, personUuid: value, after: value })),
    ...HOSTILE.map((value) => ({ from: FROM, to: TO, after: value })),
    // A sequence's matching recordings: the period narrowed to them (one list value, with a person and a page or not).
    ...HOSTILE.map((value) => ({ from: FROM, to: TO, within: [value, `${value} 2`], after: value })),
    { from: FROM, to: TO, personUuid: HOSTILE[1]!, within: HOSTILE },
  ],
  periodExceptionsQuery: [{ from: FROM, to: TO }, ...HOSTILE.map((value) => ({ from: FROM, to: TO, personUuid: value })), ...HOSTILE.map((value) => ({ from: FROM, to: TO, within: [value] })), { from: FROM, to: TO, personUuid: HOSTILE[2]!, within: HOSTILE }],
  periodClicksQuery: [{ from: FROM, to: TO }, ...HOSTILE.map((value) => ({ from: FROM, to: TO, personUuid: value })), ...HOSTILE.map((value) => ({ from: FROM, to: TO, within: [value] })), { from: FROM, to: TO, personUuid: HOSTILE[2]!, within: HOSTILE }],
  periodConsoleErrorsQuery: [
    { from: new Date(0), to: new Date('2999-12-31T00:00:00Z') },
    ...HOSTILE.map((value) => ({ from: FROM, to: TO, personUuid: value })),
    ...HOSTILE.map((value) => ({ from: FROM, to: TO, within: [value] })),
    { from: FROM, to: TO, within: Array.from({ length: 200 }, (_, i) => `019a0000-0000-7000-8000-${String(i).padStart(12, '0')}`) },
  ],
  chainEventsQuery: [...HOSTILE.map((value) => ({ from: FROM, to: TO, sessionIds: [value] })), { from: FROM, to: TO, sessionIds: HOSTILE }],
  chainConsoleQuery: [...HOSTILE.map((value) => ({ from: FROM, to: TO, sessionIds: [value] })), { from: FROM, to: TO, sessionIds: HOSTILE }],
  matchedEventsQuery: [
    ...HOSTILE.map((value) => ({ sessionIds: [value], entities: [{ event: value, properties: [] }], from: FROM, to: TO })),
    ...HOSTILE.map((value) => ({ sessionIds: [value, `${value} 2`], entities: [{ event: '$pageview', properties: [{ key: value, icontains: value }] }, { actionId: 12, properties: [{ key: `$${value}`, exact: [JSON.stringify(value)] }] }], from: FROM, to: TO })),
    {
      sessionIds: HOSTILE,
      entities: [
        { event: '$pageview', properties: [{ key: '$current_url', not_icontains: '/help' }, { key: '$pathname', regex: '^/(cart|checkout)$' }, { key: '$browser', is_not: ['"Safari"'] }] },
        { event: 'product_added_to_cart', properties: [{ key: 'price', gt: 10 }, { key: 'quantity', lt: 5 }, { key: 'coupon', is_set: true }, { key: 'note', is_not_set: true }, { key: 'memo', not_regex: 'y+z' }] },
        { actionId: Number.MAX_SAFE_INTEGER, properties: [] },
      ],
      from: new Date(0),
      to: new Date('2999-12-31T00:00:00Z'),
    },
  ],
};

function strings(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, into));
  else if (value !== null && typeof value === 'object' && !(value instanceof Date)) Object.values(value).forEach((v) => strings(v, into));
  return into;
}

/** The same options with every string, number and date replaced by another: same shape, other contents. */
function otherContents(value: unknown, counter = { n: 0 }): unknown {
  if (typeof value === 'string') return `other-${counter.n++}`;
  if (typeof value === 'number') return value + 7;
  if (value instanceof Date) return new Date(value.getTime() + 86_400_000);
  if (Array.isArray(value)) return value.map((v) => otherContents(v, counter));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, otherContents(v, counter)]));
  return value;
}

const build = (name: keyof Builders, options: unknown): BuiltQuery => (HOGQL_BUILDERS[name] as (o: unknown) => BuiltQuery)(options);
const names = Object.keys(HOGQL_BUILDERS) as Array<keyof Builders>;

let parser: HogQLParser;
beforeAll(async () => {
  parser = await createHogQLParser();
});

function parse(query: string): AstNode {
  const tree = JSON.parse(parser.parseSelect(query, true)) as AstNode & { error?: boolean; message?: string };
  if (tree.error) throw new Error(`PostHog's parser refused the query: ${tree.message}\n${query}`);
  return tree;
}

describe('every query the tools send parses with PostHog\'s parser', () => {
  it('has samples for every builder', () => {
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(SAMPLES[name]?.length ?? 0, `no sample options for ${name} in this test`).toBeGreaterThan(0);
    expect(Object.keys(SAMPLES).sort()).toEqual([...names].sort());
  });

  for (const name of names) {
    it(`${name}: parses, and every input travels as a placeholder value`, () => {
      const problems: string[] = [];
      for (const options of SAMPLES[name]) {
        const built = build(name, options);
        const label = `${name}(${JSON.stringify(options).slice(0, 120)})`;
        const tree = parse(built.query);
        if (tree.node !== 'SelectQuery') problems.push(`${label}: a ${tree.node}, not one SELECT`);
        // The placeholders used are exactly the values sent: none unfilled, none sent for nothing.
        const used = placeholderNames(tree).sort();
        const sentKeys = Object.keys(built.values).sort();
        if (JSON.stringify(used) !== JSON.stringify(sentKeys)) problems.push(`${label}: placeholders ${used.join(',')} but values ${sentKeys.join(',')}`);
        // Every value is one PostHog can make a constant of (as the sandbox checks it).
        try {
          replacePlaceholders(tree, { ...built.values });
        } catch (error) {
          problems.push(`${label}: ${(error as Error).message}`);
        }
        const sent = new Set(strings(built.values));
        for (const value of strings(options)) {
          if (built.query.includes(value)) problems.push(`${label}: the query text holds the input value ${JSON.stringify(value.slice(0, 60))}`);
          if (!sent.has(value)) problems.push(`${label}: the input value ${JSON.stringify(value.slice(0, 60))} is not among the values sent`);
        }
        // The text depends on the options' shape only: other contents, same query.
        if (build(name, otherContents(options)).query !== built.query) problems.push(`${label}: the query text changes with the options' contents`);
      }
      expect(problems).toEqual([]);
    });
  }

  it('refuses to build a query without a condition', () => {
    expect(() => HOGQL_BUILDERS.matchingEventsQuery({ sessionId: 's', eventNames: [], actionIds: [], from: FROM, to: TO })).toThrow(RangeError);
    expect(() => HOGQL_BUILDERS.sessionPropertiesQuery({ sessionIds: [], from: FROM, to: TO })).toThrow(RangeError);
    expect(() => HOGQL_BUILDERS.sessionExceptionsQuery({ sessionIds: [], from: FROM, to: TO })).toThrow(RangeError);
  });
});

describe('every query is bounded as PostHog\'s own list is', () => {
  // What PostHog's list puts on every read of the replay table (docs/posthog-api.md, "Tables the query API reads"): the dates, the TTL, the recording's retention.
  const DATES = 'start_time >= toDateTime({date_from}) AND start_time <= toDateTime({date_to})';
  const KEPT = 'start_time >= now() - toIntervalDay({ttl_days}) AND addDays(toStartOfDay(start_time), 1) >= now() - toIntervalDay(coalesce(retention_period_days, 365))';
  const REPLAY_BOUNDS = `${DATES} AND ${KEPT}`;
  // The one other read: which sessions of the dates PostHog keeps no more (why one has no recording), bounded by the dates.
  const EXPIRED = `${DATES} AND (start_time < now() - toIntervalDay({ttl_days}) OR addDays(toStartOfDay(start_time), 1) < now() - toIntervalDay(coalesce(retention_period_days, 365)))) AS expired`;
  /** The builders that read the replay table: a builder that starts to must be added here, and is then held to its bounds. */
  const READ_REPLAY = ['sequenceSessionsQuery', 'recordedSessionsQuery', 'periodExceptionsQuery', 'periodClicksQuery', 'periodConsoleErrorsQuery', 'personUnrecordedQuery'];

  for (const name of names) {
    it(`${name}: each read of session_replay_events carries the dates, the TTL and the retention; each read of events or console lines a time range`, () => {
      for (const options of SAMPLES[name]) {
        const { query, values } = build(name, options);
        const replayReads = query.split('FROM session_replay_events').slice(1);
        expect(replayReads.length > 0, `${name} reads the replay table: list it in READ_REPLAY`).toBe(READ_REPLAY.includes(name));
        for (const after of replayReads) expect(after.startsWith(` WHERE ${REPLAY_BOUNDS}`) || after.startsWith(` WHERE ${EXPIRED}`), `${name}: FROM session_replay_events${after.slice(0, 200)}`).toBe(true);
        // Where a query tells expired recordings apart, it also reads the kept ones.
        if (query.includes(' AS expired')) expect(replayReads.some((after) => after.startsWith(` WHERE ${REPLAY_BOUNDS}`)), name).toBe(true);
        if (replayReads.length > 0) {
          expect(values.ttl_days).toBe(RECORDING_TTL_DAYS);
          expect(values.date_from).toBe((options as { from: Date }).from.toISOString());
          expect(values.date_to).toBe((options as { to: Date }).to.toISOString());
        }
        // Events and console lines: a lower and an upper bound on their own time.
        const timed = query.split(/FROM (?:events|console_logs_log_entries)\b/).slice(1);
        for (const after of timed) expect(after, name).toMatch(/^ WHERE .*timestamp >=? toDateTime\(\{\w+\}\) AND timestamp <= toDateTime\(\{\w+\}\)/);
      }
    });
  }

  it('the TTL assumed where PostHog\'s cannot be read is the longest a plan has (90 days)', () => {
    expect(RECORDING_TTL_DAYS).toBe(90);
  });
});

describe('the sandbox runs every built query', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('answers each sample with rows, not an error', async () => {
    const real = { ...SAMPLES.matchingEventsQuery[0]!, sessionId: DEMO.recordingIds.checkoutFailure, eventNames: ['$pageview'], from: new Date(0), to: new Date('2999-12-31T00:00:00Z') };
    const cases: Array<[keyof Builders, unknown]> = [...names.flatMap((name) => SAMPLES[name].map((o) => [name, o] as [keyof Builders, unknown])), ['matchingEventsQuery', real]];
    let rows = 0;
    for (const [name, options] of cases) {
      const built = build(name, options);
      const res = await fetch(`${sb.url}/api/projects/${DEMO.mainProjectId}/query/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${SANDBOX_API_KEY}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: { kind: 'HogQLQuery', query: built.query, values: built.values } }),
      });
      const body = (await res.json()) as { results?: unknown[]; detail?: string };
      expect(res.status, `${name}: ${body.detail ?? ''}`).toBe(200);
      rows += body.results!.length;
    }
    // The real session has pageviews; the hostile values match nothing.
    expect(rows).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------
// The guard: HogQL is written only by the builders, sent only by the query operation, parsed lazily.

interface SourceFile {
  path: string;
  text: string;
}

const BUILDERS_FILE = 'src/posthog/hogql-queries.ts';
const RUNNER_FILE = 'src/posthog/operations/query.ts';

/** What breaks the rule that every query is a listed builder's; empty when none does. */
function guardViolations(files: SourceFile[], builderNames: readonly string[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    const upstream = path.startsWith('src/sandbox/');
    if (!upstream && path !== RUNNER_FILE && /['"`]HogQLQuery['"`]/.test(text)) found.push(`${path} sends a HogQLQuery itself (only query.hogql in ${RUNNER_FILE} may)`);
    if (!upstream && path !== BUILDERS_FILE && /\bSELECT\b[^;\n]{0,200}\bFROM\b|\bFROM\s+events\b/i.test(text)) found.push(`${path} writes HogQL (only the builders in ${BUILDERS_FILE} may)`);
    if (path !== BUILDERS_FILE && /\bas\s+(unknown\s+as\s+)?BuiltQuery\b|<BuiltQuery>/.test(text)) found.push(`${path} forges a BuiltQuery`);
    if (/^\s*import\s+(?!type\b)[^;]*['"]@posthog\/hogql-parser['"]/m.test(text)) found.push(`${path} imports @posthog/hogql-parser at start-up (load it on first use)`);
    if (path === BUILDERS_FILE) {
      const makers = [...text.matchAll(/function\s+(\w+)\s*\([^)]*\)\s*:\s*BuiltQuery|(?:const|let)\s+(\w+)\s*=\s*\([^)]*\)\s*:\s*BuiltQuery/g)].map((m) => m[1] ?? m[2]!);
      for (const maker of makers) if (maker !== 'seal' && !builderNames.includes(maker)) found.push(`${path}: ${maker} builds a query but is not in HOGQL_BUILDERS`);
    }
  }
  return found;
}

function sourceFiles(dir: string): SourceFile[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => {
      const full = join(entry.parentPath, entry.name);
      return { path: relative(ROOT, full).split('\\').join('/'), text: readFileSync(full, 'utf8') };
    });
}

describe('no query is built outside the builders', () => {
  it('holds for src/', () => {
    const files = sourceFiles('src');
    expect(files.some((f) => f.path === BUILDERS_FILE)).toBe(true);
    expect(files.some((f) => f.path === RUNNER_FILE)).toBe(true);
    expect(guardViolations(files, names)).toEqual([]);
  });

  it('catches each way around it', () => {
    const builders = { path: BUILDERS_FILE, text: readFileSync(join(ROOT, BUILDERS_FILE), 'utf8') };
    expect(guardViolations([builders], names)).toEqual([]);
    const cases: SourceFile[] = [
      { path: 'src/tools/x.ts', text: "await client.json({ body: { query: { kind: 'HogQLQuery', query: q } } });" },
      { path: 'src/tools/x.ts', text: 'const q = `SELECT uuid FROM events WHERE event = ${name}`;' },
      { path: 'src/digest/x.ts', text: "const q = 'select count() ' + 'from events';" },
      { path: 'src/tools/x.ts', text: "posthog.query.hogql(p, { query: 'x', values: {} } as unknown as BuiltQuery);" },
      { path: 'src/sandbox/x.ts', text: "import createHogQLParser from '@posthog/hogql-parser';" },
      { path: BUILDERS_FILE, text: `${builders.text}\nexport function exceptionsQuery(o: { s: string }): BuiltQuery {\n  return seal('SELECT 1 FROM events', {});\n}\n` },
    ];
    for (const file of cases) expect(guardViolations([file], names), file.text.slice(0, 80)).toHaveLength(1);
  });
});
