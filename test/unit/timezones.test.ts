import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TIMEZONES } from '../../src/posthog/timezones.js';
import { PRODUCT_NAME, VERSION } from '../../src/version.js';

describe('fixed lists', () => {
  it('TIMEZONES is exactly api-interface.md §2.5 when that document is beside the checkout', () => {
    let doc: string;
    try {
      doc = readFileSync(new URL('../../../shared/api-interface.md', import.meta.url), 'utf8');
    } catch {
      // Outside this workspace the document is not there; the list still must hold the known edges.
      expect(TIMEZONES[0]).toBe('Africa/Abidjan');
      expect(TIMEZONES.at(-1)).toBe('UTC');
      return;
    }
    const section = doc.split('### 2.5 Allowed values of timezone')[1]!.split('## 3.')[0]!;
    const expected = section.trim().split(',').map((s) => s.trim());
    expect([...TIMEZONES]).toEqual(expected);
    expect(new Set(TIMEZONES).size).toBe(TIMEZONES.length);
  });

  it('version.ts matches package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.name).toBe(PRODUCT_NAME);
    expect(pkg.version).toBe(VERSION);
  });
});
