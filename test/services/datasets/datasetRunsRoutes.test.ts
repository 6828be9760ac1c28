// POST /datasets/{dataset_id}/runs against the shared stack: a dataset's examples as its
// experiments ran on them (their dataset_version: an example added or changed after is not
// there, or as it was), each with the experiments' root runs that name it (oldest first, children
// left out) and their feedback_stats; offset paging; filters per experiment; sorting by a feedback
// key's mean; a comparison's pairwise feedback alone; previews; and the refusals, each naming
// what is wrong. The comparisons of a dataset carry the feedback_stats of their feedback.
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { formatDottedTimestamp } from '../../../platform/time.ts';
import { api, createWorkspaces, type Workspace } from '../../support/tracingClient.ts';

let ws: Workspace;
let other: Workspace;

const unique = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;
const ok = async (method: string, path: string, json?: unknown, apiKey = ws.apiKey) => {
  const res = await api(path, { method, apiKey, json });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
};
/** Runs and feedback reach their read models a moment after they were sent. */
const eventually = <T>(check: () => Promise<T>) => vi.waitFor(check, { timeout: 30_000, interval: 250 });

interface Fixture {
  dataset: string;
  /** e1, e2, e3 as the experiments ran on them; e4 added after. */
  e: [string, string, string, string];
  /** Experiments A and B, and a comparison of the two. */
  a: string;
  b: string;
  comparison: string;
  /** A's runs: two of e1 (named target), one of e2 (named other); B's: one of e1 (with a child), one of e2. */
  aRuns: { e1: [string, string]; e2: string };
  bRuns: { e1: string; e2: string };
}
let f: Fixture;

let clock = Date.now() * 1000;
/** A root run of an experiment naming an example (and a child of it when asked), as the clients post it. */
function rootRun(session: string, example: string, name: string, child = false) {
  const id = uuidv7();
  const start = (clock += 1000);
  const order = formatDottedTimestamp(start) + id;
  const at = (micros: number) => new Date(micros / 1000).toISOString();
  const runs: Array<Record<string, unknown>> = [
    {
      id,
      trace_id: id,
      dotted_order: order,
      name,
      run_type: 'chain',
      start_time: at(start),
      end_time: at(start + 500),
      inputs: { question: `q of ${name}` },
      outputs: { answer: `a of ${name}` },
      session_name: session,
      reference_example_id: example,
    },
  ];
  if (child) {
    const childId = uuidv7();
    runs.push({
      id: childId,
      trace_id: id,
      parent_run_id: id,
      dotted_order: `${order}.${formatDottedTimestamp(start + 100)}${childId}`,
      name: 'child',
      run_type: 'llm',
      start_time: at(start + 100),
      end_time: at(start + 200),
      session_name: session,
      reference_example_id: example,
    });
  }
  return { id, runs };
}

beforeAll(async () => {
  [ws, other] = (await createWorkspaces(2)) as [Workspace, Workspace];
  const dataset = (await ok('POST', '/datasets', { name: unique('runs') })).id as string;
  const made = (await ok(
    'POST',
    '/examples/bulk',
    [1, 2, 3].map((n) => ({ dataset_id: dataset, inputs: { n }, outputs: { m: n } })),
  )) as Array<{ id: string; inputs: { n: number }; modified_at: string }>;
  const [e1, e2, e3] = made.sort((x, y) => x.inputs.n - y.inputs.n).map((e) => e.id) as [string, string, string];
  const version = made[0]!.modified_at;
  const experiment = async (label: string) =>
    (await ok('POST', '/sessions', {
      name: unique(label),
      reference_dataset_id: dataset,
      extra: { metadata: { dataset_version: version } },
    })) as { id: string; name: string };
  const [a, b] = await Promise.all([experiment('exp-a'), experiment('exp-b')]);
  // After the experiments ran: an example added, another changed.
  const [e4] = (await ok('POST', '/examples/bulk', [{ dataset_id: dataset, inputs: { n: 4 } }])) as Array<{
    id: string;
  }>;
  await ok('PATCH', '/examples/bulk', [{ id: e1, outputs: { m: 100 } }]);

  const a1 = rootRun(a.name, e1, 'target');
  const a2 = rootRun(a.name, e1, 'target');
  const a3 = rootRun(a.name, e2, 'other');
  const b1 = rootRun(b.name, e1, 'target', true);
  const b2 = rootRun(b.name, e2, 'other');
  const all = [a1, a2, a3, b1, b2];
  expect(
    (await api('/runs/batch', { method: 'POST', apiKey: ws.apiKey, json: { post: all.flatMap((r) => r.runs) } }))
      .status,
  ).toBe(202);
  const comparison = (await ok('POST', '/datasets/comparative', {
    experiment_ids: [a.id, b.id],
    reference_dataset_id: dataset,
  })) as { id: string };
  for (const [run, score] of [
    [a1.id, 1],
    [a2.id, 0],
    [a3.id, 1],
  ] as const)
    await ok('POST', '/feedback', { run_id: run, key: 'correct', score });
  for (const [run, score] of [
    [a1.id, 1],
    [b1.id, 0],
  ] as const)
    await ok('POST', '/feedback', { run_id: run, key: 'preferred', score, comparative_experiment_id: comparison.id });
  f = {
    dataset,
    e: [e1, e2, e3, e4!.id],
    a: a.id,
    b: b.id,
    comparison: comparison.id,
    aRuns: { e1: [a1.id, a2.id], e2: a3.id },
    bRuns: { e1: b1.id, e2: b2.id },
  };
  // Until every run and feedback item is in its read model.
  await eventually(async () => {
    const res = await api(`/datasets/${f.dataset}/runs`, {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { session_ids: [f.a, f.b] },
    });
    const runs = (res.body as Array<{ runs: Array<{ feedback_stats: object | null }> }>).flatMap((x) => x.runs);
    expect(runs).toHaveLength(5);
    expect(runs.filter((r) => r.feedback_stats !== null)).toHaveLength(4);
  });
}, 120_000);

