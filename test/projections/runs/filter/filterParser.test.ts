// The filter language parser: every documented form parses into the expected tree, every kind
// of mistake is a 400 naming it and its position, and no input makes it throw anything else.
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { parseFilter, MAX_FILTER_LENGTH, type FilterNode } from '../../../../projections/runs/filter/filterParser.ts';
import { compileRunFilter } from '../../../../projections/runs/filter/filterSql.ts';
import { AppError } from '../../../../platform/errors.ts';
import { filterTokenSoup as filterish, wellFormedFilter as wellFormed } from './filterArbitrary.ts';

/** The tree without positions, to compare shapes. */
function shape(node: FilterNode): unknown {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { [node.kind]: node.args.map(shape) };
    case 'not':
      return { not: shape(node.arg) };
    case 'compare': {
      const value =
        node.value === null
          ? undefined
          : node.value.kind === 'list'
            ? node.value.items.map(scalar)
            : scalar(node.value);
      return { [node.op]: node.field ? [node.field.name, value] : [value] };
    }
  }
}
const scalar = (s: { kind: string; value?: unknown }) => (s.kind === 'null' ? null : s.value);

function failure(text: string): AppError {
  try {
    parseFilter(text);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error(`parsed without error: ${text}`);
}

describe('valid forms', () => {
  // The examples of LangSmith's "Query traces" and "Trace query syntax" pages, verbatim.
  test.each([
    'eq(name, "extractor")',
    'and(eq(feedback_key, "user_score"), eq(feedback_score, 1))',
    'and(eq(feedback_key, "star_rating"), gt(feedback_score, 4))',
    'gt(latency, "5s")',
    'neq(error, null)',
    'gt(start_time, "2023-07-15T12:34:56Z")',
    'search("substring")',
    'has(tags, "2aa1cf4")',
    'and(gt(start_time, "2023-07-15T12:34:56Z"), or(neq(error, null), and(eq(feedback_key, "Correctness"), eq(feedback_score, 0.0))))',
    'and(or(has(tags, "experimental"), has(tags, "beta")), gt(latency, 2))',
    "eq(metadata_key, 'user_id')",
    "and(eq(metadata_key, 'user_id'), eq(metadata_value, '4070f233-f61e-44eb-bff1-da3c163895a3'))",
    "and(neq(metadata_key, 'conversation_id'))",
    'and(in(metadata_key, ["session_id","conversation_id","thread_id"]), eq(metadata_value, "abc"))',
    "and(eq(name, 'ChatOpenAI'), eq(metadata_key, 'conversation_id'), eq(metadata_value, '69b12c91-b1e2-46ce-91de-794c077e8151'))",
    'eq(thread_id, "t-1")',
  ])('%s', (text) => {
    expect(() => parseFilter(text)).not.toThrow();
  });

  test('trees: nesting, quotes, numbers, keywords, lists', () => {
    expect(shape(parseFilter('and(eq(run_type, "llm"), or(gt(latency, 2.5), not(has(tags, \'beta\'))))'))).toEqual({
      and: [{ eq: ['run_type', 'llm'] }, { or: [{ gt: ['latency', 2.5] }, { not: { has: ['tags', 'beta'] } }] }],
    });
    expect(shape(parseFilter('in(total_tokens, [1, -2, 3.5e2, +4, .5])'))).toEqual({
      in: ['total_tokens', [1, -2, 350, 4, 0.5]],
    });
    expect(shape(parseFilter('eq(is_root, true)'))).toEqual({ eq: ['is_root', true] });
    expect(shape(parseFilter('eq(is_root, False)'))).toEqual({ eq: ['is_root', false] });
    expect(shape(parseFilter('eq(error, None)'))).toEqual({ eq: ['error', null] });
    expect(shape(parseFilter('in(name, [])'))).toEqual({ in: ['name', []] });
    expect(shape(parseFilter('exists(end_time)'))).toEqual({ exists: ['end_time', undefined] });
    expect(shape(parseFilter('search(name, "x")'))).toEqual({ search: ['name', 'x'] });
    expect(shape(parseFilter('AND(EQ(name, "x"))'))).toEqual({ and: [{ eq: ['name', 'x'] }] });
    expect(shape(parseFilter('  eq (\n name ,\t"x" )  '))).toEqual({ eq: ['name', 'x'] });
  });

  test('string escapes, in either quote', () => {
    const value = (text: string) => (shape(parseFilter(text)) as { eq: [string, string] }).eq[1];
    expect(value(String.raw`eq(name, "say \"hi\"")`)).toBe('say "hi"');
    expect(value(String.raw`eq(name, 'it\'s')`)).toBe("it's");
    expect(value(`eq(name, "it's")`)).toBe("it's");
    expect(value(`eq(name, 'say "hi"')`)).toBe('say "hi"');
    expect(value(String.raw`eq(name, "back\\slash")`)).toBe('back\\slash');
    expect(value(String.raw`eq(name, "a\nb\tc\u00e9")`)).toBe('a\nb\tcé');
    expect(value(String.raw`eq(name, "100\%")`)).toBe('100%');
  });

  test('positions are 1-based characters in the filter text', () => {
    const node = parseFilter('and(eq(name, "x"),  gt(latency, 1))') as Extract<FilterNode, { args: FilterNode[] }>;
    expect(node.pos).toBe(0);
    expect(node.args[1]!.pos).toBe(20);
    expect((node.args[1] as Extract<FilterNode, { kind: 'compare' }>).field!.pos).toBe(23);
  });
});

describe('errors: 400, naming the problem and its position', () => {
  test.each([
    ['frob(name, 1)', /unknown operator "frob" at position 1 \(operators: eq, neq/],
    ['and(eq(name, "x"), bogus(name, "y"))', /unknown operator "bogus" at position 20/],
    ['eq(name, "x"', /expected "," or "\)" in eq\(…\), found the end of the filter at position 13/],
    ['eq(name, "x)', /unterminated string at position 10/],
    ["eq(name, 'x\\", /unterminated string at position 10/],
    ['eq(name, "x") extra', /unexpected "extra" after the end of the expression at position 15/],
    ['eq(name, bar)', /eq\(\) expects a value .* found the bare name "bar"; quote strings at position 10/],
    ['eq(name)', /eq\(\) takes a field and a value, got 1 at position 1/],
    ['eq(name, "a", "b")', /eq\(\) takes a field and a value, got 3 at position 1/],
    ['eq("name", "a")', /eq\(\) expects a field name as its first argument at position 4/],
    ['eq(name, eq(name, "a"))', /eq\(\) expects a value, not a condition at position 10/],
    ['and()', /and\(\) takes at least one condition, got 0 at position 1/],
    ['or(name)', /or\(\) takes conditions such as eq\(…\), not a field or value at position 4/],
    ['not(eq(name, "a"), eq(name, "b"))', /not\(\) takes exactly one condition, got 2 at position 1/],
    ['exists()', /exists\(\) takes one field, got 0 at position 1/],
    ['search()', /search\(\) takes a string, or a field and a string, got 0 at position 1/],
    ['search(5)', /search\(\) expects a quoted string at position 8/],
    ['in(name, [eq(name, "a")])', /expected a value .* found "eq" at position 11/],
    ['in(name, ["a" "b"])', /expected "," or "\]" in a list, found the string "b" at position 15/],
    ['eq(name, "x") ; drop', /unexpected character ";" at position 15/],
    ['"eq"', /expected an operator such as eq\(…\) or and\(…\), found the string "eq" at position 1/],
    ['', /expected an operator .* found the end of the filter at position 1/],
    ['eq name', /expected "\(" after eq, found "name" at position 4/],
    ['eq(latency, 1e999)', /bad number "1e999\)" at position 13/],
    ['eq(total_tokens, -8e-323)', /number out of range "-8e-323" at position 18/],
    [String.raw`eq(name, "\u12")`, /bad \\u escape in string at position 11/],
  ])('%s', (text, message) => {
    const err = failure(text);
    expect(err.statusCode).toBe(400);
    expect(err.code).toBe('INVALID_FILTER');
    expect(err.message).toMatch(message);
  });

  test('the request field is named', () => {
    expect(() => parseFilter('eq(', 'trace_filter')).toThrow(/^trace_filter: /);
  });

  test('nesting and length are bounded (no stack overflow, no huge SQL)', () => {
    const deep = 'and('.repeat(200) + 'eq(name, "x")' + ')'.repeat(200);
    expect(failure(deep).message).toMatch(/nested deeper than 64 levels/);
    expect(failure(`eq(name, "${'x'.repeat(MAX_FILTER_LENGTH)}")`).message).toMatch(/longer than 32768 characters/);
  });
});

describe('property: any input is a tree or a 400, never another exception', () => {
  const scope = {
    tenantId: '00000000-0000-4000-8000-000000000001',
    runsTable: 'runs',
    runKeysTable: 'run_keys',
    feedbackTable: 'feedback',
    exact: true,
    sessionIds: null,
    traceIds: null,
  };
  const outcome = (text: string) => {
    try {
      compileRunFilter(parseFilter(text), scope);
      return 'ok';
    } catch (err) {
      if (err instanceof AppError && err.statusCode === 400) return 'rejected';
      throw err;
    }
  };

  test.each([
    ['arbitrary strings', fc.string({ maxLength: 80 })],
    ['arbitrary unicode', fc.string({ unit: 'binary', maxLength: 80 })],
    ['filter-like token soup', filterish],
    ['well-formed calls over random fields and values', wellFormed],
  ])('%s', (_name, arbitrary) => {
    fc.assert(
      fc.property(arbitrary, (text) => void outcome(text)),
      { numRuns: 2000 },
    );
  });

  test('the generated calls reach the compiler: some compile, some are rejected', () => {
    const outcomes = fc.sample(wellFormed, { numRuns: 2000, seed: 7 }).map(outcome);
    expect(outcomes.filter((o) => o === 'ok').length).toBeGreaterThan(50);
    expect(outcomes.filter((o) => o === 'rejected').length).toBeGreaterThan(50);
  });
});
