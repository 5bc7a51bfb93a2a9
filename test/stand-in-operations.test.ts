// Tools against a stand-in for the operations (test/support/stand-in.ts): edge cases of PostHog's
// answers that the sandbox would need a hostile mode or a thousand events for, given as the typed
// values (or errors) the operations hand a tool. The client is the SDK's, as everywhere else.
import { afterEach, describe, expect, it } from 'vitest';
import { unusable } from '../src/posthog/operations/parse.js';
import type { Match, ProjectListItem, Recording } from '../src/posthog/operations/index.js';
import { MAX_MATCHES } from '../src/posthog/hogql-queries.js';
import { startStandIn, type StandInServer } from './support/stand-in.js';
import { text } from './harness.js';

let server: StandInServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const page = <T>(results: T[]) => ({ results, has_more: false, next_offset: null, count: results.length });
const noProject = unusable('a project', 'that has no id (not a project this server can use)');

describe('tools over stand-in operations', () => {
  it('projects-list: rows with nothing but an id, and project records that cannot be read, list every project and say why', async () => {
    const rows: ProjectListItem[] = [{ id: 1 }, { id: 2, name: null, timezone: null }, { id: 3, name: 'Shop', timezone: 'Europe/Berlin' }];
    server = await startStandIn({
      projects: {
        list: async () => page(rows),
        get: async (id) => {
          if (id === 1) throw noProject;
          return id === 2 ? { id: 99 } : { id: 3, session_recording_opt_in: true, session_recording_sample_rate: '0.25' };
        },
      },
    });
    const r = await server.call('projects-list');
    expect(r.isError, text(r)).toBeFalsy();
    const lines = text(r).split('\n');
    expect(lines[0]).toBe('3 projects of 3:');
    expect(lines[1]).toMatch(/^1 .*recording settings not read: PostHog answered with a project that has no id/);
    expect(lines[2]).toMatch(/^2 .*recording settings not read: PostHog answered with project 99, not 2$/);
    expect(lines[3]).toMatch(/^3 "Shop" · timezone Europe\/Berlin · .*recording on for 25% of sessions$/);
    expect(server.calls).toEqual(['projects.list', 'projects.get', 'projects.get', 'projects.get']);
  });

  it('session-recording-get: a recording with nothing but its id (every other field absent or null) answers within its output schema', async () => {
    const bare: Recording = { id: 'r1', person: null, start_time: null, recording_duration: null, start_url: null };
    server = await startStandIn({ recordings: { get: async () => bare } });
    const r = await server.call('session-recording-get', { project_id: '1', id: 'r1' });
    // The server checks structuredContent against the tool's outputSchema: a mismatch is an error.
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toMatch(/^Recording r1 /m);
    expect(server.calls).toEqual(['recordings.get']);
  });

  it('session-recording-get: an answer the operations find unusable is said as it is, not as an internal error', async () => {
    const malformed = unusable('a recording', 'that has no id (not a recording this server can use)');
    server = await startStandIn({
      recordings: {
        get: async () => {
          throw malformed;
        },
      },
    });
    const r = await server.call('session-recording-get', { project_id: '1', id: 'r1' });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe(malformed.message);
  });

  it('session-recording-matching-events: the query API\'s cap of 1000 matches is said in both views, the one event name once', async () => {
    const matches: Match[] = Array.from({ length: MAX_MATCHES }, (_, i) => ({ uuid: `u${i}`, timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), event: '$rageclick', url: null }));
    server = await startStandIn({ recordings: { matchingEvents: async () => ({ result: matches, via: 'query' }) } });
    const r = await server.call('session-recording-matching-events', { project_id: '1', session_id: 's1', events: [{ id: '$rageclick' }] });
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as { event?: string; note?: string; results: Array<Record<string, unknown>> };
    expect(data.event).toBe('$rageclick');
    expect(data.results).toHaveLength(MAX_MATCHES);
    expect(data.results[0]).not.toHaveProperty('event');
    expect(data.note).toBe(`Only the first ${MAX_MATCHES} matches were read.`);
    expect(text(r).split('\n').at(-1)).toBe(data.note);
  });

  it('recording-filter-options: a person property\'s values come with their counts, a token in a URL value masked', async () => {
    server = await startStandIn({
      definitions: {
        values: async (_project, of, key) => {
          expect([of, key]).toEqual(['persons', '$initial_current_url']);
          return [{ name: 'https://shop.test/reset?token=s3cr3t-reset-token', count: 3 }, { name: 'https://shop.test/', count: 1 }];
        },
      },
    });
    const r = await server.call('recording-filter-options', { project_id: '1', kind: 'person_properties', values_of: '$initial_current_url' });
    expect(r.isError, text(r)).toBeFalsy();
    const { values } = r.structuredContent as { values: Array<[string, number]> };
    expect(values).toHaveLength(2);
    expect(values[0]![1]).toBe(3);
    expect(values[0]![0]).toMatch(/^https:\/\/shop\.test\/reset\?token=/);
    expect(JSON.stringify(r)).not.toContain('s3cr3t-reset-token');
    expect(values[1]).toEqual(['https://shop.test/', 1]);
  });
});
