// A cron's schedule (services/agent-server/crons/cronSchedule.ts): five standard fields or a
// Vixie macro, read in UTC unless a time zone is named; when it next fires; and the 422 naming
// the field for what is not a schedule. And what claiming a due cron does (cronRecords.ts):
// one run however many ticks were missed, then the next tick after now; nothing past end_time.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../platform/errors.ts';
import { checkSchedule, nextFireTime } from '../../../../services/agent-server/crons/cronSchedule.ts';
import { claimAt, type CronRecord, nextRunDate } from '../../../../services/agent-server/crons/cronRecords.ts';

const at = (iso: string) => new Date(iso);
const next = (schedule: string, after: string, timezone: string | null = null) =>
  nextFireTime(schedule, timezone, at(after)).toISOString();

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('not refused');
}

describe('cron schedules', () => {
  it('fire at the next matching minute strictly after the given time, in UTC', () => {
    expect(next('* * * * *', '2026-01-01T12:00:00.000Z')).toBe('2026-01-01T12:01:00.000Z');
    expect(next('* * * * *', '2026-01-01T12:00:59.999Z')).toBe('2026-01-01T12:01:00.000Z');
    expect(next('*/15 9-17 * * mon-fri', '2026-01-02T17:50:00Z')).toBe('2026-01-05T09:00:00.000Z'); // Friday → Monday
    expect(next('0 9 * * *', '2026-01-01T10:00:00Z')).toBe('2026-01-02T09:00:00.000Z');
    // day of month OR day of week, as cron reads both when both are restricted
    expect(next('0 0 13 * 5', '2026-02-01T00:00:00Z')).toBe('2026-02-06T00:00:00.000Z');
    expect(next('@daily', '2026-01-01T10:00:00Z')).toBe('2026-01-02T00:00:00.000Z');
    expect(next('@hourly', '2026-01-01T10:00:00Z')).toBe('2026-01-01T11:00:00.000Z');
    expect(next('@midnight', '2026-01-01T10:00:00Z')).toBe('2026-01-02T00:00:00.000Z');
  });

  it('read in a named time zone, across a daylight-saving change', () => {
    // 09:00 in New York is 14:00 UTC in winter and 13:00 UTC once clocks go forward (8 March 2026)
    expect(next('0 9 * * *', '2026-03-06T00:00:00Z', 'America/New_York')).toBe('2026-03-06T14:00:00.000Z');
    expect(next('0 9 * * *', '2026-03-08T00:00:00Z', 'America/New_York')).toBe('2026-03-08T13:00:00.000Z');
  });

  it('refuse what is not a five-field schedule with a 422 naming the field', () => {
    for (const [schedule, why] of [
      ['* * * *', /4 fields/],
      ['0 * * * * *', /6 fields/], // seconds: cron-parser reads them first, croniter last
      ['61 * * * *', /0-59/],
      ['0 0 30 2 *', /day of month/],
      ['hello', /1 field/],
      ['H * * * *', /hashed/],
      ['@reboot', /1 field/],
      // names an object literal's prototype has: nothing but text here
      ['__proto__', /1 field/],
      ['constructor', /1 field/],
      ['toString', /1 field/],
    ] as const) {
      const err = refusal(() => checkSchedule(schedule, null));
      expect(err, schedule).toBeInstanceOf(AppError);
      expect(err.statusCode, schedule).toBe(422);
      expect(err.message, schedule).toMatch(/^body\/schedule /);
      expect(err.message, schedule).toMatch(why);
    }
    const tz = refusal(() => checkSchedule('0 9 * * *', 'Mars/Olympus_Mons'));
    expect(tz.statusCode).toBe(422);
    expect(tz.message).toMatch(/^body\/timezone "Mars\/Olympus_Mons" is not an IANA time zone/);
  });
});

const cron = (over: Partial<CronRecord>): CronRecord => ({
  cron_id: '00000000-0000-4000-8000-000000000001',
  assistant_id: 'a',
  thread_id: null,
  on_run_completed: 'delete',
  end_time: null,
  schedule: '*/5 * * * *',
  timezone: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  payload: {},
  user_id: null,
  next_run_date: '2026-01-01T00:05:00.000Z',
  metadata: {},
  enabled: true,
  ...over,
});

describe('claiming a due cron', () => {
  it('starts one run for however many ticks were missed, then waits for the next tick after now', () => {
    // due at 00:05, claimed at 03:17 (every server was down): once, next at 03:20
    expect(claimAt(cron({}), at('2026-01-01T03:17:12Z'))).toEqual({ fires: true, next: '2026-01-01T03:20:00.000Z' });
  });

  it('starts no run past end_time, and has no next tick after it', () => {
    const ending = cron({ end_time: '2026-01-01T00:12:00.000Z' });
    expect(claimAt(ending, at('2026-01-01T00:05:00.100Z'))).toEqual({ fires: true, next: '2026-01-01T00:10:00.000Z' });
    expect(claimAt(ending, at('2026-01-01T00:10:00.100Z'))).toEqual({ fires: true, next: null });
    expect(claimAt(ending, at('2026-01-01T00:12:00.100Z'))).toEqual({ fires: false, next: null });
    expect(nextRunDate(ending, at('2026-01-01T00:00:00Z'))).toBe('2026-01-01T00:05:00.000Z');
    expect(nextRunDate(ending, at('2026-01-01T00:11:00Z'))).toBeNull();
  });
});
