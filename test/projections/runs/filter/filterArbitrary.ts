// Generators of filter-language text for property tests: operators, fields, literals and
// punctuation in random arrangements, so properties reach deep into the parser and the
// compiler, not only the first token.
import fc from 'fast-check';

const operator = fc.constantFrom(
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'has',
  'search',
  'in',
  'like',
  'exists',
  'and',
  'or',
  'not',
  'frob',
);
const field = fc.constantFrom(
  'name',
  'run_type',
  'status',
  'latency',
  'tags',
  'metadata',
  'metadata_key',
  'metadata_value',
  'feedback_key',
  'feedback_score',
  'start_time',
  'end_time',
  'id',
  'parent_run_id',
  'error',
  'is_root',
  'total_tokens',
  'total_cost',
  'thread_id',
  'constructor',
  '__proto__',
);
const value = fc.oneof(
  fc.constantFrom(
    'true',
    'null',
    'None',
    '"5s"',
    '"2024-01-01T00:00:00Z"',
    '\'{"a": 1}\'',
    '"00000000-0000-4000-8000-000000000001"',
    '["a", 1]',
    '[1, 2.5, -3]',
    '[]',
    '"%\\\\_\'"',
  ),
  fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
  fc.double().map(String),
  fc.integer().map(String),
);

/** Tokens of the language in any order: mostly not a filter. */
export const filterTokenSoup: fc.Arbitrary<string> = fc
  .array(fc.oneof(operator, field, value, fc.constantFrom('(', ')', ',', '[', ']', ' ')), { maxLength: 30 })
  .map((ts) => ts.join(''));

/** Calls nested in and/or/not over random operators, fields and values: often a filter. */
export const wellFormedFilter: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small' },
    fc.tuple(operator, field, value).map(([op, f, v]) => `${op}(${f}, ${v})`),
    field.map((f) => `exists(${f})`),
    value.map((v) => `search(${v})`),
    fc
      .tuple(fc.constantFrom('and', 'or', 'not'), fc.array(tie('expr'), { minLength: 1, maxLength: 3 }))
      .map(([op, args]) => `${op}(${args.join(', ')})`),
  ),
})).expr;
