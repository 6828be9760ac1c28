// Issue 19, item 7: large inputs at the default limits are taken whole and read back whole, and
// one byte too many is a clear 4xx that appends nothing. A stack of its own (its own topics, so
// that "nothing appended" is its topics' end offsets not moving): a /runs/batch of nearly 20 MiB
// (INGEST_SIZE_LIMIT_BYTES) and one just over it; a 5 MB field (kept in object storage, read back
// equal); request headers larger than the server takes. Malformed multipart, wrong content
// encodings, deep JSON, invalid UUIDs and dotted orders: badInput.test.ts; a trace of 10,000
// runs through /runs/multipart, its tree read back whole: test/e2e/explorer/trace.test.ts.
import { request } from 'undici';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { startTracingStack, topicEndOffsets, type TracingStack } from '../../../support/tracingStack.ts';
import { makeTrace } from '../../../support/runFactory.ts';
import { waitFor } from '../../../support/serviceProcess.ts';

const LIMIT = 20 * 1024 * 1024; // the default INGEST_SIZE_LIMIT_BYTES
let stack: TracingStack;
let offsets: ReturnType<typeof topicEndOffsets>;

beforeAll(async () => {
  stack = await startTracingStack('largeinput');
  offsets = topicEndOffsets(stack);
});
afterAll(async () => {
  await offsets?.close();
  await stack?.stop();
});

async function post(path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await request(stack.url + path, { method: 'POST', headers: { 'x-api-key': stack.apiKey, 'content-type': 'application/json', ...headers }, body });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}

const readRun = async (id: string) => {
  const res = await request(`${stack.url}/runs/${id}`, { headers: { 'x-api-key': stack.apiKey } });
  return { status: res.statusCode, body: res.statusCode === 200 ? ((await res.body.json()) as any) : await res.body.text() };
};

/** A /runs/batch body of `traces` traces of 4 runs, each run's input `blob` of `blobBytes` characters. */
function batchOf(traces: number, blobBytes: number): { body: string; ids: string[] } {
  const runs = Array.from({ length: traces }, () => makeTrace(3)).flat().map((r) => ({ ...r, inputs: { blob: 'b'.repeat(blobBytes) } }));
  return { body: JSON.stringify({ post: runs }), ids: runs.map((r) => r.id) };
}

test('a /runs/batch of nearly 20 MiB is taken whole and read back whole; one just over the limit is a 413 that appends nothing', { timeout: 180_000 }, async () => {
  // 50 traces of 4 runs, 100 KB of input each (under PAYLOAD_OFFLOAD_BYTES: kept inline, in Kafka).
  const near = batchOf(50, 100_000);
  expect(near.body.length).toBeGreaterThan(LIMIT - 1024 * 1024);
  expect(near.body.length).toBeLessThan(LIMIT);
  expect((await post('/runs/batch', near.body)).status).toBe(202);
  for (const id of [near.ids[0]!, near.ids[99]!, near.ids.at(-1)!]) {
    const run = await waitFor(`run ${id}`, async () => {
      const r = await readRun(id);
      return r.status === 200 ? r.body : null;
    }, 60_000, 250);
    expect(run.inputs.blob).toHaveLength(100_000);
  }
  // Every run of it, through the filter language: all 200, in two pages.
  const found = new Set<string>();
  let cursor: string | null | undefined;
  for (let pageNo = 0; pageNo < 3 && (pageNo === 0 || cursor); pageNo++) {
    const query = await request(`${stack.url}/runs/query`, {
      method: 'POST',
      headers: { 'x-api-key': stack.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ id: near.ids, limit: 100, ...(cursor ? { cursor } : {}) }),
    });
    expect(query.statusCode).toBe(200);
    const page = (await query.body.json()) as { runs: Array<{ id: string }>; cursors: { next: string | null } };
    for (const run of page.runs) found.add(run.id);
    cursor = page.cursors.next;
  }
  expect(found.size).toBe(200);

  const over = batchOf(53, 100_000);
  expect(over.body.length).toBeGreaterThan(LIMIT);
  const before = await offsets.snapshot();
  const refused = await post('/runs/batch', over.body);
  expect(refused.status).toBe(413);
  expect(refused.body.detail).toMatch(/exceeds the limit of 20971520 bytes/);
  expect(await offsets.snapshot()).toBe(before);
});

test('a 5 MB field is taken, kept in object storage, and read back equal', { timeout: 120_000 }, async () => {
  const [root] = makeTrace(0);
  const text = Array.from({ length: 5 * 1024 * 1024 / 64 }, (_, i) => `${String(i).padStart(10, '0')}-${'x'.repeat(53)}`).join('');
  expect(text.length).toBe(5 * 1024 * 1024);
  expect((await post('/runs', JSON.stringify({ ...root, inputs: { document: text } }))).status).toBe(202);
  const run = await waitFor('the run with a 5 MB field', async () => {
    const r = await readRun(root!.id);
    return r.status === 200 ? r.body : null;
  }, 60_000, 250);
  expect(run.inputs.document.length).toBe(text.length);
  expect(run.inputs.document === text).toBe(true);
});

test('request headers larger than the server takes: 431, and nothing appended', async () => {
  const before = await offsets.snapshot();
  const res = await request(`${stack.url}/runs`, {
    method: 'POST',
    headers: { 'x-api-key': stack.apiKey, 'content-type': 'application/json', 'x-padding': 'p'.repeat(64 * 1024) },
    body: JSON.stringify({ id: uuidv7(), name: 'r', run_type: 'chain' }),
  });
  await res.body.text();
  expect(res.statusCode).toBe(431);
  expect(await offsets.snapshot()).toBe(before);
});
