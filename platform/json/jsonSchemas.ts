// JSON Schemas that callers give us (a dataset's inputs and outputs schemas): checked against the
// draft-07 meta-schema (Ajv's default, which is what Pydantic's and zod's schemas read as) before
// they are stored, so a schema that cannot validate anything is a 422 when it is set, not when an
// example is written. Ajv is the validator fastify itself uses.
import { Ajv } from 'ajv';
import { errors } from '../errors.ts';

// Only meta-schema checks here: nothing is compiled, and no $ref is fetched.
const checker = new Ajv({ strict: false, validateSchema: true, addUsedSchema: false });

/** `schema` when it is a JSON Schema; a 422 naming `field` and the first problem otherwise. */
export function checkJsonSchema(schema: Record<string, unknown>, field: string): Record<string, unknown> {
  let valid: boolean;
  try {
    valid = checker.validateSchema(schema) as boolean;
  } catch (err) {
    throw errors.invalidField(`${field} is not a JSON Schema: ${(err as Error).message}`);
  }
  if (!valid) {
    const first = checker.errors?.[0];
    const where = first?.instancePath ? ` at ${first.instancePath}` : '';
    throw errors.invalidField(`${field} is not a JSON Schema: ${first?.message ?? 'invalid'}${where}`);
  }
  return schema;
}
