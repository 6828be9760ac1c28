// The feedback routes against the shared stack: POST /feedback lands in the same read model as
// multipart feedback (GET, list, feedback_stats of the run and of its project), PATCH and DELETE
// are projected (a deleted item leaves reads and stats), reads right after a write find it, and
// every bad request is a 4xx that says what is wrong.
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { api, createWorkspaces, waitForRun, type Workspace } from '../../../support/tracingClient.ts';
import { makeTrace, multipartBody, postParts, type Part, type TestRun } from '../../../support/runFactory.ts';

let ws: Workspace;
let other: Workspace;
beforeAll(async () => {
  [ws, other] = (await createWorkspaces(2)) as [Workspace, Workspace];
});

const call = (method: string, path: string, json?: unknown, as: Workspace = ws) =>
  api(path, { method, apiKey: as.apiKey, ...(json === undefined ? {} : { json }) });
const show = (res: { status: number; body: unknown }) => `${res.status} ${JSON.stringify(res.body).slice(0, 600)}`;

async function multipart(parts: Part[]): Promise<void> {
  const { body, contentType } = multipartBody(parts);
  const res = await api('/runs/multipart', {
    method: 'POST',
    apiKey: ws.apiKey,
    body,
    headers: { 'content-type': contentType },
  });
  expect(res.status, show(res)).toBe(202);
}

/** A project with one trace (a root and a child), projected. */
async function tracedProject(): Promise<{ projectId: string; runs: TestRun[] }> {
  const project = await call('POST', '/sessions', { name: `feedback-${randomUUID()}` });
  expect(project.status, show(project)).toBe(200);
  const runs = makeTrace(1, { session_id: project.body.id, end_time: new Date(Date.now() + 60_000).toISOString() });
  await multipart(postParts(runs));
  for (const r of runs) await waitForRun(ws.apiKey, r.id);
  return { projectId: project.body.id, runs };
}

async function feedbackStatsOf(path: string): Promise<unknown> {
  const res = await call('GET', path);
  expect(res.status, show(res)).toBe(200);
  return res.body.feedback_stats;
}
const feedbackStatsOfRun = (runId: string) => feedbackStatsOf(`/runs/${runId}`);
const feedbackStatsOfProject = (projectId: string) => feedbackStatsOf(`/sessions/${projectId}?include_stats=true`);

