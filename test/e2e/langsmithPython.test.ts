// The official Python `langsmith` client (pinned in test/e2e/python/requirements.txt, in a venv
// made by test/support/pythonEnv.ts), unchanged, tracing into the running service: nested
// @traceable functions through its background thread (multipart, zstd-compressed) and the
// direct create_run/update_run path. Every run must come back through GET /runs/{id} with the
// client's tree, and through the client's own read_run, which validates our answer against its
// Run model. Feedback made with create_feedback(run_id=…) goes through POST /feedback and is read,
// listed, updated and deleted through the client's Feedback model.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { api, createWorkspaces, tracingUrl, waitForRun, type Workspace } from '../support/tracingClient.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { expectNoClientFailures, runPythonScript } from '../support/pythonScript.ts';
import { expectTracedRuns, offloadedFields, bigText, type ExpectedRun, type ServerRun } from './tracedRuns.ts';

let pyenv: PythonEnv;
let workspace: Workspace;
beforeAll(async () => {
  [pyenv, workspace] = await Promise.all([ensurePythonEnv(), createWorkspaces(1).then((w) => w[0]!)]);
}, 20 * 60_000);

const runScript = <T>(script: string, args: string[], env: Record<string, string>) =>
  runPythonScript<T>(pyenv, script, args, env);

interface TraceResult {
  langsmith_version: string;
  compression_ready: boolean;
  traced: ExpectedRun[];
  direct: ExpectedRun[];
  attachment_hex: string;
}

interface ReadResult {
  runs: Record<string, Record<string, any>>;
}

