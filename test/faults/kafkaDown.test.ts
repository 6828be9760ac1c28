// Item 14: a 2xx means the data is in Kafka. With the broker down the API answers 503 with
// Retry-After, and once the broker is back it takes writes again. On a broker of its own
// (privateServers.ts), so the rest of the suite runs on beside it.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { waitFor } from '../support/serviceProcess.ts';
import { privateKafka, type PrivateServer } from '../support/privateServers.ts';

let kafka: PrivateServer;
let stack: TracingStack;
beforeAll(async () => {
  kafka = await privateKafka('kafkadown');
  stack = await startTracingStack('kafkadown', { KAFKA_BROKERS: kafka.endpoint, KAFKA_APPEND_TIMEOUT_MS: '3000' });
}, 300_000);
afterAll(async () => {
  await kafka?.start(); // the stack's teardown sweeps and deletes its topics
  await stack?.stop();
  await kafka?.remove();
}, 300_000);

const post = (id: string) =>
  fetch(`${stack.url}/runs`, {
    method: 'POST',
    headers: { 'x-api-key': stack.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name: 'r', run_type: 'chain' }),
  });

test('Kafka down: 503 with Retry-After, never a 2xx; writes resume after the broker restarts', {
  timeout: 180_000,
}, async () => {
  const before = uuidv7();
  expect((await post(before)).status).toBe(202);

  await kafka.stop();
  const during = uuidv7();
  const res = await post(during);
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(((await res.json()) as { detail: string }).detail).toMatch(/Kafka/);
  await waitFor(
    'readiness to report Kafka down',
    async () => (await fetch(`${stack.url}/ready`)).status === 503,
    30_000,
    250,
  );

  await kafka.start();
  await waitFor('readiness to report Kafka back', async () => (await fetch(`${stack.url}/ready`)).ok, 60_000, 250);
  const after = uuidv7();
  const ok = await waitFor(
    'a write to be accepted again',
    async () => {
      const r = await post(after);
      return r.status === 202 ? r : null;
    },
    60_000,
    500,
  );
  expect(ok.status).toBe(202);

  const read = async (id: string) =>
    (await fetch(`${stack.url}/runs/${id}`, { headers: { 'x-api-key': stack.apiKey } })).status;
  await waitFor(
    'runs accepted before and after the outage to be readable',
    async () => (await read(before)) === 200 && (await read(after)) === 200,
    60_000,
    250,
  );
});
