// How durations read in the explorer's tables.
import { expect, test } from 'vitest';
import { seconds } from '../../../../apps/explorer/core/format.ts';

test('a duration under a second in ms, else in seconds; rounding never gives "1000 ms"', () => {
  expect([seconds(0), seconds(0.2), seconds(0.9994), seconds(0.9999995), seconds(1), seconds(3.456)]).toEqual([
    '0 ms',
    '200 ms',
    '999 ms',
    '1.00 s',
    '1.00 s',
    '3.46 s',
  ]);
  expect(seconds(null)).toBe('—');
});
