import { describe, expect, test } from 'vitest';
import {
  formatDottedTimestamp,
  formatIsoMicros,
  parseDottedTimestamp,
  parseTimestampMicros,
} from '../../platform/time.ts';

describe('timestamps', () => {
  const t = Date.UTC(2026, 10, 21, 10, 0, 0, 123) * 1000 + 456;
  test('every form the clients send', () => {
    expect(parseTimestampMicros('2026-11-21T10:00:00.123456Z', 'x')).toBe(t);
    expect(parseTimestampMicros('2026-11-21T10:00:00.123456+00:00', 'x')).toBe(t);
    expect(parseTimestampMicros('2026-11-21T12:00:00.123456+02:00', 'x')).toBe(t);
    expect(parseTimestampMicros('2026-11-21T10:00:00.123456', 'x')).toBe(t); // naive = UTC
    expect(parseTimestampMicros(Date.UTC(2026, 10, 21, 10, 0, 0, 123), 'x')).toBe(t - 456);
    expect(parseTimestampMicros('2026-11-21T10:00:00Z', 'x')).toBe(t - 123456);
    expect(parseTimestampMicros(null, 'x')).toBeNull();
  });
  test('bad timestamps are 422 with the field name', () => {
    expect(() => parseTimestampMicros('yesterday', 'start_time')).toThrow(/start_time/);
    expect(() => parseTimestampMicros('2026-13-01T00:00:00Z', 'start_time')).toThrow(/valid date/);
    expect(() => parseTimestampMicros({}, 'end_time')).toThrow(/end_time/);
  });
  test('dotted_order timestamps round-trip', () => {
    expect(formatDottedTimestamp(t)).toBe('20261121T100000123456Z');
    expect(parseDottedTimestamp('20261121T100000123456Z')).toBe(t);
    expect(formatIsoMicros(t)).toBe('2026-11-21T10:00:00.123456Z');
  });
  test('ISO times with microseconds, whatever second came before (it is remembered), before 1970 too', () => {
    const cases: Array<[number, string]> = [
      [t, '2026-11-21T10:00:00.123456Z'],
      [t + 7, '2026-11-21T10:00:00.123463Z'],
      [t + 1_000_000, '2026-11-21T10:00:01.123456Z'],
      [t - 123_456, '2026-11-21T10:00:00.000000Z'],
      [t - 123_457, '2026-11-21T09:59:59.999999Z'],
      [0, '1970-01-01T00:00:00.000000Z'],
      [-1, '1969-12-31T23:59:59.999999Z'],
      [-1_000_000, '1969-12-31T23:59:59.000000Z'],
      [t, '2026-11-21T10:00:00.123456Z'],
    ];
    for (const [micros, text] of cases) expect(formatIsoMicros(micros), String(micros)).toBe(text);
    // as Date has it, to the millisecond
    for (const micros of [t, t + 999_999, -1, 1_700_000_000_000_001])
      expect(formatIsoMicros(micros).slice(0, 23)).toBe(new Date(Math.floor(micros / 1000)).toISOString().slice(0, 23));
  });
  test('ISO times agree with Date at every day, hour, minute and second boundary, in any order', () => {
    const expected = (micros: number) =>
      new Date(Math.floor(micros / 1000)).toISOString().slice(0, 23) +
      String(((micros % 1000) + 1000) % 1000).padStart(3, '0') +
      'Z';
    const instants: number[] = [];
    for (const base of [
      Date.UTC(2024, 1, 29),
      Date.UTC(2026, 11, 31, 23),
      Date.UTC(1969, 11, 31, 23),
      Date.UTC(2099, 11, 31, 23),
    ]) {
      for (const offset of [0, 1, 59_999, 60_000, 3_599_999, 3_600_000, 86_399_999, 86_400_000])
        instants.push((base + offset) * 1000, (base + offset) * 1000 + 999, (base + offset) * 1000 - 1);
    }
    let seed = 7;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 48271) % 2147483647;
      instants.push(Math.round((seed / 2147483647) * 4_102_444_800_000_000) - 1_000_000_000_000_000);
    }
    for (const micros of instants) expect(formatIsoMicros(micros), String(micros)).toBe(expected(micros));
  });
});
