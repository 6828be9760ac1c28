// The metadata filter of the list routes (`?metadata={"k":"v"}` on projects and datasets): every
// key asked for is in the metadata with an equal value (deep equality: objects and arrays too).
import { isDeepStrictEqual } from 'node:util';

export function metadataMatches(metadata: unknown, wanted: Readonly<Record<string, unknown>>): boolean {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    return Object.keys(wanted).length === 0;
  for (const [key, value] of Object.entries(wanted))
    if (!Object.hasOwn(metadata, key) || !isDeepStrictEqual((metadata as Record<string, unknown>)[key], value))
      return false;
  return true;
}
