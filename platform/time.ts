// Timestamps arrive as epoch milliseconds (numbers, JS), ISO 8601 with Z or an offset
// (Python sends +00:00), or naive ISO (read as UTC). We keep microseconds since the epoch.
import { errors } from './errors.ts';

/** The ISO 8601 forms a time may be sent in (the route schemas' `format: date-time` takes these too). */
export const ISO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Epoch milliseconds of a UTC date and time, NaN when there is no such day (Feb 30); years 0–99 are years, not 1900–1999 as Date.UTC reads them. */
function utcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year);
  return date.getUTCDate() === day && date.getUTCMonth() === month - 1 ? date.getTime() : NaN;
}

const shown = (given: unknown): string => (typeof given === 'string' ? `"${given.slice(0, 64)}"` : String(given));

/** Microseconds since the epoch, not yet checked to be exact. */
function parseMicros(value: unknown, field: string): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw errors.invalidField(`${field} must be epoch milliseconds or an ISO 8601 string; got ${value}`);
    return Math.round(value * 1000);
  }
  if (typeof value !== 'string') throw errors.invalidField(`${field} must be epoch milliseconds or an ISO 8601 string`);
  const m = ISO_TIMESTAMP.exec(value.trim());
  if (!m) throw errors.invalidField(`${field} is not an ISO 8601 timestamp: ${shown(value)}`);
  const [, y, mo, d, h, mi, s = '0', frac = '', zone] = m;
  const millis = utcMillis(Number(y), Number(mo), Number(d), Number(h), Number(mi), Math.min(Number(s), 59));
  if (Number.isNaN(millis) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60)
    throw errors.invalidField(`${field} is not a valid date: ${shown(value)}`);
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
  }
  const micros = Number((frac + '000000').slice(0, 6));
  return (millis - offsetMinutes * 60_000) * 1000 + micros;
}

/**
 * A time as microseconds since the epoch: epoch milliseconds (numbers), ISO 8601 with Z or an
 * offset, or naive ISO (UTC). Refused (422) when it is not a date, or too far from 1970 for a
 * double to hold its microseconds (2^53 µs: years 1685 to 2254).
 */
export function parseTimestampMicros(value: unknown, field: string): number | null {
  const micros = parseMicros(value, field);
  if (micros !== null && !Number.isSafeInteger(micros))
    throw errors.invalidField(
      `${field} is ${shown(value)}, too far from 1970 to be kept to the microsecond (years 1685 to 2254 are)`,
    );
  return micros;
}

/**
 * The times a run, a feedback or a dotted_order segment may carry: microseconds since the epoch
 * from 1970-01-01 up to (not including) 2100-01-01 UTC. Stored times are Int64 microseconds, but
 * they also travel through Avro longs (exact only up to 2^53 µs, in year 2255), dotted_order
 * segments (four-digit years) and the DateTime conversions users write in ClickHouse (which end
 * in 2106): this range holds in all of them, and nothing outside it is clamped or wrapped.
 */
export const STORABLE_TIME_RANGE = { minMicros: 0, maxMicrosExclusive: Date.UTC(2100, 0, 1) * 1000 } as const;

/** A time to store: parsed as parseTimestampMicros does, and refused (422, naming the field and the range) outside STORABLE_TIME_RANGE. */
export function storableTimestampMicros(value: unknown, field: string): number | null {
  const micros = parseMicros(value, field);
  if (micros !== null) checkStorableMicros(micros, field, value);
  return micros;
}

export function checkStorableMicros(micros: number, field: string, given: unknown): void {
  if (micros >= STORABLE_TIME_RANGE.minMicros && micros < STORABLE_TIME_RANGE.maxMicrosExclusive) return;
  throw errors.invalidField(
    `${field} is ${shown(given)}, outside the times runs can be stored with: from 1970-01-01T00:00:00Z up to 2100-01-01T00:00:00Z`,
  );
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** YYYYMMDDTHHMMSSffffffZ, the timestamp part of a dotted_order segment. */
export function formatDottedTimestamp(micros: number): string {
  const d = new Date(Math.floor(micros / 1000));
  return (
    pad(d.getUTCFullYear(), 4) +
    pad(d.getUTCMonth() + 1, 2) +
    pad(d.getUTCDate(), 2) +
    'T' +
    pad(d.getUTCHours(), 2) +
    pad(d.getUTCMinutes(), 2) +
    pad(d.getUTCSeconds(), 2) +
    pad(((micros % 1_000_000) + 1_000_000) % 1_000_000, 6) +
    'Z'
  );
}

/** Inverse of formatDottedTimestamp. */
export function parseDottedTimestamp(text: string): number {
  const ms = utcMillis(
    +text.slice(0, 4),
    +text.slice(4, 6),
    +text.slice(6, 8),
    +text.slice(9, 11),
    +text.slice(11, 13),
    +text.slice(13, 15),
  );
  return ms * 1000 + Number(text.slice(15, 21));
}

/** The day formatIsoMicros last formatted, and its text: a page's runs mostly share a day. */
let isoDay = Number.NaN;
let isoDayText = '';
/** '00'…'59': the two-digit fields of a time of day. */
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => (i < 10 ? '0' : '') + i);

/**
 * ISO 8601 with microseconds and Z, how runs are returned. The date comes from Date once per
 * day; the time of day is arithmetic (a trace's start and end times fall in different seconds,
 * so a cache of the second missed on every other call of a 1,000-run trace).
 */
export function formatIsoMicros(micros: number): string {
  const second = Math.floor(micros / 1_000_000);
  const day = Math.floor(second / 86_400);
  if (day !== isoDay) {
    isoDayText = new Date(day * 86_400_000).toISOString().slice(0, 11);
    isoDay = day;
  }
  const ofDay = second - day * 86_400;
  const minutes = Math.floor(ofDay / 60);
  const fraction = String(micros - second * 1_000_000);
  return (
    isoDayText +
    TWO_DIGITS[Math.floor(minutes / 60)] +
    ':' +
    TWO_DIGITS[minutes % 60] +
    ':' +
    TWO_DIGITS[ofDay % 60] +
    '.' +
    '000000'.slice(fraction.length) +
    fraction +
    'Z'
  );
}

export const nowMicros = (): number => Date.now() * 1000;
