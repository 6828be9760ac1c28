// include_stats against what the runs projector wrote: runs are ingested into a project, the
// test waits for their rows in the `traces` read model, then the stats GET /sessions/{id} and
// GET /sessions answer must match both the traces rows and the runs that were sent.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import { ClickHouseClient } from '../../../../platform/clickhouse/client.ts';
import { sql } from '../../../../platform/clickhouse/sql.ts';
import { loadConfig } from '../../../../platform/config.ts';
import { api, createWorkspaces, type Workspace } from '../../../support/tracingClient.ts';
import { makeTrace } from '../../../support/runFactory.ts';
import { waitFor } from '../../../support/serviceProcess.ts';

let ws: Workspace;
let ch: ClickHouseClient;
beforeAll(async () => {
  [ws] = (await createWorkspaces(1)) as [Workspace];
  const config = loadConfig(inject('tracingEnv'));
  ch = ClickHouseClient.fromConfig(config);
});
afterAll(async () => {
  await ch?.close();
});

interface TraceSpec {
  latencySeconds: number;
  error: boolean;
  /** Seconds after the trace start of the child's first streamed token; null for none. */
  firstTokenSeconds: number | null;
  tokens: { input: number; output: number };
}

const iso = (micros: number) => new Date(micros / 1000).toISOString();

/** One trace: a root (chain) and an llm child carrying the usage and the token events. */
function traceRuns(spec: TraceSpec, sessionId: string, startMicros: number) {
  const [root, child] = makeTrace(1) as [ReturnType<typeof makeTrace>[number], ReturnType<typeof makeTrace>[number]];
  const end = startMicros + spec.latencySeconds * 1_000_000;
  const usage = {
    input_tokens: spec.tokens.input,
    output_tokens: spec.tokens.output,
    total_tokens: spec.tokens.input + spec.tokens.output,
    input_cost: spec.tokens.input / 1000,
    output_cost: spec.tokens.output / 500,
    total_cost: spec.tokens.input / 1000 + spec.tokens.output / 500,
  };
  return [
    {
      ...root,
      session_id: sessionId,
      start_time: iso(startMicros),
      end_time: iso(end),
      outputs: { ok: !spec.error },
      ...(spec.error ? { error: 'root failed' } : {}),
    },
    {
      ...child,
      session_id: sessionId,
      start_time: iso(startMicros + 100_000),
      end_time: iso(end - 100_000),
      outputs: { usage_metadata: usage },
      events:
        spec.firstTokenSeconds === null
          ? []
          : [
              {
                name: 'new_token',
                time: iso(startMicros + spec.firstTokenSeconds * 1_000_000),
                kwargs: { token: 'a' },
              },
            ],
    },
  ];
}

interface TracesRow {
  start_time: string;
  end_time: string | null;
  first_token_time: string | null;
  last_run_start_time: string;
  status: string;
  prompt_tokens: string;
  completion_tokens: string;
  total_tokens: string;
  prompt_cost: number;
  completion_cost: number;
  total_cost: number;
}

const tracesRows = (sessionId: string) =>
  ch.query<TracesRow>(sql`SELECT start_time, end_time, first_token_time, last_run_start_time, status, prompt_tokens, completion_tokens, total_tokens, prompt_cost, completion_cost, total_cost
    FROM traces FINAL WHERE tenant_id = toUUID(${ws.id}) AND session_id = toUUID(${sessionId})`);

/** Linear interpolation between closest ranks, as ClickHouse's quantiles does for few values. */
function quantile(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const pos = q * (s.length - 1);
  const lo = Math.floor(pos);
  return s[lo]! + (pos - lo) * ((s[Math.min(lo + 1, s.length - 1)] ?? s[lo]!) - s[lo]!);
}

