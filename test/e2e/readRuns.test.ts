// The read side through the official clients, unchanged: the `langsmith` npm client traces runs
// with `traceable` (threads named by metadata thread_id / session_id / conversation_id, errors,
// tags, LLM runs with usage_metadata, a trace of more than 100 runs), then reads them back with
// listRuns (every filter it offers, pagination across pages), readRun with loadChildRuns,
// listThreads / readThread, getRunStats and the v2 resources (runs, traces, threads); feedback
// given with createFeedback is read back through feedback_stats and the filter language. The
// Python client 0.15.1 does the same with @traceable, `trace` and create_feedback
// (test/e2e/python/read_runs_trace.py) and list_runs / read_run / read_thread / list_threads /
// get_run_stats (test/e2e/python/read_runs_query.py). Every value read back is compared with
// what the client traced. Runs that share one start_time check that pages split ties cleanly.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { Client, type RunTree } from 'langsmith';
import { traceable, getCurrentRunTree } from 'langsmith/traceable';
import { v7 as uuidv7 } from 'uuid';
import { api, createWorkspaces, tracingUrl, waitForRun, type Workspace } from '../support/tracingClient.ts';
import { multipartBody } from '../support/runFactory.ts';
import { formatDottedTimestamp } from '../../platform/time.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { expectNoClientFailures, runPythonScript } from '../support/pythonScript.ts';
import type { Usage } from '../../projections/shared/usage.ts';
import { expectTracedRuns, isoMicros, segmentIso, type ExpectedRun, type ServerRun } from './tracedRuns.ts';
import { collect } from '../support/asyncItems.ts';

// ---- what a client traced, and what the server must derive from it ----

/** One run as the client traced it, in the client's own terms (JS RunTree or the Python script's dump). */
interface TracedRun {
  id: string;
  name: string;
  run_type: string;
  parent_run_id: string | null;
  trace_id: string;
  dotted_order: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  error: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  /** YYYY-MM-DDTHH:MM:SS.ffffffZ */
  end_time: string;
}

/** What the server derives for a run: its thread and its usage rolled up over its subtree. */
interface Derived {
  thread_id: string | null;
  usage: Usage;
}

const ZERO: Usage = {
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  prompt_cost: 0,
  completion_cost: 0,
  total_cost: 0,
};

/** docs/read-models.md: the first non-empty of thread_id, session_id, conversation_id. */
function threadOf(metadata: Record<string, unknown>): string | null {
  for (const key of ['thread_id', 'session_id', 'conversation_id']) {
    const v = metadata[key];
    if (typeof v === 'string' && v !== '') return v;
  }
  return null;
}

/** A run's own usage: outputs.usage_metadata (input/output/total tokens and costs). */
function ownUsage(run: TracedRun): Usage {
  const u = (run.outputs?.usage_metadata ?? run.metadata.usage_metadata) as Record<string, number> | undefined;
  if (!u) return ZERO;
  return {
    prompt_tokens: u.input_tokens ?? 0,
    completion_tokens: u.output_tokens ?? 0,
    total_tokens: u.total_tokens ?? 0,
    prompt_cost: u.input_cost ?? 0,
    completion_cost: u.output_cost ?? 0,
    total_cost: u.total_cost ?? 0,
  };
}

class TracedSet {
  readonly runs: TracedRun[];
  readonly byId: Map<string, TracedRun>;
  readonly derived = new Map<string, Derived>();

  constructor(runs: TracedRun[]) {
    this.runs = runs;
    this.byId = new Map(runs.map((r) => [r.id, r]));
    const children = new Map<string, TracedRun[]>();
    for (const r of runs)
      if (r.parent_run_id) children.set(r.parent_run_id, [...(children.get(r.parent_run_id) ?? []), r]);
    const rolled = (r: TracedRun): Usage => {
      const sum = { ...ownUsage(r) };
      for (const c of children.get(r.id) ?? []) {
        const u = rolled(c);
        for (const k of Object.keys(sum) as (keyof Usage)[]) sum[k] += u[k];
      }
      return sum;
    };
    for (const r of runs) this.derived.set(r.id, { thread_id: threadOf(r.metadata), usage: rolled(r) });
  }

  get(id: string): TracedRun {
    const r = this.byId.get(id);
    if (!r) throw new Error(`run ${id} was not traced`);
    return r;
  }

  ids(pick: (r: TracedRun, d: Derived) => boolean = () => true): string[] {
    return this.runs
      .filter((r) => pick(r, this.derived.get(r.id)!))
      .map((r) => r.id)
      .sort();
  }

  childrenOf(id: string): TracedRun[] {
    return this.runs.filter((r) => r.parent_run_id === id).sort((a, b) => a.dotted_order.localeCompare(b.dotted_order));
  }

  /** Root runs of a thread, oldest first. */
  threadRoots(threadId: string): TracedRun[] {
    return this.runs
      .filter((r) => r.parent_run_id === null && this.derived.get(r.id)!.thread_id === threadId)
      .sort((a, b) => a.dotted_order.localeCompare(b.dotted_order));
  }

  expected(): ExpectedRun[] {
    return this.runs.map((r) => ({
      id: r.id,
      name: r.name,
      runType: r.run_type,
      parentRunId: r.parent_run_id,
      traceId: r.trace_id,
      dottedOrder: r.dotted_order,
      inputs: r.inputs,
      outputs: r.outputs,
      error: r.error,
      startTime: segmentIso(r.dotted_order.split('.').at(-1)!),
      endTime: r.end_time,
    }));
  }
}

/** A run read back (v1 shape: /runs/query, GET /runs/{id}) holds what was traced and what the server derives. */
function expectRunAsTraced(
  run: Record<string, any>,
  set: TracedSet,
  projectId: string,
  fields: 'all' | 'select' = 'all',
): void {
  const t = set.get(run.id);
  const d = set.derived.get(run.id)!;
  const label = `run ${t.name} (${t.id})`;
  expect(run, label).toMatchObject({ id: t.id, name: t.name, run_type: t.run_type, trace_id: t.trace_id });
  if (fields === 'select') return;
  expect(run, label).toMatchObject({
    parent_run_id: t.parent_run_id,
    dotted_order: t.dotted_order,
    session_id: projectId,
    error: t.error,
    status: t.error === null ? 'success' : 'error',
    tags: t.tags,
    prompt_tokens: d.usage.prompt_tokens,
    completion_tokens: d.usage.completion_tokens,
    total_tokens: d.usage.total_tokens,
  });
  for (const k of ['prompt_cost', 'completion_cost', 'total_cost'] as const)
    expect(Number(run[k] ?? 0), `${label} ${k}`).toBeCloseTo(d.usage[k], 9);
  expect(run.inputs, `${label} inputs`).toEqual(t.inputs);
  expect(run.outputs ?? null, `${label} outputs`).toEqual(t.outputs);
  expect(run.extra?.metadata ?? {}, `${label} metadata`).toMatchObject(t.metadata);
  expect(run.parent_run_ids, `${label} parent_run_ids`).toEqual(
    t.dotted_order
      .split('.')
      .slice(0, -1)
      .map((s) => s.slice(-36)),
  );
  expect(Date.parse(String(run.end_time)), `${label} end_time`).toBe(Date.parse(t.end_time));
}

