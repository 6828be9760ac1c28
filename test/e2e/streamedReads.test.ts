// The official clients' newer read calls, unchanged, against the running service: the streamed
// queries (`runs.streaming.queryV2Items`, `traces.streaming.queryItems`,
// `threads.streaming.queryItems`, and their Python twins) must yield exactly the items the
// paged JSON API gives, over more items than one page; run URLs (`getRunUrl`, `get_run_url`,
// `runs.getURL`, a run's `app_path`) point at /o/{workspace}/projects/p/{project}/r/{run}?poll=true;
// `sessions.resolve` answers for an experiment (and 404 for an agent address); and
// `threads.aggregateStats` sums the project's threads.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { Client } from 'langsmith';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../support/tracingClient.ts';
import { makeTrace, multipartBody, postParts, type TestRun } from '../support/runFactory.ts';
import { waitFor } from '../support/serviceProcess.ts';
import { ensurePythonEnv } from '../support/pythonEnv.ts';
import { expectNoClientFailures, runPythonScript } from '../support/pythonScript.ts';
import { collect } from '../support/asyncItems.ts';

const TRACES = 60;
const CHILDREN = 3;
const THREADS = 12;
const RUNS = TRACES * (CHILDREN + 1);

let workspace: Workspace;
let projectId: string;
let experimentId: string;
let ingested: TestRun[];
/** What the paged JSON API gives, page by page: the reference the streamed forms must match. */
let jsonRuns: Array<{ id: string; name: string; app_path: string }>;
let jsonTraces: Array<{ root_run: { id: string }; trace_aggregates: { total_tokens: number } }>;
let jsonThreads: Array<{ thread_id: string }>;

const appPath = (runId: string) => `/o/${workspace.id}/projects/p/${projectId}/r/${runId}?poll=true`;

/** Every item of a JSON query, following next_cursor. */
async function pagedJson<T>(path: string, body: Record<string, unknown>): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages < 100; pages++) {
    const res = await api(path, {
      method: 'POST',
      apiKey: workspace.apiKey,
      json: { ...body, ...(cursor ? { cursor } : {}) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    items.push(...res.body.items);
    cursor = res.body.next_cursor ?? undefined;
    if (!cursor) return { items, pages };
  }
  throw new Error(`${path} did not stop paging`);
}

/** Usage on the llm children, an errored child in every fifth trace, the roots in THREADS threads. */
function traces(project: string): TestRun[] {
  const base = (Date.now() - 2 * 3600_000) * 1000;
  const runs: TestRun[] = [];
  for (let i = 0; i < TRACES; i++) {
    const t0 = base + i * 10_000_000;
    const trace = makeTrace(CHILDREN, { session_name: project }, t0);
    for (const [j, run] of trace.entries()) {
      run.end_time = new Date((t0 + 500_000 + j * 1000) / 1000).toISOString();
      if (run.parent_run_id === null) run.extra = { metadata: { thread_id: `thread-${i % THREADS}` } };
      else run.outputs = { usage_metadata: { input_tokens: 10 + i, output_tokens: 5, total_tokens: 15 + i } };
      if (run.parent_run_id !== null && j === 1 && i % 5 === 0) run.error = 'child failed';
    }
    runs.push(...trace);
  }
  return runs;
}

beforeAll(async () => {
  workspace = (await createWorkspaces(1))[0]!;
  const project = `streamed-${randomUUID().slice(0, 8)}`;
  ingested = traces(project);
  for (let i = 0; i < ingested.length; i += 120) {
    const { body, contentType } = multipartBody(postParts(ingested.slice(i, i + 120)));
    const res = await api('/runs/multipart', {
      method: 'POST',
      apiKey: workspace.apiKey,
      body,
      headers: { 'content-type': contentType },
    });
    expect(res.status).toBe(202);
  }
  projectId = (await api(`/sessions?name=${project}`, { apiKey: workspace.apiKey })).body[0].id;
  const experiment = await api('/sessions', {
    method: 'POST',
    apiKey: workspace.apiKey,
    json: { name: `experiment-${randomUUID().slice(0, 8)}`, reference_dataset_id: randomUUID() },
  });
  experimentId = experiment.body.id;
  // Everything projected: every run, every trace with its thread, every thread.
  await waitFor(
    'the runs, traces and threads to be projected',
    async () => {
      const runs = await pagedJson<{ id: string; name: string; app_path: string }>('/api/v2/runs/query', {
        project_ids: [projectId],
        selects: ['ID', 'NAME', 'APP_PATH'],
      });
      const tr = await pagedJson<{ root_run: { id: string }; trace_aggregates: { total_tokens: number } }>(
        '/api/v2/traces/query',
        { project_id: projectId, page_size: 100 },
      );
      const th = await pagedJson<{ thread_id: string; count: number }>('/api/v2/threads/query', {
        project_id: projectId,
        page_size: 100,
      });
      if (
        runs.items.length !== RUNS ||
        tr.items.length !== TRACES ||
        th.items.length !== THREADS ||
        th.items.some((t) => t.count !== TRACES / THREADS)
      )
        return null;
      [jsonRuns, jsonTraces, jsonThreads] = [runs.items, tr.items, th.items];
      return true;
    },
    60_000,
    250,
  );
}, 120_000);

/** The requests a client made and how they were answered. */
interface Exchange {
  path: string;
  accept: string | null;
  status: number;
  contentType: string | null;
}

function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const res = await fetch(input, init);
    log.push({
      path: url.pathname,
      accept: new Headers(init?.headers).get('accept'),
      status: res.status,
      contentType: res.headers.get('content-type'),
    });
    return res;
  };
}