describe('POST /feedback and multipart feedback land in the same read model', () => {
  test('both are read back, listed, and counted in the feedback_stats of the run, of the project and of its stats', async () => {
    const { projectId, runs } = await tracedProject();
    const [root, child] = runs as [TestRun, TestRun];
    // multipart, as the clients batch it (with trace_id)
    const viaMultipart = uuidv7();
    await multipart([
      {
        name: `feedback.${viaMultipart}`,
        body: JSON.stringify({ run_id: child.id, trace_id: root.id, key: 'correctness', score: 1, value: 'right' }),
      },
    ]);
    // POST /feedback, as the clients send it without trace_id
    const posted = await call('POST', '/api/v1/feedback', {
      id: uuidv7(),
      run_id: child.id,
      key: 'correctness',
      score: 0,
      value: 'wrong',
      comment: 'off by one',
      correction: { answer: 42 },
      feedback_source: { type: 'api', metadata: { reviewer: 'r1' } },
      feedbackConfig: { type: 'continuous', min: 0, max: 1 },
      created_at: new Date().toISOString(),
      modified_at: new Date().toISOString(),
      extend_trace_retention: true,
    });
    expect(posted.status, show(posted)).toBe(200);
    expect(posted.body).toMatchObject({
      run_id: child.id,
      trace_id: root.id,
      session_id: projectId,
      key: 'correctness',
      score: 0,
      value: 'wrong',
      feedback_config: { type: 'continuous', min: 0, max: 1 },
    });

    // read at once: the read waits for the projector to have projected what was appended before it
    const read = await call('GET', `/feedback/${posted.body.id}`);
    expect(read.status, show(read)).toBe(200);
    expect(read.body).toEqual({ ...posted.body, modified_at: expect.any(String) });
    expect(read.body).toMatchObject({
      comment: 'off by one',
      correction: { answer: 42 },
      feedback_source: { type: 'api', metadata: { reviewer: 'r1' } },
    });

    const listed = await call('GET', `/feedback?run=${child.id}`);
    expect(listed.status, show(listed)).toBe(200);
    expect(listed.body.map((f: { id: string }) => f.id).sort()).toEqual([viaMultipart, posted.body.id].sort());

    const both = { correctness: { n: 2, avg: 0.5, values: { right: 1, wrong: 1 } } };
    await vi.waitFor(async () => expect(await feedbackStatsOfRun(child.id)).toMatchObject(both), {
      timeout: 20_000,
      interval: 200,
    });
    expect(await feedbackStatsOfProject(projectId)).toMatchObject(both);
    const stats = await call('GET', `/sessions/${projectId}/stats`);
    expect(stats.body.feedback_stats, show(stats)).toMatchObject(both);
    // only the root's feedback counts when only roots do (there is none on the root)
    const roots = await call('POST', '/runs/stats', { session: [projectId], is_root: true });
    expect(roots.body.feedback_stats, show(roots)).toBeNull();
  });

  test('PATCH changes the fields it names; DELETE removes the item from reads and from feedback_stats', async () => {
    const { projectId, runs } = await tracedProject();
    const root = runs[0]!;
    const keep = await call('POST', '/feedback', { run_id: root.id, key: 'helpful', score: 1 });
    const item = await call('POST', '/feedback', { run_id: root.id, key: 'helpful', score: 0, comment: 'meh' });
    expect([keep.status, item.status]).toEqual([200, 200]);

    const patched = await call('PATCH', `/feedback/${item.body.id}`, { score: 1, value: { stars: 5 } });
    expect(patched.status, show(patched)).toBe(200);
    expect(patched.body).toMatchObject({ id: item.body.id, score: 1, value: { stars: 5 }, comment: 'meh' });
    const cleared = await call('PATCH', `/feedback/${item.body.id}`, { comment: null });
    expect(cleared.body).toMatchObject({ score: 1, value: { stars: 5 }, comment: null });
    const read = await call('GET', `/feedback/${item.body.id}`);
    expect(read.body, show(read)).toMatchObject({ score: 1, value: { stars: 5 }, comment: null });
    expect(Date.parse(read.body.modified_at)).toBeGreaterThan(Date.parse(read.body.created_at));
    await vi.waitFor(
      async () => expect(await feedbackStatsOfProject(projectId)).toMatchObject({ helpful: { n: 2, avg: 1 } }),
      { timeout: 20_000, interval: 200 },
    );

    const deleted = await call('DELETE', `/feedback/${item.body.id}`);
    expect(deleted.status, show(deleted)).toBe(200);
    const gone = await call('GET', `/feedback/${item.body.id}`);
    expect(gone.status, show(gone)).toBe(404);
    expect((await call('GET', `/feedback?run=${root.id}`)).body.map((f: { id: string }) => f.id)).toEqual([
      keep.body.id,
    ]);
    expect((await call('DELETE', `/feedback/${item.body.id}`)).status).toBe(404);
    expect((await call('PATCH', `/feedback/${item.body.id}`, { score: 0 })).status).toBe(404);
    await vi.waitFor(
      async () => expect(await feedbackStatsOfProject(projectId)).toMatchObject({ helpful: { n: 1, avg: 1 } }),
      { timeout: 20_000, interval: 200 },
    );
    expect(await feedbackStatsOfRun(root.id)).toMatchObject({ helpful: { n: 1 } });
    const filtered = await call('POST', '/runs/query', {
      filter: 'and(eq(feedback_key, "helpful"), eq(feedback_score, 0))',
      session: [projectId],
    });
    expect(filtered.body.runs, show(filtered)).toEqual([]);
  });

  test('feedback on a run not ingested yet is accepted, and joins the run’s project when the run arrives', async () => {
    const project = await call('POST', '/sessions', { name: `feedback-early-${randomUUID()}` });
    const runs = makeTrace(0, { session_id: project.body.id, end_time: new Date(Date.now() + 60_000).toISOString() });
    const early = await call('POST', '/feedback', { run_id: runs[0]!.id, key: 'early', score: 1 });
    expect(early.status, show(early)).toBe(200);
    expect(early.body).toMatchObject({ run_id: runs[0]!.id, trace_id: null, session_id: null });
    await multipart(postParts(runs));
    await waitForRun(ws.apiKey, runs[0]!.id);
    const read = await call('GET', `/feedback/${early.body.id}`);
    expect(read.body, show(read)).toMatchObject({
      run_id: runs[0]!.id,
      trace_id: runs[0]!.id,
      session_id: project.body.id,
    });
    expect(await feedbackStatsOfProject(project.body.id)).toMatchObject({ early: { n: 1, avg: 1 } });
    expect((await call('GET', `/feedback?session=${project.body.id}`)).body.map((f: { id: string }) => f.id)).toEqual([
      early.body.id,
    ]);
  });

  test('feedback on a project (no run) is listed at level=session and counts in no run stats', async () => {
    const project = await call('POST', '/sessions', { name: `feedback-project-${randomUUID()}` });
    const posted = await call('POST', '/feedback', { session_id: project.body.id, key: 'summary', score: 0.75 });
    expect(posted.status, show(posted)).toBe(200);
    expect(posted.body).toMatchObject({ run_id: null, session_id: project.body.id });
    const listed = await call('GET', `/feedback?session=${project.body.id}&level=session`);
    expect(listed.status, show(listed)).toBe(200);
    expect(
      listed.body.map((f: { id: string }) => f.id),
      show(listed),
    ).toEqual([posted.body.id]);
    expect((await call('GET', `/feedback?session=${project.body.id}&level=run`)).body).toEqual([]);
    expect(await feedbackStatsOfProject(project.body.id)).toBeNull();
  });
});

