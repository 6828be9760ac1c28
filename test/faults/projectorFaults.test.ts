// Item 17: during a sustained ingest, ClickHouse is down for 30 s and the projector is killed
// with SIGKILL; after recovery every accepted run is in ClickHouse exactly once, patches applied.
// On a ClickHouse server of its own (privateServers.ts), so the rest of the suite runs on beside it.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runsOnceMerged, startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { endTimeAfter, makeTrace, multipartBody, postParts } from '../support/runFactory.ts';
import { freePort, startService, waitFor } from '../support/serviceProcess.ts';
import { privateClickHouse, type PrivateServer } from '../support/privateServers.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { sql } from '../../platform/clickhouse/sql.ts';
import { DEFAULT_WORKSPACE_ID } from '../../services/tenancy/apiKeys.ts';

let clickhouse: PrivateServer;
let stack: TracingStack;
beforeAll(async () => {
  clickhouse = await privateClickHouse('faults');
  stack = await startTracingStack('faults', { CLICKHOUSE_URL: clickhouse.endpoint });
}, 300_000);
afterAll(async () => {
  await clickhouse?.start();
  await stack?.stop();
  await clickhouse?.remove();
}, 300_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('ClickHouse down for 30 s and a SIGKILLed projector lose nothing and double nothing', {
  timeout: 240_000,
}, async () => {
  const accepted = new Set<string>();
  const patched = new Set<string>();
  let rejected = 0;
  let stop = false;

  // Sustained load: traces posted, then patched in a later request.
  const load = (async () => {
    while (!stop) {
      const traces = Array.from({ length: 10 }, () => makeTrace(4));
      const runs = traces.flat();
      const post = multipartBody(postParts(runs));
      const res = await fetch(`${stack.url}/runs/multipart`, {
        method: 'POST',
        headers: { 'x-api-key': stack.apiKey, 'content-type': post.contentType },
        body: post.body,
      });
      if (res.status !== 202) {
        rejected++;
        continue;
      }
      for (const r of runs) accepted.add(r.id);
      const end = endTimeAfter(runs);
      const patch = multipartBody(
        postParts(
          runs.map((r) => ({ ...r, inputs: undefined, outputs: { ok: true }, end_time: end })),
          'patch',
        ),
      );
      const res2 = await fetch(`${stack.url}/runs/multipart`, {
        method: 'POST',
        headers: { 'x-api-key': stack.apiKey, 'content-type': patch.contentType },
        body: patch.body,
      });
      if (res2.status === 202) for (const r of runs) patched.add(r.id);
      await sleep(20);
    }
  })();

  await sleep(5_000);
  await clickhouse.stop(0);
  const downAt = Date.now();
  await sleep(8_000);
  await stack.projector.kill('SIGKILL');
  stack.startProjector(); // comes up while ClickHouse is still down and has to wait for it
  // A new API replica starts while ClickHouse is down and takes writes: they only need Kafka.
  const port = await freePort();
  const replica = startService(
    'services/processes/tracingApiMain.ts',
    { ...stack.env, TRACING_PORT: String(port) },
    'faults-replica',
  );
  try {
    await waitFor(
      'a replica started during the outage',
      async () => (await fetch(`http://127.0.0.1:${port}/ready`)).ok,
      30_000,
      200,
    );
    const runs = makeTrace(4);
    const post = multipartBody(postParts(runs));
    const res = await fetch(`http://127.0.0.1:${port}/runs/multipart`, {
      method: 'POST',
      headers: { 'x-api-key': stack.apiKey, 'content-type': post.contentType },
      body: post.body,
    });
    expect(res.status).toBe(202);
    for (const r of runs) accepted.add(r.id);
    // Reads need ClickHouse: a clear 503 with Retry-After, not a 500.
    const read = await fetch(`http://127.0.0.1:${port}/runs/${runs[0]!.id}`, {
      headers: { 'x-api-key': stack.apiKey },
    });
    expect(read.status).toBe(503);
    expect(read.headers.get('retry-after')).toBe('2');
    expect(((await read.json()) as { error: string }).error).toBe('READ_MODEL_UNAVAILABLE');
  } finally {
    await replica.stop();
  }
  await sleep(Math.max(0, 30_000 - (Date.now() - downAt)));
  await clickhouse.start();
  await sleep(5_000);
  stop = true;
  await load;

  expect(accepted.size).toBeGreaterThan(500);
  expect(rejected).toBe(0); // ingestion does not need ClickHouse

  const ch = ClickHouseClient.fromConfig(stack.config);
  const tenant = DEFAULT_WORKSPACE_ID;
  await waitFor(
    'every accepted run and patch to be projected',
    async () => {
      const [row] = await ch.query<{ n: string; done: string }>(
        sql`SELECT uniqExact(id) AS n, countIf(status = 'success') AS done FROM runs FINAL WHERE tenant_id = toUUID(${tenant})`,
      );
      return Number(row!.n) === accepted.size && Number(row!.done) === patched.size;
    },
    120_000,
    500,
  );

  const rows = await ch.query<{ id: string; status: string }>(
    sql`SELECT toString(id) AS id, status FROM runs FINAL WHERE tenant_id = toUUID(${tenant})`,
  );
  expect(rows.length).toBe(accepted.size); // exactly once
  expect(new Set(rows.map((r) => r.id))).toEqual(accepted); // nothing lost, nothing foreign
  expect(rows.filter((r) => r.status === 'success').length).toBe(patched.size);
  // Once merged on disk too, not only under FINAL.
  expect(await runsOnceMerged(ch, tenant, accepted.size)).toBe(accepted.size);
  await ch.close();
});
