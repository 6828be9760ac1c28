import { describe, expect, test } from 'vitest';
import { formatDottedTimestamp, formatIsoMicros, parseDottedTimestamp, parseTimestampMicros } from '../../platform/time.ts';

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
});
