import { describe, expect, it } from 'vitest';
import { projectListItemSchema, projectSchema, recordingSchema, type Recording } from '../../src/posthog/resources.js';

// posthog/resources.ts reads a variant answer as the declared type, and what cannot be read as it
// becomes null: one odd field never fails a good answer (and a tool that declares these schemas
// in its outputSchema never sends a value of another type).
describe('PostHog resources read as their declared types', () => {
  it('a recording: counts from numeric strings, a fraction where a whole number belongs is null, viewed from "true"', () => {
    const r: Recording = recordingSchema.parse({ id: 42, recording_duration: 12.5, click_count: '3', viewed: 'true', ongoing: 'maybe', start_url: 7, extra: { kept: true } });
    expect(r).toEqual({ id: '42', recording_duration: null, click_count: 3, viewed: true, ongoing: null, start_url: '7', extra: { kept: true } });
    // Types flow from the schema: a count is a number to the compiler too.
    const clicks: number | null | undefined = r.click_count;
    expect(clicks).toBe(3);
    expect(recordingSchema.safeParse({ start_time: '2026-11-01T00:00:00Z' }).success).toBe(false);
  });

  it('a project: JSON settings kept as an array or an object, anything else null; the sample rate as PostHog\'s decimal string', () => {
    const p = projectSchema.parse({ id: '7', test_account_filters: [{ key: 'email' }], correlation_config: {}, data_attributes: 'data-attr', session_recording_sample_rate: 0.5, anonymize_ips: 'false' });
    expect(p).toEqual({ id: 7, test_account_filters: [{ key: 'email' }], correlation_config: {}, data_attributes: null, session_recording_sample_rate: '0.5', anonymize_ips: false });
    expect(projectSchema.parse({ id: 1, session_recording_sample_rate: true }).session_recording_sample_rate).toBeNull();
    expect(projectListItemSchema.parse({ id: 1, uuid: 'u', secret_api_token: 's' })).toEqual({ id: 1, uuid: 'u', secret_api_token: 's' });
  });
});
