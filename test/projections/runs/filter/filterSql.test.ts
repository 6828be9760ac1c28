// The filter compiler against real ClickHouse: rows inserted straight into a scratch database,
// every field and operator, metadata and feedback pairing, FINAL (stale versions never match),
// tenant scoping of feedback, and values with quotes and backslashes.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { join, raw, sql, type Sql } from '../../../../platform/clickhouse/sql.ts';
import { AppError } from '../../../../platform/errors.ts';
import { parseFilter } from '../../../../projections/runs/filter/filterParser.ts';
import {
  compileRunFilter,
  compileTraceCondition,
  filterThreadIds,
  type FilterScope,
} from '../../../../projections/runs/filter/filterSql.ts';
import { formatDottedTimestamp } from '../../../../platform/time.ts';
import {
  insertFeedback,
  insertRuns,
  runRow,
  scratchDatabase,
  type ScratchDatabase,
} from '../../../services/tracing/query/scratchDatabase.ts';
import { wellFormedFilter } from './filterArbitrary.ts';

const A = 'aaaaaaaa-0000-4000-8000-000000000000';
const B = 'bbbbbbbb-0000-4000-8000-000000000000';
const S1 = '51515151-0000-4000-8000-000000000001';
const S2 = '52525252-0000-4000-8000-000000000002';
const EX1 = 'e1e1e1e1-0000-4000-8000-000000000001';
const R1 = '01010101-0000-4000-8000-000000000001'; // alpha: root of trace 1
const R2 = '02020202-0000-4000-8000-000000000002'; // beta: child of alpha, errored
const R6 = '06060606-0000-4000-8000-000000000006'; // gamma: child of alpha, llm
const R3 = '03030303-0000-4000-8000-000000000003'; // o'neil \ path: root, pending, project 2
const R5 = '05050505-0000-4000-8000-000000000005'; // flip: errored first, then succeeded
const RB = '0b0b0b0b-0000-4000-8000-00000000000b'; // another workspace's run
const ONEIL = "o'neil \\ path";
const t0 = Date.UTC(2024, 0, 1) * 1000;
const s = 1_000_000;