/** Pages must fit together: no run twice, none missing, newest first (start_time, then id). */
function expectPagedInOrder(
  runs: ReadonlyArray<{ id?: string; start_time?: unknown }>,
  ids: string[],
  order: 'desc' | 'asc' = 'desc',
): void {
  const seen = runs.map((r) => r.id);
  expect(new Set(seen).size, 'no run listed twice').toBe(seen.length);
  expect([...seen].sort()).toEqual([...ids].sort());
  for (let i = 1; i < runs.length; i++) {
    const [a, b] = order === 'desc' ? [runs[i - 1]!, runs[i]!] : [runs[i]!, runs[i - 1]!];
    expect(
      Date.parse(String(a.start_time)) >= Date.parse(String(b.start_time)),
      `runs out of order at ${i}: ${a.start_time} ${a.id} / ${b.start_time} ${b.id}`,
    ).toBe(true);
  }
}

const sortedIds = (runs: Array<{ id?: string | undefined }>) => runs.map((r) => r.id!).sort();
/** Retries a block of expectations until they hold: the traces table and the derived columns are written by the projector after the runs. */
const eventually = <T>(check: () => Promise<T>) => vi.waitFor(check, { timeout: 45_000, interval: 250 });

// ---- the traces both clients make: the same shape, so the checks below read alike ----

/** Number of `step` children of the bulk trace: with the others, more than one page of 100. */
const BULK_STEPS = 120;

interface ThreadNames {
  a: string;
  b: string;
  c: string;
  d: string;
  /** A session_id next to thread_id d: thread_id wins. */
  shadowed: string;
}

const threadNames = (prefix: string): ThreadNames => ({
  a: `${prefix}-a`,
  b: `${prefix}-b`,
  c: `${prefix}-c`,
  d: `${prefix}-d`,
  shadowed: `${prefix}-shadowed`,
});

/** Turns: metadata naming the thread, in the order they are traced. */
const turnMetadata = (t: ThreadNames): Record<string, string>[] => [
  { thread_id: t.a },
  { thread_id: t.a },
  { session_id: t.b },
  { thread_id: t.a },
  { session_id: t.b },
  { conversation_id: t.c },
  { thread_id: t.d, session_id: t.shadowed },
];

/** usage_metadata of the chat run of turn i; turn 0 also carries costs (exact binary fractions). */
const turnUsage = (i: number) => ({
  input_tokens: 10 + i,
  output_tokens: 2 * i + 1,
  total_tokens: 10 + i + 2 * i + 1,
  ...(i === 0 ? { input_cost: 0.25, output_cost: 0.5, total_cost: 0.75 } : {}),
});

/** Feedback both clients give after tracing: on turns' roots and on the first turn's chat. */
interface GivenFeedback {
  run_id: string;
  trace_id: string;
  key: string;
  score: number;
}

function feedbackPlan(set: TracedSet): GivenFeedback[] {
  const turns = set.runs.filter((r) => r.name === 'turn');
  const chat0 = set.childrenOf(turns[0]!.id).find((r) => r.name === 'chat')!;
  return [
    { run_id: turns[0]!.id, trace_id: turns[0]!.id, key: 'user_score', score: 1 },
    { run_id: turns[1]!.id, trace_id: turns[1]!.id, key: 'user_score', score: 1 },
    { run_id: turns[2]!.id, trace_id: turns[2]!.id, key: 'user_score', score: 0 },
    { run_id: chat0.id, trace_id: turns[0]!.id, key: 'helpful', score: 1 },
  ];
}

/** The runs of `set` whose own feedback matches. */
const withFeedback = (given: GivenFeedback[], pick: (f: GivenFeedback) => boolean): string[] =>
  [...new Set(given.filter(pick).map((f) => f.run_id))].sort();

/** feedback_stats of a run as LangSmith shapes them: per key, n and avg. */
function expectFeedbackStats(
  stats: Record<string, { n: number; avg: number }> | null | undefined,
  given: GivenFeedback[],
  runId: string,
  label: string,
): void {
  const mine = given.filter((f) => f.run_id === runId);
  const keys = [...new Set(mine.map((f) => f.key))].sort();
  expect(Object.keys(stats ?? {}).sort(), `${label} feedback keys`).toEqual(keys);
  for (const key of keys) {
    const scores = mine.filter((f) => f.key === key).map((f) => f.score);
    expect(stats![key], `${label} feedback ${key}`).toMatchObject({
      n: scores.length,
      avg: scores.reduce((s, x) => s + x, 0) / scores.length,
    });
  }
}

// ---- langsmith (npm) ----

function fromRunTree(rt: RunTree): TracedRun {
  return {
    id: rt.id,
    name: rt.name,
    run_type: rt.run_type,
    parent_run_id: rt.parent_run?.id ?? null,
    trace_id: rt.trace_id,
    dotted_order: rt.dotted_order,
    inputs: rt.inputs,
    outputs: rt.outputs ?? null,
    error: rt.error ?? null,
    tags: rt.tags ?? [],
    metadata: (rt.extra?.metadata ?? {}) as Record<string, unknown>,
    end_time: isoMicros(rt.end_time!),
  };
}

async function traceWithJs(client: Client, project: string, threads: ThreadNames): Promise<RunTree[]> {
  const trees: RunTree[] = [];
  const common = { client, project_name: project, tracingEnabled: true } as const;
  const enter = () => trees.push(getCurrentRunTree());
  const pause = () => new Promise((r) => setTimeout(r, 5)); // distinct start times between traces, for order checks

  for (const [i, metadata] of turnMetadata(threads).entries()) {
    const chat = traceable(
      async ({ prompt }: { prompt: string }) => {
        enter();
        return { content: `answer to ${prompt}`, usage_metadata: turnUsage(i) };
      },
      { ...common, name: 'chat', run_type: 'llm', tags: i % 2 === 0 ? ['x', 'model'] : ['model'] },
    );
    const lookup = traceable(
      async ({ query }: { query: string }) => {
        enter();
        return { documents: [`doc for ${query}`] };
      },
      { ...common, name: 'lookup', run_type: 'tool', tags: i % 3 === 0 ? ['x'] : [] },
    );
    const turn = traceable(
      async ({ message }: { message: string }) => {
        enter();
        const docs = await lookup({ query: message });
        const reply = await chat({ prompt: `${message} with ${docs.documents.length} docs` });
        return { reply: reply.content };
      },
      { ...common, name: 'turn', run_type: 'chain', tags: ['turn'], metadata: { ...metadata, turn: i } },
    );
    await turn({ message: `message ${i}` });
    await pause();
  }

  const brokenTool = traceable(
    async ({ attempt }: { attempt: number }) => {
      enter();
      throw new Error(`tool broke on attempt ${attempt}`);
    },
    { ...common, name: 'broken-tool', run_type: 'tool' },
  );
  const failingRoot = traceable(
    async ({ reason }: { reason: string }) => {
      enter();
      await brokenTool({ attempt: 1 }).catch(() => undefined);
      throw new Error(reason);
    },
    { ...common, name: 'failing-root', run_type: 'chain', tags: ['x', 'failing'], metadata: { thread_id: threads.a } },
  );
  await failingRoot({ reason: 'gave up' }).catch(() => undefined);
  await pause();

  const step = traceable(
    async ({ i }: { i: number }) => {
      enter();
      return { square: i * i };
    },
    { ...common, name: 'step', run_type: 'tool' },
  );
  const bulk = traceable(
    async ({ steps }: { steps: number }) => {
      enter();
      let sum = 0;
      for (let i = 0; i < steps; i++) sum += (await step({ i })).square;
      return { sum };
    },
    { ...common, name: 'bulk', run_type: 'chain', metadata: { kind: 'bulk' } },
  );
  await bulk({ steps: BULK_STEPS });
  await client.awaitPendingTraceBatches();
  return trees;
}