describe('langsmith (npm) streamed queries', () => {
  const log: Exchange[] = [];
  let client: Client;
  beforeAll(() => {
    client = new Client({
      apiUrl: `${tracingUrl()}/api/v1`,
      apiKey: workspace.apiKey,
      webUrl: tracingUrl(),
      fetchImplementation: recordingFetch(log),
    });
  });
  const streamsTo = (path: string, from: number) => log.slice(from).filter((e) => e.path === path);

  test("runs.streaming.queryV2Items: every run, in the JSON pages' order, streams of page_size runs (more than a JSON page holds)", async () => {
    const from = log.length;
    const runs = await collect(
      client.runs.streaming.queryV2Items({
        project_ids: [projectId],
        page_size: 120,
        selects: ['ID', 'NAME', 'APP_PATH'],
      }),
    );
    expect(runs).toEqual(jsonRuns);
    expect(runs).toHaveLength(RUNS);
    const streams = streamsTo('/api/v2/runs/query', from);
    expect(
      streams.every(
        (e) => e.accept === 'text/event-stream' && e.status === 200 && e.contentType?.startsWith('text/event-stream'),
      ),
      JSON.stringify(streams),
    ).toBe(true);
    expect(streams, '240 runs in streams of 120 (a JSON page holds 100)').toHaveLength(2);
  });

  test('traces.streaming.queryItems and threads.streaming.queryItems: the same items as the JSON pages, across several streams', async () => {
    const from = log.length;
    const traced = await collect(client.traces.streaming.queryItems({ project_id: projectId, page_size: 25 }));
    expect(traced).toEqual(jsonTraces);
    expect(streamsTo('/api/v2/traces/query', from)).toHaveLength(3);
    const threads = await collect(client.threads.streaming.queryItems({ project_id: projectId, page_size: 5 }));
    expect(threads).toEqual(jsonThreads);
    expect(streamsTo('/api/v2/threads/query', from)).toHaveLength(3);
    expect(log.slice(from).every((e) => e.contentType?.startsWith('text/event-stream'))).toBe(true);
  });

  test('runs.streaming.queryV2: the events are JSON Patch operations on {items, next_cursor}', async () => {
    const events = await collect(await client.runs.streaming.queryV2({ project_ids: [projectId], page_size: 3 }));
    expect(events[0]).toEqual([{ op: 'add', path: '', value: { items: [], next_cursor: null } }]);
    expect(events[1]).toEqual(jsonRuns.slice(0, 3).map((r) => ({ op: 'add', path: '/items/-', value: { id: r.id } })));
    expect(events[2]).toEqual([{ op: 'replace', path: '/next_cursor', value: expect.any(String) }]);
    expect(events).toHaveLength(3);
  });
});