let db: ScratchDatabase;
beforeAll(async () => {
  db = await scratchDatabase('filter_sql');
  const rootOrder = formatDottedTimestamp(t0) + R1;
  await insertRuns(db.ch, [
    runRow(A, {
      id: R1,
      name: 'alpha',
      run_type: 'chain',
      session_id: S1,
      start_time: t0,
      end_time: t0 + 2 * s,
      first_token_time: t0 + s / 2,
      tags: ['prod', 'beta'],
      thread_id: 't1',
      metadata_keys: ['user', 'env', 'n', 'thread_id'],
      metadata_values: ['alice', 'dev', '5', 't1'],
      prompt_tokens: 100,
      completion_tokens: 40,
      total_tokens: 140,
      prompt_cost: 0.3,
      completion_cost: 0.2,
      total_cost: 0.5,
      reference_example_id: EX1,
      inputs: '{"question":"Image Classification please"}',
    }),
    runRow(A, {
      id: R2,
      trace_id: R1,
      parent_run_id: R1,
      dotted_order: `${rootOrder}.${formatDottedTimestamp(t0 + s)}${R2}`,
      name: 'beta',
      run_type: 'tool',
      session_id: S1,
      start_time: t0 + s,
      end_time: t0 + 11 * s,
      error: "ValueError: it's \\ bad",
      tags: ['dev'],
      metadata_keys: ['user', 'env'],
      metadata_values: ['bob', 'prod'],
    }),
    runRow(A, {
      id: R6,
      trace_id: R1,
      parent_run_id: R1,
      dotted_order: `${rootOrder}.${formatDottedTimestamp(t0 + 1.5 * s)}${R6}`,
      name: 'gamma',
      run_type: 'llm',
      session_id: S1,
      start_time: t0 + 1.5 * s,
      end_time: t0 + 1.6 * s,
      prompt_tokens: 20,
      completion_tokens: 10,
      total_tokens: 30,
      prompt_cost: 0.006,
      completion_cost: 0.004,
      total_cost: 0.01,
    }),
    runRow(A, {
      id: R3,
      name: ONEIL,
      run_type: 'chain',
      session_id: S2,
      start_time: t0 + 60 * s,
      tags: ["it's", 'back\\slash'],
      thread_id: 't3',
      metadata_keys: ['user', 'quote'],
      metadata_values: ['o\'neil"x\\', '50%_off'],
      extra: '{"metadata":{"quote":"50%_off"}}',
    }),
    runRow(A, {
      id: R5,
      name: 'flip',
      run_type: 'chain',
      session_id: S1,
      start_time: t0 + 120 * s,
      end_time: t0 + 121 * s,
      error: 'old',
      tags: ['stale'],
      version: 1,
    }),
    runRow(B, { id: RB, name: 'alpha', run_type: 'chain', session_id: S1, start_time: t0, tags: ['prod'] }),
  ]);
  // The newer version of `flip`, in a part of its own: no longer errored, no tags.
  await insertRuns(db.ch, [
    runRow(A, {
      id: R5,
      name: 'flip',
      run_type: 'chain',
      session_id: S1,
      start_time: t0 + 120 * s,
      end_time: t0 + 121 * s,
      version: 2,
    }),
  ]);
  await insertFeedback(db.ch, [
    { tenant_id: A, run_id: R1, id: 'f0000000-0000-4000-8000-000000000001', key: 'correctness', score: 1 },
    { tenant_id: A, run_id: R2, id: 'f0000000-0000-4000-8000-000000000002', key: 'correctness', score: 1, version: 1 },
    { tenant_id: A, run_id: R2, id: 'f0000000-0000-4000-8000-000000000003', key: 'user_score', score: 1 },
    {
      tenant_id: A,
      run_id: R6,
      id: 'f0000000-0000-4000-8000-000000000004',
      key: 'note',
      score: null,
      value: '"great"',
    },
    // Another workspace's feedback on one of A's run ids must never count.
    { tenant_id: B, run_id: R3, id: 'f0000000-0000-4000-8000-000000000005', key: 'correctness', score: 1 },
  ]);
  // A newer version of beta's correctness feedback: 0 now. Gamma's "retracted" feedback, deleted.
  await insertFeedback(db.ch, [
    { tenant_id: A, run_id: R2, id: 'f0000000-0000-4000-8000-000000000002', key: 'correctness', score: 0, version: 2 },
    { tenant_id: A, run_id: R6, id: 'f0000000-0000-4000-8000-000000000006', key: 'retracted', score: 1, version: 1 },
  ]);
  await insertFeedback(db.ch, [
    {
      tenant_id: A,
      run_id: R6,
      id: 'f0000000-0000-4000-8000-000000000006',
      key: 'retracted',
      score: 1,
      version: 2,
      deleted: 1,
    },
  ]);
});
afterAll(() => db?.drop());

const scope = (exact = true): FilterScope => ({
  tenantId: A,
  runsTable: 'runs',
  runKeysTable: 'run_keys',
  feedbackTable: 'feedback',
  exact,
  sessionIds: null,
  traceIds: null,
});

async function namesWhere(condition: Sql, final = true): Promise<string[]> {
  const rows = await db.ch.query<{ name: string }>(
    sql`SELECT DISTINCT name FROM runs ${raw(final ? 'FINAL' : '')} WHERE tenant_id = toUUID(${A}) AND has_post = 1 AND ${condition}`,
  );
  return rows.map((r) => r.name).sort();
}
const names = (filter: string) => namesWhere(compileRunFilter(parseFilter(filter), scope()).sql);
const sorted = (...xs: string[]) => [...xs].sort();
const ALL = sorted('alpha', 'beta', 'gamma', ONEIL, 'flip');
const except = (...xs: string[]) => ALL.filter((n) => !xs.includes(n));