describe('include_stats', () => {
  test('numbers come from the traces rows: counts, latencies, first token, tokens, costs, error rate, last run', async () => {
    const project = (
      await api('/sessions', { method: 'POST', apiKey: ws.apiKey, json: { name: `stats-${randomUUID().slice(0, 8)}` } })
    ).body;
    const empty = (await api(`/sessions/${project.id}?include_stats=true`, { apiKey: ws.apiKey })).body;
    expect(empty).toMatchObject({
      run_count: 0,
      latency_p50: null,
      latency_p99: null,
      total_tokens: 0,
      total_cost: 0,
      error_rate: null,
      last_run_start_time: null,
      feedback_stats: null,
    });

    const specs: TraceSpec[] = [
      { latencySeconds: 1, error: false, firstTokenSeconds: 0.25, tokens: { input: 10, output: 5 } },
      { latencySeconds: 2, error: false, firstTokenSeconds: null, tokens: { input: 20, output: 7 } },
      { latencySeconds: 4, error: true, firstTokenSeconds: 0.5, tokens: { input: 30, output: 9 } },
    ];
    const t0 = (Date.now() - 60_000) * 1000;
    const runs = specs.flatMap((s, i) => traceRuns(s, project.id, t0 + i * 10_000_000));
    expect((await api('/runs/batch', { method: 'POST', apiKey: ws.apiKey, json: { post: runs } })).status).toBe(202);

    const rows = await waitFor(
      'the three traces in the traces table',
      async () => {
        const r = await tracesRows(project.id);
        return r.length === 3 && r.every((x) => x.end_time !== null && Number(x.total_tokens) > 0) ? r : null;
      },
      30_000,
      200,
    );
    const latencies = rows.map((r) => (Number(r.end_time) - Number(r.start_time)) / 1e6);
    const firstTokens = rows
      .filter((r) => r.first_token_time !== null)
      .map((r) => (Number(r.first_token_time) - Number(r.start_time)) / 1e6);
    const sum = (f: (r: TracesRow) => number) => rows.reduce((acc, r) => acc + f(r), 0);
    const fromRows = {
      run_count: rows.length,
      latency_p50: quantile(latencies, 0.5),
      latency_p99: quantile(latencies, 0.99),
      first_token_p50: quantile(firstTokens, 0.5),
      first_token_p99: quantile(firstTokens, 0.99),
      prompt_tokens: sum((r) => Number(r.prompt_tokens)),
      completion_tokens: sum((r) => Number(r.completion_tokens)),
      total_tokens: sum((r) => Number(r.total_tokens)),
      error_rate: rows.filter((r) => r.status === 'error').length / rows.length,
      last_run_start_time: new Date(Math.max(...rows.map((r) => Number(r.last_run_start_time))) / 1000)
        .toISOString()
        .replace('Z', ''),
    };
    // The rows say what was sent.
    expect(fromRows).toMatchObject({
      run_count: 3,
      latency_p50: 2,
      first_token_p50: 0.375,
      prompt_tokens: 60,
      completion_tokens: 21,
      total_tokens: 81,
      error_rate: 1 / 3,
    });

    const byId = (await api(`/sessions/${project.id}?include_stats=true`, { apiKey: ws.apiKey })).body;
    const listed = (await api(`/sessions?name=${project.name}&include_stats=True`, { apiKey: ws.apiKey })).body;
    const { last_run_start_time: lastRunMillis, ...numbers } = fromRows;
    for (const served of [byId, listed[0]]) {
      const { last_run_start_time, prompt_cost, completion_cost, total_cost, ...rest } = served;
      expect(rest).toMatchObject({ ...numbers, id: project.id, name: project.name, reference_dataset_id: null });
      expect(String(last_run_start_time).startsWith(lastRunMillis)).toBe(true);
      expect(served.latency_p99).toBeCloseTo(quantile([1, 2, 4], 0.99)!, 6);
      expect(prompt_cost).toBeCloseTo(
        sum((r) => r.prompt_cost),
        9,
      );
      expect(completion_cost).toBeCloseTo(
        sum((r) => r.completion_cost),
        9,
      );
      expect(total_cost).toBeCloseTo(0.06 + 21 / 500, 9);
    }
    // Without include_stats a project read alone has its run_count (the JS client's evaluateComparative
    // waits on it), and no other figure.
    const plain = (await api(`/sessions/${project.id}`, { apiKey: ws.apiKey })).body;
    expect(plain.run_count).toBe(3);
    expect(plain).not.toHaveProperty('latency_p50');
    expect(plain).not.toHaveProperty('feedback_stats');
  });

  test('each project of a page gets its own stats; one without traces gets zeros', async () => {
    const prefix = `page-${randomUUID().slice(0, 8)}`;
    const [a, b] = [
      (await api('/sessions', { method: 'POST', apiKey: ws.apiKey, json: { name: `${prefix}-a` } })).body,
      (await api('/sessions', { method: 'POST', apiKey: ws.apiKey, json: { name: `${prefix}-b` } })).body,
    ];
    const spec: TraceSpec = {
      latencySeconds: 3,
      error: false,
      firstTokenSeconds: null,
      tokens: { input: 1, output: 1 },
    };
    const t0 = (Date.now() - 30_000) * 1000;
    expect(
      (await api('/runs/batch', { method: 'POST', apiKey: ws.apiKey, json: { post: traceRuns(spec, a.id, t0) } }))
        .status,
    ).toBe(202);
    await waitFor(
      'the trace of a',
      async () => (await tracesRows(a.id)).some((r) => r.end_time !== null && Number(r.total_tokens) > 0),
      30_000,
      200,
    );
    const page = (await api(`/sessions?name_contains=${prefix}&include_stats=true`, { apiKey: ws.apiKey })).body;
    const stats = Object.fromEntries(page.map((p: any) => [p.id, p]));
    expect(stats[a.id]).toMatchObject({ run_count: 1, latency_p50: 3, total_tokens: 2, error_rate: 0 });
    expect(stats[b.id]).toMatchObject({ run_count: 0, latency_p50: null, total_tokens: 0, error_rate: null });
  });

  test('feedback on the project itself is its session_feedback_stats; feedback on its runs, its feedback_stats', async () => {
    const project = (
      await api('/sessions', { method: 'POST', apiKey: ws.apiKey, json: { name: `fb-${randomUUID().slice(0, 8)}` } })
    ).body;
    const spec: TraceSpec = {
      latencySeconds: 1,
      error: false,
      firstTokenSeconds: null,
      tokens: { input: 1, output: 1 },
    };
    const runs = traceRuns(spec, project.id, (Date.now() - 30_000) * 1000);
    expect((await api('/runs/batch', { method: 'POST', apiKey: ws.apiKey, json: { post: runs } })).status).toBe(202);
    const feedback = async (json: Record<string, unknown>) =>
      expect((await api('/feedback', { method: 'POST', apiKey: ws.apiKey, json })).status).toBe(200);
    await feedback({ run_id: runs[0]!.id, key: 'correct', score: 1 });
    // A summary evaluator's result: on the experiment, no run.
    await feedback({ run_id: null, session_id: project.id, key: 'pass_rate', score: 0.5 });
    const served = await waitFor(
      'both feedback items in the stats',
      async () => {
        const p = (await api(`/sessions/${project.id}?include_stats=true`, { apiKey: ws.apiKey })).body;
        return p.feedback_stats && p.session_feedback_stats ? p : null;
      },
      30_000,
      200,
    );
    expect(served.feedback_stats).toEqual({ correct: expect.objectContaining({ n: 1, avg: 1 }) });
    expect(served.session_feedback_stats).toEqual({ pass_rate: expect.objectContaining({ n: 1, avg: 0.5 }) });
    const plain = (await api(`/sessions/${project.id}`, { apiKey: ws.apiKey })).body;
    expect(plain).not.toHaveProperty('session_feedback_stats');
  });
});