/** What a client asked for: path and the cursor it sent (body or query), so tests can see that it followed pages. */
interface QueryRequest {
  path: string;
  cursor: string | null;
  status: number;
}

function recordingFetch(log: QueryRequest[]): typeof fetch {
  return async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const res = await fetch(input, init);
    let cursor = url.searchParams.get('cursor');
    if (typeof init?.body === 'string' && init.body.startsWith('{'))
      cursor = (JSON.parse(init.body) as { cursor?: string }).cursor ?? cursor;
    log.push({ path: url.pathname, cursor, status: res.status });
    return res;
  };
}

/** The requests to `path` since `from`: how many pages a listing took. */
const pagesOf = (log: QueryRequest[], path: string, from: number) => log.slice(from).filter((r) => r.path === path);

describe('langsmith (npm) reads back what it traced', () => {
  const requests: QueryRequest[] = [];
  let workspace: Workspace;
  let client: Client;
  let project: string;
  let projectId: string;
  let threads: ThreadNames;
  let set: TracedSet;
  let served: Map<string, ServerRun>;
  let feedback: GivenFeedback[];
  const rootOf = (name: string) => set.runs.find((r) => r.name === name && r.parent_run_id === null)!;

  beforeAll(async () => {
    workspace = (await createWorkspaces(1))[0]!;
    client = new Client({
      apiUrl: `${tracingUrl()}/api/v1`,
      apiKey: workspace.apiKey,
      autoBatchTracing: true,
      fetchImplementation: recordingFetch(requests),
    });
    project = `read-js-${randomUUID().slice(0, 8)}`;
    threads = threadNames(`thr-js-${randomUUID().slice(0, 8)}`);
    const trees = await traceWithJs(client, project, threads);
    set = new TracedSet(trees.map(fromRunTree));
    expect(set.runs).toHaveLength(7 * 3 + 2 + 1 + BULK_STEPS);
    served = await expectTracedRuns(workspace.apiKey, set.expected());
    projectId = (await client.readProject({ projectName: project })).id;
    feedback = feedbackPlan(set);
    for (const f of feedback)
      await client.createFeedback(f.run_id, f.key, {
        score: f.score,
        traceId: f.trace_id,
        comment: `given to ${f.run_id}`,
      });
    await client.awaitPendingTraceBatches();
    expect(
      requests.filter((r) => r.status >= 300),
      'every request of the client got a 2xx',
    ).toEqual([]);
    // The derived columns (thread, usage rolled up to ancestors) are in place for every run.
    await eventually(async () => {
      const res = await api('/runs/query', {
        method: 'POST',
        apiKey: workspace.apiKey,
        json: { session: [projectId], select: ['id', 'thread_id', 'total_tokens'], filter: 'gt(total_tokens, 0)' },
      });
      expect(res.status).toBe(200);
      expect(sortedIds(res.body.runs)).toEqual(set.ids((_r, d) => d.usage.total_tokens > 0));
      const rated = await api('/runs/query', {
        method: 'POST',
        apiKey: workspace.apiKey,
        json: {
          session: [projectId],
          select: ['id'],
          filter: 'or(eq(feedback_key, "user_score"), eq(feedback_key, "helpful"))',
        },
      });
      expect(sortedIds(rated.body.runs)).toEqual(withFeedback(feedback, () => true));
    });
  }, 180_000);

  test('GET /runs/{id} holds every traced value, the derived thread and the usage rolled up to ancestors', () => {
    for (const t of set.runs) {
      const run = served.get(t.id)!;
      expectRunAsTraced(run, set, projectId);
      expect(run.thread_id ?? null, `thread_id of ${t.name}`).toBe(set.derived.get(t.id)!.thread_id);
    }
    // Spot checks of the derivation itself, independent of the helper.
    const turns = set.runs.filter((r) => r.name === 'turn');
    expect(turns.map((r) => served.get(r.id)!.thread_id)).toEqual([
      threads.a,
      threads.a,
      threads.b,
      threads.a,
      threads.b,
      threads.c,
      threads.d,
    ]);
    expect(served.get(turns[0]!.id)!.total_tokens).toBe(11); // its chat's 10 input + 1 output tokens
    expect(served.get(turns[0]!.id)!.total_cost).toBeCloseTo(0.75, 9);
  });

  test('listRuns by projectName and by projectId pages through every run (cursors.next), newest first', async () => {
    const before = requests.length;
    const byName = await collect(client.listRuns({ projectName: project }));
    expectPagedInOrder(byName, set.ids());
    const pages = pagesOf(requests, '/api/v1/runs/query', before);
    expect(
      pages.map((p) => [p.status, p.cursor === null]),
      'two pages of at most 100, the second asked for by cursors.next',
    ).toEqual([
      [200, true],
      [200, false],
    ]);
    for (const run of byName) expectRunAsTraced(run, set, projectId);
    const byId = await collect(client.listRuns({ projectId }));
    expect(byId.map((r) => r.id)).toEqual(byName.map((r) => r.id));
    // Without a project: every run of the workspace (this workspace traced only this project).
    expect(sortedIds(await collect(client.listRuns({})))).toEqual(set.ids());
    // Ascending, across pages as well.
    const asc = await collect(client.listRuns({ projectId, order: 'asc' }));
    expectPagedInOrder(asc, set.ids(), 'asc');
  });

  test('listRuns with isRoot, runType and error', async () => {
    expect(sortedIds(await collect(client.listRuns({ projectId, isRoot: true })))).toEqual(
      set.ids((r) => r.parent_run_id === null),
    );
    expect(sortedIds(await collect(client.listRuns({ projectId, isRoot: false })))).toEqual(
      set.ids((r) => r.parent_run_id !== null),
    );
    expect(sortedIds(await collect(client.listRuns({ projectId, runType: 'llm' })))).toEqual(
      set.ids((r) => r.run_type === 'llm'),
    );
    expect(sortedIds(await collect(client.listRuns({ projectId, runType: 'tool', isRoot: false })))).toEqual(
      set.ids((r) => r.run_type === 'tool'),
    );
    const errored = await collect(client.listRuns({ projectId, error: true }));
    expect(sortedIds(errored)).toEqual(set.ids((r) => r.error !== null));
    expect(errored.map((r) => r.name).sort()).toEqual(['broken-tool', 'failing-root']);
    for (const run of errored) expect(run.error).toContain(set.get(run.id).error!);
    expect(sortedIds(await collect(client.listRuns({ projectId, error: false })))).toEqual(
      set.ids((r) => r.error === null),
    );
  });

  test('listRuns with the filter language: run type and tags, metadata keys and values, thread_id, tokens', async () => {
    const cases: Array<[string, (r: TracedRun, d: Derived) => boolean]> = [
      ['and(eq(run_type, "llm"), has(tags, "x"))', (r) => r.run_type === 'llm' && r.tags.includes('x')],
      ['has(tags, "x")', (r) => r.tags.includes('x')],
      ['eq(metadata_key, "thread_id")', (r) => 'thread_id' in r.metadata],
      ['eq(metadata_key, "session_id")', (r) => 'session_id' in r.metadata],
      [
        `and(eq(metadata_key, "thread_id"), eq(metadata_value, "${threads.a}"))`,
        (r) => r.metadata.thread_id === threads.a,
      ],
      [`eq(thread_id, "${threads.a}")`, (_r, d) => d.thread_id === threads.a],
      [`eq(thread_id, "${threads.b}")`, (_r, d) => d.thread_id === threads.b],
      [`eq(thread_id, "${threads.c}")`, (_r, d) => d.thread_id === threads.c],
      [`eq(thread_id, "${threads.d}")`, (_r, d) => d.thread_id === threads.d],
      [`eq(thread_id, "${threads.shadowed}")`, () => false],
      ['gt(total_tokens, 20)', (_r, d) => d.usage.total_tokens > 20],
      ['and(eq(name, "step"), lt(total_tokens, 1))', (r) => r.name === 'step'],
      ['neq(error, null)', (r) => r.error !== null],
    ];
    for (const [filter, pick] of cases) {
      const got = await collect(client.listRuns({ projectId, filter }));
      expect(sortedIds(got), filter).toEqual(set.ids(pick));
    }
    expect(set.threadRoots(threads.a)).toHaveLength(4);
    // A filter that is not the language's: a 400 the client raises.
    await expect(collect(client.listRuns({ projectId, filter: 'eq(run_type' }))).rejects.toThrow(/400/);
  });

  test('listRuns by traceId, with limit, and with select', async () => {
    const turn = set.runs.find((r) => r.name === 'turn')!;
    const inTrace = await collect(client.listRuns({ projectId, traceId: turn.id }));
    expect(sortedIds(inTrace)).toEqual(set.ids((r) => r.trace_id === turn.id));
    for (const run of inTrace) expectRunAsTraced(run, set, projectId);

    const bulk = rootOf('bulk');
    const bulkRuns = await collect(client.listRuns({ traceId: bulk.id }));
    expectPagedInOrder(
      bulkRuns,
      set.ids((r) => r.trace_id === bulk.id),
    );

    const everything = await collect(client.listRuns({ projectId }));
    const limited = await collect(client.listRuns({ projectId, limit: 5 }));
    expect(limited.map((r) => r.id)).toEqual(everything.slice(0, 5).map((r) => r.id));
    const acrossPages = await collect(client.listRuns({ projectId, limit: 130 }));
    expect(acrossPages.map((r) => r.id)).toEqual(everything.slice(0, 130).map((r) => r.id));

    const selected = await collect(
      client.listRuns({ projectId, select: ['id', 'name', 'thread_id', 'total_tokens', 'tags'] }),
    );
    expect(sortedIds(selected)).toEqual(set.ids());
    for (const run of selected) {
      expectRunAsTraced(run, set, projectId, 'select');
      expect(run, run.name).toMatchObject({
        thread_id: set.derived.get(run.id)!.thread_id,
        total_tokens: set.derived.get(run.id)!.usage.total_tokens,
        tags: set.get(run.id).tags,
      });
      expect(run, 'not selected').not.toHaveProperty('inputs');
      expect(run, 'not selected').not.toHaveProperty('outputs');
    }
  });

  test('feedback given with createFeedback: feedback_stats, and the filter, traceFilter and treeFilter on it', async () => {
    for (const run of await collect(client.listRuns({ projectId, isRoot: true })))
      expectFeedbackStats(run.feedback_stats, feedback, run.id, run.name);
    const chat0 = feedback.find((f) => f.key === 'helpful')!.run_id;
    const liked = await collect(
      client.listRuns({ projectId, filter: 'and(eq(feedback_key, "user_score"), eq(feedback_score, 1))' }),
    );
    expect(sortedIds(liked)).toEqual(withFeedback(feedback, (f) => f.key === 'user_score' && f.score === 1));
    const scored = await collect(client.listRuns({ projectId, filter: 'eq(feedback_key, "user_score")' }));
    expect(sortedIds(scored)).toEqual(withFeedback(feedback, (f) => f.key === 'user_score'));
    // LangSmith's own example: runs named "chat" whose trace's root got user_score 1.
    const likedTraces = new Set(withFeedback(feedback, (f) => f.key === 'user_score' && f.score === 1));
    const chatsOfLiked = await collect(
      client.listRuns({
        projectId,
        filter: 'eq(name, "chat")',
        traceFilter: 'and(eq(feedback_key, "user_score"), eq(feedback_score, 1))',
      }),
    );
    expect(sortedIds(chatsOfLiked)).toEqual(set.ids((r) => r.name === 'chat' && likedTraces.has(r.trace_id)));
    const helpedRoots = await collect(
      client.listRuns({ projectId, isRoot: true, treeFilter: 'eq(feedback_key, "helpful")' }),
    );
    expect(sortedIds(helpedRoots)).toEqual([set.get(chat0).trace_id]);
  });

  test('readRun carries feedback_stats (GET /runs/{id})', async () => {
    for (const f of feedback)
      expectFeedbackStats(
        (await client.readRun(f.run_id)).feedback_stats,
        feedback,
        f.run_id,
        `readRun ${set.get(f.run_id).name}`,
      );
  });

  test('listRuns with startTime: runs that started at or after it', async () => {
    const since = served.get(rootOf('failing-root').id)!.start_time as string;
    const sinceDate = new Date(since);
    const got = await collect(client.listRuns({ projectId, startTime: sinceDate }));
    expect(sortedIds(got)).toEqual(set.ids((r) => Date.parse(served.get(r.id)!.start_time) >= sinceDate.getTime()));
    expect(got.length).toBe(2 + 1 + BULK_STEPS);
  });

  test('listRuns by run ids and by parentRunId', async () => {
    const chats = set.runs.filter((r) => r.name === 'chat').slice(0, 3);
    const byIds = await collect(client.listRuns({ id: chats.map((r) => r.id) }));
    expect(sortedIds(byIds)).toEqual(chats.map((r) => r.id).sort());
    for (const run of byIds) expectRunAsTraced(run, set, projectId);
    const bulk = rootOf('bulk');
    const steps = await collect(client.listRuns({ projectId, parentRunId: bulk.id }));
    expectPagedInOrder(
      steps,
      set.childrenOf(bulk.id).map((r) => r.id),
    );
  });

  test('getRunStats: counts, errors and tokens of what was traced', async () => {
    const roots = set.runs.filter((r) => r.parent_run_id === null);
    const tokens = (k: keyof Usage) => roots.reduce((s, r) => s + set.derived.get(r.id)!.usage[k], 0);
    const errored = set.runs.filter((r) => r.error !== null);
    const all = await client.getRunStats({ projectIds: [projectId] });
    expect(all).toMatchObject({
      run_count: set.runs.length,
      error_count: errored.length,
      trace_count: roots.length,
      prompt_tokens: tokens('prompt_tokens'),
      completion_tokens: tokens('completion_tokens'),
      total_tokens: tokens('total_tokens'),
    });
    expect(Number(all.total_cost)).toBeCloseTo(tokens('total_cost'), 9);
    expect(all.error_rate).toBeCloseTo(errored.length / set.runs.length, 9);
    const rootsOnly = await client.getRunStats({ projectNames: [project], isRoot: true });
    expect(rootsOnly).toMatchObject({
      run_count: roots.length,
      error_count: roots.filter((r) => r.error !== null).length,
    });
    const failingTraces = await client.getRunStats({ projectIds: [projectId], error: true });
    expect(failingTraces).toMatchObject({
      trace_count: 1,
      run_count: set.runs.filter((r) => r.trace_id === rootOf('failing-root').id).length,
    });
  });

  test('readRun, with loadChildRuns: the whole tree as traced', async () => {
    const expectTree = (run: any) => {
      expectRunAsTraced(run, set, projectId);
      const children = set.childrenOf(run.id);
      expect(
        (run.child_runs ?? []).map((c: any) => c.id),
        `children of ${run.name}`,
      ).toEqual(children.map((c) => c.id));
      for (const c of run.child_runs ?? []) expectTree(c);
    };
    for (const root of [set.runs.find((r) => r.name === 'turn')!, rootOf('failing-root'), rootOf('bulk')]) {
      const read = await client.readRun(root.id, { loadChildRuns: true });
      expect(read.child_runs?.length).toBe(set.childrenOf(root.id).length);
      expectTree(read);
    }
    // Without loadChildRuns: the run alone.
    const leaf = set.runs.find((r) => r.name === 'chat')!;
    const plain = await client.readRun(leaf.id);
    expectRunAsTraced(plain, set, projectId);
    expect(plain.child_runs ?? null).toBeNull();
  });

  test('listThreads and readThread (deprecated, still shipped)', async () => {
    const listed = await client.listThreads({ projectName: project });
    expect(listed.map((t) => t.thread_id).sort()).toEqual([threads.a, threads.b, threads.c, threads.d].sort());
    for (const thread of listed) {
      const roots = set.threadRoots(thread.thread_id);
      expect(thread.count, thread.thread_id).toBe(roots.length);
      expect(
        thread.runs.map((r) => r.id),
        thread.thread_id,
      ).toEqual(roots.map((r) => r.id));
      for (const run of thread.runs)
        expect(run).toMatchObject({ thread_id: thread.thread_id, trace_id: run.id, name: set.get(run.id).name });
    }
    // Most recent first: the failing root (thread a) came after every turn.
    expect(listed[0]!.thread_id).toBe(threads.a);
    expect((await client.listThreads({ projectId, limit: 2 })).map((t) => t.thread_id)).toEqual(
      listed.slice(0, 2).map((t) => t.thread_id),
    );

    const readA = await collect(client.readThread({ threadId: threads.a, projectName: project }));
    expect(readA.map((r) => r.id)).toEqual(set.threadRoots(threads.a).map((r) => r.id));
    for (const run of readA) expectRunAsTraced(run, set, projectId);
    const readB = await collect(client.readThread({ threadId: threads.b, projectId, order: 'desc' }));
    expect(readB.map((r) => r.id)).toEqual(
      set
        .threadRoots(threads.b)
        .map((r) => r.id)
        .reverse(),
    );
    // isRoot false: the thread's runs that are not roots (children carry the thread too when their metadata names it).
    const childrenOfC = await collect(client.readThread({ threadId: threads.c, projectId, isRoot: false }));
    expect(sortedIds(childrenOfC)).toEqual(set.ids((r, d) => d.thread_id === threads.c && r.parent_run_id !== null));
    expect(await collect(client.readThread({ threadId: threads.shadowed, projectId }))).toEqual([]);
  });

  test('v2 client.runs.query: filters, selects and next_cursor paging', async () => {
    const before = requests.length;
    const all = await collect(
      client.runs.query({ project_ids: [projectId], page_size: 40, selects: ['ID', 'START_TIME'] }),
    );
    expectPagedInOrder(all, set.ids());
    expect(pagesOf(requests, '/api/v2/runs/query', before)).toHaveLength(Math.ceil(set.runs.length / 40));
    const inThread = await collect(
      client.runs.query({
        project_ids: [projectId],
        filter: `eq(thread_id, "${threads.a}")`,
        selects: [
          'ID',
          'NAME',
          'RUN_TYPE',
          'TRACE_ID',
          'THREAD_ID',
          'PARENT_RUN_IDS',
          'TAGS',
          'ERROR',
          'INPUTS',
          'OUTPUTS',
          'METADATA',
          'PROMPT_TOKENS',
          'COMPLETION_TOKENS',
          'TOTAL_TOKENS',
          'TOTAL_COST',
          'IS_ROOT',
          'PROJECT_ID',
        ],
      }),
    );
    expect(sortedIds(inThread)).toEqual(set.ids((_r, d) => d.thread_id === threads.a));
    for (const item of inThread) {
      const t = set.get(item.id!);
      const d = set.derived.get(t.id)!;
      expect(item).toMatchObject({
        name: t.name,
        run_type: t.run_type.toUpperCase(),
        trace_id: t.trace_id,
        thread_id: threads.a,
        tags: t.tags,
        error: t.error,
        is_root: t.parent_run_id === null,
        project_id: projectId,
        prompt_tokens: d.usage.prompt_tokens,
        completion_tokens: d.usage.completion_tokens,
        total_tokens: d.usage.total_tokens,
      });
      expect(item.inputs).toEqual(t.inputs);
      expect(item.outputs ?? null).toEqual(t.outputs);
      expect(item.metadata).toMatchObject(t.metadata);
      expect(item.parent_run_ids).toEqual(
        t.dotted_order
          .split('.')
          .slice(0, -1)
          .map((s) => s.slice(-36)),
      );
    }
    const llmWithX = await collect(
      client.runs.query({
        project_ids: [projectId],
        filter: 'and(eq(run_type, "llm"), has(tags, "x"))',
        is_root: false,
      }),
    );
    expect(sortedIds(llmWithX)).toEqual(set.ids((r) => r.run_type === 'llm' && r.tags.includes('x')));
    const errored = await collect(client.runs.query({ project_ids: [projectId], has_error: true }));
    expect(sortedIds(errored)).toEqual(set.ids((r) => r.error !== null));
    const trace = set.runs.find((r) => r.name === 'turn')!;
    expect(sortedIds(await collect(client.runs.query({ project_ids: [projectId], trace_id: trace.id })))).toEqual(
      set.ids((r) => r.trace_id === trace.id),
    );
  });

  test('v2 client.traces.query and client.traces.listRuns', async () => {
    const roots = set.runs.filter((r) => r.parent_run_id === null);
    const traces = await eventually(async () => {
      const got = await collect(client.traces.query({ project_id: projectId, page_size: 4 }));
      expect(got.map((t) => t.root_run?.id).sort()).toEqual(roots.map((r) => r.id).sort());
      return got;
    });
    const before = requests.length;
    await collect(client.traces.query({ project_id: projectId, page_size: 4 }));
    expect(
      pagesOf(requests, '/api/v2/traces/query', before).map((p) => p.cursor === null),
      'nine traces in pages of four',
    ).toEqual([true, false, false]);
    // Newest first, across pages.
    expect(traces.map((t) => t.root_run!.id)).toEqual(
      [...roots].sort((a, b) => b.dotted_order.localeCompare(a.dotted_order)).map((r) => r.id),
    );
    for (const t of traces) {
      const root = set.get(t.root_run!.id!);
      const d = set.derived.get(root.id)!;
      expect(t.root_run).toMatchObject({
        id: root.id,
        name: root.name,
        run_type: root.run_type.toUpperCase(),
        trace_id: root.id,
        thread_id: d.thread_id,
        tags: root.tags,
      });
      expect(t.trace_aggregates).toMatchObject({ total_tokens: d.usage.total_tokens });
      expect(Number(t.trace_aggregates?.total_cost ?? 0)).toBeCloseTo(d.usage.total_cost, 9);
    }
    const withError = await collect(
      client.traces.query({ project_id: projectId, selects: ['ID', 'NAME', 'ERROR', 'INPUTS'] }),
    );
    const failing = withError.find((t) => t.root_run?.name === 'failing-root')!;
    expect(failing.root_run).toMatchObject({
      error: rootOf('failing-root').error,
      inputs: rootOf('failing-root').inputs,
    });

    for (const root of [set.runs.find((r) => r.name === 'turn')!, rootOf('bulk')]) {
      const { items } = await client.traces.listRuns(root.id, {
        project_id: projectId,
        selects: ['ID', 'NAME', 'PARENT_RUN_IDS', 'DOTTED_ORDER', 'INPUTS', 'OUTPUTS', 'TOTAL_TOKENS'],
      });
      const inTrace = set.runs
        .filter((r) => r.trace_id === root.id)
        .sort((a, b) => a.dotted_order.localeCompare(b.dotted_order));
      expect(
        items!.map((i) => i.id),
        'tree order',
      ).toEqual(inTrace.map((r) => r.id));
      for (const item of items!) {
        const t = set.get(item.id!);
        expect(item).toMatchObject({
          name: t.name,
          dotted_order: t.dotted_order,
          total_tokens: set.derived.get(t.id)!.usage.total_tokens,
        });
        expect(item.inputs).toEqual(t.inputs);
        expect(item.outputs ?? null).toEqual(t.outputs);
      }
    }
  });

  test('v2 client.threads.query, listTraces and stats', async () => {
    const threadIds = [threads.a, threads.b, threads.c, threads.d];
    const listed = await eventually(async () => {
      const got = await collect(client.threads.query({ project_id: projectId, page_size: 2 }));
      expect(got.map((t) => t.thread_id).sort()).toEqual([...threadIds].sort());
      return got;
    });
    expect(listed[0]!.thread_id).toBe(threads.a); // the most recent activity: the failing root
    for (const thread of listed) {
      const roots = set.threadRoots(thread.thread_id!);
      const tokens = roots.reduce((s, r) => s + set.derived.get(r.id)!.usage.total_tokens, 0);
      expect(thread, thread.thread_id).toMatchObject({
        count: roots.length,
        total_tokens: tokens,
        first_trace_id: roots[0]!.id,
        last_trace_id: roots.at(-1)!.id,
      });
    }

    const turns = await collect(
      client.threads.listTraces(threads.a, {
        project_id: projectId,
        page_size: 3,
        selects: ['TRACE_ID', 'NAME', 'TURN_NUMBER', 'TOTAL_TOKENS', 'INPUTS', 'OUTPUTS', 'ERROR'],
      }),
    );
    const roots = set.threadRoots(threads.a);
    expect(
      turns.map((t: any) => t.trace_id),
      'oldest first',
    ).toEqual(roots.map((r) => r.id));
    turns.forEach((t: any, i) => {
      const root = roots[i]!;
      expect(t).toMatchObject({
        name: root.name,
        turn_number: i + 1,
        total_tokens: set.derived.get(root.id)!.usage.total_tokens,
        error: root.error,
      });
      expect(t.inputs).toEqual(root.inputs);
      expect(t.outputs ?? null).toEqual(root.outputs);
    });

    const stats = await client.threads.stats(threads.a, {
      session_id: projectId,
      selects: [
        'TURNS',
        'PROMPT_TOKENS',
        'COMPLETION_TOKENS',
        'TOTAL_TOKENS',
        'TOTAL_COST',
        'FIRST_START_TIME',
        'LAST_START_TIME',
      ],
    });
    const sum = (k: keyof Usage) => roots.reduce((s, r) => s + set.derived.get(r.id)!.usage[k], 0);
    expect(stats).toMatchObject({
      turns: 4,
      prompt_tokens: sum('prompt_tokens'),
      completion_tokens: sum('completion_tokens'),
      total_tokens: sum('total_tokens'),
    });
    expect(Number(stats.total_cost)).toBeCloseTo(sum('total_cost'), 9);
    expect(Date.parse(stats.first_start_time!)).toBe(Date.parse(served.get(roots[0]!.id)!.start_time));
    expect(Date.parse(stats.last_start_time!)).toBe(Date.parse(served.get(roots.at(-1)!.id)!.start_time));
    expect((stats as Record<string, unknown>).num_errored_turns).toBe(1);
  });

  test('v2 client.runs.retrieve (GET /api/v2/runs/{id})', async () => {
    const chat = set.runs.find((r) => r.name === 'chat')!;
    const run = await client.runs.retrieve(chat.id, {
      project_id: projectId,
      selects: ['ID', 'NAME', 'TRACE_ID', 'INPUTS', 'OUTPUTS', 'TOTAL_TOKENS'],
    });
    expect(run).toMatchObject({
      id: chat.id,
      name: 'chat',
      trace_id: chat.trace_id,
      total_tokens: set.derived.get(chat.id)!.usage.total_tokens,
    });
    expect(run.inputs).toEqual(chat.inputs);
  });
});

