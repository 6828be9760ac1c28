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

// Compiles the schemas data is checked against; a schema object is compiled once (the datasets
// registry keeps a dataset's schema as one object until it changes).
const validator = new Ajv({ strict: false, allErrors: false, addUsedSchema: false });
const compiled = new WeakMap<object, ReturnType<Ajv['compile']>>();

/**
 * Checks `value` against `schema` (a JSON Schema already accepted by checkJsonSchema); a 400
 * naming `field` and where in it the first problem is (the data may be of any shape the route's
 * own schema admits: what the dataset's schema says on top of it, a route schema cannot).
 */
export function checkAgainstSchema(schema: Record<string, unknown>, value: unknown, field: string): void {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = validator.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return;
  const first = validate.errors?.[0];
  const where = first?.instancePath ? ` at ${first.instancePath}` : '';
  throw errors.badRequest(`${field} does not match the dataset's schema: ${first?.message ?? 'invalid'}${where}`);
}
