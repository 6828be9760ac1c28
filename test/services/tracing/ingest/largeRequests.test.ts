// Requests as large as the body limit allows, against Kafka's own size limit per message: a
// request the broker can take is taken whole (a trace's operations split over several events in
// order), one it can never take is a 413 before anything is appended, and never a 503 that
// clients would retry forever. The limit is the broker's: this file lowers one topic's
// max.message.bytes and the API follows it. At the default limits (issue 19, item 7): a body
// just over INGEST_SIZE_LIMIT_BYTES is a 413 that appends nothing, a 5 MB field (kept in object
// storage) is read back equal, and request headers larger than the server takes are a 431 that
// appends nothing. Malformed multipart, content encodings, deep JSON, invalid UUIDs and dotted
// orders: badInput.test.ts; a trace of 10,000 runs through /runs/multipart, read back whole:
// test/e2e/explorer/trace.test.ts.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { Admin, ConfigResourceTypes } from '@platformatic/kafka';
import { startTracingStack, topicEndOffsets, type TracingStack } from '../../../support/tracingStack.ts';
import { makeTrace, type TestRun } from '../../../support/runFactory.ts';
import { topicName } from '../../../../platform/kafka/topicAdmin.ts';
import { TOPICS } from '../../../../schemas/topics.ts';
import { waitFor } from '../../../support/serviceProcess.ts';

let stack: TracingStack;
let offsets: ReturnType<typeof topicEndOffsets>;

beforeAll(async () => {
  stack = await startTracingStack('largereq');
  offsets = topicEndOffsets(stack);
});
afterAll(async () => {
  await offsets?.close();
  await stack?.stop();
});

const endOffsets = () => offsets.snapshot();