describe('langsmith (npm) run URLs, address resolution, thread aggregates', () => {
  let client: Client;
  beforeAll(() => {
    client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: workspace.apiKey, webUrl: tracingUrl() });
  });

  test('app_path on every run; getRunUrl by id and by run, and runs.getURL, agree on it', async () => {
    expect(jsonRuns.every((r) => r.app_path === appPath(r.id))).toBe(true);
    const root = ingested[0]!;
    const child = ingested[1]!;
    const url = `${tracingUrl()}${appPath(child.id)}`;
    expect(await client.getRunUrl({ runId: child.id })).toBe(url);
    const run = await client.readRun(child.id);
    expect(run.app_path).toBe(appPath(child.id));
    expect(await client.getRunUrl({ run })).toBe(url);
    expect(await client.runs.getURL(child.id, { project_id: projectId, trace_id: root.id })).toEqual({ url });
    const listed = await collect(client.listRuns({ projectId, traceId: root.id }));
    expect(listed.map((r) => r.app_path).sort()).toEqual(
      ingested
        .slice(0, CHILDREN + 1)
        .map((r) => appPath(r.id))
        .sort(),
    );
  });

  test('sessions.resolve: an experiment by its id, and getRunUrl through an experiment address; an agent address is a 404', async () => {
    expect(await client.sessions.resolve({ kind: 'EXPERIMENT', id: experimentId })).toEqual({
      session_id: experimentId,
    });
    const runId = randomUUID();
    expect(
      await client.getRunUrl({ run: { id: runId } as never, address: { kind: 'EXPERIMENT', id: experimentId } }),
    ).toBe(`${tracingUrl()}/o/${workspace.id}/projects/p/${experimentId}/r/${runId}?poll=true`);
    await expect(
      client.sessions.resolve({ kind: 'AGENT', id: 'support-agent', environment: 'PRODUCTION' }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(client.sessions.resolve({ kind: 'EXPERIMENT', id: projectId })).rejects.toMatchObject({ status: 404 });
  });

  test('threads.aggregateStats: threads, traces, tokens and the error rate of the project', async () => {
    const stats = await client.threads.aggregateStats({
      project_id: projectId,
      select: ['THREAD_COUNT', 'TRACE_COUNT', 'TOTAL_TOKENS', 'ERROR_RATE', 'LATENCY_P50'],
    });
    const tokens = jsonTraces.reduce((sum, t) => sum + t.trace_aggregates.total_tokens, 0);
    expect(tokens).toBeGreaterThan(0);
    expect(stats).toEqual({
      thread_count: THREADS,
      trace_count: TRACES,
      total_tokens: tokens,
      error_rate: 0.2,
      latency_p50_seconds: expect.closeTo(0.5, 3),
    });
  });
});

describe('langsmith (PyPI) streamed queries, run URLs, resolutions, thread aggregates', () => {
  test(
    'the same items as the JSON pages, URLs at app_path, the experiment resolved',
    async () => {
      const pyenv = await ensurePythonEnv();
      const env = { LANGSMITH_ENDPOINT: `${tracingUrl()}/api/v1`, LANGSMITH_API_KEY: workspace.apiKey };
      const spec = {
        project_id: projectId,
        runs_page_size: 120,
        traces_page_size: 25,
        threads_page_size: 5,
        run_id: ingested[1]!.id,
        trace_id: ingested[0]!.id,
        experiment_id: experimentId,
      };
      const out = await runPythonScript<Record<string, any>>(pyenv, 'streamed_reads.py', [JSON.stringify(spec)], env);
      expectNoClientFailures(out);
      const got = out.result;
      expect(got.langsmith_version).toBe('0.15.1');
      expect(got.errors).toEqual({});
      expect(got.runs).toEqual(jsonRuns);
      expect(got.traces).toEqual(jsonTraces.map((t) => t.root_run.id));
      expect(got.threads).toEqual(jsonThreads.map((t) => t.thread_id));
      const path = appPath(spec.run_id);
      expect(got.read_run_app_path).toBe(path);
      expect(got.read_run_url).toMatch(new RegExp(`${path.replace(/[?]/g, '\\?')}$`));
      expect(got.get_run_url).toMatch(new RegExp(`${path.replace(/[?]/g, '\\?')}$`));
      expect(got.runs_get_url).toBe(`${tracingUrl()}${path}`);
      expect(got.resolved_experiment).toBe(experimentId);
      expect(got.agent_status).toBe(404);
      expect(got.thread_stats).toEqual({
        thread_count: THREADS,
        trace_count: TRACES,
        total_tokens: jsonTraces.reduce((s, t) => s + t.trace_aggregates.total_tokens, 0),
        error_rate: 0.2,
      });
    },
    20 * 60_000,
  );
});