type ExampleWithRuns = {
  id: string;
  outputs: Record<string, unknown> | null;
  runs: Array<Record<string, any>>;
};
const query = async (json: Record<string, unknown>, prefix = '') => {
  const res = await api(`${prefix}/datasets/${f.dataset}/runs`, { method: 'POST', apiKey: ws.apiKey, json });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as ExampleWithRuns[];
};
const runIds = (example: ExampleWithRuns) => example.runs.map((r) => r.id);

describe('examples with runs', () => {
  test("the dataset as the experiment ran on it, each example with the experiment's root runs, oldest first", async () => {
    const rows = await query({ session_ids: [f.a], offset: 0, limit: 100, preview: false, filters: null });
    expect(rows.map((r) => r.id)).toEqual(f.e.slice(0, 3));
    // e1 as it was at the experiments' version, not as changed after
    expect(rows[0]).toMatchObject({ dataset_id: f.dataset, inputs: { n: 1 }, outputs: { m: 1 } });
    expect(runIds(rows[0]!)).toEqual(f.aRuns.e1);
    expect(runIds(rows[1]!)).toEqual([f.aRuns.e2]);
    expect(rows[2]!.runs).toEqual([]);
    const run = rows[0]!.runs[0]!;
    expect(run).toMatchObject({
      session_id: f.a,
      reference_example_id: f.e[0],
      name: 'target',
      inputs: { question: 'q of target' },
      outputs: { answer: 'a of target' },
      feedback_stats: { correct: { n: 1, avg: 1 } },
    });
    expect(rows[0]!.runs[1]!.feedback_stats).toMatchObject({ correct: { n: 1, avg: 0 } });
    // under /api/v1 too
    expect(await query({ session_ids: [f.a] }, '/api/v1')).toEqual(rows);
  });

  test('several experiments: their root runs together (a child run is not one); pages by offset and limit', async () => {
    const rows = await query({ session_ids: [f.a, f.b] });
    expect(runIds(rows[0]!)).toEqual([...f.aRuns.e1, f.bRuns.e1]);
    expect(runIds(rows[1]!)).toEqual([f.aRuns.e2, f.bRuns.e2]);
    const first = await query({ session_ids: [f.a, f.b], limit: 2 });
    const rest = await query({ session_ids: [f.a, f.b], offset: 2, limit: 2 });
    expect([...first, ...rest].map((r) => r.id)).toEqual(f.e.slice(0, 3));
    expect(await query({ session_ids: [f.a], offset: 3 })).toEqual([]);
    expect((await query({ session_ids: [f.a], example_ids: [f.e[1], f.e[3]] })).map((r) => r.id)).toEqual([f.e[1]]);
  });

  test('filters keep the examples with a matching run in each filtered experiment, with those runs', async () => {
    const rows = await query({ session_ids: [f.a, f.b], filters: { [f.a]: ['eq(name, "target")'] } });
    expect(rows.map((r) => r.id)).toEqual([f.e[0]]);
    expect(runIds(rows[0]!)).toEqual([...f.aRuns.e1, f.bRuns.e1]);
    const both = await query({
      session_ids: [f.a, f.b],
      filters: { [f.a]: ['eq(name, "other")'], [f.b]: ['eq(name, "other")', 'eq(run_type, "chain")'] },
    });
    expect(both.map((r) => r.id)).toEqual([f.e[1]]);
    expect(runIds(both[0]!)).toEqual([f.aRuns.e2, f.bRuns.e2]);
    const scored = await query({ session_ids: [f.a], filters: { [f.a]: ['eq(feedback_key, "correct")'] } });
    expect(scored.map((r) => r.id)).toEqual(f.e.slice(0, 2));
    // A filter of nothing filters nothing.
    expect((await query({ session_ids: [f.a], filters: { [f.a]: [] } })).map((r) => r.id)).toEqual(f.e.slice(0, 3));
  });

  test("sort_params orders the examples by a feedback key's mean on the first experiment's runs, unscored last", async () => {
    const desc = await query({
      session_ids: [f.a, f.b],
      sort_params: { sort_by: 'feedback.correct', sort_order: 'DESC' },
    });
    expect(desc.map((r) => r.id)).toEqual([f.e[1], f.e[0], f.e[2]]); // means 1, 0.5, none
    const asc = await query({ session_ids: [f.a], sort_params: { sort_by: 'correct', sort_order: 'ASC' }, limit: 2 });
    expect(asc.map((r) => r.id)).toEqual([f.e[0], f.e[1]]);
    const next = await query({ session_ids: [f.a], sort_params: { sort_by: 'correct', sort_order: 'ASC' }, offset: 2 });
    expect(next.map((r) => r.id)).toEqual([f.e[2]]);
  });

  test("with a comparison, the runs' feedback_stats are its pairwise feedback alone; preview leaves payloads out", async () => {
    const rows = await query({ session_ids: [f.a, f.b], comparative_experiment_id: f.comparison });
    const stats = Object.fromEntries(rows.flatMap((r) => r.runs).map((r) => [r.id, r.feedback_stats]));
    expect(stats[f.aRuns.e1[0]]).toEqual({ preferred: expect.objectContaining({ n: 1, avg: 1 }) });
    expect(stats[f.bRuns.e1]).toEqual({ preferred: expect.objectContaining({ n: 1, avg: 0 }) });
    expect(stats[f.aRuns.e2]).toBeNull();

    const [first] = await query({ session_ids: [f.a], preview: true, limit: 1 });
    const run = first!.runs[0]!;
    expect(run).not.toHaveProperty('inputs');
    expect(run).not.toHaveProperty('outputs');
    expect(run).toMatchObject({ inputs_preview: 'q of target', outputs_preview: 'a of target', name: 'target' });
  });

  test("a dataset's comparisons carry the feedback_stats of their pairwise feedback", async () => {
    const [comparison] = (await ok('GET', `/datasets/${f.dataset}/comparative`)) as Array<Record<string, any>>;
    expect(comparison!.id).toBe(f.comparison);
    expect(comparison!.feedback_stats).toEqual({
      preferred: { n: 2, avg: 0.5, stdev: 0.5, errors: 0, values: {} },
    });
  });
});

