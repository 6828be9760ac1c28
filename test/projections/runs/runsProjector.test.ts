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

test('an event the projector cannot read goes to the dead-letter topic, byte for byte, and projection goes on', async () => {
  const { EventLog } = await import('../../../services/common/kafka/eventLog.ts');
  const { TOPICS, topicName } = await import('../../../services/common/kafka/topics.ts');
  const { Consumer, MessagesStreamModes, stringDeserializer } = await import('@platformatic/kafka');
  const log = new EventLog(stack.config, 'test-poison');
  const poison = Buffer.from('definitely not avro');
  const [root] = makeTrace(0);
  await log.appendRaw(TOPICS.runs, { key: `x/${root!.trace_id}`, value: poison, headers: { 'event-type': 'RunOpsAppended', 'schema-version': '1' } });
  await log.close();
  const { body, contentType } = multipartBody(postParts([root!]));
  expect((await fetch(`${stack.url}/runs/multipart`, { method: 'POST', headers: { 'x-api-key': stack.apiKey, 'content-type': contentType }, body })).status).toBe(202);
  await waitFor('the run after the poison message', async () => (await fetch(`${stack.url}/runs/${root!.id}`, { headers: { 'x-api-key': stack.apiKey } })).ok, 30_000, 200);

  const consumer = new Consumer({ clientId: 'dlq-reader', groupId: `dlq-${Date.now()}`, bootstrapBrokers: [stack.env.KAFKA_BROKERS!], deserializers: { key: stringDeserializer, headerKey: stringDeserializer, headerValue: stringDeserializer } });
  const stream = await consumer.consume({ topics: [topicName(stack.config, TOPICS.runsDeadLetter)], mode: MessagesStreamModes.EARLIEST, autocommit: false });
  const dead = await new Promise<{ value: Buffer; headers: Map<string, string> }>((resolve) => stream.once('data', resolve));
  expect(dead.value.equals(poison)).toBe(true);
  expect(dead.headers.get('dead-letter-reason')).toBeTruthy();
  expect(dead.headers.get('dead-letter-source')).toMatch(/tracing\.runs\/\d+\/\d+$/);
  await stream.close();
  await consumer.close(true);
});
