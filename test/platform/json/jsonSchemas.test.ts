// JSON Schemas callers give us are checked against the draft-07 meta-schema before they are kept.
import { expect, test } from 'vitest';
import { checkJsonSchema } from '../../../platform/json/jsonSchemas.ts';

const refusal = (schema: Record<string, unknown>) => {
  try {
    checkJsonSchema(schema, 'inputs_schema_definition');
  } catch (err) {
    return { status: (err as { statusCode: number }).statusCode, message: (err as Error).message };
  }
  return null;
};

test('a JSON Schema is kept as it is, draft-07 named or not', () => {
  const schema = { type: 'object', required: ['q'], properties: { q: { type: 'string', minLength: 1 } } };
  expect(checkJsonSchema(schema, 'inputs_schema_definition')).toBe(schema);
  expect(checkJsonSchema({}, 'x')).toEqual({});
  expect(checkJsonSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'array' }, 'x')).toBeTruthy();
});

test('what cannot validate anything is a 422 naming the field and where the problem is', () => {
  expect(refusal({ type: 'nope' })).toEqual({
    status: 422,
    message: 'inputs_schema_definition is not a JSON Schema: must be equal to one of the allowed values at /type',
  });
  expect(refusal({ properties: { a: { required: 'b' } } })).toEqual({
    status: 422,
    message: 'inputs_schema_definition is not a JSON Schema: must be array at /properties/a/required',
  });
  // A meta-schema this checker does not hold is refused, not fetched.
  expect(refusal({ $schema: 'https://example.com/unknown-meta-schema', type: 'object' })).toMatchObject({
    status: 422,
  });
});