describe('fields and operators', () => {
  test.each<[string, string[]]>([
    // strings
    ['eq(name, "alpha")', ['alpha']],
    ['neq(name, "alpha")', except('alpha')],
    ['in(name, ["alpha", "gamma", "nope"])', ['alpha', 'gamma']],
    ['in(name, [])', []],
    ['like(name, "%a")', ['alpha', 'beta', 'gamma']],
    ['search(name, "ALP")', ['alpha']],
    ['eq(run_type, "llm")', ['gamma']],
    ['eq(status, "error")', ['beta']],
    ['eq(status, "pending")', [ONEIL]],
    ['eq(thread_id, "t1")', ['alpha']],
    ['exists(thread_id)', sorted('alpha', ONEIL)],
    ['eq(thread_id, null)', sorted('beta', 'flip', 'gamma')],
    // error
    ['eq(error, null)', except('beta')],
    ['neq(error, null)', ['beta']],
    ['eq(error, true)', ['beta']],
    ['eq(error, false)', except('beta')],
    ['exists(error)', ['beta']],
    ['search(error, "valueerror")', ['beta']],
    ['like(error, "Value%")', ['beta']],
    [String.raw`eq(error, "ValueError: it's \\ bad")`, ['beta']],
    ['neq(error, "x")', ALL],
    ['not(eq(error, "x"))', ALL],
    // ids
    [`eq(id, "${R1}")`, ['alpha']],
    [`eq(id, "${R1.replaceAll('-', '').toUpperCase()}")`, ['alpha']],
    [`neq(id, "${R1}")`, except('alpha')],
    [`in(id, ["${R1}", "${R2}"])`, ['alpha', 'beta']],
    [`eq(trace_id, "${R1}")`, ['alpha', 'beta', 'gamma']],
    [`eq(session_id, "${S2}")`, [ONEIL]],
    [`eq(parent_run_id, "${R1}")`, ['beta', 'gamma']],
    [`neq(parent_run_id, "${R1}")`, sorted('alpha', 'flip', ONEIL)],
    ['eq(parent_run_id, null)', sorted('alpha', 'flip', ONEIL)],
    ['exists(parent_run_id)', ['beta', 'gamma']],
    [`in(parent_run_id, ["${R1}", "${R3}"])`, ['beta', 'gamma']],
    [`in(reference_example_id, ["${EX1}"])`, ['alpha']],
    [`eq(reference_example_id, "${EX1}")`, ['alpha']],
    ['eq(reference_example_id, null)', except('alpha')],
    // times
    ['gt(start_time, "2024-01-01T00:00:01Z")', sorted('gamma', ONEIL, 'flip')],
    ['gte(start_time, "2024-01-01T00:00:01Z")', sorted('beta', 'gamma', ONEIL, 'flip')],
    ['lt(start_time, "2024-01-01T00:00:01Z")', ['alpha']],
    ['lte(start_time, "2024-01-01T00:00:01.500000Z")', ['alpha', 'beta', 'gamma']],
    ['eq(start_time, "2024-01-01T01:00:00+01:00")', ['alpha']],
    ['eq(end_time, null)', [ONEIL]],
    ['exists(end_time)', except(ONEIL)],
    ['lt(end_time, "2024-01-01T00:00:03Z")', ['alpha', 'gamma']],
    ['exists(first_token_time)', ['alpha']],
    ['gt(first_token_time, "2024-01-01T00:00:00Z")', ['alpha']],
    // numbers
    ['gt(total_tokens, 100)', ['alpha']],
    ['eq(total_tokens, 30)', ['gamma']],
    ['in(total_tokens, [30, 140])', ['alpha', 'gamma']],
    ['gte(prompt_tokens, 20)', ['alpha', 'gamma']],
    ['lt(completion_tokens, 20)', except('alpha')],
    ['gt(total_cost, "0.1")', ['alpha']],
    ['gt(prompt_cost, 0.25)', ['alpha']],
    ['lte(completion_cost, 0.01)', except('alpha')],
    // latency, in seconds
    ['gt(latency, 5)', ['beta']],
    ['gt(latency, "5s")', ['beta']],
    ['lt(latency, "500ms")', ['gamma']],
    ['gte(latency, "2s")', ['alpha', 'beta']],
    ['eq(latency, 2)', ['alpha']],
    ['lte(latency, "0.1")', ['gamma']],
    ['gt(latency, "1m")', []],
    ['lt(latency, "1h")', except(ONEIL)],
    ['neq(latency, 2)', sorted('beta', 'gamma', 'flip')],
    ['exists(latency)', except(ONEIL)],
    ['not(gt(latency, 1))', sorted('flip', 'gamma', ONEIL)],
    // booleans
    ['eq(is_root, true)', sorted('alpha', 'flip', ONEIL)],
    ['eq(is_root, false)', ['beta', 'gamma']],
    ['neq(is_root, true)', ['beta', 'gamma']],
    ['eq(is_root, 1)', sorted('alpha', 'flip', ONEIL)],
    ['eq(is_root, "true")', sorted('alpha', 'flip', ONEIL)],
    // tags
    ['has(tags, "prod")', ['alpha']],
    ['eq(tags, "dev")', ['beta']],
    ['neq(tags, "prod")', except('alpha')],
    ['in(tags, ["dev", "beta"])', ['alpha', 'beta']],
    ['search(tags, "PRO")', ['alpha']],
    ['like(tags, "d%")', ['beta']],
    ['exists(tags)', sorted('alpha', 'beta', ONEIL)],
    ['has(tags, "stale")', []],
    [`has(tags, "it's")`, [ONEIL]],
    [String.raw`has(tags, 'back\\slash')`, [ONEIL]],
    // metadata
    [`has(metadata, '{"user": "alice", "n": 5}')`, ['alpha']],
    [`has(metadata, '{"user": "bob", "env": "dev"}')`, []],
    ['eq(metadata_key, "env")', ['alpha', 'beta']],
    ['neq(metadata_key, "env")', sorted('flip', 'gamma', ONEIL)],
    ['in(metadata_key, ["quote", "n"])', sorted('alpha', ONEIL)],
    ['search(metadata_key, "THREAD")', ['alpha']],
    ['like(metadata_key, "us%")', sorted('alpha', 'beta', ONEIL)],
    ['eq(metadata_value, "prod")', ['beta']],
    ['neq(metadata_value, "prod")', except('beta')],
    ['gt(metadata_value, 4)', ['alpha']],
    ['eq(metadata_value, 5)', ['alpha']],
    ['in(metadata_value, ["bob", "t1"])', ['alpha', 'beta']],
    ['search(metadata_value, "50%_")', [ONEIL]],
    // feedback (FINAL: beta's correctness is 0 now; another workspace's feedback on o'neil never counts)
    ['eq(feedback_key, "correctness")', ['alpha', 'beta']],
    ['neq(feedback_key, "correctness")', sorted('flip', 'gamma', ONEIL)],
    ['in(feedback_key, ["note", "user_score"])', ['beta', 'gamma']],
    ['gt(feedback_score, 0.5)', ['alpha', 'beta']],
    ['eq(feedback_score, 0)', ['beta']],
    ['eq(feedback_score, true)', ['alpha', 'beta']],
    ['eq(feedback_key, "retracted")', []], // deleted feedback counts for nothing

    // full text
    ['search("image CLASSIFICATION")', ['alpha']],
    ['search("ValueError")', ['beta']],
    [`search("o'neil")`, [ONEIL]],
    ['search("50%_off")', [ONEIL]],
    // logic
    ['or(eq(name, "alpha"), eq(name, "beta"))', ['alpha', 'beta']],
    ['and(eq(run_type, "chain"), not(eq(name, "alpha")))', sorted('flip', ONEIL)],
    ['and(eq(run_type, "chain"))', sorted('alpha', 'flip', ONEIL)],
    ['and(or(has(tags, "experimental"), has(tags, "beta")), gt(latency, 1))', ['alpha']],
  ])('%s', async (filter, expected) => {
    expect(await names(filter)).toEqual(expected);
  });
});

