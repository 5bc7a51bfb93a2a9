import { describe, expect, it } from 'vitest';
import { TIMEZONES } from '../../src/posthog/timezones.js';
import { clock, didYouMean, duration, nearest, numberRange, plural } from '../../src/words.js';

describe('words', () => {
  it('puts the noun in the number of its count', () => {
    expect(plural(1, 'rage click')).toBe('1 rage click');
    expect(plural(0, 'warning')).toBe('0 warnings');
    expect(plural(2, 'person', 'people')).toBe('2 people');
  });

  it('writes lengths in the player\'s format, rounded, and moments floored (a moment is reached, a length is measured)', () => {
    expect(duration(1210.6)).toBe('20:11');
    expect(duration(1211)).toBe('20:11');
    expect(duration(4000)).toBe('1:06:40');
    expect(duration(undefined)).toBe('?');
    expect(clock(65_999)).toBe('1:05');
  });

  it('finds what a near miss meant: case, a city, a typo, a swap', () => {
    expect(nearest('europe/london', TIMEZONES)).toEqual(['Europe/London']);
    expect(nearest('Berlin', TIMEZONES)).toEqual(['Europe/Berlin']);
    expect(nearest('America/New_Yrok', TIMEZONES)).toEqual(['America/New_York']);
    expect(nearest('Europe/Lodnon', TIMEZONES)).toEqual(['Europe/London']);
    expect(nearest('new york', TIMEZONES)).toEqual(['America/New_York']);
    expect(nearest('htp', ['stdio', 'http'])).toEqual(['http']);
  });

  it('suggests nothing for what is far from every value', () => {
    expect(nearest('Mars/Olympus', TIMEZONES)).toEqual([]);
    expect(didYouMean('xyz', ['recordings', 'projects'])).toBe('');
    expect(didYouMean('', ['a'])).toBe('');
  });
});

describe('numberRange', () => {
  it('writes each number that differs as first…last, and keeps the ones that do not', () => {
    expect(numberRange('Attempt 1.', 'Attempt 5.')).toBe('Attempt 1…5.');
    expect(numberRange('retrying (attempt 1 of 3)', 'retrying (attempt 3 of 3)')).toBe('retrying (attempt 1…3 of 3)');
    expect(numberRange('took 0.5 s', 'took 12.25 s')).toBe('took 0.5…12.25 s');
  });
  it('is the message itself when both are the same, and undefined when they differ in more than numbers', () => {
    expect(numberRange('Search request failed: 503 Service Unavailable', 'Search request failed: 503 Service Unavailable')).toBe('Search request failed: 503 Service Unavailable');
    expect(numberRange('Order 12 failed', 'Order 12 failed twice')).toBeUndefined();
    expect(numberRange('a 1 b', 'c 2 b')).toBeUndefined();
  });
});
