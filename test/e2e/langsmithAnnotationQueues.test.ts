// Annotation queues through the official clients, unchanged: the `langsmith` npm client
// (createAnnotationQueue with a rubric, list, read, update, addRunsToAnnotationQueue by id and by
// run key, listRunsFromAnnotationQueue by status, getRunFromAnnotationQueue, getSize,
// deleteRunFromAnnotationQueue, deleteAnnotationQueue, and the generated resource's
// createRunStatus to mark an item done) and the Python client (test/e2e/python/annotation_queues.py),
// which validates every answer against its models. A reviewer's feedback is ordinary feedback. A
// run the API cannot read (not stored yet) is in no count until it is.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { Client } from 'langsmith';
import { createWorkspaces, tracingUrl, type Workspace } from '../support/tracingClient.ts';
import { collect } from '../support/asyncItems.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';

let pyenv: PythonEnv;
let ws: Workspace;
let pyWorkspace: Workspace;
beforeAll(async () => {
  [pyenv, [ws, pyWorkspace]] = await Promise.all([
    ensurePythonEnv(),
    createWorkspaces(2) as Promise<[Workspace, Workspace]>,
  ]);
}, 20 * 60_000);

/** Root runs of a project, traced with the client and read back once projected. */
async function tracedRuns(client: Client, project: string, count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    await client.createRun({
      id,
      name: `answer-${i}`,
      run_type: 'chain',
      inputs: { question: `q${i}` },
      outputs: { answer: `a${i}` },
      project_name: project,
      start_time: Date.now(),
      end_time: Date.now() + 5,
    });
    ids.push(id);
  }
  await client.awaitPendingTraceBatches();
  return vi.waitFor(
    async () => {
      const runs = await collect(client.listRuns({ projectName: project, isRoot: true }));
      expect(runs).toHaveLength(count);
      return ids.map((id) => runs.find((r) => r.id === id)!);
    },
    { timeout: 30_000, interval: 250 },
  );
}

describe('langsmith (npm) annotation queues', () => {
  test('a queue with a rubric, its runs, a review and its feedback, every method', async () => {
    const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: ws.apiKey });
    const runs = await tracedRuns(client, `aq-${randomUUID().slice(0, 8)}`, 3);
    const name = `review-${randomUUID().slice(0, 8)}`;
    const queue = await client.createAnnotationQueue({
      name,
      description: 'answers to check',
      rubricInstructions: 'Is the answer right?',
      rubricItems: [
        { feedback_key: 'correct', description: 'right or wrong', score_descriptions: { 0: 'no', 1: 'yes' } },
      ],
    });
    expect(queue).toMatchObject({ name, description: 'answers to check', tenant_id: ws.id });
    const read = await client.readAnnotationQueue(queue.id);
    expect(read).toMatchObject({
      rubric_instructions: 'Is the answer right?',
      rubric_items: [{ feedback_key: 'correct', description: 'right or wrong' }],
    });
    expect((await collect(client.listAnnotationQueues({ nameContains: name }))).map((q) => q.id)).toEqual([queue.id]);
    await client.updateAnnotationQueue(queue.id, { name: `${name}-renamed`, description: 'changed' });
    expect(await client.readAnnotationQueue(queue.id)).toMatchObject({
      name: `${name}-renamed`,
      description: 'changed',
    });

    await client.addRunsToAnnotationQueue(queue.id, [runs[0]!.id, runs[1]!.id]);
    await client.addRunsToAnnotationQueue(queue.id, [
      { runId: runs[2]!.id, sessionId: runs[2]!.session_id!, startTime: runs[2]!.start_time as number },
      { runId: runs[0]!.id, sessionId: runs[0]!.session_id!, startTime: runs[0]!.start_time as number },
    ]);
    expect(await client.getSizeFromAnnotationQueue(queue.id)).toEqual({ size: 3 });
    const listed = await collect(client.listRunsFromAnnotationQueue(queue.id));
    expect(listed.map((r) => r.id)).toEqual(runs.map((r) => r.id));
    expect(listed[0]).toMatchObject({ inputs: { question: 'q0' }, outputs: { answer: 'a0' } });

    // The reviewer reads the next run, scores it (ordinary feedback) and marks it done.
    const next = await client.getRunFromAnnotationQueue(queue.id, 0);
    expect(next.id).toBe(runs[0]!.id);
    await client.createFeedback(next.id, 'correct', { score: 1, comment: 'right' });
    const item = listed[0] as unknown as { queue_run_id: string };
    await client.annotationQueues.createRunStatus(item.queue_run_id, { status: 'completed' });
    expect((await client.getRunFromAnnotationQueue(queue.id, 0)).id).toBe(runs[1]!.id);
    const pending = await collect(client.listRunsFromAnnotationQueue(queue.id, { status: 'needs_my_review' }));
    expect(pending.map((r) => r.id)).toEqual([runs[1]!.id, runs[2]!.id]);
    const done = await collect(client.listRunsFromAnnotationQueue(queue.id, { status: 'completed' }));
    expect(done.map((r) => r.id)).toEqual([runs[0]!.id]);
    await vi.waitFor(
      async () => {
        const feedback = await collect(client.listFeedback({ runIds: [runs[0]!.id], feedbackKeys: ['correct'] }));
        expect(feedback.map((f) => f.score)).toEqual([1]);
      },
      { timeout: 30_000, interval: 250 },
    );

    await client.deleteRunFromAnnotationQueue(
      queue.id,
      (listed[2] as unknown as { queue_run_id: string }).queue_run_id,
    );
    expect(await client.getSizeFromAnnotationQueue(queue.id)).toEqual({ size: 2 });
    await expect(client.getRunFromAnnotationQueue(queue.id, 5)).rejects.toThrow(/not found/i);
    await client.deleteAnnotationQueue(queue.id);
    await expect(client.readAnnotationQueue(queue.id)).rejects.toThrow(/not found/i);
  });
});