describe('pairing within and(…)', () => {
  test.each<[string, string[]]>([
    // The same metadata entry: no run has user=prod, though beta has a user key and a prod value.
    ['and(eq(metadata_key, "user"), eq(metadata_value, "prod"))', []],
    ['and(eq(metadata_key, "env"), eq(metadata_value, "prod"))', ['beta']],
    ['and(in(metadata_key, ["user", "env"]), eq(metadata_value, "dev"))', ['alpha']],
    // LangSmith's documented negations.
    ['and(eq(metadata_key, "env"), neq(metadata_value, "prod"))', ['alpha']],
    ['and(neq(metadata_key, "env"), eq(metadata_value, "50%_off"))', [ONEIL]],
    ['and(neq(metadata_key, "env"), neq(metadata_value, "alice"))', sorted('flip', 'gamma', ONEIL)],
    // Pairs in order; with other conditions around them.
    [
      'and(eq(name, "alpha"), eq(metadata_key, "user"), eq(metadata_value, "alice"), eq(metadata_key, "env"), eq(metadata_value, "dev"))',
      ['alpha'],
    ],
    [
      'and(eq(metadata_key, "user"), eq(metadata_value, "dev"), eq(metadata_key, "env"), eq(metadata_value, "alice"))',
      [],
    ],
    // or(…) does not pair.
    ['or(eq(metadata_key, "user"), eq(metadata_value, "prod"))', sorted('alpha', 'beta', ONEIL)],
    // Quotes and backslashes in values reach ClickHouse intact.
    [String.raw`and(eq(metadata_key, "user"), eq(metadata_value, "o'neil\"x\\"))`, [ONEIL]],
    [String.raw`and(eq(metadata_key, 'user'), eq(metadata_value, 'o\'neil"x\\'))`, [ONEIL]],
    [String.raw`eq(name, "o'neil \\ path")`, [ONEIL]],
    // The same feedback item: beta's correctness is 0 (its user_score is 1).
    ['and(eq(feedback_key, "correctness"), eq(feedback_score, 1))', ['alpha']],
    ['and(eq(feedback_key, "user_score"), gte(feedback_score, 1))', ['beta']],
    ['and(eq(feedback_key, "correctness"), lt(feedback_score, 0.5))', ['beta']],
    [
      'and(gt(start_time, "2023-07-15T12:34:56Z"), or(neq(error, null), and(eq(feedback_key, "correctness"), eq(feedback_score, 1))))',
      ['alpha', 'beta'],
    ],
  ])('%s', async (filter, expected) => {
    expect(await names(filter)).toEqual(expected);
  });
});

