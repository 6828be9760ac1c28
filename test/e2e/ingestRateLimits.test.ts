// The ingestion routes' per-workspace rate limits (docs/ingestion.md), on a stack of this file's
// own with low limits (one request every 4 s, bursts of 2, for each kind of route): a request
// over its limit is a 429 RATE_LIMITED with Retry-After and a detail naming the limit, appends
// nothing, and leaves the other kind of route and other workspaces alone; and the official
// clients, npm and PyPI `langsmith` unchanged, retry their 429s (direct POST /runs and PATCH
// /runs/{id}, and batched multipart) until every run is stored. The limits refill 4 s apart, so
// that requests sent one after another meet an empty bucket however slow the machine is, and a
// client's retry after Retry-After costs the suite seconds, not tens of them.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client, uuid7 } from 'langsmith';
import { v7 as uuidv7 } from 'uuid';
import { startTracingStack, topicEndOffsets, type TracingStack } from '../support/tracingStack.ts';
import { makeTrace, multipartBody, postParts } from '../support/runFactory.ts';
import { waitFor } from '../support/serviceProcess.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { expectNoClientFailures, runPythonScript } from '../support/pythonScript.ts';
import { EventLog } from '../../platform/kafka/eventLog.ts';
import { TenancyService } from '../../services/tenancy/tenancyService.ts';
import { createLogger } from '../../platform/logger.ts';
import { formatDottedTimestamp } from '../../platform/time.ts';

const LIMITS = {
  INGEST_BASIC_RATE_PER_S: '0.25',
  INGEST_BASIC_BURST: '2',
  INGEST_BATCH_RATE_PER_S: '0.25',
  INGEST_BATCH_BURST: '2',
};

let stack: TracingStack;
let offsets: ReturnType<typeof topicEndOffsets>;
let pyenv: PythonEnv;
beforeAll(async () => {
  [stack, pyenv] = await Promise.all([startTracingStack('ratelimits', LIMITS), ensurePythonEnv()]);
  offsets = topicEndOffsets(stack);
}, 20 * 60_000);
afterAll(async () => {
  await offsets?.close();
  await stack?.stop();
});

interface Workspace {
  id: string;
  apiKey: string;
}

/** Fresh workspaces, each with a key of its own: each has its own buckets. */
async function workspaces(count: number): Promise<Workspace[]> {
  const log = new EventLog(stack.config, 'test-admin');
  const tenancy = new TenancyService(stack.config, log, createLogger('test-admin', 'warn'));
  try {
    const out: Workspace[] = [];
    for (let i = 0; i < count; i++) {
      const id = await tenancy.createWorkspace(`rate-limits-${Date.now()}-${i}`);
      out.push({ id, apiKey: await tenancy.issueKey([id], 'rate-limit test key') });
    }
    return out;
  } finally {
    await log.close();
  }
}

