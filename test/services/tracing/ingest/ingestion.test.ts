// The ingestion routes against the real stack: every form the clients send ends up as one
// merged run readable through GET /runs/{id}.
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { beforeAll, describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { api, createWorkspaces, tracingUrl, waitForRun, type Workspace } from '../../../support/tracingClient.ts';
import { makeTrace, multipartBody, postParts } from '../../../support/runFactory.ts';
import { startService, waitFor, freePort } from '../../../support/serviceProcess.ts';

let ws: Workspace;
let other: Workspace;
beforeAll(async () => {
  [ws, other] = (await createWorkspaces(2)) as [Workspace, Workspace];
});

async function sendMultipart(apiKey: string, body: Buffer, contentType: string, headers: Record<string, string> = {}) {
  return api('/runs/multipart', { method: 'POST', apiKey, body, headers: { 'content-type': contentType, ...headers } });
}

describe('GET /info', () => {
  test.each(['/info', '/api/v1/info'])(
    '%s announces all six batch keys, zstd and gzip bodies and a semver',
    async (path) => {
      const res = await api(path);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.batch_ingest_config).sort()).toEqual(
        [
          'scale_down_nempty_trigger',
          'scale_up_nthreads_limit',
          'scale_up_qsize_trigger',
          'size_limit',
          'size_limit_bytes',
          'use_multipart_endpoint',
        ].sort(),
      );
      expect(res.body.instance_flags).toMatchObject({ zstd_compression_enabled: true, gzip_body_enabled: true });
      expect(res.body.version).toMatch(/^\d+\.\d+\.\d+$/);
    },
  );
});

describe('multipart ingestion', () => {
  test('JS-style parts (length parameter) then a patch in a later request merge into one run', async () => {
    const trace = makeTrace(3);
    const first = multipartBody(postParts(trace));
    expect((await sendMultipart(ws.apiKey, first.body, first.contentType)).status).toBe(202);
    const end = new Date().toISOString();
    const patches = trace.map((r) => ({ ...r, inputs: undefined, outputs: { answer: r.name }, end_time: end }));
    const second = multipartBody(postParts(patches, 'patch').map((p) => ({ ...p, length: 'header' as const })));
    expect((await sendMultipart(ws.apiKey, second.body, second.contentType)).status).toBe(202);
    for (const r of trace) {
      const run = await waitForRun(ws.apiKey, r.id, (x) => x.status === 'success');
      expect(run).toMatchObject({
        id: r.id,
        trace_id: trace[0]!.id,
        parent_run_id: r.parent_run_id,
        dotted_order: r.dotted_order,
        inputs: r.inputs,
        outputs: { answer: r.name },
      });
    }
  });

  test.each([
    ['gzip', (b: Buffer) => gzipSync(b)],
    ['zstd', (b: Buffer) => zstdCompressSync(b)],
  ])('whole-body %s', async (encoding, compress) => {
    const trace = makeTrace(2);
    const { body, contentType } = multipartBody(postParts(trace));
    expect((await sendMultipart(ws.apiKey, compress(body), contentType, { 'content-encoding': encoding })).status).toBe(
      202,
    );
    for (const r of trace) await waitForRun(ws.apiKey, r.id);
  });

  test('a chunked body with no Content-Length, streamed in small pieces', async () => {
    const trace = makeTrace(4);
    const { body, contentType } = multipartBody(postParts(trace));
    const pieces = Array.from({ length: Math.ceil(body.length / 100) }, (_, i) =>
      body.subarray(i * 100, (i + 1) * 100),
    );
    const res = await request(`${tracingUrl()}/api/v1/runs/multipart`, {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-api-key': ws.apiKey },
      body: Readable.from(pieces),
    });
    expect(res.statusCode).toBe(202);
    await res.body.dump();
    for (const r of trace) await waitForRun(ws.apiKey, r.id);
  });

  test('a patch that arrives before its post still merges', async () => {
    const [root] = makeTrace(0) as [ReturnType<typeof makeTrace>[number]];
    const end = new Date(Date.now() + 5).toISOString();
    const patch = multipartBody(
      postParts([{ ...root, inputs: undefined, name: 'root', outputs: { done: true }, end_time: end }], 'patch'),
    );
    expect((await sendMultipart(ws.apiKey, patch.body, patch.contentType)).status).toBe(202);
    const post = multipartBody(postParts([root]));
    expect((await sendMultipart(ws.apiKey, post.body, post.contentType)).status).toBe(202);
    const run = await waitForRun(ws.apiKey, root.id, (x) => x.status === 'success' && x.inputs?.question === 'q');
    expect(run.outputs).toEqual({ done: true });
  });

  test('re-sending an accepted batch is accepted again and stays one run', async () => {
    const trace = makeTrace(1);
    const { body, contentType } = multipartBody(postParts(trace));
    expect((await sendMultipart(ws.apiKey, body, contentType)).status).toBe(202);
    expect((await sendMultipart(ws.apiKey, body, contentType)).status).toBe(202);
    await waitForRun(ws.apiKey, trace[1]!.id);
    const { ClickHouseClient } = await import('../../../../platform/clickhouse/client.ts');
    const { sql } = await import('../../../../platform/clickhouse/sql.ts');
    const env = inject('tracingEnv');
    const ch = new ClickHouseClient({ url: env.CLICKHOUSE_URL!, database: env.CLICKHOUSE_DATABASE! });
    const [row] = await ch.query<{ n: string }>(
      sql`SELECT count() AS n FROM runs FINAL WHERE tenant_id = toUUID(${ws.id}) AND trace_id = toUUID(${trace[0]!.id})`,
    );
    expect(Number(row!.n)).toBe(2);
    await ch.close();
  });

  test('feedback parts are accepted; attachments and big inputs come back through object storage', async () => {
    const [root] = makeTrace(0) as [ReturnType<typeof makeTrace>[number]];
    const big = { text: 'x'.repeat(300 * 1024) };
    const parts = postParts([{ ...root, inputs: big }]);
    parts.push({ name: `attachment.${root.id}.notes`, body: 'hello attachment', contentType: 'text/plain' });
    parts.push({
      name: `feedback.${uuidv7()}`,
      body: JSON.stringify({ run_id: root.id, trace_id: root.id, key: 'correctness', score: 1, comment: 'good' }),
    });
    const { body, contentType } = multipartBody(parts);
    expect((await sendMultipart(ws.apiKey, body, contentType)).status).toBe(202);
    const run = await waitForRun(ws.apiKey, root.id);
    expect(run.inputs).toEqual(big);
    const attachment = run.s3_urls['attachment.notes'];
    expect(attachment.mime_type).toBe('text/plain');
    expect(await (await fetch(attachment.presigned_url)).text()).toBe('hello attachment');
  });
});