describe('trace_filter and tree_filter', () => {
  const traceNames = (filter: string, root: boolean, exact = true) =>
    namesWhere(
      compileTraceCondition(parseFilter(filter), scope(exact), { root, where: root ? 'trace_filter' : 'tree_filter' })
        .sql,
    );

  test('trace_filter: the root run of the trace matches', async () => {
    expect(await traceNames('eq(name, "alpha")', true)).toEqual(['alpha', 'beta', 'gamma']);
    expect(await traceNames('eq(name, "beta")', true)).toEqual([]);
    expect(await traceNames('and(eq(feedback_key, "correctness"), eq(feedback_score, 1))', true)).toEqual([
      'alpha',
      'beta',
      'gamma',
    ]);
  });

  test('tree_filter: some run of the trace matches', async () => {
    expect(await traceNames('eq(name, "beta")', false)).toEqual(['alpha', 'beta', 'gamma']);
    expect(await traceNames('eq(status, "error")', false)).toEqual(['alpha', 'beta', 'gamma']);
  });

  test('the candidate form (no FINAL) matches a superset: stale versions too', async () => {
    expect(await traceNames('eq(status, "error")', false, false)).toEqual(sorted('alpha', 'beta', 'gamma', 'flip'));
    expect(await namesWhere(compileRunFilter(parseFilter('has(tags, "stale")'), scope(false)).sql, false)).toEqual([
      'flip',
    ]);
  });

  test('bounded to given traces and projects', async () => {
    const bounded = (extra: Partial<FilterScope>) =>
      namesWhere(
        compileTraceCondition(
          parseFilter('eq(run_type, "chain")'),
          { ...scope(), ...extra },
          { root: true, where: 'trace_filter' },
        ).sql,
      );
    expect(await bounded({ traceIds: [R1] })).toEqual(['alpha', 'beta', 'gamma']);
    expect(await bounded({ sessionIds: [S2] })).toEqual([ONEIL]);
    expect(await bounded({ sessionIds: [] })).toEqual([]);
  });
});

