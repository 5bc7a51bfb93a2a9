import { describe, expect, it } from 'vitest';
import { unappliedFields, unappliedText } from '../../src/tools/projects/shape.js';

describe('unappliedFields: what PostHog did not take as sent', () => {
  it('names fields missing from the answer and fields stored otherwise, not normalised equal ones', () => {
    const sent = { name: 'Shop ', slack_incoming_webhook: 'https://hooks', app_urls: ['', 'https://a'], correlation_config: { a: 1, b: [1, 2] }, primary_dashboard: 7, anonymize_ips: true };
    const answer = { name: 'Shop', app_urls: ['https://a'], correlation_config: { b: [1, 2], a: 1 }, primary_dashboard: '7', anonymize_ips: false };
    expect(unappliedFields(sent, answer)).toEqual([
      { field: 'slack_incoming_webhook' },
      { field: 'app_urls', stored: ['https://a'] },
      { field: 'anonymize_ips', stored: false },
    ]);
    expect(unappliedText(unappliedFields(sent, answer))).toBe(
      'PostHog did not apply: slack_incoming_webhook (ignored: this PostHog does not take it); app_urls (PostHog stored ["https://a"] instead); anonymize_ips (PostHog stored false instead).',
    );
  });

  it('an object sent where an array comes back, and null stored, are differences', () => {
    expect(unappliedFields({ data_attributes: { a: 1 }, extra_settings: { x: 1 } }, { data_attributes: [], extra_settings: null })).toEqual([
      { field: 'data_attributes', stored: [] },
      { field: 'extra_settings', stored: null },
    ]);
  });
});
