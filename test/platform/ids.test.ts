import { describe, expect, test } from 'vitest';
import { optionalUuid, requireUuid, toUuid } from '../../platform/ids.ts';

describe('toUuid', () => {
  test('lowercase hyphenated (the fast path), upper case and 32-hex all come back lowercase hyphenated', () => {
    const id = '018f3c2a-7b1d-7e44-9a0b-0c1d2e3f4a5b';
    expect(toUuid(id)).toBe(id);
    expect(toUuid(id.toUpperCase())).toBe(id);
    expect(toUuid(id.replaceAll('-', ''))).toBe(id);
    expect(toUuid(id.replaceAll('-', '').toUpperCase())).toBe(id);
  });
  test('anything else is not a UUID', () => {
    for (const bad of [
      '',
      'x',
      '018f3c2a-7b1d-7e44-9a0b-0c1d2e3f4a5g',
      '018f3c2a-7b1d-7e44-9a0b-0c1d2e3f4a5',
      '018f3c2a_7b1d-7e44-9a0b-0c1d2e3f4a5b',
      '018f3c2a-7b1d-7e44-9a0b-0c1d2e3f4a5b0',
    ])
      expect(toUuid(bad), bad).toBeNull();
    expect(() => requireUuid('nope', 'run id')).toThrow(/run id is not a valid UUID: "nope"/);
    expect(() => requireUuid(5, 'run id')).toThrow(/must be a UUID string/);
    expect(optionalUuid(null, 'x')).toBeNull();
  });
});