describe('a queue counts what a reviewer can read', () => {
  test("a run not stored yet is in no count, list or index until it is; rubric items carry their key's config", async () => {
    const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: ws.apiKey });
    const key = `tone-${randomUUID().slice(0, 8)}`;
    await client.createFeedbackConfig({
      feedbackKey: key,
      feedbackConfig: { type: 'continuous', min: 0, max: 5 },
    });
    const project = `aq-later-${randomUUID().slice(0, 8)}`;
    const [stored] = await tracedRuns(client, project, 1);
    const queue = await client.createAnnotationQueue({
      name: `later-${randomUUID().slice(0, 8)}`,
      rubricItems: [{ feedback_key: key }, { feedback_key: `${key}-unconfigured` }],
    });
    expect((await client.readAnnotationQueue(queue.id)).rubric_items).toEqual([
      { feedback_key: key, feedback_config: { type: 'continuous', min: 0, max: 5 } },
      { feedback_key: `${key}-unconfigured`, feedback_config: null },
    ]);

    // A run added before it is traced (its id known to the caller first).
    const later = randomUUID();
    await client.addRunsToAnnotationQueue(queue.id, [later, stored!.id]);
    expect(await client.getSizeFromAnnotationQueue(queue.id)).toEqual({ size: 1 });
    expect(await client.readAnnotationQueue(queue.id)).toMatchObject({ total_runs: 1, pending_runs: 1 });
    expect((await client.getRunFromAnnotationQueue(queue.id, 0)).id).toBe(stored!.id);
    await expect(client.getRunFromAnnotationQueue(queue.id, 1)).rejects.toThrow(/not found/i);
    expect((await collect(client.listRunsFromAnnotationQueue(queue.id))).map((r) => r.id)).toEqual([stored!.id]);

    await client.createRun({
      id: later,
      name: 'later',
      run_type: 'chain',
      inputs: { question: 'later' },
      outputs: { answer: 'now' },
      project_name: project,
      start_time: Date.now(),
      end_time: Date.now() + 5,
    });
    await client.awaitPendingTraceBatches();
    await vi.waitFor(async () => expect(await client.getSizeFromAnnotationQueue(queue.id)).toEqual({ size: 2 }), {
      timeout: 30_000,
      interval: 250,
    });
    expect(await client.readAnnotationQueue(queue.id)).toMatchObject({ total_runs: 2, pending_runs: 2 });
    expect((await client.getRunFromAnnotationQueue(queue.id, 0)).id).toBe(later);
    await client.deleteAnnotationQueue(queue.id);
  });
});

interface PyResult {
  queue: { type: string; id: string; name: string; description: string };
  read: { rubric_instructions: string; rubric_items: Array<{ feedback_key: string }> };
  listed: string[];
  updated: { name: string; description: string };
  run_ids: string[];
  in_queue: string[];
  in_queue_types: string[];
  at_0: string;
  after_delete: string[];
  deleted: string;
}

describe('langsmith (PyPI) annotation queues', () => {
  test('every method, each answer a valid model', async () => {
    const prefix = `py-${randomUUID().slice(0, 8)}`;
    const env = { LANGSMITH_ENDPOINT: `${tracingUrl()}/api/v1`, LANGSMITH_API_KEY: pyWorkspace.apiKey };
    const run = await runPythonScript<PyResult>(pyenv, 'annotation_queues.py', [prefix], env);
    const r = run.result;
    expect(r.requests.filter((q) => q.status >= 300).map((q) => `${q.method} ${q.path} ${q.status}`)).toEqual([
      expect.stringMatching(/^GET \/api\/v1\/annotation-queues\/[0-9a-f-]{36} 404$/),
    ]);
    expect(r.log, run.stderr).toEqual([]);
    expect(r.queue).toMatchObject({ type: 'AnnotationQueueWithDetails', name: `${prefix}-queue` });
    expect(r.read.rubric_instructions).toBe('Score the answer');
    expect(r.read.rubric_items.map((i) => i.feedback_key)).toEqual(['quality']);
    expect(r.listed).toEqual([r.queue.id]);
    expect(r.updated).toEqual({ name: `${prefix}-queue-2`, description: 'updated' });
    expect(r.in_queue).toEqual(r.run_ids);
    expect(r.in_queue_types).toEqual(['RunWithAnnotationQueueInfo']);
    expect(r.at_0).toBe(r.run_ids[0]);
    expect(r.after_delete).toEqual(r.run_ids.slice(1));
    expect(r.deleted).toBe('LangSmithNotFoundError');
  });
});
