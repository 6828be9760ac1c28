// The projector under cache pressure: with room for only a few runs it keeps evicting traces
// and reading them back from ClickHouse, and every post and later patch still merges.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTracingStack, type TracingStack } from '../../support/tracingStack.ts';
import { makeTrace, multipartBody, postParts } from '../../support/runFactory.ts';
import { waitFor } from '../../support/serviceProcess.ts';
import { ClickHouseClient } from '../../../services/common/clickhouse/client.ts';
import { sql } from '../../../services/common/clickhouse/sql.ts';

let stack: TracingStack;
beforeAll(async () => {
  stack = await startTracingStack('cache', { PROJECTOR_CACHE_RUNS: '3', PROJECTOR_FLUSH_MS: '20' });
});
afterAll(() => stack?.stop());

test('posts and later patches merge even when their traces were evicted from the cache', async () => {
  const traces = Array.from({ length: 30 }, () => makeTrace(3));
  const send = async (parts: ReturnType<typeof postParts>) => {
    const { body, contentType } = multipartBody(parts);
    const res = await fetch(`${stack.url}/runs/multipart`, { method: 'POST', headers: { 'x-api-key': stack.apiKey, 'content-type': contentType }, body });
    expect(res.status).toBe(202);
  };
  for (const t of traces) await send(postParts(t));
  await new Promise((r) => setTimeout(r, 500)); // let the posts be projected and evicted
  const end = new Date().toISOString();
  for (const t of traces) await send(postParts(t.map((r) => ({ ...r, inputs: undefined, outputs: { done: r.id }, end_time: end })), 'patch'));

  const ch = new ClickHouseClient({ url: stack.config.CLICKHOUSE_URL, database: stack.config.CLICKHOUSE_DATABASE });
  const rows = await waitFor('all runs merged', async () => {
    const r = await ch.query<{ id: string; inputs: string; outputs: string; status: string }>(sql`SELECT toString(id) AS id, inputs, outputs, status FROM runs FINAL`);
    return r.length === 120 && r.every((x) => x.status === 'success') ? r : null;
  }, 60_000, 200);
  for (const row of rows) {
    expect(JSON.parse(row.outputs)).toEqual({ done: row.id });
    expect(row.inputs).not.toBe(''); // the post's inputs survived the reload
  }
  await ch.close();
});
