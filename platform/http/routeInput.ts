// Turning request input into values, for the routes that read query strings and JSON fields
// themselves: a value not of the form its field takes (a UUID, a timestamp, a boolean, an
// integer in range, a page size) is a 422 naming the field, as a schema violation is
// (docs/errors.md); a field the service does not evaluate, or a time window upside down, is a 400.
import { errors } from '../errors.ts';
import { toUuid } from '../ids.ts';
import { nowMicros, parseTimestampMicros } from '../time.ts';

/**
 * A UUID (lower-case, hyphenated). The 422 shows the value's JSON, cut at `shown` characters (the
 * v1 routes show 64, the v2 read routes 80, as each did before they shared this module).
 */
export const uuid = (value: unknown, field: string, shown = 64): string => {
  const id = typeof value === 'string' ? toUuid(value) : null;
  if (!id) throw errors.invalidField(`${field} must be a UUID; got ${JSON.stringify(value)?.slice(0, shown)}`);
  return id;
};

/** A timestamp (ISO 8601 / RFC 3339, or epoch ms) as microseconds since the epoch; null when absent. */
export const time = (value: unknown, field: string): number | null => parseTimestampMicros(value, field);

/**
 * [min, max) in microseconds from min_start_time and max_start_time: the given bounds, else
 * `defaultSpan` before max (or before now).
 */
export function timeWindow(min: unknown, max: unknown, defaultSpanMicros: number): { min: number; max: number } {
  const maxTime = time(max, 'max_start_time') ?? nowMicros();
  const minTime = time(min, 'min_start_time') ?? maxTime - defaultSpanMicros;
  if (minTime >= maxTime) throw errors.badRequest('min_start_time must be before max_start_time');
  return { min: minTime, max: maxTime };
}

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
export const int = (
  value: string | number | undefined,
  field: string,
  fallback: number,
  min: number,
  max: number,
): number => {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw errors.invalidField(`${field} must be an integer from ${min} to ${max}; got "${String(value).slice(0, 32)}"`);
  return n;
};

/** page_size (a JSON number or a query string of digits) from 1 to `max`; `fallback` when absent. */
export function pageSize(value: unknown, max: number, fallback = 20): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw errors.invalidField(`page_size must be an integer from 1 to ${max}; got ${JSON.stringify(value)}`);
  return n;
}

/** A repeated query parameter (`?selects=A&selects=B`) as an array. */
export const list = (value: unknown): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value.map(String) : [String(value)];

/** Rejects what this service does not evaluate (filter expressions, AI search…) instead of ignoring it. */
export function rejectUnsupported(input: Record<string, unknown>, fields: readonly string[]): void {
  for (const f of fields)
    if (input[f] !== undefined && input[f] !== null)
      throw errors.badRequest(`${f} is not supported by this server; leave it out`);
}

/**
 * A query parameter holding a JSON object (`?metadata={"k":"v"}`); undefined when absent or
 * empty. Text that does not parse is a 400 (JSON is a grammar no schema holds, as a body's is).
 */
export function jsonObjectQuery(value: string | undefined, field: string): Record<string, unknown> | undefined {
  if (value === undefined || value === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw errors.invalidJson(field, `${(err as Error).message}; got "${value.slice(0, 64)}"`, err);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw errors.invalidField(`${field} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

/**
 * A body's object field that travels in one Kafka message (a project's or dataset's extra, a
 * dataset's schemas): null when absent, a 422 when its JSON is over `maxBytes`.
 */
export function boundedObject(value: unknown, field: string, maxBytes: number): Record<string, unknown> | null {
  if (value == null) return null;
  if (Buffer.byteLength(JSON.stringify(value)) > maxBytes)
    throw errors.invalidField(`${field} is larger than ${maxBytes / 1024} KiB`);
  return value as Record<string, unknown>;
}