async function postBatch(body: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${stack.url}/runs/batch`, {
    method: 'POST',
    headers: { 'x-api-key': stack.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** How many runs of these traces the read model has (POST /runs/query by trace, every page). */
async function storedRuns(traceIds: string[]): Promise<number> {
  let count = 0;
  for (const trace of traceIds) {
    let cursor: string | null = null;
    do {
      const res = await fetch(`${stack.url}/runs/query`, {
        method: 'POST',
        headers: { 'x-api-key': stack.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ trace, select: ['id'], limit: 100, cursor }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { runs: unknown[]; cursors: { next: string | null } };
      count += body.runs.length;
      cursor = body.cursors.next;
    } while (cursor);
  }
  return count;
}

const inProject = (runs: TestRun[], project: string) => runs.map((r) => ({ ...r, session_name: project }));

describe('a request larger than one Kafka message', () => {
  test('a 19 MB /runs/batch of one trace, beside a small trace: 202, and every run of both is stored', async () => {
    const project = `large-${uuidv7()}`;
    // 190 runs of ~100 KB inputs each: under the payload offload size, so all of it travels in events.
    const big = inProject(makeTrace(189), project).map((r) => ({ ...r, inputs: { text: 'x'.repeat(100_000) } }));
    const small = inProject(makeTrace(2), project);
    const res = await postBatch({ post: [...big, ...small] });
    expect(res.status).toBe(202);
    const traceIds = [big[0]!.trace_id, small[0]!.trace_id];
    await waitFor(
      'every run to be stored',
      async () => (await storedRuns(traceIds)) === big.length + small.length,
      60_000,
      250,
    );
  });
});

describe('at the default limits', () => {
  test('a /runs/batch just over INGEST_SIZE_LIMIT_BYTES (20 MiB) is a 413 that appends nothing', async () => {
    const runs = Array.from({ length: 53 }, () => makeTrace(3))
      .flat()
      .map((r) => ({ ...r, inputs: { blob: 'b'.repeat(100_000) } }));
    const body = JSON.stringify({ post: runs });
    expect(body.length).toBeGreaterThan(20 * 1024 * 1024);
    const before = await endOffsets();
    const res = await fetch(`${stack.url}/runs/batch`, {
      method: 'POST',
      headers: { 'x-api-key': stack.apiKey, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/exceeds the limit of 20971520 bytes/);
    expect(await endOffsets()).toBe(before);
  });

  test('a 5 MB field is taken, kept in object storage, and read back equal', async () => {
    const [root] = makeTrace(0);
    const text = Array.from(
      { length: (5 * 1024 * 1024) / 64 },
      (_, i) => `${String(i).padStart(10, '0')}-${'x'.repeat(53)}`,
    ).join('');
    expect(text.length).toBe(5 * 1024 * 1024);
    expect((await postBatch({ post: [{ ...root!, inputs: { document: text } }] })).status).toBe(202);
    const run = await waitFor(
      'the run with a 5 MB field',
      async () => {
        const res = await fetch(`${stack.url}/runs/${root!.id}`, { headers: { 'x-api-key': stack.apiKey } });
        return res.status === 200 ? ((await res.json()) as { inputs: { document: string } }) : null;
      },
      60_000,
      250,
    );
    expect(run.inputs.document.length).toBe(text.length);
    expect(run.inputs.document === text).toBe(true);
  });

  test('request headers larger than the server takes: 431, and nothing appended', async () => {
    const before = await endOffsets();
    const res = await request(`${stack.url}/runs`, {
      method: 'POST',
      headers: { 'x-api-key': stack.apiKey, 'content-type': 'application/json', 'x-padding': 'p'.repeat(64 * 1024) },
      body: JSON.stringify({ id: uuidv7(), name: 'r', run_type: 'chain' }),
    });
    await res.body.text();
    expect(res.statusCode).toBe(431);
    expect(await endOffsets()).toBe(before);
  });
});

describe('a topic whose max.message.bytes is lowered to 1 MiB', () => {
  beforeAll(async () => {
    const admin = new Admin({ clientId: 'test-limits', bootstrapBrokers: [stack.env.KAFKA_BROKERS!] });
    try {
      await admin.incrementalAlterConfigs({
        resources: [
          {
            resourceType: ConfigResourceTypes.TOPIC,
            resourceName: topicName(stack.config, TOPICS.runs),
            configs: [{ name: 'max.message.bytes', configOperation: 0, value: String(1024 * 1024) }],
          },
        ],
      });
    } finally {
      await admin.close();
    }
    // The API reads the limits once: a restart reads the new one (as after any change of broker configuration).
    await stack.api.stop();
    stack.api = (await import('../../../support/serviceProcess.ts')).startService(
      'services/processes/tracingApiMain.ts',
      stack.env,
      `${stack.env.KAFKA_TOPIC_PREFIX}api-2`,
    );
    await waitFor(
      'the API to be ready again',
      async () => (await fetch(`${stack.url}/ready`).catch(() => null))?.ok === true,
      60_000,
      200,
    );
  });

  test('a 4 MB trace is split over several events and stored whole', async () => {
    const project = `split-${uuidv7()}`;
    const runs = inProject(makeTrace(39), project).map((r) => ({ ...r, inputs: { text: 'y'.repeat(100_000) } }));
    const res = await postBatch({ post: runs });
    expect(res.status).toBe(202);
    await waitFor(
      'every run to be stored',
      async () => (await storedRuns([runs[0]!.trace_id])) === runs.length,
      60_000,
      250,
    );
  });

  test('one run no message can hold (a 2 MB error) beside a small trace: 413 naming the run and the limit, nothing appended', async () => {
    const [root] = makeTrace(0);
    const small = makeTrace(1);
    const before = await endOffsets();
    const res = await postBatch({ post: [...small, { ...root!, error: 'e'.repeat(2 * 1024 * 1024) }] });
    expect(res.status).toBe(413);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(res.body.error).toBe('EVENT_TOO_LARGE');
    expect(res.body.detail).toMatch(
      new RegExp(
        `post of run ${root!.id} takes about \\d+ bytes.*more than the event log takes in one message \\(\\d+ bytes, from Kafka's max.message.bytes\\)`,
      ),
    );
    expect(await endOffsets()).toBe(before);
  });
});