test('property: every filter that compiles is SQL ClickHouse runs', async () => {
  const compiled = fc.sample(wellFormedFilter, { numRuns: 3000, seed: 11 }).flatMap((text) => {
    try {
      return [
        {
          text,
          exact: compileRunFilter(parseFilter(text), scope()).sql,
          candidate: compileRunFilter(parseFilter(text), scope(false)).sql,
        },
      ];
    } catch (err) {
      if (err instanceof AppError && err.statusCode === 400) return [];
      throw err;
    }
  });
  expect(compiled.length).toBeGreaterThan(200);
  for (const c of compiled.slice(0, 400)) {
    const exact = await namesWhere(c.exact).catch((err: Error) =>
      Promise.reject(new Error(`${c.text}\n${err.message}`)),
    );
    // The candidate form (every stored version) finds a superset of the exact answer.
    const candidate = await namesWhere(c.candidate, false);
    expect(candidate, c.text).toEqual(expect.arrayContaining(exact));
  }
});

describe("the threads a filter requires (reads then take those threads' runs alone)", () => {
  const outside = (threads: readonly string[]) => sql`NOT has([${join(threads.map((t) => sql`${t}`))}], thread_id)`;
  test.each([
    ['eq(thread_id, "t1")', ['t1']],
    ['in(thread_id, ["t1", "t3", "t1"])', ['t1', 't3']],
    ['and(eq(name, "alpha"), eq(thread_id, "t1"))', ['t1']],
    ['and(or(eq(thread_id, "t1"), eq(thread_id, "t3")), gt(total_tokens, 1))', ['t1', 't3']],
    ['or(eq(thread_id, "t1"), and(eq(thread_id, "t3"), eq(name, "x")))', ['t1', 't3']],
    // a run of another thread, or of none, may match these
    ['or(eq(thread_id, "t1"), eq(name, "beta"))', null],
    ['not(eq(thread_id, "t1"))', null],
    ['neq(thread_id, "t1")', null],
    ['eq(thread_id, "")', null],
    ['eq(thread_id, null)', null],
    ['in(thread_id, ["t1", ""])', null],
    ['like(thread_id, "t%")', null],
    ['exists(thread_id)', null],
    ['eq(name, "alpha")', null],
  ] as const)('%s', async (filter, threads) => {
    expect(filterThreadIds(parseFilter(filter))).toEqual(threads);
    // what the filter matches lies in those threads
    const tree = parseFilter(filter);
    if (threads)
      expect(await namesWhere(sql`${compileRunFilter(tree, scope()).sql} AND ${outside(threads)}`)).toEqual([]);
  });

  test('property: no run a filter matches names a thread outside those it requires', async () => {
    // and/or/not over comparisons of thread_id and of other fields, that match runs of t1, t3, or none
    const leaf = fc.constantFrom(
      'eq(thread_id, "t1")',
      'eq(thread_id, "t3")',
      'in(thread_id, ["t1", "zz"])',
      'in(thread_id, ["t3"])',
      'eq(thread_id, "")',
      'neq(thread_id, "t1")',
      'exists(thread_id)',
      'eq(name, "alpha")',
      'eq(name, "beta")',
      'gt(total_tokens, 1)',
      'eq(is_root, true)',
    );
    const { tree } = fc.letrec<{ tree: string }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.array(tie('tree'), { minLength: 1, maxLength: 3 }).map((xs) => `and(${xs.join(', ')})`),
        fc.array(tie('tree'), { minLength: 1, maxLength: 3 }).map((xs) => `or(${xs.join(', ')})`),
        tie('tree').map((x) => `not(${x})`),
      ),
    }));
    const required = fc.sample(fc.oneof(tree, wellFormedFilter), { numRuns: 3000, seed: 12 }).flatMap((text) => {
      try {
        const tree = parseFilter(text);
        const condition = compileRunFilter(tree, scope()).sql;
        const threads = filterThreadIds(tree);
        return threads ? [{ text, condition, threads }] : [];
      } catch (err) {
        if (err instanceof AppError && err.statusCode === 400) return [];
        throw err;
      }
    });
    expect(required.length).toBeGreaterThan(200);
    for (const r of required.slice(0, 300))
      expect(await namesWhere(sql`${r.condition} AND ${outside(r.threads)}`), r.text).toEqual([]);
  });
});

