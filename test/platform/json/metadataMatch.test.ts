// The metadata filter of the project and dataset lists.
import { expect, test } from 'vitest';
import { metadataMatches } from '../../../platform/json/metadataMatch.ts';

test('every key asked for is in the metadata with a deeply equal value', () => {
  const metadata = { team: 'a', n: 1, tags: ['x', 'y'], nested: { k: true } };
  expect(metadataMatches(metadata, {})).toBe(true);
  expect(metadataMatches(metadata, { team: 'a', tags: ['x', 'y'], nested: { k: true } })).toBe(true);
  expect(metadataMatches(metadata, { team: 'b' })).toBe(false);
  expect(metadataMatches(metadata, { n: '1' })).toBe(false);
  expect(metadataMatches(metadata, { tags: ['y', 'x'] })).toBe(false);
  expect(metadataMatches(metadata, { missing: null })).toBe(false);
  // Inherited names are not keys of the metadata.
  expect(metadataMatches({}, { toString: Object.prototype.toString })).toBe(false);
});

test('without metadata only the empty filter matches', () => {
  for (const none of [null, undefined, 'text', ['a']]) {
    expect(metadataMatches(none, {})).toBe(true);
    expect(metadataMatches(none, { a: 1 })).toBe(false);
  }
});
