// Turning request input into values, for the routes that take JSON bodies and query strings:
// every problem is a 400 whose message names the field.
import type { FastifySchemaValidationError } from 'fastify';
import { AppError, errors } from '../errors.ts';
import { toUuid } from '../ids.ts';
import { parseTimestampMicros } from '../time.ts';

/** A route's schemaErrorFormatter: schema violations leave as 400s (the service's default for them is 422). */
export const badInput = (validation: FastifySchemaValidationError[], where: string): AppError => {
  const e = validation[0]!;
  return errors.badRequest(`${where}${e.instancePath} ${e.message ?? 'is invalid'}`);
};

export const uuid = (value: unknown, field: string): string => {
  const id = typeof value === 'string' ? toUuid(value) : null;
  if (!id) throw errors.badRequest(`${field} must be a UUID; got ${JSON.stringify(value)?.slice(0, 64)}`);
  return id;
};

/** A timestamp (ISO 8601 or epoch ms) as microseconds since the epoch; null when absent. */
export const time = (value: unknown, field: string): number | null => {
  try {
    return parseTimestampMicros(value, field);
  } catch (err) {
    throw err instanceof AppError ? errors.badRequest(err.message) : err;
  }
};

/** Query booleans: JS sends true/false, Python True/False. */
export const bool = (value: string | undefined, field: string): boolean | undefined => {
  if (value === undefined || value === '') return undefined;
  const v = value.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw errors.badRequest(`${field} must be true or false; got "${value.slice(0, 32)}"`);
};

export const int = (value: string | undefined, field: string, fallback: number, min: number, max: number): number => {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw errors.badRequest(`${field} must be an integer from ${min} to ${max}; got "${value.slice(0, 32)}"`);
  return n;
};
