import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';

const P = String(DEMO.mainProjectId);
const R = DEMO.recordingIds.checkoutFailure;

/** Each case must be refused with a clear message before anything is sent upstream. */
const CASES: Array<[string, string, Record<string, unknown>, RegExp]> = [
  ['a timezone outside docs/posthog-api.md, "Time zones"', 'project-update', { id: DEMO.mainProjectId, timezone: 'Mars/Olympus' }, /timezone must be an IANA name.*"Mars\/Olympus" is not on it/],
  ['a timezone outside docs/posthog-api.md, "Time zones" on create', 'project-create', { name: 'x', timezone: 'Europe/Atlantis' }, /timezone/i],
  ['an unknown field', 'session-recordings-list', { project_id: P, colour: 'red' }, /colour|unrecognized/i],
  ['an unknown project field', 'project-create', { name: 'x', secret_api_token: 'y' }, /secret_api_token|unrecognized/i],
  ['project id "abc"', 'session-recordings-list', { project_id: 'abc' }, /project_id must be a project number/],
  ['a negative project id', 'session-recording-get', { project_id: -1, id: R }, /project_id/],
  ['a path-traversing recording id', 'session-recording-get', { project_id: P, id: '../../projects/1' }, /recording id/],
  ['a recording id with a query', 'session-recording-delete', { project_id: P, id: 'abc?x=1' }, /recording id/],
  ['limit 0', 'session-recordings-list', { project_id: P, limit: 0 }, /limit/],
  ['limit 1000', 'projects-list', { limit: 1000 }, /limit/],
  ['a negative offset', 'projects-list', { offset: -1 }, /offset/],
  ['matching-events without a filter', 'session-recording-matching-events', { project_id: P, session_id: R }, /at least one filter/],
  ['matching-events with empty filters', 'session-recording-matching-events', { project_id: P, session_id: R, events: [], actions: [] }, /at least one filter/],
  ['properties without ids', 'session-recording-properties', { project_id: P, session_ids: [] }, /session_ids/],
  ['triage with more session_ids than it reads (the count is checked, not advertised)', 'session-recordings-triage', { project_id: P, session_ids: Array.from({ length: 51 }, (_, i) => `s${i}`) }, /session_ids/],
  ['project-update with only an id', 'project-update', { id: DEMO.mainProjectId }, /at least one field/],
  ['project-get with id "abc"', 'project-get', { id: 'abc' }, /id/],
  ['project-delete with a fractional id', 'project-delete', { id: 1.5 }, /id/],
  ['project-create without a name', 'project-create', {}, /name/],
  ['project-create with a blank name', 'project-create', { name: '   ' }, /name/],
  ['a malformed date_from', 'session-recordings-list', { project_id: P, date_from: 'last tuesday' }, /date_from/],
  ['a wrong type', 'project-update', { id: DEMO.mainProjectId, anonymize_ips: 'yes' }, /anonymize_ips/],
  ['missing project_id with no default', 'session-recordings-list', {}, /project_id/],
  // Near misses name the value probably meant.
  ['a timezone in the wrong case', 'project-update', { id: DEMO.mainProjectId, timezone: 'europe/london' }, /"europe\/london" is not on it\. Did you mean "Europe\/London"\?/],
  ['a timezone by its city', 'project-create', { name: 'x', timezone: 'Berlin' }, /Did you mean "Europe\/Berlin"\?/],
  ['a timezone with a typo', 'project-update', { id: DEMO.mainProjectId, timezone: 'America/New_Yrok' }, /Did you mean "America\/New_York"\?/],
  ['an order field with a typo', 'session-recordings-list', { project_id: P, order: 'start_tme' }, /order: .*Did you mean "start_time"\?/],
  ['an order direction in lower case', 'session-recordings-triage', { project_id: P, order_direction: 'desc' }, /Did you mean "DESC"\?/],
  ['project-get with a word for an id', 'project-get', { id: 'first' }, /id must be a project number like 12345/],
  // Recording filters (issue 31): checked whole before any request, near misses named.
  ['a filter type with a typo', 'session-recordings-list', { project_id: P, properties: [{ type: 'persn', key: 'email', operator: 'icontains', value: 'x' }] }, /properties\.0\.type: .*Did you mean "person"\?/],
  ['"contains" for an operator', 'session-recordings-triage', { project_id: P, properties: [{ type: 'person', key: 'email', operator: 'contains', value: 'x' }] }, /Did you mean "icontains"\?/],
  ['"equals" for an operator, in an event entity', 'session-recordings-list', { project_id: P, events: [{ id: '$pageview', properties: [{ type: 'event', key: '$current_url', operator: 'equals', value: '/' }] }] }, /events\.0\.properties\.0\.operator: .*Did you mean "exact"\?/],
  ['an unknown recording key', 'session-recordings-list', { project_id: P, properties: [{ type: 'recording', key: 'console_errors', operator: 'gt', value: 0 }] }, /Did you mean "console_error_count"\?/],
  ['a text operator on a number', 'session-recordings-list', { project_id: P, properties: [{ type: 'recording', key: 'duration', operator: 'icontains', value: '60' }] }, /not an operator for a number/],
  ['gte, which PostHog\'s list does not take', 'session-recordings-list', { project_id: P, having_predicates: [{ key: 'duration', operator: 'gte', value: 60 }] }, /use gt/],
  ['is_set with a value', 'session-recordings-list', { project_id: P, properties: [{ type: 'person', key: 'email', operator: 'is_set', value: 'yes' }] }, /is_set takes no value/],
  ['a cohort without its id', 'session-recordings-list', { project_id: P, properties: [{ type: 'cohort', key: 'id', value: 'vip' }] }, /cohort id/],
  ['a group filter without its type index', 'session-recordings-list', { project_id: P, properties: [{ type: 'group', key: 'plan', operator: 'exact', value: ['pro'] }] }, /group_type_index/],
  ['an event name in actions', 'session-recordings-list', { project_id: P, actions: [{ id: 'order_completed' }] }, /event name goes in events/],
  ['a console key with a typo', 'session-recordings-list', { project_id: P, console_log_filters: [{ key: 'mesage', operator: 'icontains', value: 'x' }] }, /Did you mean "message"\?/],
  ['values_of for session properties', 'recording-filter-options', { project_id: P, kind: 'session_properties', values_of: '$entry_pathname' }, /values_of works with kind/],
  ['a retention period in the wrong case', 'project-update', { id: DEMO.mainProjectId, session_recording_retention_period: '90D' }, /Did you mean "90d"\?/],
];

describe('invalid input is refused with a clear error and no upstream request', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  for (const [what, tool, args, message] of CASES) {
    it(`${tool}: ${what}`, async () => {
      const r = await h.call(tool, args);
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(message);
      expect(h.sandbox.requests).toHaveLength(0);
    });
  }
});