async function send(
  ws: Workspace,
  method: string,
  path: string,
  body: unknown,
  contentType = 'application/json',
): Promise<Response> {
  return fetch(stack.url + path, {
    method,
    headers: { 'x-api-key': ws.apiKey, 'content-type': contentType },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
}

const run = (id: string) => ({ id, name: 'limited', run_type: 'chain', inputs: {}, session_name: 'rate-limits' });

async function rateLimited(limit: 'basic' | 'batch'): Promise<number> {
  const text = await (await fetch(`${stack.url}/metrics`)).text();
  return Number(
    new RegExp(`^ingest_requests_rate_limited_total\\{limit="${limit}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0,
  );
}

async function waitForRuns(ws: Workspace, ids: string[], ready: (run: any) => boolean = () => true): Promise<void> {
  for (const id of ids)
    await waitFor(
      `run ${id}`,
      async () => {
        const res = await fetch(`${stack.url}/runs/${id}`, { headers: { 'x-api-key': ws.apiKey } });
        return res.status === 200 && ready(await res.json());
      },
      60_000,
    );
}

describe('the 429', () => {
  test('POST /runs, POST /api/v1/runs and PATCH /runs/{id} share one bucket per workspace: over it, 429 with Retry-After naming the limit, nothing appended', async () => {
    const [ws, other] = (await workspaces(2)) as [Workspace, Workspace];
    const [first, second] = [uuidv7(), uuidv7()];
    // The burst (2), through both prefixes.
    expect((await send(ws, 'POST', '/runs', run(first))).status).toBe(202);
    expect((await send(ws, 'POST', '/api/v1/runs', run(second))).status).toBe(202);

    const before = await offsets.snapshot();
    const refused = await send(ws, 'PATCH', `/runs/${first}`, {
      end_time: new Date().toISOString(),
      outputs: { late: true },
    });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: 'RATE_LIMITED',
      detail: expect.stringMatching(
        /^this workspace's requests to POST \/runs and PATCH \/runs\/\{id\} are over their limit of 0\.25 a second with bursts of 2 on this API process \(INGEST_BASIC_RATE_PER_S, INGEST_BASIC_BURST\); .*; retry after \d+ s$/,
      ),
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(4);
    expect((await send(ws, 'POST', '/runs', run(uuidv7()))).status).toBe(429);
    expect(await offsets.snapshot(), 'a refused request appends nothing').toBe(before);

    // The batch routes have their own bucket; so has every other workspace.
    const trace = makeTrace(1);
    expect((await send(ws, 'POST', '/runs/batch', { post: trace })).status).toBe(202);
    expect((await send(other, 'POST', '/runs', run(uuidv7()))).status).toBe(202);
    await waitForRuns(ws, [first, second, ...trace.map((r) => r.id)]);
    expect(await rateLimited('basic')).toBeGreaterThanOrEqual(2);
  });

  test('/runs/batch and /runs/multipart share one bucket per workspace, which the basic routes leave alone', async () => {
    const [ws] = (await workspaces(1)) as [Workspace];
    const multipart = () => multipartBody(postParts(makeTrace(1)));
    const a = multipart();
    expect((await send(ws, 'POST', '/runs/multipart', a.body, a.contentType)).status).toBe(202);
    expect((await send(ws, 'POST', '/api/v1/runs/batch', { post: makeTrace(1) })).status).toBe(202);
    const before = await offsets.snapshot();
    const b = multipart();
    const refused = await send(ws, 'POST', '/runs/multipart', b.body, b.contentType);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(
      /^this workspace's requests to POST \/runs\/batch and \/runs\/multipart are over their limit of 0\.25 a second with bursts of 2 on this API process \(INGEST_BATCH_RATE_PER_S, INGEST_BATCH_BURST\); retry after \d+ s$/,
    );
    expect(await offsets.snapshot(), 'a refused request appends nothing').toBe(before);
    expect((await send(ws, 'POST', '/runs', run(uuidv7()))).status).toBe(202);
  });
});

describe('the official clients retry a 429 until the run is stored', () => {
  interface Recorded {
    method: string;
    path: string;
    status: number;
  }
  const recordingFetch =
    (log: Recorded[]): typeof fetch =>
    async (input, init) => {
      const res = await fetch(input, init);
      log.push({
        method: init?.method ?? 'GET',
        path: new URL(input instanceof Request ? input.url : String(input)).pathname,
        status: res.status,
      });
      return res;
    };

  test('langsmith (npm): createRun/updateRun (POST /runs, PATCH /runs/{id}) and batched multipart', async () => {
    const [ws] = (await workspaces(1)) as [Workspace];
    const project = `js-limited-${Date.now()}`;

    const direct: Recorded[] = [];
    const client = new Client({
      apiUrl: stack.url,
      apiKey: ws.apiKey,
      autoBatchTracing: false,
      fetchImplementation: recordingFetch(direct),
    });
    const [root, child] = [uuid7(), uuid7()];
    await client.createRun({
      id: root,
      name: 'limited-root',
      run_type: 'chain',
      inputs: { q: 1 },
      project_name: project,
    });
    await client.createRun({
      id: child,
      name: 'limited-child',
      run_type: 'llm',
      inputs: { q: 2 },
      parent_run_id: root,
      project_name: project,
    });
    await client.updateRun(root, { outputs: { done: true }, end_time: Date.now() + 1 });
    const directWrites = direct.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.status}`);
    expect(directWrites, 'the third request met the empty bucket, and was retried').toContain('PATCH 429');
    expect(directWrites.filter((w) => w.endsWith(' 202'))).toEqual(['POST 202', 'POST 202', 'PATCH 202']);

    const batched: Recorded[] = [];
    const batching = new Client({
      apiUrl: stack.url,
      apiKey: ws.apiKey,
      autoBatchTracing: true,
      fetchImplementation: recordingFetch(batched),
    });
    const t0 = Date.now() * 1000;
    const traceId = uuid7();
    const rootOrder = formatDottedTimestamp(t0) + traceId;
    const steps = [uuid7(), uuid7()];
    // Each operation flushed before the next: three multipart requests.
    await batching.createRun({
      id: traceId,
      trace_id: traceId,
      dotted_order: rootOrder,
      name: 'batched-root',
      run_type: 'chain',
      inputs: {},
      project_name: project,
      start_time: t0 / 1000,
    });
    await batching.awaitPendingTraceBatches();
    for (const [i, id] of steps.entries()) {
      const dotted = `${rootOrder}.${formatDottedTimestamp(t0 + (i + 1) * 1000)}${id}`;
      await batching.createRun({
        id,
        trace_id: traceId,
        parent_run_id: traceId,
        dotted_order: dotted,
        name: `batched-${i}`,
        run_type: 'tool',
        inputs: { i },
        project_name: project,
        start_time: (t0 + (i + 1) * 1000) / 1000,
      });
      await batching.awaitPendingTraceBatches();
    }
    const batchWrites = batched.filter((r) => r.method === 'POST').map((r) => `${r.path} ${r.status}`);
    expect(batchWrites).toContain('/runs/multipart 429');
    expect(batchWrites.filter((w) => w.endsWith(' 202'))).toEqual(Array(3).fill('/runs/multipart 202'));

    await waitForRuns(ws, [root, child, traceId, ...steps]);
    await waitForRuns(ws, [root], (r) => r.end_time !== null);
  }, 180_000);

  test('langsmith (PyPI): create_run/update_run and @traceable (multipart), retried by its transport after Retry-After', async () => {
    const [ws] = (await workspaces(1)) as [Workspace];
    const [basicBefore, batchBefore] = [await rateLimited('basic'), await rateLimited('batch')];
    const env = {
      LANGSMITH_ENDPOINT: stack.url,
      LANGSMITH_API_KEY: ws.apiKey,
      LANGSMITH_TRACING: 'true',
      LANGSMITH_PROJECT: `py-limited-${Date.now()}`,
    };
    const out = await runPythonScript<{ direct: string[]; traced: string[] }>(
      pyenv,
      'rate_limited_runs.py',
      [],
      env,
      170_000,
    );
    // The client's transport retried beneath it: it saw only the 2xx, and complained of nothing.
    expectNoClientFailures(out);
    expect(out.result.traced).toHaveLength(4);
    expect(await rateLimited('basic'), 'PATCH /runs/{id} met the empty bucket').toBeGreaterThan(basicBefore);
    expect(await rateLimited('batch'), 'multipart met the empty bucket').toBeGreaterThan(batchBefore);
    await waitForRuns(ws, [...out.result.direct, ...out.result.traced], (r) => r.end_time !== null);
  }, 180_000);
});