describe('langsmith (npm) pages through runs that share one start_time', () => {
  test('150 traces started in the same microsecond: every page boundary falls inside the tie', async () => {
    const workspace = (await createWorkspaces(1))[0]!;
    const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: workspace.apiKey, autoBatchTracing: false });
    const project = `read-ties-${randomUUID().slice(0, 8)}`;
    const start = Date.now() * 1000 - 60_000_000;
    const runs = Array.from({ length: 150 }, (_, i) => {
      const id = uuidv7();
      return {
        id,
        trace_id: id,
        dotted_order: formatDottedTimestamp(start) + id,
        name: `tied-${i}`,
        run_type: 'chain',
        start_time: isoMicros(start / 1000),
        end_time: isoMicros(start / 1000 + 5),
        session_name: project,
        inputs: { i },
      };
    });
    const { body, contentType } = multipartBody(runs.map((r) => ({ name: `post.${r.id}`, body: JSON.stringify(r) })));
    const res = await api('/runs/multipart', {
      method: 'POST',
      apiKey: workspace.apiKey,
      body,
      headers: { 'content-type': contentType },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await Promise.all(runs.map((r) => waitForRun(workspace.apiKey, r.id)));
    const ids = runs.map((r) => r.id);

    for (const order of ['desc', 'asc'] as const) {
      const listed = await collect(client.listRuns({ projectName: project, order }));
      expectPagedInOrder(listed, ids, order);
      expect(new Set(listed.map((r) => r.start_time)).size, 'one start_time').toBe(1);
    }
    const small = await collect(client.listRuns({ projectName: project, limit: 149 }));
    expect(new Set(small.map((r) => r.id)).size).toBe(149);
    const projectId = (await client.readProject({ projectName: project })).id;
    const v2 = await collect(
      client.runs.query({ project_ids: [projectId], page_size: 7, min_start_time: isoMicros(start / 1000 - 1000) }),
    );
    expect(sortedIds(v2)).toEqual([...ids].sort());
    expect(v2).toHaveLength(150);
    const traces = await eventually(async () => {
      const got = await collect(
        client.traces.query({ project_id: projectId, page_size: 13, min_start_time: isoMicros(start / 1000 - 1000) }),
      );
      expect(got.map((t) => t.root_run?.id).sort()).toEqual([...ids].sort());
      return got;
    });
    expect(traces).toHaveLength(150);
  });
});

