import { errors } from './errors.ts';

/** Namespace of the ids we derive deterministically (uuid v5): the default workspace, projects by name, export runs. */
export const ID_NAMESPACE = 'a3c1c2b4-5c6e-4f0a-9d51-1f6c0b8e2d77';

const HYPHENATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COMPACT = /^[0-9a-f]{32}$/i;

/** True for a lowercase hyphenated UUID, the form the clients send nearly always: checked by char codes, as a regex costs several times more on the ingest path. */
function isLowerHyphenated(value: string): boolean {
  if (value.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = value.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false; // -
    } else if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false; // 0-9, a-f
  }
  return true;
}

/** Accepts hyphenated or 32-hex UUIDs (the basic example sends hex) and returns the lowercase hyphenated form. */
export function toUuid(value: string): string | null {
  if (isLowerHyphenated(value)) return value;
  if (HYPHENATED.test(value)) return value.toLowerCase();
  if (COMPACT.test(value)) {
    const v = value.toLowerCase();
    return `${v.slice(0, 8)}-${v.slice(8, 12)}-${v.slice(12, 16)}-${v.slice(16, 20)}-${v.slice(20)}`;
  }
  return null;
}

export function requireUuid(value: unknown, field: string): string {
  if (typeof value !== 'string') throw errors.invalidField(`${field} must be a UUID string`);
  const id = toUuid(value);
  if (!id) throw errors.invalidField(`${field} is not a valid UUID: "${value.slice(0, 64)}"`);
  return id;
}

export function optionalUuid(value: unknown, field: string): string | null {
  return value === null || value === undefined ? null : requireUuid(value, field);
}
