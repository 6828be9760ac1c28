import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import {
  MAX_JSON_DEPTH,
  TRUNCATED_MARKER,
  jsonDepth,
  jsonTooDeep,
  parseStoredJson,
  truncateJsonDepth,
  valueDepth,
} from '../../../platform/json/jsonNesting.ts';

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + '1' + close.repeat(depth);

describe('jsonDepth', () => {
  test('counts containers, not brackets inside strings or escaped quotes', () => {
    expect(jsonDepth('1')).toBe(0);
    expect(jsonDepth('{"a":1}')).toBe(1);
    expect(jsonDepth('{"a":[{"b":[]}]}')).toBe(4);
    expect(jsonDepth('{"a":"[[[[{{{{"}')).toBe(1);
    expect(jsonDepth('["\\"[[[", "\\\\", [1]]')).toBe(2);
    expect(jsonDepth(nested(5000))).toBe(5000);
  });

  test('stops at limit + 1', () => expect(jsonDepth(nested(5000), 10)).toBe(11));

  test('agrees with the depth of the parsed value on any JSON', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'large' }), (text) => {
        expect(jsonDepth(text)).toBe(valueDepth(JSON.parse(text), Number.MAX_SAFE_INTEGER));
      }),
      { numRuns: 500 },
    );
  });
});

describe('jsonTooDeep', () => {
  test('at the limit is fine, one more is not', () => {
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonTooDeep(`"${'['.repeat(10_000)}"`)).toBe(false);
  });

  test('long texts: few brackets settle it at once, many shallow ones are scanned', () => {
    expect(jsonTooDeep(`{"a":"${'x'.repeat(10_000)}"}`)).toBe(false);
    expect(jsonTooDeep(`[${'[1],'.repeat(1000)}[1]]`)).toBe(false);
    expect(jsonTooDeep(`{"pad":"${'{'.repeat(300)}","deep":${nested(MAX_JSON_DEPTH + 1)}}`)).toBe(true);
  });
});

describe('truncateJsonDepth and parseStoredJson', () => {
  test('texts within the limit come back unchanged', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(truncateJsonDepth(text)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  test('deeper containers become the marker; what is above them is kept', () => {
    const text = `{"keep":"x","deep":${'{"a":'.repeat(10)}1${'}'.repeat(10)},"after":[1,2]}`;
    expect(parseStoredJson(text, 4)).toEqual({ keep: 'x', deep: { a: { a: { a: TRUNCATED_MARKER } } }, after: [1, 2] });
  });

  test('a value 100,000 levels deep parses and serialises again', () => {
    const value = parseStoredJson(nested(100_000));
    expect(valueDepth(value, Number.MAX_SAFE_INTEGER)).toBe(MAX_JSON_DEPTH);
    expect(() => JSON.stringify(value)).not.toThrow();
  });

  test('the result is always valid JSON within the limit', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'large' }), fc.integer({ min: 1, max: 6 }), (text, limit) => {
        const value = parseStoredJson(text, limit);
        expect(valueDepth(value, Number.MAX_SAFE_INTEGER)).toBeLessThanOrEqual(limit);
      }),
      { numRuns: 500 },
    );
  });
});