describe('GET /feedback filters and pages', () => {
  test('by run, key, source, comment and score presence; limit and offset', async () => {
    const { runs } = await tracedProject();
    const [root, child] = runs as [TestRun, TestRun];
    const post = async (body: Record<string, unknown>) => {
      const res = await call('POST', '/feedback', body);
      expect(res.status, show(res)).toBe(200);
      return res.body.id as string;
    };
    const a = await post({ run_id: root.id, key: 'k1', score: 1, comment: 'yes', feedback_source: { type: 'api' } });
    const b = await post({
      run_id: root.id,
      key: 'k2',
      value: 'label',
      feedback_source: { type: 'model', metadata: {} },
    });
    const c = await post({ run_id: child.id, key: 'k1', score: 0, feedback_source: { type: 'model' } });
    const ids = async (query: string) => {
      const res = await call('GET', `/feedback?${query}`);
      expect(res.status, show(res)).toBe(200);
      return res.body.map((f: { id: string }) => f.id).sort();
    };
    expect(await ids(`run=${root.id}&run=${child.id}`)).toEqual([a, b, c].sort());
    expect(await ids(`run=${root.id}&run=${child.id}&key=k1`)).toEqual([a, c].sort());
    expect(await ids(`run=${root.id}&run=${child.id}&source=model`)).toEqual([b, c].sort());
    expect(await ids(`run=${root.id}&run=${child.id}&has_comment=true`)).toEqual([a]);
    expect(await ids(`run=${root.id}&run=${child.id}&has_score=false`)).toEqual([b]);
    const pages = [
      await ids(`run=${root.id}&run=${child.id}&limit=2`),
      await ids(`run=${root.id}&run=${child.id}&limit=2&offset=2`),
    ];
    expect(pages.map((p) => p.length)).toEqual([2, 1]);
    expect(pages.flat().sort()).toEqual([a, b, c].sort());
  });
});

describe('bad requests', () => {
  test('unknown or another workspace’s id: 404 naming it, on GET, PATCH and DELETE', async () => {
    const { runs } = await tracedProject();
    const mine = await call('POST', '/feedback', { run_id: runs[0]!.id, key: 'private', score: 1 });
    expect((await call('GET', `/feedback/${mine.body.id}`)).status).toBe(200);
    for (const [what, id, as] of [
      ['unknown', randomUUID(), ws],
      ['another workspace’s', mine.body.id, other],
    ] as const) {
      for (const [method, json] of [
        ['GET', undefined],
        ['PATCH', { score: 0 }],
        ['DELETE', undefined],
      ] as const) {
        const res = await call(method, `/feedback/${id}`, json, as);
        expect(res.status, `${method} ${what}: ${show(res)}`).toBe(404);
        expect(res.body, `${method} ${what}`).toEqual({ error: 'NOT_FOUND', detail: `feedback ${id} not found` });
      }
    }
    expect((await call('GET', `/feedback?run=${runs[0]!.id}`, undefined, other)).body).toEqual([]);
    const still = await call('GET', `/feedback/${mine.body.id}`);
    expect(still.body, show(still)).toMatchObject({ score: 1 });
  });

  test.each([
    [
      'a path id that is not a UUID',
      'GET',
      '/feedback/not-a-uuid',
      422,
      /feedback_id must match format "uuid"/,
      undefined,
    ],
    ['a body without key', 'POST', '/feedback', 422, /key/, { run_id: randomUUID(), score: 1 }],
    ['an empty key', 'POST', '/feedback', 422, /key/, { run_id: randomUUID(), key: '' }],
    [
      'neither a run, a trace nor a project',
      'POST',
      '/feedback',
      422,
      /required property 'run_id'.*'trace_id'.*'session_id'/,
      { key: 'k', score: 1 },
    ],
    [
      'a run_id that is not a UUID',
      'POST',
      '/feedback',
      422,
      /run_id must match format "uuid"/,
      { run_id: 'run-1', key: 'k' },
    ],
    [
      'a score that is not a number',
      'POST',
      '/feedback',
      422,
      /score/,
      { run_id: randomUUID(), key: 'k', score: 'high' },
    ],
    [
      'a project that is not the workspace’s',
      'POST',
      '/feedback',
      404,
      /project \(session_id\) .* not found/,
      { session_id: randomUUID(), key: 'k' },
    ],
    [
      'a field that cannot be updated',
      'PATCH',
      `/feedback/${randomUUID()}`,
      422,
      /must NOT have additional properties \(key\)/,
      { key: 'renamed' },
    ],
    ['a run filter that is not a UUID', 'GET', '/feedback?run=abc', 422, /run\/0 must match format "uuid"/, undefined],
    [
      'an unknown query parameter',
      'GET',
      '/feedback?runs=abc',
      422,
      /must NOT have additional properties \(runs\)/,
      undefined,
    ],
    ['a limit out of range', 'GET', '/feedback?limit=1000', 422, /limit must be <= 100/, undefined],
  ] as const)('%s: %s %s → %i', async (_label, method, path, status, detail, json) => {
    const res = await call(method, path, json);
    expect(res.status, show(res)).toBe(status);
    expect(res.body.detail, show(res)).toMatch(detail);
  });
});