// ---- langsmith (PyPI) ----

interface PyTraceResult {
  langsmith_version: string;
  project: string;
  runs: TracedRun[];
  feedback: GivenFeedback[];
}

interface PyRun {
  id: string;
  name: string;
  run_type: string;
  trace_id: string;
  parent_run_id: string | null;
  dotted_order: string;
  session_id: string;
  status: string;
  error: string | null;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  tags: string[];
  metadata: Record<string, unknown>;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  total_cost: number | null;
  start_time: string;
  end_time: string | null;
  feedback_stats: Record<string, { n: number; avg: number }> | null;
  child_runs?: PyRun[] | null;
}

interface PyQueryResult {
  project_id: string;
  lists: Record<string, PyRun[]>;
  read_runs: Record<string, PyRun>;
  threads: Array<{
    thread_id: string;
    count: number;
    run_ids: string[];
    min_start_time: string | null;
    max_start_time: string | null;
  }>;
  read_threads: Record<string, string[]>;
  stats: Record<'all' | 'roots', Record<string, unknown>>;
  errors: Record<string, string>;
}

describe('langsmith (PyPI) reads back what it traced', () => {
  let pyenv: PythonEnv;
  let workspace: Workspace;
  let env: Record<string, string>;
  let threads: ThreadNames;
  let set: TracedSet;
  let query: PyQueryResult;
  let feedback: GivenFeedback[];
  let since: string;
  let startedSince: string[];

  beforeAll(async () => {
    [pyenv, workspace] = await Promise.all([ensurePythonEnv(), createWorkspaces(1).then((w) => w[0]!)]);
    const project = `read-py-${randomUUID().slice(0, 8)}`;
    threads = threadNames(`thr-py-${randomUUID().slice(0, 8)}`);
    env = {
      LANGSMITH_ENDPOINT: `${tracingUrl()}/api/v1`,
      LANGSMITH_API_KEY: workspace.apiKey,
      LANGSMITH_TRACING: 'true',
      LANGSMITH_PROJECT: project,
    };
    const traced = await runPythonScript<PyTraceResult>(
      pyenv,
      'read_runs_trace.py',
      [JSON.stringify({ threads, bulk_steps: BULK_STEPS })],
      env,
    );
    expectNoClientFailures(traced);
    expect(traced.result.langsmith_version).toBe('0.15.1');
    set = new TracedSet(traced.result.runs);
    expect(set.runs).toHaveLength(7 * 3 + 2 + 1 + BULK_STEPS);
    feedback = traced.result.feedback;
    expect(feedback.map(({ run_id, key, score }) => ({ run_id, key, score }))).toEqual(
      feedbackPlan(set).map(({ run_id, key, score }) => ({ run_id, key, score })),
    );
    const served = await expectTracedRuns(workspace.apiKey, set.expected());
    // Derived columns and feedback in place (same wait as for the npm client).
    await eventually(async () => {
      const res = await api('/runs/query', {
        method: 'POST',
        apiKey: workspace.apiKey,
        json: { select: ['id'], filter: 'gt(total_tokens, 0)' },
      });
      expect(sortedIds(res.body.runs ?? [])).toEqual(set.ids((_r, d) => d.usage.total_tokens > 0));
      const rated = await api('/runs/query', {
        method: 'POST',
        apiKey: workspace.apiKey,
        json: { select: ['id'], filter: 'or(eq(feedback_key, "user_score"), eq(feedback_key, "helpful"))' },
      });
      expect(sortedIds(rated.body.runs ?? [])).toEqual(withFeedback(feedback, () => true));
    });
    since = served.get(set.runs.find((r) => r.name === 'failing-root')!.id)!.start_time;
    startedSince = set.ids((r) => served.get(r.id)!.start_time >= since);
    const spec = {
      project,
      thread_ids: [threads.a, threads.b, threads.c, threads.d, threads.shadowed],
      trace_id: set.runs.find((r) => r.name === 'turn')!.id,
      bulk_id: set.runs.find((r) => r.name === 'bulk')!.id,
      failing_id: set.runs.find((r) => r.name === 'failing-root')!.id,
      leaf_id: set.runs.find((r) => r.name === 'chat')!.id,
      chat_ids: set.runs
        .filter((r) => r.name === 'chat')
        .slice(0, 3)
        .map((r) => r.id),
      since,
    };
    const out = await runPythonScript<PyQueryResult>(pyenv, 'read_runs_query.py', [JSON.stringify(spec)], env, 240_000);
    expectNoClientFailures(out);
    query = out.result;
  }, 600_000);

  const expectPyRun = (run: PyRun) => {
    const t = set.get(run.id);
    const d = set.derived.get(run.id)!;
    expect(run, t.name).toMatchObject({
      name: t.name,
      run_type: t.run_type,
      trace_id: t.trace_id,
      parent_run_id: t.parent_run_id,
      dotted_order: t.dotted_order,
      session_id: query.project_id,
      error: t.error,
      status: t.error === null ? 'success' : 'error',
      tags: t.tags,
      prompt_tokens: d.usage.prompt_tokens,
      completion_tokens: d.usage.completion_tokens,
      total_tokens: d.usage.total_tokens,
    });
    expect(Number(run.total_cost ?? 0)).toBeCloseTo(d.usage.total_cost, 9);
    expect(run.inputs).toEqual(t.inputs);
    expect(run.outputs ?? null).toEqual(t.outputs);
    expect(run.metadata).toMatchObject(t.metadata);
  };
  const list = (name: string): PyRun[] => {
    const runs = query.lists[name];
    if (!runs) throw new Error(`read_runs_query.py listed no "${name}" (errors: ${JSON.stringify(query.errors)})`);
    return runs;
  };

  test('the scripts raised nothing', () => {
    expect(query.errors).toEqual({});
  });

  test('list_runs by project_name pages through every run, newest first, with every traced value', () => {
    const all = list('all');
    expectPagedInOrder(all, set.ids());
    for (const run of all) expectPyRun(run);
    expect(list('by_project_id').map((r) => r.id)).toEqual(all.map((r) => r.id));
    expect(list('limit_5').map((r) => r.id)).toEqual(all.slice(0, 5).map((r) => r.id));
    expect(list('limit_130').map((r) => r.id)).toEqual(all.slice(0, 130).map((r) => r.id));
  });

  test('list_runs with is_root, run_type, error, trace_id', () => {
    expect(sortedIds(list('roots'))).toEqual(set.ids((r) => r.parent_run_id === null));
    expect(sortedIds(list('llm'))).toEqual(set.ids((r) => r.run_type === 'llm'));
    expect(sortedIds(list('errors'))).toEqual(set.ids((r) => r.error !== null));
    expect(sortedIds(list('no_errors'))).toEqual(set.ids((r) => r.error === null));
    const traceId = set.runs.find((r) => r.name === 'turn')!.id;
    expect(sortedIds(list('trace'))).toEqual(set.ids((r) => r.trace_id === traceId));
    const chats = set.runs.filter((r) => r.name === 'chat').slice(0, 3);
    expect(sortedIds(list('by_run_ids'))).toEqual(chats.map((r) => r.id).sort());
    const bulkRoot = set.runs.find((r) => r.name === 'bulk')!;
    expectPagedInOrder(
      list('bulk_children'),
      set.childrenOf(bulkRoot.id).map((r) => r.id),
    );
    const bulk = list('bulk_trace');
    expectPagedInOrder(
      bulk,
      set.ids((r) => r.trace_id === set.runs.find((x) => x.name === 'bulk')!.id),
    );
  });

  test('list_runs with filters: tags, metadata, thread_id', () => {
    expect(sortedIds(list('llm_tagged_x'))).toEqual(set.ids((r) => r.run_type === 'llm' && r.tags.includes('x')));
    expect(sortedIds(list('metadata_key_thread_id'))).toEqual(set.ids((r) => 'thread_id' in r.metadata));
    expect(sortedIds(list('metadata_thread_a'))).toEqual(set.ids((r) => r.metadata.thread_id === threads.a));
    for (const [name, thread] of [
      ['thread_a', threads.a],
      ['thread_b', threads.b],
      ['thread_c', threads.c],
      ['thread_d', threads.d],
      ['thread_shadowed', threads.shadowed],
    ] as const) {
      expect(sortedIds(list(name)), name).toEqual(set.ids((_r, d) => d.thread_id === thread));
    }
    // The Python Run model has no thread_id (it drops the selected field); list_threads reads it from the raw answer.
    for (const run of list('selected'))
      expect(run.total_tokens, run.name).toBe(set.derived.get(run.id)!.usage.total_tokens);
    expect(sortedIds(list('selected'))).toEqual(set.ids());
  });

  test('read_run, with load_child_runs: the whole tree as traced', () => {
    const expectTree = (run: PyRun) => {
      expectPyRun(run);
      expect(
        (run.child_runs ?? []).map((c) => c.id),
        `children of ${run.name}`,
      ).toEqual(set.childrenOf(run.id).map((c) => c.id));
      for (const c of run.child_runs ?? []) expectTree(c);
    };
    for (const name of ['turn', 'failing', 'bulk']) {
      const run = query.read_runs[name];
      expect(run, name).toBeDefined();
      expect(run!.child_runs?.length ?? 0).toBe(set.childrenOf(run!.id).length);
      expectTree(run!);
    }
    expectPyRun(query.read_runs.leaf!);
    expect(query.read_runs.leaf!.child_runs ?? []).toEqual([]);
  });

  test('feedback given with create_feedback: feedback_stats, and the filter, trace_filter and tree_filter on it', () => {
    for (const run of list('roots')) expectFeedbackStats(run.feedback_stats, feedback, run.id, run.name);
    const chats = new Map(list('all').map((r) => [r.id, r]));
    const chat0 = feedback.find((f) => f.key === 'helpful')!.run_id;
    expectFeedbackStats(chats.get(chat0)!.feedback_stats, feedback, chat0, 'chat of turn 0 (list_runs)');
    expect(sortedIds(list('liked'))).toEqual(withFeedback(feedback, (f) => f.key === 'user_score' && f.score === 1));
    const likedTraces = new Set(withFeedback(feedback, (f) => f.key === 'user_score' && f.score === 1));
    expect(sortedIds(list('chats_of_liked'))).toEqual(set.ids((r) => r.name === 'chat' && likedTraces.has(r.trace_id)));
    expect(sortedIds(list('helped_roots'))).toEqual([
      set.get(feedback.find((f) => f.key === 'helpful')!.run_id).trace_id,
    ]);
  });

  test('read_run carries feedback_stats (GET /runs/{id})', () => {
    const leaf = query.read_runs.leaf!;
    expectFeedbackStats(leaf.feedback_stats, feedback, leaf.id, 'read_run of the chat of turn 0');
    expectFeedbackStats(query.read_runs.turn!.feedback_stats, feedback, query.read_runs.turn!.id, 'read_run of turn 0');
  });

  test('list_runs with start_time, timezone-aware and naive (read as UTC)', () => {
    expect(startedSince).toHaveLength(2 + 1 + BULK_STEPS);
    expect(sortedIds(list('since'))).toEqual(startedSince);
    expect(sortedIds(list('since_naive'))).toEqual(startedSince);
  });

  test('get_run_stats: counts, errors and tokens of what was traced', () => {
    const roots = set.runs.filter((r) => r.parent_run_id === null);
    const tokens = (k: keyof Usage) => roots.reduce((s, r) => s + set.derived.get(r.id)!.usage[k], 0);
    const errored = set.runs.filter((r) => r.error !== null);
    expect(query.stats.all).toMatchObject({
      run_count: set.runs.length,
      error_count: errored.length,
      trace_count: roots.length,
      total_tokens: tokens('total_tokens'),
    });
    expect(query.stats.roots).toMatchObject({
      run_count: roots.length,
      error_count: roots.filter((r) => r.error !== null).length,
    });
  });

  test('list_threads and read_thread', () => {
    expect(query.threads.map((t) => t.thread_id).sort()).toEqual([threads.a, threads.b, threads.c, threads.d].sort());
    expect(query.threads[0]!.thread_id).toBe(threads.a);
    for (const thread of query.threads)
      expect(thread.run_ids, thread.thread_id).toEqual(set.threadRoots(thread.thread_id).map((r) => r.id));
    for (const [thread, ids] of Object.entries(query.read_threads))
      expect(ids, thread).toEqual(set.threadRoots(thread).map((r) => r.id));
    expect(Object.keys(query.read_threads).sort()).toEqual(
      [threads.a, threads.b, threads.c, threads.d, threads.shadowed].sort(),
    );
  });
});