describe('langsmith (PyPI) traceable and create_run/update_run', () => {
  test('every run the Python client traced is readable, with its tree, through GET /runs/{id} and read_run', async () => {
    const project = `py-e2e-${Date.now()}`;
    const env = {
      LANGSMITH_ENDPOINT: `${tracingUrl()}/api/v1`,
      LANGSMITH_API_KEY: workspace.apiKey,
      LANGSMITH_TRACING: 'true',
      LANGSMITH_PROJECT: project,
    };
    const traced = await runScript<TraceResult>('trace_runs.py', [], env);
    expect(traced.result.langsmith_version).toBe('0.15.1');
    expect(traced.result.compression_ready, 'the client switched to zstd-compressed multipart').toBe(true);
    expectNoClientFailures(traced);

    // Routes: /info once, the traceables as zstd multipart, the direct runs as POST /runs and
    // PATCH /runs/{id}; nothing through /runs/batch.
    const writes = traced.result.requests.filter((r) => r.method !== 'GET');
    const multipart = writes.filter((r) => r.path === '/api/v1/runs/multipart');
    expect(multipart.length, JSON.stringify(traced.result.requests)).toBeGreaterThan(0);
    for (const m of multipart) expect(m).toMatchObject({ method: 'POST', status: 202, encoding: 'zstd' });
    const direct = writes
      .filter((r) => r.path !== '/api/v1/runs/multipart')
      .map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}$/, ':id')} ${r.status}`);
    expect(direct).toEqual([...Array(4).fill('POST /api/v1/runs 202'), ...Array(4).fill('PATCH /api/v1/runs/:id 202')]);

    const trees = traced.result.traced;
    expect(trees.map((t) => t.name).sort()).toEqual([
      'annotate',
      'embed',
      'embed',
      'expand',
      'failing-root',
      'flaky-tool',
      'pipeline',
      'retrieve',
      'summarize',
      'summarize',
    ]);
    const expected = [...trees, ...traced.result.direct];
    const runs = await expectTracedRuns(workspace.apiKey, expected);

    const byName = (name: string): ServerRun[] => expected.filter((t) => t.name === name).map((t) => runs.get(t.id)!);
    const root = byName('pipeline')[0]!;
    expect(root).toMatchObject({ tags: ['e2e', 'langsmith-py'], is_root: true });
    expect(root.extra.metadata).toMatchObject({ suite: 'langsmith-py' });
    expect(root.extra.runtime).toMatchObject({ sdk: 'langsmith-py' });
    const summarized = byName('summarize').find((r) => r.parent_run_id === root.id)!;
    expect(summarized.inputs.document).toBe(bigText(200 * 1024, 7));
    expect(byName('expand')[0]!.outputs.text).toBe(bigText(150 * 1024, 3));
    expect(byName('flaky-tool')[0]).toMatchObject({ status: 'error' }); // outputs: what the client sent ({output: null})
    expect(byName('flaky-tool')[0]!.error).toContain('tool failed on attempt 1');
    expect(byName('failing-root')[0]!.error).toContain('the root gave up');
    const retrieveRun = byName('retrieve')[0]!;
    for (const e of byName('embed')) expect(e.parent_run_id).toBe(retrieveRun.id);
    expect(byName('annotate')[0]!.inputs).toEqual({ caption: 'a chart' });
    expect(byName('annotate')[0]!.s3_urls['attachment.image']).toMatchObject({ mime_type: 'image/png' });

    // Claim checks: the big payloads live in object storage.
    expect(await offloadedFields(workspace.id, summarized.id)).toEqual(['inputs']);
    expect(await offloadedFields(workspace.id, byName('expand')[0]!.id)).toEqual(['outputs']);
    expect(await offloadedFields(workspace.id, byName('direct-big')[0]!.id)).toEqual(['inputs']);
    // The direct runs' lineage was made by the server; its patch with null for every unset key
    // left the post's fields alone.
    expect(byName('direct-root')[0]).toMatchObject({ tags: ['direct'], name: 'direct-root', run_type: 'chain' });
    expect(byName('direct-root')[0]!.extra.metadata).toMatchObject({ via: 'create_run' });
    expect(
      new Set(
        byName('direct-root')
          .concat(byName('direct-child'), byName('pipeline'))
          .map((r) => r.session_id),
      ).size,
    ).toBe(1);

    // The Python client reads every run back through its own model.
    const read = await runScript<ReadResult>(
      'read_runs.py',
      expected.map((e) => e.id),
      env,
    );
    expectNoClientFailures(read);
    for (const e of expected) {
      const served = runs.get(e.id)!;
      const got = read.result.runs[e.id]!;
      expect(got, `read_run ${e.name}`).toMatchObject({
        type: 'Run',
        id: e.id,
        name: e.name,
        run_type: e.runType,
        trace_id: e.traceId,
        dotted_order: served.dotted_order,
        parent_run_id: e.parentRunId,
        session_id: served.session_id,
        status: served.status,
        error: e.error,
        inputs: e.inputs,
        start_time: served.start_time,
        end_time: e.endTime,
      });
      expect(got.outputs ?? null).toEqual(e.outputs);
    }
    expect(read.result.runs[byName('annotate')[0]!.id]!.attachments).toEqual({
      image: { mime_type: 'image/png', hex: traced.result.attachment_hex },
    });
  }, 240_000);
});

interface FeedbackResult {
  created: string;
  other: string;
  read: Record<string, any>;
  listed: { all: string[]; by_key: string[]; by_source: string[] };
  updated: Record<string, any>;
  deleted: string;
  after_delete: string[];
}

describe('langsmith (PyPI) feedback through POST /feedback', () => {
  test('create_feedback(run_id=…) without trace_id, read_feedback, list_feedback, update_feedback, delete_feedback', async () => {
    const project = `py-feedback-${Date.now()}`;
    const runId = randomUUID();
    const posted = await api('/runs', {
      method: 'POST',
      apiKey: workspace.apiKey,
      json: {
        id: runId,
        name: 'rated',
        run_type: 'chain',
        inputs: { q: 1 },
        session_name: project,
        end_time: new Date(Date.now() + 1000).toISOString(),
        outputs: { a: 1 },
      },
    });
    expect(posted.status).toBe(202);
    const run = await waitForRun(workspace.apiKey, runId);
    const env = {
      LANGSMITH_ENDPOINT: `${tracingUrl()}/api/v1`,
      LANGSMITH_API_KEY: workspace.apiKey,
      LANGSMITH_TRACING: 'true',
      LANGSMITH_PROJECT: project,
    };
    const out = await runScript<FeedbackResult>('feedback.py', [runId], env);
    const { created, other } = out.result;

    // Every call answered at once (no 404 retried for minutes), the read of the deleted item 404.
    const calls = out.result.requests
      .filter((r) => r.path.includes('/feedback'))
      .map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}$/, ':id')} ${r.status}`);
    expect(calls).toEqual([
      'POST /api/v1/feedback 200',
      'POST /api/v1/feedback 200',
      'GET /api/v1/feedback/:id 200',
      'GET /api/v1/feedback 200',
      'GET /api/v1/feedback 200',
      'GET /api/v1/feedback 200',
      'PATCH /api/v1/feedback/:id 200',
      'GET /api/v1/feedback/:id 200',
      'DELETE /api/v1/feedback/:id 200',
      'GET /api/v1/feedback/:id 404',
      'GET /api/v1/feedback 200',
    ]);
    expect(
      out.result.log.filter((r) => /fail|error|exception|retry/i.test(r.message) && !/not found/i.test(r.message)),
      out.stderr,
    ).toEqual([]);

    expect(out.result.read).toMatchObject({
      type: 'Feedback',
      id: created,
      run_id: runId,
      trace_id: runId,
      session_id: run.session_id,
      key: 'correctness',
      score: 0.8,
      value: 'good',
      comment: 'fine',
      correction: { answer: 'better' },
      feedback_source: { type: 'api', metadata: { reviewer: 'py' } },
    });
    expect(out.result.listed).toEqual({
      all: [created, other].sort(),
      by_key: [created],
      by_source: [created, other].sort(),
    });
    expect(out.result.updated).toMatchObject({ id: created, score: 0.2, comment: 'on reflection', value: 'good' });
    expect(out.result.deleted).toBe('not found');
    expect(out.result.after_delete).toEqual([created]);

    const stats = { n: 1, avg: 0.2, values: { good: 1 } };
    await vi.waitFor(
      async () =>
        expect((await api(`/runs/${runId}`, { apiKey: workspace.apiKey })).body.feedback_stats).toEqual({
          correctness: expect.objectContaining(stats),
        }),
      { timeout: 20_000, interval: 200 },
    );
    const projectRead = await api(`/sessions/${run.session_id}?include_stats=true`, { apiKey: workspace.apiKey });
    expect(projectRead.body.feedback_stats).toEqual({ correctness: expect.objectContaining(stats) });
  }, 240_000);
});
