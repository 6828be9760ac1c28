// GET /runs/{run_id}/attachments/{name} against the shared stack: an attachment sent in a
// multipart batch downloads through the API with its bytes and type (the last one of a name
// when a patch sends it again), only in the run's own workspace, and an unknown run or name is a
// 404 that names it; the API document declares the answer as bytes of any type.
import { v7 as uuidv7 } from 'uuid';
import { beforeAll, describe, expect, test } from 'vitest';
import { api, createWorkspaces, tracingUrl, waitForRun, type Workspace } from '../../../support/tracingClient.ts';
import { makeTrace, multipartBody, postParts, type Part } from '../../../support/runFactory.ts';

let ws: Workspace;
let other: Workspace;
let runId: string;
/** Bytes that are not text: every byte value, so nothing on the way may decode or re-encode them. */
const image = Uint8Array.from({ length: 512 }, (_, i) => (i * 7 + 3) % 256);

async function multipart(parts: Part[]): Promise<void> {
  const { body, contentType } = multipartBody(parts);
  const res = await api('/runs/multipart', {
    method: 'POST',
    apiKey: ws.apiKey,
    body,
    headers: { 'content-type': contentType },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
}

const download = (path: string, as: Workspace = ws) =>
  fetch(tracingUrl() + path, { headers: { 'x-api-key': as.apiKey } });

beforeAll(async () => {
  [ws, other] = (await createWorkspaces(2)) as [Workspace, Workspace];
  const [root] = makeTrace(0);
  runId = root!.id;
  await multipart([
    ...postParts([root!]),
    { name: `attachment.${runId}.chart`, body: image, contentType: 'image/png' },
    { name: `attachment.${runId}.notes`, body: 'first notes', contentType: 'text/plain' },
  ]);
  // A patch sends `notes` again: the newer one is the run's.
  await multipart([
    ...postParts([{ ...root!, end_time: new Date().toISOString(), outputs: { ok: true } }], 'patch'),
    { name: `attachment.${runId}.notes`, body: 'second notes', contentType: 'text/markdown' },
  ]);
  await waitForRun(ws.apiKey, runId, (run) => run.end_time !== null && Object.keys(run.s3_urls ?? {}).length >= 2);
});

describe('GET /runs/{run_id}/attachments/{name}', () => {
  test('answers the bytes with their type, as a download', async () => {
    const res = await download(`/runs/${runId}/attachments/chart`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''chart");
    expect(res.headers.get('content-security-policy')).toBe('sandbox');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(image);
  });

  test('the latest attachment of a name, the same bytes as its presigned URL', async () => {
    const res = await download(`/runs/${runId}/attachments/notes`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/markdown');
    expect(await res.text()).toBe('second notes');
    const run = await api(`/runs/${runId}`, { apiKey: ws.apiKey });
    expect(await (await fetch(run.body.s3_urls['attachment.notes'].presigned_url)).text()).toBe('second notes');
  });

  test("another workspace's run is not found", async () => {
    const res = await download(`/runs/${runId}/attachments/chart`, other);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'NOT_FOUND', detail: `run ${runId} not found` });
  });

  test('an unknown name or run is a 404 naming it; a bad run id a 4xx', async () => {
    const name = await download(`/runs/${runId}/attachments/missing`);
    expect([name.status, ((await name.json()) as { detail: string }).detail]).toEqual([
      404,
      `attachment "missing" of run ${runId} not found`,
    ]);
    const unknown = uuidv7();
    const run = await download(`/runs/${unknown}/attachments/chart`);
    expect([run.status, ((await run.json()) as { detail: string }).detail]).toEqual([404, `run ${unknown} not found`]);
    const bad = await download('/runs/not-a-uuid/attachments/chart');
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
  });
});

describe('the OpenAPI document', () => {
  test('declares the download as bytes of any type', async () => {
    const doc = (await (await fetch(`${tracingUrl()}/docs/json`)).json()) as { paths: Record<string, any> };
    const op = doc.paths['/runs/{run_id}/attachments/{name}']?.get;
    expect(op?.responses?.['200']?.content).toEqual({ '*/*': { schema: { type: 'string', format: 'binary' } } });
    expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['200', '401', '404', '503']));
  });
});