describe('POST /runs and PATCH /runs/{id}', () => {
  test('generates trace_id and dotted_order, from the parent posted a moment earlier through another replica', async () => {
    const port = await freePort();
    const replica = startService(
      'services/processes/tracingApiMain.ts',
      { ...inject('tracingEnv'), TRACING_PORT: String(port) },
      'replica-b',
    );
    try {
      await waitFor('replica B', async () => (await fetch(`http://127.0.0.1:${port}/ready`)).ok, 60_000, 200);
      const parentId = uuidv7();
      const childId = uuidv7().replaceAll('-', ''); // the basic example sends 32-hex ids
      expect(
        (
          await api('/runs', {
            method: 'POST',
            apiKey: ws.apiKey,
            json: { id: parentId, name: 'p', run_type: 'chain', inputs: {}, start_time: Date.now() },
          })
        ).status,
      ).toBe(202);
      const res = await fetch(`http://127.0.0.1:${port}/runs`, {
        method: 'POST',
        headers: { 'x-api-key': ws.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          id: childId,
          name: 'c',
          run_type: 'llm',
          parent_run_id: parentId,
          inputs: { a: 1 },
          start_time: new Date().toISOString().replace('Z', ''),
        }),
      });
      expect(res.status).toBe(202);
      // Python patches with null for every unset key and no trace_id: null means "not provided".
      const patch = await fetch(`http://127.0.0.1:${port}/runs/${childId}`, {
        method: 'PATCH',
        headers: { 'x-api-key': ws.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          id: childId,
          name: null,
          run_type: null,
          trace_id: null,
          parent_run_id: null,
          outputs: { b: 2 },
          end_time: new Date().toISOString().replace('Z', '+00:00'),
        }),
      });
      expect(patch.status).toBe(202);
      const parent = await waitForRun(ws.apiKey, parentId);
      const hyphenated = `${childId.slice(0, 8)}-${childId.slice(8, 12)}-${childId.slice(12, 16)}-${childId.slice(16, 20)}-${childId.slice(20)}`;
      const child = await waitForRun(ws.apiKey, hyphenated, (x) => x.status === 'success');
      expect(parent.trace_id).toBe(parentId);
      expect(child.trace_id).toBe(parentId);
      expect(child.dotted_order.startsWith(parent.dotted_order + '.')).toBe(true);
      expect(child.dotted_order.endsWith(hyphenated)).toBe(true);
      expect(child).toMatchObject({
        name: 'c',
        run_type: 'llm',
        parent_run_id: parentId,
        outputs: { b: 2 },
        inputs: { a: 1 },
      });
    } finally {
      await replica.stop();
    }
  });

  test('projects: session_name creates the project on first use, its id then works, neither means "default"', async () => {
    const named = uuidv7();
    expect(
      (
        await api('/runs', {
          method: 'POST',
          apiKey: ws.apiKey,
          json: { id: named, name: 'n', run_type: 'tool', session_name: 'my-project' },
        })
      ).status,
    ).toBe(202);
    const run = await waitForRun(ws.apiKey, named);
    const byId = uuidv7();
    expect(
      (
        await api('/runs', {
          method: 'POST',
          apiKey: ws.apiKey,
          json: { id: byId, name: 'n', run_type: 'tool', session_id: run.session_id },
        })
      ).status,
    ).toBe(202);
    expect((await waitForRun(ws.apiKey, byId)).session_id).toBe(run.session_id);
    const plain = uuidv7();
    expect(
      (await api('/runs', { method: 'POST', apiKey: ws.apiKey, json: { id: plain, name: 'n', run_type: 'tool' } }))
        .status,
    ).toBe(202);
    const defaultRun = await waitForRun(ws.apiKey, plain);
    expect(defaultRun.session_id).not.toBe(run.session_id);
  });

  test("a workspace cannot read another workspace's run", async () => {
    const id = uuidv7();
    await api('/runs', { method: 'POST', apiKey: ws.apiKey, json: { id, name: 'secret', run_type: 'chain' } });
    await waitForRun(ws.apiKey, id);
    expect((await api(`/runs/${id}`, { apiKey: other.apiKey })).status).toBe(404);
  });
});
