import { describe, expect, it } from 'vitest';
import { TIMEZONES } from '../../src/posthog/timezones.js';
import { clock, didYouMean, duration, nearest, plural } from '../../src/words.js';

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