describe('values a field does not take: 400 naming it and its position', () => {
  test.each([
    ['eq(foo, 1)', /filter: unknown field "foo" at position 4 \(fields: name, run_type/],
    ['gt(name, "x")', /gt\(\) does not apply to name at position 1 \(name takes eq, neq, in, like, search\)/],
    ['exists(name)', /exists\(\) does not apply to name/],
    ['has(name, "x")', /has\(\) does not apply to name/],
    ['eq(start_time, "yesterday")', /expected an ISO 8601 timestamp .* found "yesterday" at position 16/],
    ['gt(start_time, 5)', /expected an ISO 8601 timestamp/],
    ['eq(id, "nope")', /expected a UUID in quotes, found "nope" at position 8/],
    ['eq(latency, "fast")', /expected a duration such as .* found "fast" at position 13/],
    ['gt(latency, 1.797e302)', /duration out of range at position 13/],
    ['eq(name, 5)', /expected a quoted string, found 5 at position 10/],
    ['eq(name, ["a"])', /expected a single value, not a list/],
    ['in(name, "a")', /in\(\) expects a list/],
    ['eq(is_root, "yes")', /expected true or false, found "yes"/],
    ['gt(total_tokens, "many")', /expected a number, found "many"/],
    ['in(total_tokens, [1, "x"])', /expected a number, found "x" at position 22/],
    ['gt(feedback_score, "high")', /expected a number, found "high"/],
    ['eq(metadata_key, null)', /metadata keys and values are never null/],
    ['has(metadata, "not json")', /has\(metadata, …\) expects a JSON object in a string/],
    ['has(metadata, "[1]")', /has\(metadata, …\) expects a JSON object at position 15/],
    ['gt(tags, "x")', /gt\(\) does not apply to tags/],
    ['lt(name, null)', /lt\(\) does not apply to name/],
    ['gt(end_time, null)', /gt\(\) cannot compare with null/],
  ])('%s', (filter, message) => {
    let error: unknown;
    try {
      compileRunFilter(parseFilter(filter), scope());
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).statusCode).toBe(400);
    expect((error as AppError).message).toMatch(message);
  });
});
