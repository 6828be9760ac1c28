import { describe, expect, it } from 'vitest';
import { dueRuns, exportRunId, splitAtUtcMidnights } from '../../../services/bulk-export/exportSchedule.ts';

const us = (iso: string) => Date.parse(iso) * 1000;
const HOUR = 3600e6;

describe('splitAtUtcMidnights', () => {
  it('cuts a range at each UTC midnight and nowhere else', () => {
    expect(splitAtUtcMidnights(us('2026-03-01T22:00:00Z'), us('2026-03-03T01:00:00Z'))).toEqual([
      [us('2026-03-01T22:00:00Z'), us('2026-03-02T00:00:00Z')],
      [us('2026-03-02T00:00:00Z'), us('2026-03-03T00:00:00Z')],
      [us('2026-03-03T00:00:00Z'), us('2026-03-03T01:00:00Z')],
    ]);
    expect(splitAtUtcMidnights(us('2026-03-02T00:00:00Z'), us('2026-03-03T00:00:00Z'))).toEqual([
      [us('2026-03-02T00:00:00Z'), us('2026-03-03T00:00:00Z')],
    ]);
  });
});

describe('dueRuns', () => {
  const oneTime = {
    id: 'e1',
    startTime: us('2026-03-01T12:00:00Z'),
    endTime: us('2026-03-03T06:00:00Z'),
    intervalHours: null,
  };
  const lag = 300e6;

  it('a one-time export is due once its end and the lag have passed, one run per UTC day', () => {
    expect(dueRuns(oneTime, oneTime.endTime! + lag - 1, lag).runs).toEqual([]);
    const { runs } = dueRuns(oneTime, oneTime.endTime! + lag, lag);
    expect(runs.map((r) => [r.startTime, r.endTime])).toEqual([
      [us('2026-03-01T12:00:00Z'), us('2026-03-02T00:00:00Z')],
      [us('2026-03-02T00:00:00Z'), us('2026-03-03T00:00:00Z')],
      [us('2026-03-03T00:00:00Z'), us('2026-03-03T06:00:00Z')],
    ]);
    expect(new Set(runs.map((r) => r.id)).size).toBe(3);
  });

  it('a scheduled export has windows aligned on start_time, each due after its end plus the lag', () => {
    const scheduled = { id: 'e2', startTime: us('2026-03-01T10:30:00Z'), endTime: null, intervalHours: 6 };
    const now = us('2026-03-02T05:00:00Z');
    const { runs, nextWindow } = dueRuns(scheduled, now, lag);
    // Windows ending 16:30, 22:30 (due); 04:30 next day is due too (04:30 + 5 min < 05:00); 10:30 is not.
    expect(nextWindow).toBe(3);
    expect(
      runs.map((r) => [new Date(r.startTime / 1000).toISOString(), new Date(r.endTime / 1000).toISOString()]),
    ).toEqual([
      ['2026-03-01T10:30:00.000Z', '2026-03-01T16:30:00.000Z'],
      ['2026-03-01T16:30:00.000Z', '2026-03-01T22:30:00.000Z'],
      ['2026-03-01T22:30:00.000Z', '2026-03-02T00:00:00.000Z'],
      ['2026-03-02T00:00:00.000Z', '2026-03-02T04:30:00.000Z'],
    ]);
    // From a later window, only the rest; the ids are the same whoever computes them.
    const later = dueRuns(scheduled, now + 6 * HOUR, lag, { fromWindow: nextWindow });
    expect(later.runs.map((r) => r.startTime)).toEqual([us('2026-03-02T04:30:00Z')]);
    expect(later.runs[0]!.id).toBe(exportRunId('e2', us('2026-03-02T04:30:00Z'), us('2026-03-02T10:30:00Z')));
    expect(dueRuns(scheduled, now, lag).runs.map((r) => r.id)).toEqual(runs.map((r) => r.id));
  });

  it('bounds the windows scheduled at once, and run ids differ across exports and windows', () => {
    const old = { id: 'e3', startTime: us('2020-01-01T00:00:00Z'), endTime: null, intervalHours: 1 };
    const { runs, nextWindow } = dueRuns(old, us('2026-01-01T00:00:00Z'), lag, { limit: 50 });
    expect(nextWindow).toBe(50);
    expect(runs).toHaveLength(50);
    expect(new Set(runs.map((r) => r.id)).size).toBe(50);
    expect(exportRunId('a', 1, 2)).not.toBe(exportRunId('b', 1, 2));
  });

  it('an examples export is one run, due at once, whose range is its version', () => {
    const asOf = us('2026-03-01T12:00:00Z');
    const examples = {
      id: 'e4',
      resource: 'examples',
      asOf,
      startTime: null,
      endTime: null,
      intervalHours: null,
    } as const;
    const { runs, nextWindow } = dueRuns(examples, asOf, lag);
    expect(runs).toEqual([{ id: exportRunId('e4', asOf, asOf), startTime: asOf, endTime: asOf }]);
    expect(dueRuns(examples, asOf, lag, { fromWindow: nextWindow }).runs).toEqual([]);
  });
});
