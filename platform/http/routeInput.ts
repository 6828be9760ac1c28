// Turning request input into values, for the routes that read query strings and JSON fields
// themselves: a value not of the form its field takes (a UUID, a timestamp, a boolean, an
// integer in range) is a 422 naming the field, as a schema violation is (docs/errors.md).
import { errors } from '../errors.ts';
import { toUuid } from '../ids.ts';
import { parseTimestampMicros } from '../time.ts';

export const uuid = (value: unknown, field: string): string => {
  const id = typeof value === 'string' ? toUuid(value) : null;
  if (!id) throw errors.invalidField(`${field} must be a UUID; got ${JSON.stringify(value)?.slice(0, 64)}`);
  return id;
};

/** A timestamp (ISO 8601 or epoch ms) as microseconds since the epoch; null when absent. */
export const time = (value: unknown, field: string): number | null => parseTimestampMicros(value, field);

/** Query booleans: JS sends true/false, Python True/False (or a typed query schema read it already, queryParameters.ts). */
export const bool = (value: string | boolean | undefined, field: string): boolean | undefined => {
  if (typeof value === 'boolean') return value;
  if (value === undefined || value === '') return undefined;
  const v = value.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw errors.invalidField(`${field} must be true or false; got "${value.slice(0, 32)}"`);
};

/** A query integer in [min, max] (or one a typed query schema read already). */
export const int = (value: string | number | undefined, field: string, fallback: number, min: number, max: number): number => {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw errors.invalidField(`${field} must be an integer from ${min} to ${max}; got "${String(value).slice(0, 32)}"`);
  return n;
};
