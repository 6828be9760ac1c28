// Timestamps arrive as epoch milliseconds (numbers, JS), ISO 8601 with Z or an offset
// (Python sends +00:00), or naive ISO (read as UTC). We keep microseconds since the epoch.
import { errors } from '../../common/errors.ts';

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

export function parseTimestampMicros(value: unknown, field: string): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0 || value > 32503680000000) throw errors.invalidField(`${field} must be epoch milliseconds or an ISO 8601 string; got ${value}`);
    return Math.round(value * 1000);
  }
  if (typeof value !== 'string') throw errors.invalidField(`${field} must be epoch milliseconds or an ISO 8601 string`);
  const m = ISO.exec(value.trim());
  if (!m) throw errors.invalidField(`${field} is not an ISO 8601 timestamp: "${value.slice(0, 64)}"`);
  const [, y, mo, d, h, mi, s = '0', frac = '', zone] = m;
  const millis = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(millis) || Number(mo) > 12 || Number(d) > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60)
    throw errors.invalidField(`${field} is not a valid date: "${value.slice(0, 64)}"`);
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
  }
  const micros = Number((frac + '000000').slice(0, 6));
  return (millis - offsetMinutes * 60_000) * 1000 + micros;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** YYYYMMDDTHHMMSSffffffZ, the timestamp part of a dotted_order segment. */
export function formatDottedTimestamp(micros: number): string {
  const d = new Date(Math.floor(micros / 1000));
  return (
    pad(d.getUTCFullYear(), 4) + pad(d.getUTCMonth() + 1, 2) + pad(d.getUTCDate(), 2) + 'T' +
    pad(d.getUTCHours(), 2) + pad(d.getUTCMinutes(), 2) + pad(d.getUTCSeconds(), 2) +
    pad(((micros % 1_000_000) + 1_000_000) % 1_000_000, 6) + 'Z'
  );
}

/** Inverse of formatDottedTimestamp. */
export function parseDottedTimestamp(text: string): number {
  const ms = Date.UTC(+text.slice(0, 4), +text.slice(4, 6) - 1, +text.slice(6, 8), +text.slice(9, 11), +text.slice(11, 13), +text.slice(13, 15));
  return ms * 1000 + Number(text.slice(15, 21));
}

/** ISO 8601 with microseconds and Z, how runs are returned. */
export function formatIsoMicros(micros: number): string {
  const d = new Date(Math.floor(micros / 1000));
  return d.toISOString().slice(0, 19) + '.' + pad(((micros % 1_000_000) + 1_000_000) % 1_000_000, 6) + 'Z';
}

export const nowMicros = (): number => Date.now() * 1000;
