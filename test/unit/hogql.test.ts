import { describe, expect, it } from 'vitest';
import { DATE_PATTERN, resolveDate } from '../../src/posthog/hogql.js';

const NOW = Date.parse('2026-03-31T12:00:00Z');

describe('resolveDate: the query path\'s date bound', () => {
  it('reads relative and absolute dates, UTC unless they say otherwise', () => {
    expect(resolveDate('-24h', NOW).toISOString()).toBe('2026-03-30T12:00:00.000Z');
    expect(resolveDate('-2w', NOW).toISOString()).toBe('2026-03-17T12:00:00.000Z');
    expect(resolveDate('-30M', NOW).toISOString()).toBe('2026-03-31T11:30:00.000Z');
    expect(resolveDate('-1m', NOW).toISOString()).toBe('2026-03-03T12:00:00.000Z');
    expect(resolveDate('-1y', NOW).toISOString()).toBe('2025-03-31T12:00:00.000Z');
    expect(resolveDate('2025-06-01', NOW).toISOString()).toBe('2025-06-01T00:00:00.000Z');
    expect(resolveDate('2025-06-01 10:30', NOW).toISOString()).toBe('2025-06-01T10:30:00.000Z');
    expect(resolveDate('2025-06-01T10:30:00+02:00', NOW).toISOString()).toBe('2025-06-01T08:30:00.000Z');
    expect(resolveDate('2025-06-01T10:30:00+0200', NOW).toISOString()).toBe('2025-06-01T08:30:00.000Z');
  });

  it('accepts exactly what the input schemas let through', () => {
    for (const good of ['-30d', '-24h', '2025-06-01', '2025-06-01T10:30:00.123456Z', '2025-06-01 10:30:00+0200']) {
      expect(DATE_PATTERN.test(good), good).toBe(true);
      expect(() => resolveDate(good, NOW), good).not.toThrow();
    }
    for (const bad of ['all', 'dStart', '-3dStart', 'yesterday', '2025-13', '30d']) {
      expect(DATE_PATTERN.test(bad), bad).toBe(false);
      expect(() => resolveDate(bad, NOW), bad).toThrow(/date_from/);
    }
  });
});
