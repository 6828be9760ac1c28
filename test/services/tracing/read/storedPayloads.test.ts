// A run stored before the nesting limit existed (its inputs 5,000 levels deep, appended straight
// to the runs topic as an old server would have) must not make its project unreadable: every read
// path answers, the run shows with its inputs cut at the limit, and its neighbours read as usual.
import { inject, describe, expect, test, beforeAll } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { loadConfig } from '../../../../platform/config.ts';
import { EventLog, event } from '../../../../platform/kafka/eventLog.ts';
import { MAX_JSON_DEPTH, TRUNCATED_MARKER } from '../../../../platform/json/jsonNesting.ts';
import { api, createWorkspaces, waitForRun, type Workspace } from '../../../support/tracingClient.ts';
import { makeTrace, runOp } from '../../../support/runFactory.ts';

const DEPTH = 5000;
const deepText = '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);

/** How deep the value goes along its "a" keys, and what it ends in. */
function chain(value: unknown): { depth: number; end: unknown } {
  let depth = 0;
  while (typeof value === 'object' && value !== null && 'a' in value) {
    value = (value as { a: unknown }).a;
    depth++;
  }
  return { depth, end: value };
}

let ws: Workspace;
let projectId: string;
let deepRunId: string;
let neighbourIds: string[];
let traceId: string;

beforeAll(async () => {
  ws = (await createWorkspaces(1))[0]!;
  const project = await api('/sessions', {
    method: 'POST',
    apiKey: ws.apiKey,
    json: { name: `stored-deep-${uuidv7()}` },
  });
  expect(project.status).toBe(200);
  projectId = project.body.id;

  // Two runs through the API: a root and a child.
  const [root, child] = makeTrace(1, { session_id: projectId });
  const batch = await api('/runs/batch', { method: 'POST', apiKey: ws.apiKey, json: { post: [root, child] } });
  expect(batch.status).toBe(202);
  neighbourIds = [root!.id, child!.id];
  traceId = root!.trace_id;

  // A second child appended as an earlier version of the service would have stored it.
  deepRunId = uuidv7();
  const op = runOp({
    run_id: deepRunId,
    session_id: projectId,
    parent_run_id: root!.id,
    dotted_order: `${root!.dotted_order}.${root!.dotted_order.slice(0, 22)}${deepRunId}`,
    name: 'deep',
    run_type: 'chain',
    start_time: Date.now() * 1000,
    inputs: deepText,
  });
  const log = new EventLog(loadConfig(inject('tracingEnv')), 'test-old-writer');
  try {
    await log.append([
      event('RunOpsAppended', `${ws.id}/${traceId}`, {
        tenant_id: ws.id,
        trace_id: traceId,
        request_id: uuidv7(),
        received_at: Date.now() * 1000,
        ops: [op],
      }),
    ]);
  } finally {
    await log.close();
  }
  for (const id of [...neighbourIds, deepRunId]) await waitForRun(ws.apiKey, id);
});

describe('a stored run nested deeper than the limit', () => {
  test('GET /runs/{id} shows it, its inputs cut at the limit with a marker', async () => {
    const res = await api(`/runs/${deepRunId}`, { apiKey: ws.apiKey });
    expect(res.status).toBe(200);
    const { depth, end } = chain(res.body.inputs);
    expect(depth).toBe(MAX_JSON_DEPTH);
    expect(end).toBe(TRUNCATED_MARKER);
  });

  test('POST /runs/query for its project with the default selects lists it and its neighbours', async () => {
    const res = await api('/runs/query', { method: 'POST', apiKey: ws.apiKey, json: { session: [projectId] } });
    expect(res.status).toBe(200);
    expect(res.body.runs.map((r: { id: string }) => r.id).sort()).toEqual([...neighbourIds, deepRunId].sort());
  });

  test('POST /api/v2/runs/query with inputs', async () => {
    const res = await api('/api/v2/runs/query', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { project_ids: [projectId], selects: ['ID', 'INPUTS'] },
    });
    expect(res.status).toBe(200);
    const deep = res.body.items.find((r: { id: string }) => r.id === deepRunId);
    expect(chain(deep.inputs).end).toBe(TRUNCATED_MARKER);
    expect(res.body.items).toHaveLength(3);
  });

  test('GET /api/v2/traces/{id}/runs?selects=INPUTS', async () => {
    const res = await api(`/api/v2/traces/${traceId}/runs?project_id=${projectId}&selects=ID&selects=INPUTS`, {
      apiKey: ws.apiKey,
    });
    expect(res.status).toBe(200);
    const items = res.body.items;
    expect(chain(items.find((r: { id: string }) => r.id === deepRunId).inputs).end).toBe(TRUNCATED_MARKER);
    expect(items.map((r: { id: string }) => r.id).sort()).toEqual([...neighbourIds, deepRunId].sort());
  });
});
