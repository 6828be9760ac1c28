// Issue 19, item 2: two tracing API processes and two runs-projector processes in one consumer
// group. During a sustained multipart ingest spread over both APIs, one projector is killed with
// SIGKILL mid-stream; the other takes its partitions once the group's session timeout has passed
// (30 s), and every run answered 2xx is in ClickHouse exactly once with its patch, merged on disk
// too. What one API process wrote, the other reads at once: a project made through one is used
// through the other, and a child run posted through one with only its parent's id (which the other
// had just taken) gets the parent's trace. The takeover time is printed as one JSON line.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { runsOnceMerged, startTracingStack, stackCall, type TracingStack } from '../support/tracingStack.ts';
import { endTimeAfter, makeTrace, multipartBody, postParts } from '../support/runFactory.ts';
import { freePort, startService, waitFor, type ServiceProcess } from '../support/serviceProcess.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { sql } from '../../platform/clickhouse/sql.ts';
import { DEFAULT_WORKSPACE_ID } from '../../services/tenancy/apiKeys.ts';

let stack: TracingStack;
let apiB: ServiceProcess;
let projectorB: ServiceProcess;
let urlB: string;

beforeAll(async () => {
  stack = await startTracingStack('groupfail');
  const port = await freePort();
  urlB = `http://127.0.0.1:${port}`;
  apiB = startService(
    'services/processes/tracingApiMain.ts',
    { ...stack.env, TRACING_PORT: String(port) },
    'groupfail-api-b',
  );
  projectorB = startService('projections/projectorMain.ts', stack.env, 'groupfail-projector-b');
  await waitFor('API process B', async () => (await fetch(`${urlB}/ready`)).ok, 60_000, 200);
}, 180_000);

afterAll(async () => {
  await Promise.all([apiB?.stop(), projectorB?.stop()]);
  await stack?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('SIGKILL of one of two projectors in a group: the other takes its partitions; nothing is lost or doubled', {
  timeout: 300_000,
}, async () => {
  const urls = [stack.url, urlB];
  const accepted = new Set<string>();
  const patched = new Set<string>();
  const refused: number[] = [];
  let stop = false;
  let sent = 0;

  const post = async (runs: ReturnType<typeof makeTrace>, op: 'post' | 'patch'): Promise<boolean> => {
    const body = multipartBody(postParts(runs, op));
    const url = urls[sent++ % 2]!;
    const res = await fetch(`${url}/runs/multipart`, {
      method: 'POST',
      headers: { 'x-api-key': stack.apiKey, 'content-type': body.contentType },
      body: body.body,
    });
    await res.arrayBuffer();
    if (res.status !== 202) refused.push(res.status);
    return res.status === 202;
  };
  // Four clients; each posts ten traces of four runs through one API process, then patches them
  // through the other.
  const client = async () => {
    while (!stop) {
      const runs = Array.from({ length: 10 }, () => makeTrace(4)).flat();
      if (!(await post(runs, 'post'))) continue;
      for (const r of runs) accepted.add(r.id);
      const end = endTimeAfter(runs);
      if (
        await post(
          runs.map((r) => ({ ...r, inputs: undefined, outputs: { ok: true }, end_time: end })),
          'patch',
        )
      )
        for (const r of runs) patched.add(r.id);
      await sleep(20);
    }
  };
  const load = Promise.all(Array.from({ length: 4 }, client));

  const ch = ClickHouseClient.fromConfig(stack.config);
  const tenant = DEFAULT_WORKSPACE_ID;
  const projected = async () => {
    const rows = await ch.query<{ id: string; status: string }>(
      sql`SELECT toString(id) AS id, status FROM runs FINAL WHERE tenant_id = toUUID(${tenant})`,
    );
    const ids = new Set(rows.map((r) => r.id));
    const done = new Set(rows.filter((r) => r.status === 'success').map((r) => r.id));
    return {
      rows,
      ids,
      missing: [...accepted].filter((id) => !ids.has(id)).length,
      unpatched: [...patched].filter((id) => !done.has(id)).length,
    };
  };
  try {
    // Both projectors are working before the kill: the runs of the first seconds are read.
    await sleep(6_000);
    const killedAt = Date.now();
    await stack.projector.kill('SIGKILL');
    await sleep(10_000);
    stop = true;
    await load;
    expect(refused).toEqual([]);
    expect(accepted.size).toBeGreaterThan(1_000);

    // The survivor gets the dead one's partitions after the session timeout, and reads them from their last commit.
    await waitFor(
      'every accepted run and patch to be projected by the surviving projector',
      async () => {
        const { missing, unpatched } = await projected();
        return missing === 0 && unpatched === 0;
      },
      120_000,
      500,
    ).catch(() => undefined);
    const caughtUpAt = Date.now();
    const { rows, ids, missing, unpatched } = await projected();
    expect({ missing, unpatched }).toEqual({ missing: 0, unpatched: 0 });
    expect(rows.length).toBe(ids.size); // exactly once under FINAL
    expect(ids.size).toBe(accepted.size); // and nothing foreign

    // Once merged on disk too, not only under FINAL.
    expect(await runsOnceMerged(ch, tenant, accepted.size)).toBe(accepted.size);
    console.log(
      JSON.stringify({
        projector_group_failover: {
          runs_accepted: accepted.size,
          requests: sent,
          every_run_projected_after_kill_ms: caughtUpAt - killedAt,
        },
      }),
    );
  } finally {
    stop = true;
    await load;
    await ch.close();
  }
});

test('what one API process wrote, the other reads at once: a project, a parent run', async () => {
  const onA = (method: string, path: string, json?: unknown) => stackCall(stack, method, path, json);
  const onB = (method: string, path: string, json?: unknown) =>
    stackCall({ url: urlB, apiKey: stack.apiKey }, method, path, json);
  for (let i = 0; i < 5; i++) {
    const name = `rw-${uuidv7()}`;
    const created = await onA('POST', '/sessions', { name });
    expect(created.status).toBe(200);
    expect((await onB('GET', `/sessions/${created.body.id}`)).body).toMatchObject({ id: created.body.id, name });

    // A parent through B, then its child through A naming only the parent: A derives the child's
    // trace from B's write (the lineage topic), at once.
    const parent = uuidv7();
    const child = uuidv7();
    expect(
      (
        await onB('POST', '/runs', {
          id: parent,
          name: 'parent',
          run_type: 'chain',
          session_id: created.body.id,
          start_time: new Date().toISOString(),
        })
      ).status,
    ).toBe(202);
    expect(
      (
        await onA('POST', '/runs', {
          id: child,
          name: 'child',
          run_type: 'llm',
          parent_run_id: parent,
          session_id: created.body.id,
          start_time: new Date().toISOString(),
        })
      ).status,
    ).toBe(202);
    const read = await waitFor(
      'the child to be readable through B',
      async () => {
        const res = await onB('GET', `/runs/${child}`);
        return res.status === 200 ? res.body : null;
      },
      60_000,
      200,
    );
    expect(read).toMatchObject({ id: child, trace_id: parent, parent_run_id: parent });
  }
});
