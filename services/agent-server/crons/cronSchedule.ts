// A cron's schedule: a standard five-field cron expression (minute hour day-of-month month
// day-of-week), read in UTC unless the cron names an IANA time zone, and when it next fires.
// Parsing and the calendar arithmetic (ranges, steps, names, day-of-month OR day-of-week, months
// of unequal length, DST in a time zone) are cron-parser's; what is standard is decided here:
// five fields (cron-parser also reads a leading seconds field, which croniter, LangGraph's parser,
// reads as a trailing one: refused rather than guessed), the @-macros of Vixie cron, and no
// Jenkins `H` (a hashed value, random per parse: two replicas would disagree on the time).
import { CronExpressionParser } from 'cron-parser';
import { errors } from '../../../platform/errors.ts';

// A Map, not an object literal: a schedule is the caller's text, and `__proto__` or `constructor`
// must find nothing.
const MACROS = new Map([
  ['@yearly', '0 0 1 1 *'],
  ['@annually', '0 0 1 1 *'],
  ['@monthly', '0 0 1 * *'],
  ['@weekly', '0 0 * * 0'],
  ['@daily', '0 0 * * *'],
  ['@midnight', '0 0 * * *'],
  ['@hourly', '0 * * * *'],
]);

const FIELDS = 'minute hour day-of-month month day-of-week';

/** The five fields of a schedule (a macro expanded), or a 422 naming `field` and what is wrong. */
function fieldsOf(schedule: string, field: string): string {
  const trimmed = schedule.trim();
  const expanded = MACROS.get(trimmed.toLowerCase()) ?? trimmed;
  const fields = expanded.split(/\s+/);
  const invalid = (why: string) =>
    errors.validation(`${field} "${schedule}" is not a cron schedule: ${why} (five fields: ${FIELDS}, in UTC)`);
  if (fields.length !== 5) throw invalid(`it has ${fields.length} field${fields.length === 1 ? '' : 's'}`);
  if (fields.some((f) => /(^|,)H/i.test(f))) throw invalid('hashed values (H) are not standard cron');
  return fields.join(' ');
}

/** Checks an IANA time zone name; a 422 naming `field` when the runtime does not know it. */
export function checkTimezone(timezone: string, field = 'body/timezone'): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    throw errors.validation(`${field} "${timezone}" is not an IANA time zone (e.g. UTC, Europe/Paris)`);
  }
}

/**
 * When the schedule next fires strictly after `after` (in `timezone`, UTC when null). Throws a
 * 422 naming `field` for a schedule that is not standard cron or never fires.
 */
export function nextFireTime(schedule: string, timezone: string | null, after: Date, field = 'body/schedule'): Date {
  const expression = fieldsOf(schedule, field);
  try {
    return CronExpressionParser.parse(expression, { currentDate: after, tz: timezone ?? 'UTC' })
      .next()
      .toDate();
  } catch (err) {
    throw errors.validation(
      `${field} "${schedule}" is not a cron schedule: ${(err as Error).message} (five fields: ${FIELDS}, in UTC)`,
    );
  }
}

/** Checks a schedule (and its time zone): a 422 naming the field when either is wrong. */
export function checkSchedule(schedule: string, timezone: string | null): void {
  if (timezone !== null) checkTimezone(timezone);
  nextFireTime(schedule, timezone, new Date());
}