describe('refusals', () => {
  const refused = async (json: unknown, status: number, text: RegExp, dataset = f.dataset, apiKey = ws.apiKey) => {
    const res = await api(`/datasets/${dataset}/runs`, { method: 'POST', apiKey, json });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(JSON.stringify(res.body)).toMatch(text);
  };

  test('unknown or foreign datasets, experiments and comparisons are 404s; the other workspace sees nothing', async () => {
    await refused({ session_ids: [f.a] }, 404, /dataset .* not found/, randomUUID());
    await refused({ session_ids: [f.a] }, 404, /dataset .* not found/, f.dataset, other.apiKey);
    await refused({ session_ids: [randomUUID()] }, 404, /experiment \(session\) .* not found/);
    await refused(
      { session_ids: [f.a], comparative_experiment_id: randomUUID() },
      404,
      /comparative experiment .* not found/,
    );
  });

  test('an experiment of another dataset, a filter that does not parse or names another experiment: 400s', async () => {
    const elsewhere = (await ok('POST', '/sessions', { name: unique('plain') })) as { id: string };
    await refused({ session_ids: [elsewhere.id] }, 400, /is not an experiment of dataset/);
    await refused({ session_ids: [f.a], filters: { [f.b]: ['eq(name, "x")'] } }, 400, /not one of session_ids/);
    await refused({ session_ids: [f.a], filters: { [f.a]: ['eq(name'] } }, 400, /filters\[/);
    await refused({ session_ids: [f.a], filters: { 'not-an-id': [] } }, 400, /not-an-id.*is not an experiment id/);
  });

  test('fields of the wrong form are 422s naming them', async () => {
    await refused({}, 422, /session_ids/);
    await refused({ session_ids: [] }, 422, /session_ids/);
    await refused({ session_ids: ['not-a-uuid'] }, 422, /session_ids/);
    await refused({ session_ids: [f.a], limit: 101 }, 422, /limit/);
    await refused({ session_ids: [f.a], sort_params: { sort_order: 'ASC' } }, 422, /sort_by/);
  });
});
